#!/usr/bin/env bash
# Forecast state benchmark: commit time of 1,000-write batches (fresh keys, five runs) and
# reads per second of /api/app-state/forecasting/docs pages of 200, beside GET /v1/me and a
# bare hyper hello-world in the same run. Usage: bench/forecast.sh [duration-seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-16}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/partner-platform/target}"
command -v wrk >/dev/null || { echo "wrk is needed: apt-get install wrk" >&2; exit 1; }
cargo build --release -q -p partner-platform -p hello-hyper
BIN="$CARGO_TARGET_DIR/release"
OUT=bench/out; mkdir -p "$OUT"
WORK=$(mktemp -d)
cleanup() { kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
PARTNER_LOG=warn "$BIN/partner-platform" server --dev --data-dir "$WORK/dev" --listen 127.0.0.1:18093 > /dev/null 2>&1 &
for _ in $(seq 100); do [ -f "$WORK/dev/dev.env" ] && curl -sf http://127.0.0.1:18093/health >/dev/null && break; sleep 0.1; done
BASE=http://127.0.0.1:18093
CRED=$("$BIN/partner-platform" admin --data-dir "$WORK/dev" credential create --tenant demo --scopes corrections:write,account:read --label planner --json)
ID=$(echo "$CRED" | sed -nE 's/.*"client_id": "([^"]+)".*/\1/p')
SECRET=$(echo "$CRED" | sed -nE 's/.*"client_secret": "([^"]+)".*/\1/p')
TOKEN=$(curl -sf -u "$ID:$SECRET" -d grant_type=client_credentials "$BASE/oauth/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')

commits=()
for run in 1 2 3 4 5; do
  python3 - "$run" > "$WORK/batch.json" <<'PY'
import json, sys
run = int(sys.argv[1])
writes = [{"key": f"fb:override:src:demo:1:{1000 + run * 100 + i // 12}-{i % 12 + 1:02d}-01", "expected_version": 0,
           "doc": {"sales": {"mode": "replace", "value": i, "sourceObserved": i - 1}, "status": "draft", "note": "bench"}} for i in range(1000)]
print(json.dumps({"writes": writes, "reason": f"bench run {run}"}))
PY
  t=$(curl -sf -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
      --data-binary @"$WORK/batch.json" "$BASE/api/app-state/forecasting/batch")
  commits+=("$(awk -v t="$t" 'BEGIN { printf "%.1f", t * 1000 }')")
done

run() { # name url
  wrk -t2 -c"$CONN" -d"${DUR}s" --latency -H "Authorization: Bearer $TOKEN" "$2" > "$OUT/$1.txt"
  printf '| %s | %s | %s | %s | %s |\n' "$1" "$(awk '/Requests\/sec/ {print $2}' "$OUT/$1.txt")" \
    "$(awk '$1=="50%" {print $2}' "$OUT/$1.txt")" "$(awk '$1=="99%" {print $2}' "$OUT/$1.txt")" \
    "$(awk '/Non-2xx/ {print $5}' "$OUT/$1.txt" | grep . || echo 0)"
}
{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr)"
  echo
  echo "1,000-write batch (new keys), end-to-end request time in ms, five runs: ${commits[*]}"
  echo
  echo "wrk -t2 -c$CONN -d${DUR}s; docs pages of 200 month rows (5,000 stored)"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  run hello-hyper http://127.0.0.1:18090/
  run v1-me "$BASE/v1/me"
  run forecast-docs "$BASE/api/app-state/forecasting/docs?prefix=fb:override:src:demo:1&limit=200"
} | tee "$OUT/forecast-latest.md"
