#!/usr/bin/env bash
# Warehouse engines benchmark (issue 14): POST /api/query on the same small world held in the
# embedded SQLite file, in PostgreSQL and in MariaDB, one gateway serving all three tenants, in
# one run beside a bare hyper hello-world: a point lookup and a month's aggregate over the
# daily sales table.
# Usage: bench/warehouses.sh [duration-seconds] [connections]   (servers at $PP_TEST_POSTGRES
# and $PP_TEST_MYSQL; a database is made and dropped on each)
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-32}"
. bench/lib.sh

PG_ADMIN="${PP_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}"
MY_ADMIN="${PP_TEST_MYSQL:-mysql://root@127.0.0.1:3306/test}"
DB="pp_bench_wh_$$"
PG_URL="${PG_ADMIN%/*}/$DB"
MY_URL="${MY_ADMIN%/*}/$DB"
psql "$PG_ADMIN" -qc "CREATE DATABASE $DB"
mariadb -h 127.0.0.1 -u root -e "CREATE DATABASE $DB"
trap 'cleanup; psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"; mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS $DB"' EXIT

"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
TODAY=$(date -u +%Y-%m-%d)
PARTNER_LOG=warn "$BIN/partner-platform" server --dev --data-dir "$WORK/d" --listen 127.0.0.1:18140 > "$WORK/d.log" 2>&1 &
wait_up http://127.0.0.1:18140/health 120
# the dev world's seed and day, loaded into both servers
"$BIN/partner-platform" world generate --scale small --seed 20261122 --today "$TODAY" --out "$PG_URL" > /dev/null
"$BIN/partner-platform" world generate --scale small --seed 20261122 --today "$TODAY" --out "$MY_URL" > /dev/null
token_for() { # tenant [warehouse-url]
  local extra=() cred id secret
  [ -n "${2:-}" ] && { "$BIN/partner-platform" admin --data-dir "$WORK/d" tenant create "$1" --warehouse "$2" > /dev/null 2>&1; }
  cred=$("$BIN/partner-platform" admin --data-dir "$WORK/d" credential create --tenant "$1" --label bench --json)
  id=$(echo "$cred" | sed -nE 's/.*"client_id": "([^"]+)".*/\1/p')
  secret=$(echo "$cred" | sed -nE 's/.*"client_secret": "([^"]+)".*/\1/p')
  mint http://127.0.0.1:18140 "$id" "$secret"
}
T_SQLITE=$(token_for demo)
T_PG=$(token_for onpg "$PG_URL")
T_MY=$(token_for onmaria "${MY_URL/mysql:/mariadb:}")

query_lua "$WORK/point.lua"
MONTH_START=$(date -u -d "$TODAY -40 days" +%Y-%m-01)
MONTH_END=$(date -u -d "$MONTH_START +1 month -1 day" +%Y-%m-%d)
cat > "$WORK/month.lua" <<LUA
wrk.method = "POST"
wrk.headers["content-type"] = "application/json"
wrk.body = '{"sql": "SELECT ChildASIN AS asin, SUM(UnitsOrdered) AS units, SUM(OrderedProductSales) AS sales FROM spapi_sales_and_traffic_by_asin WHERE SellerID = ? AND Date BETWEEN ? AND ? GROUP BY ChildASIN ORDER BY units DESC LIMIT 20", "params": [1, "$MONTH_START", "$MONTH_END"]}'
LUA

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); PostgreSQL $(psql "$PG_ADMIN" -Atc 'SHOW server_version' | cut -d' ' -f1) and $(mariadb -h 127.0.0.1 -u root -Nse 'SELECT VERSION()') on the same machine"
  echo "wrk -t2 -c$CONN -d${DUR}s; the small world (seed 20261122, the dev world) in each engine; one gateway, SQLite state"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  wrk_row hello-hyper http://127.0.0.1:18090/
  for q in point month; do
    wrk_row "query-$q-sqlite" http://127.0.0.1:18140/api/query -H "Authorization: Bearer $T_SQLITE" -s "$WORK/$q.lua"
    wrk_row "query-$q-postgres" http://127.0.0.1:18140/api/query -H "Authorization: Bearer $T_PG" -s "$WORK/$q.lua"
    wrk_row "query-$q-mariadb" http://127.0.0.1:18140/api/query -H "Authorization: Bearer $T_MY" -s "$WORK/$q.lua"
  done
} | tee "$OUT/warehouses-latest.md"
