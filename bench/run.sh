#!/usr/bin/env bash
# Request benchmark: the gateway's GET /v1/me and a small POST /api/query on the dev server,
# beside a bare hyper hello-world and Datasette answering the same SQL on the same warehouse
# file (the reference for SQL over HTTP), driven by wrk from a second process in one run.
# Two floors sit between hyper and the gateway: hyper sending the gateway's own two answers
# (what those bytes alone cost), and the same answers through an axum router served as the
# gateway serves it (what the stack alone costs, doing none of the gateway's work).
# Usage: bench/run.sh [duration-seconds] [connections]      (needs wrk: apt-get install wrk)
# With BEFORE=<path to another partner-platform binary> (an earlier build), that binary's dev
# server is driven in the same run too, for a before/after table.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-32}"
. bench/lib.sh

"$BIN/hello-hyper" 127.0.0.1:18090 > "$WORK/hello.log" 2>&1 &
HELLO_PID=$!
PARTNER_LOG=warn "$BIN/partner-platform" server --dev --data-dir "$WORK/dev" --listen 127.0.0.1:18091 > "$WORK/dev.log" 2>&1 &
GW_PID=$!
wait_up http://127.0.0.1:18091/health
# shellcheck disable=SC1091
source "$WORK/dev/dev.env"
TOKEN=$(mint "$PP_BASE_URL" "$PP_CLIENT_ID" "$PP_CLIENT_SECRET")
if [ -n "${BEFORE:-}" ]; then
  PARTNER_LOG=warn "$BEFORE" server --dev --data-dir "$WORK/before" --listen 127.0.0.1:18093 > "$WORK/before.log" 2>&1 &
  BEFORE_PID=$!
  wait_up http://127.0.0.1:18093/health
  BEFORE_URL=$(. "$WORK/before/dev.env"; echo "$PP_BASE_URL")
  BEFORE_TOKEN=$(. "$WORK/before/dev.env"; mint "$PP_BASE_URL" "$PP_CLIENT_ID" "$PP_CLIENT_SECRET")
fi

# Datasette (pinned, in its own venv beside the build cache), serving the dev warehouse read-only
DATASETTE_VERSION=0.65.5
DS_VENV="$HOME/.cache/partner-platform/datasette-venv"
if ! "$DS_VENV/bin/python" -c "import importlib.metadata as m; assert m.version('datasette') == '$DATASETTE_VERSION'" 2>/dev/null; then
  rm -rf "$DS_VENV" && python3 -m venv "$DS_VENV"
  "$DS_VENV/bin/pip" install --quiet --disable-pip-version-check "datasette==$DATASETTE_VERSION"
fi
"$DS_VENV/bin/datasette" serve --immutable "$WORK/dev/tenants/demo/warehouse.sqlite" -p 18095 > "$WORK/datasette.log" 2>&1 &
DS_PID=$!
wait_up http://127.0.0.1:18095/-/versions.json 30
DS_QUERY='http://127.0.0.1:18095/warehouse.json?sql=SELECT+ID%2C+MarketplaceSellerID%2C+Marketplace+FROM+seller+WHERE+ID+%3D+%3Aid&id=1&_shape=array'

query_lua "$WORK/query.lua"

# hyper again, answering with the gateway's own answers (headers and body, read once here):
# the fastest any server could send those bytes.
answers "$PP_BASE_URL" "$TOKEN"
"$BIN/hello-hyper" 127.0.0.1:18096 "$WORK/me.http" > "$WORK/hello-me.log" 2>&1 &
ME_PID=$!
"$BIN/hello-hyper" 127.0.0.1:18097 "$WORK/query.http" > "$WORK/hello-query.log" 2>&1 &
QUERY_PID=$!
# and the same answers through an axum router served as the gateway serves it: the stack
# alone, doing none of the gateway's work
"$BIN/hello-hyper" 127.0.0.1:18098 "$WORK/me.http" --axum > "$WORK/axum-me.log" 2>&1 &
AXUM_ME_PID=$!
"$BIN/hello-hyper" 127.0.0.1:18099 "$WORK/query.http" --axum > "$WORK/axum-query.log" 2>&1 &
AXUM_QUERY_PID=$!
wait_up http://127.0.0.1:18096/
wait_up http://127.0.0.1:18097/
wait_up http://127.0.0.1:18098/v1/me
wait_up http://127.0.0.1:18099/v1/me

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
  echo "wrk -t2 -c$CONN -d${DUR}s, server and wrk on the same machine"
  echo
  cpu_header
  cpu_row hello-hyper "$HELLO_PID" http://127.0.0.1:18090/
  cpu_row hyper-me-answer "$ME_PID" http://127.0.0.1:18096/v1/me -H "Authorization: Bearer $TOKEN"
  cpu_row hyper-query-answer "$QUERY_PID" http://127.0.0.1:18097/api/query -H "Authorization: Bearer $TOKEN" -s "$WORK/query.lua"
  cpu_row axum-me-answer "$AXUM_ME_PID" http://127.0.0.1:18098/v1/me -H "Authorization: Bearer $TOKEN"
  cpu_row axum-query-answer "$AXUM_QUERY_PID" http://127.0.0.1:18099/api/query -H "Authorization: Bearer $TOKEN" -s "$WORK/query.lua"
  cpu_row v1-me "$GW_PID" "$PP_BASE_URL/v1/me" -H "Authorization: Bearer $TOKEN"
  cpu_row api-query "$GW_PID" "$PP_BASE_URL/api/query" -H "Authorization: Bearer $TOKEN" -s "$WORK/query.lua"
  cpu_row datasette-query "$DS_PID" "$DS_QUERY"
  if [ -n "${BEFORE:-}" ]; then
    cpu_row v1-me-before "$BEFORE_PID" "$BEFORE_URL/v1/me" -H "Authorization: Bearer $BEFORE_TOKEN"
    cpu_row api-query-before "$BEFORE_PID" "$BEFORE_URL/api/query" -H "Authorization: Bearer $BEFORE_TOKEN" -s "$WORK/query.lua"
  fi
} | tee "$OUT/latest.md"
