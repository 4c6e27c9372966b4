#!/usr/bin/env bash
# Forecast state benchmark: commit time of 1,000-write batches (fresh keys, five runs) and
# reads per second of /api/app-state/forecasting/docs pages of 200, beside GET /v1/me and a
# bare hyper hello-world in the same run. Usage: bench/forecast.sh [duration-seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-16}"
. bench/lib.sh

"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
PARTNER_LOG=warn "$BIN/partner-platform" server --dev --data-dir "$WORK/dev" --listen 127.0.0.1:18093 > /dev/null 2>&1 &
BASE=http://127.0.0.1:18093
wait_up "$BASE/health"
CRED=$("$BIN/partner-platform" admin --data-dir "$WORK/dev" credential create --tenant demo --scopes corrections:write,account:read --label planner --json)
ID=$(echo "$CRED" | sed -nE 's/.*"client_id": "([^"]+)".*/\1/p')
SECRET=$(echo "$CRED" | sed -nE 's/.*"client_secret": "([^"]+)".*/\1/p')
TOKEN=$(mint "$BASE" "$ID" "$SECRET")

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

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr)"
  echo
  echo "1,000-write batch (new keys), end-to-end request time in ms, five runs: ${commits[*]}"
  echo
  echo "wrk -t2 -c$CONN -d${DUR}s; docs pages of 200 month rows (5,000 stored)"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  wrk_row hello-hyper http://127.0.0.1:18090/
  wrk_row v1-me "$BASE/v1/me" -H "Authorization: Bearer $TOKEN"
  wrk_row forecast-docs "$BASE/api/app-state/forecasting/docs?prefix=fb:override:src:demo:1&limit=200" -H "Authorization: Bearer $TOKEN"
} | tee "$OUT/forecast-latest.md"
