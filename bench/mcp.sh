#!/usr/bin/env bash
# MCP benchmark: legacy_query tool calls over Streamable HTTP (2026-07-28 stateless and a
# session-era session) beside the same SQL on POST /api/query and a bare hyper hello-world,
# driven by wrk in one run; then the gateway's resident memory with N idle legacy SSE streams.
# Usage: bench/mcp.sh [duration-seconds] [connections] [sse-streams]   (needs wrk)
# With BEFORE=<path to another partner-platform binary> (an earlier build), that binary's dev
# server answers the same three calls in the same run too, for a before/after table.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-32}"
STREAMS="${3:-1000}"
. bench/lib.sh

"$BIN/hello-hyper" 127.0.0.1:18090 > "$WORK/hello.log" 2>&1 &
HELLO_PID=$!
PARTNER_LOG=warn "$BIN/partner-platform" server --dev --data-dir "$WORK/dev" --listen 127.0.0.1:18092 > "$WORK/dev.log" 2>&1 &
SERVER=$!
wait_up http://127.0.0.1:18092/health
# shellcheck disable=SC1091
source "$WORK/dev/dev.env"
TOKEN=$(mint "$PP_BASE_URL" "$PP_CLIENT_ID" "$PP_CLIENT_SECRET")

# lua_files SUFFIX BASE_URL TOKEN: the three request scripts for one server (a session opened
# for the session-era one), checked with one call.
lua_files() {
  local sfx=$1 base=$2 token=$3 session
  query_lua "$WORK/query$sfx.lua"
  cat > "$WORK/modern$sfx.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["accept"] = "application/json, text/event-stream"
wrk.headers["mcp-protocol-version"] = "2026-07-28"
wrk.headers["mcp-method"] = "tools/call"
wrk.headers["mcp-name"] = "legacy_query"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"legacy_query","arguments":{"sql":"$QUERY_SQL","params":[1]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
LUA
  session=$(curl -sf -D - -o /dev/null "$base/mcp" -H "Authorization: Bearer $token" \
    -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}' \
    | awk 'tolower($1)=="mcp-session-id:" {print $2}' | tr -d '\r')
  cat > "$WORK/session$sfx.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.headers["accept"] = "application/json, text/event-stream"
wrk.headers["mcp-session-id"] = "$session"
wrk.headers["mcp-protocol-version"] = "2025-11-25"
wrk.body = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"legacy_query","arguments":{"sql":"$QUERY_SQL","params":[1]}}}'
LUA
  curl -sf "$base/mcp" -H "Authorization: Bearer $token" -H 'content-type: application/json' \
    -H "mcp-session-id: $session" -H 'mcp-protocol-version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"legacy_query","arguments":{"sql":"SELECT 1 AS one"}}}' \
    | grep -q '"isError":false' || { echo "legacy_query failed on $base" >&2; exit 1; }
}
lua_files "" "$PP_BASE_URL" "$TOKEN"
if [ -n "${BEFORE:-}" ]; then
  PARTNER_LOG=warn "$BEFORE" server --dev --data-dir "$WORK/before" --listen 127.0.0.1:18094 > "$WORK/before.log" 2>&1 &
  BEFORE_PID=$!
  wait_up http://127.0.0.1:18094/health
  BEFORE_URL=$(. "$WORK/before/dev.env"; echo "$PP_BASE_URL")
  BEFORE_TOKEN=$(. "$WORK/before/dev.env"; mint "$PP_BASE_URL" "$PP_CLIENT_ID" "$PP_CLIENT_SECRET")
  lua_files -before "$BEFORE_URL" "$BEFORE_TOKEN"
fi

rss() { awk '/VmRSS/ {print $2}' "/proc/$SERVER/status"; }

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
  echo "wrk -t2 -c$CONN -d${DUR}s, server and wrk on the same machine"
  echo
  cpu_header
  cpu_row hello-hyper "$HELLO_PID" http://127.0.0.1:18090/
  cpu_row api-query "$SERVER" "$PP_BASE_URL/api/query" -H "Authorization: Bearer $TOKEN" -s "$WORK/query.lua"
  cpu_row mcp-2026-07-28 "$SERVER" "$PP_BASE_URL/mcp" -H "Authorization: Bearer $TOKEN" -s "$WORK/modern.lua"
  cpu_row mcp-session "$SERVER" "$PP_BASE_URL/mcp" -H "Authorization: Bearer $TOKEN" -s "$WORK/session.lua"
  if [ -n "${BEFORE:-}" ]; then
    for t in query:api/query modern:mcp session:mcp; do
      name=${t%%:*}; path=${t#*:}
      cpu_row "$name-before" "$BEFORE_PID" "$BEFORE_URL/$path" -H "Authorization: Bearer $BEFORE_TOKEN" -s "$WORK/$name-before.lua"
    done
  fi
  echo
  BEFORE=$(rss)
  python3 bench/sse_idle.py 127.0.0.1 18092 "$TOKEN" "$STREAMS" 8 > "$WORK/sse.out" &
  HOLDER=$!
  for _ in $(seq 300); do grep -q '^open' "$WORK/sse.out" 2>/dev/null && break; sleep 0.1; done
  sleep 2
  DURING=$(rss)
  wait $HOLDER
  echo "| idle legacy SSE streams | server RSS before | with the streams open | per stream |"
  echo "|---|---|---|---|"
  awk -v n="$(awk '{print $2}' "$WORK/sse.out")" -v b="$BEFORE" -v d="$DURING" \
    'BEGIN { printf "| %d | %.1f MiB | %.1f MiB | %.1f KiB |\n", n, b/1024, d/1024, (d-b)/n }' 
} | tee "$OUT/mcp-latest.md"
