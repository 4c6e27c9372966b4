#!/usr/bin/env bash
# Large-world benchmark: generation time and size of the `large` demo world, then p50/p99 of
# /v1/ads/campaign-performance and /v1/retail/sales on it, beside /v1/me and a bare hyper
# hello-world in the same run. Usage: bench/world.sh [duration-seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-16}"
. bench/lib.sh
PP() { "$BIN/partner-platform" "$@"; }

start=$(date +%s%N)
PP world generate --scale large --seed 1 --today 2026-11-22 --out "$WORK/world" > "$OUT/world-generate.txt"
gen_ms=$(( ($(date +%s%N) - start) / 1000000 ))
size_mib=$(( $(stat -c %s "$WORK/world/warehouse.sqlite") / 1048576 ))
items=$(python3 -c "import sqlite3;print(sqlite3.connect('$WORK/world/warehouse.sqlite').execute('select count(*) from catalog_item').fetchone()[0])")
rows=$(python3 -c "import sqlite3;print(sqlite3.connect('$WORK/world/warehouse.sqlite').execute('select count(*) from spapi_sales_and_traffic_by_asin').fetchone()[0])")

PP admin --data-dir "$WORK/state" tenant create bench --warehouse "$WORK/world/warehouse.sqlite" > /dev/null
CRED=$(PP admin --data-dir "$WORK/state" credential create --tenant bench --label bench --json)
ID=$(echo "$CRED" | sed -nE 's/.*"client_id": "([^"]+)".*/\1/p')
SECRET=$(echo "$CRED" | sed -nE 's/.*"client_secret": "([^"]+)".*/\1/p')
"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
PARTNER_LOG=warn PP server --data-dir "$WORK/state" --listen 127.0.0.1:18092 --public-url http://127.0.0.1:18092 > /dev/null 2>&1 &
BASE=http://127.0.0.1:18092
wait_up "$BASE/health"
TOKEN=$(mint "$BASE" "$ID" "$SECRET")

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr)"
  echo
  echo "large world: ${items} items, ${rows} sales-and-traffic rows, generated in $((gen_ms / 1000)).$(( (gen_ms % 1000) / 100 )) s, ${size_mib} MiB"
  echo
  echo "wrk -t2 -c$CONN -d${DUR}s, default 30-day windows"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  wrk_row hello-hyper http://127.0.0.1:18090/
  wrk_row v1-me "$BASE/v1/me" -H "Authorization: Bearer $TOKEN"
  wrk_row campaign-performance "$BASE/v1/ads/campaign-performance?account_id=bench:1" -H "Authorization: Bearer $TOKEN"
  wrk_row retail-sales "$BASE/v1/retail/sales?account_id=bench:1" -H "Authorization: Bearer $TOKEN"
} | tee "$OUT/world-latest.md"
