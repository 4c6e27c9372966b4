#!/usr/bin/env bash
# State store benchmark (issue 14): the same dev world served with its state on the embedded
# SQLite store and on PostgreSQL, in one run, beside a bare hyper hello-world: GET /v1/me (a
# bearer lookup per request), POST /api/query, and the end-to-end time of a 1,000-write
# forecast batch; then two instances on one PostgreSQL state driven at once (one wrk each),
# against one instance alone, for throughput scaling.
# Usage: bench/state.sh [duration-seconds] [connections]     (PostgreSQL at $PP_TEST_POSTGRES,
# default postgres://postgres@127.0.0.1:5432/postgres; a database is made and dropped)
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-32}"
. bench/lib.sh

ADMIN_URL="${PP_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}"
DB="pp_bench_state_$$"
PG_URL="${ADMIN_URL%/*}/$DB"
psql "$ADMIN_URL" -qc "CREATE DATABASE $DB"
trap 'cleanup; psql "$ADMIN_URL" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"' EXIT

"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
serve() { # name port [state-url]
  local extra=()
  [ -n "${3:-}" ] && extra=(--state-url "$3")
  PARTNER_LOG=warn "$BIN/partner-platform" server --dev --data-dir "$WORK/$1" --listen "127.0.0.1:$2" "${extra[@]}" > "$WORK/$1.log" 2>&1 &
  wait_up "http://127.0.0.1:$2/health" 120
}
serve sqlite 18110
serve pg 18120 "$PG_URL"
token_of() { (. "$WORK/$1/dev.env"; mint "$PP_BASE_URL" "$PP_CLIENT_ID" "$PP_CLIENT_SECRET"); }
T_SQLITE=$(token_of sqlite)
T_PG=$(token_of pg)
writer() { # data-dir [state-url] -> a token with corrections:write on the demo tenant
  local extra=()
  [ -n "${2:-}" ] && extra=(--state-url "$2")
  local cred id secret
  cred=$("$BIN/partner-platform" admin --data-dir "$WORK/$1" "${extra[@]}" credential create --tenant demo --scopes corrections:write,account:read --label bench --json)
  id=$(echo "$cred" | sed -nE 's/.*"client_id": "([^"]+)".*/\1/p')
  secret=$(echo "$cred" | sed -nE 's/.*"client_secret": "([^"]+)".*/\1/p')
  mint "http://127.0.0.1:$3" "$id" "$secret"
}
W_SQLITE=$(writer sqlite "" 18110)
W_PG=$(writer pg "$PG_URL" 18120)

batch_ms() { # port token run
  python3 - "$3" > "$WORK/batch.json" <<'PY'
import json, sys
run = int(sys.argv[1])
writes = [{"key": f"fb:override:src:demo:1:{1000 + run * 100 + i // 12}-{i % 12 + 1:02d}-01", "expected_version": 0,
           "doc": {"sales": {"mode": "replace", "value": i}, "status": "draft"}} for i in range(1000)]
print(json.dumps({"writes": writes}))
PY
  curl -sf -o /dev/null -w '%{time_total}' -H "Authorization: Bearer $2" -H 'content-type: application/json' \
    --data-binary @"$WORK/batch.json" "http://127.0.0.1:$1/api/app-state/forecasting/batch" | awk '{ printf "%.0f", $1 * 1000 }'
}
B_SQLITE=(); B_PG=()
for run in 1 2 3; do
  B_SQLITE+=("$(batch_ms 18110 "$W_SQLITE" "$run")")
  B_PG+=("$(batch_ms 18120 "$W_PG" "$run")")
done

query_lua "$WORK/query.lua"

# a second instance on the same PostgreSQL state, with the first one's data folder
PARTNER_LOG=warn "$BIN/partner-platform" server --data-dir "$WORK/pg" --state-url "$PG_URL" --listen 127.0.0.1:18130 --public-url http://127.0.0.1:18130 > "$WORK/pg2.log" 2>&1 &
wait_up http://127.0.0.1:18130/health

pair() { # two wrk at once, one per instance: summed requests/s
  wrk -t1 -c$((CONN / 2)) -d"${DUR}s" "http://127.0.0.1:18120/v1/me" -H "Authorization: Bearer $T_PG" > "$OUT/pair-a.txt" &
  wrk -t1 -c$((CONN / 2)) -d"${DUR}s" "http://127.0.0.1:18130/v1/me" -H "Authorization: Bearer $T_PG" > "$OUT/pair-b.txt"
  wait
  awk '/Requests\/sec/ {s += $2} END {printf "%.0f", s}' "$OUT/pair-a.txt" "$OUT/pair-b.txt"
}

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr), $(psql "$ADMIN_URL" -Atc 'SHOW server_version' | cut -d' ' -f1) PostgreSQL on the same machine"
  echo "wrk -t2 -c$CONN -d${DUR}s, servers, PostgreSQL and wrk on the same machine"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  wrk_row hello-hyper http://127.0.0.1:18090/
  wrk_row v1-me-sqlite "http://127.0.0.1:18110/v1/me" -H "Authorization: Bearer $T_SQLITE"
  wrk_row v1-me-postgres "http://127.0.0.1:18120/v1/me" -H "Authorization: Bearer $T_PG"
  wrk_row api-query-sqlite "http://127.0.0.1:18110/api/query" -H "Authorization: Bearer $T_SQLITE" -s "$WORK/query.lua"
  wrk_row api-query-postgres "http://127.0.0.1:18120/api/query" -H "Authorization: Bearer $T_PG" -s "$WORK/query.lua"
  echo
  echo "1,000-write forecast batch, end-to-end ms, three runs: SQLite ${B_SQLITE[*]}; PostgreSQL ${B_PG[*]}"
  echo
  echo "GET /v1/me on PostgreSQL state, ${CONN} connections in all: one instance $(awk '/Requests\/sec/ {printf "%.0f", $2}' "$OUT/v1-me-postgres.txt") requests/s; two instances driven at once $(pair) requests/s"
} | tee "$OUT/state-latest.md"
