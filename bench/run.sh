#!/usr/bin/env bash
# Request benchmark: the gateway's GET /v1/me and a small POST /api/query on the dev server,
# beside a bare hyper hello-world, driven by wrk from a second process in one run.
# Usage: bench/run.sh [duration-seconds] [connections]      (needs wrk: apt-get install wrk)
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-32}"
THREADS=2
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/partner-platform/target}"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }

cargo build --release -q -p partner-platform -p hello-hyper
BIN="$CARGO_TARGET_DIR/release"
OUT=bench/out; mkdir -p "$OUT"
WORK=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$BIN/hello-hyper" 127.0.0.1:18090 > "$WORK/hello.log" 2>&1 &
PARTNER_LOG=warn "$BIN/partner-platform" server --dev --data-dir "$WORK/dev" --listen 127.0.0.1:18091 > "$WORK/dev.log" 2>&1 &
for _ in $(seq 100); do [ -f "$WORK/dev/dev.env" ] && curl -sf http://127.0.0.1:18091/health >/dev/null && break; sleep 0.1; done
# shellcheck disable=SC1091
source "$WORK/dev/dev.env"
TOKEN=$(curl -sf -u "$PP_CLIENT_ID:$PP_CLIENT_SECRET" -d grant_type=client_credentials "$PP_TOKEN_URL" \
  | sed -E 's/.*"access_token":"([^"]+)".*/\1/')

cat > "$WORK/query.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"sql": "SELECT ID, MarketplaceSellerID, Marketplace FROM seller WHERE ID = ?", "params": [1]}'
LUA

run() { # name url [wrk args…]
  local name=$1 url=$2; shift 2
  wrk -t"$THREADS" -c"$CONN" -d"${DUR}s" --latency "$@" "$url" > "$OUT/$name.txt"
  local rps p50 p99 non2xx
  rps=$(awk '/Requests\/sec/ {print $2}' "$OUT/$name.txt")
  p50=$(awk '$1=="50%" {print $2}' "$OUT/$name.txt")
  p99=$(awk '$1=="99%" {print $2}' "$OUT/$name.txt")
  non2xx=$(awk '/Non-2xx/ {print $5}' "$OUT/$name.txt")
  printf '| %s | %s | %s | %s | %s |\n' "$name" "$rps" "$p50" "$p99" "${non2xx:-0}"
}

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
  echo "wrk -t$THREADS -c$CONN -d${DUR}s, server and wrk on the same machine"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  run hello-hyper http://127.0.0.1:18090/
  run v1-me "$PP_BASE_URL/v1/me" -H "Authorization: Bearer $TOKEN"
  run api-query "$PP_BASE_URL/api/query" -H "Authorization: Bearer $TOKEN" -s "$WORK/query.lua"
} | tee "$OUT/latest.md"
