#!/usr/bin/env bash
# Warehouse sync benchmark (issue 54), one run on one machine:
#  1. the load path: one seller's daily sales-and-traffic rows of the large world loaded through
#     the sync's loader one day's slice each (`Managed::replace_all`, the managed_load example),
#     one day to a transaction and four (what the sync does when four days' reports are done),
#     beside the engine's own bulk load of the same rows into the same empty table (`COPY`,
#     `LOAD DATA LOCAL INFILE`, sqlite3 `.import` in one transaction) — SQLite, PostgreSQL, MariaDB;
#  2. a managed tenant connected (seller and advertising grants) to the sandbox over the large
#     world with its usage plans on, for PLANS_SECONDS: the reports it created beside what the
#     plans allow in that time, and whether the provider throttled any;
#  3. the same with the plans off at the sandbox and the gateway's pacing off, until every
#     dataset is synced (or FULL_SECONDS pass): the gateway's own speed (rows, reports, rows/s)
#     and its resident memory at start and at its peak.
# Usage: bench/sync.sh [plans-seconds] [full-seconds]   (servers at $PP_TEST_POSTGRES and
# $PP_TEST_MYSQL; a database is made and dropped on each). PARTS="load plans full" (the
# default) picks the parts to run.
set -euo pipefail
cd "$(dirname "$0")/.."
PLANS_SECONDS="${1:-600}"
FULL_SECONDS="${2:-5400}"
PARTS="${PARTS:-load plans full}"
part() { case " $PARTS " in *" $1 "*) return 0;; *) return 1;; esac; }
. bench/lib.sh
cargo build --release -q -p pp-warehouse --example managed_load
LOAD="$BIN/examples/managed_load"

PG_ADMIN="${PP_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres}"
MY_ADMIN="${PP_TEST_MYSQL:-mysql://root@127.0.0.1:3306/test}"
DB="pp_bench_sync_$$"
PG_URL="${PG_ADMIN%/*}/$DB"
MY_URL="${MY_ADMIN%/*}/$DB"
psql "$PG_ADMIN" -qc "CREATE DATABASE $DB"
mariadb -h 127.0.0.1 -u root -e "CREATE DATABASE $DB"
trap 'cleanup; psql "$PG_ADMIN" -qc "DROP DATABASE IF EXISTS $DB WITH (FORCE)"; mariadb -h 127.0.0.1 -u root -e "DROP DATABASE IF EXISTS $DB"' EXIT

TODAY=$(date -u +%Y-%m-%d)
T0=$(date +%s.%N)
"$BIN/partner-platform" world generate --scale large --seed 7 --today "$TODAY" --out "$WORK/world" > /dev/null
GEN=$(echo "$(date +%s.%N) - $T0" | bc)
TSV="$WORK/rows.tsv"
TABLE=spapi_sales_and_traffic_by_asin

now() { date +%s.%N; }
secs() { echo "$(now) - $1" | bc; }
json() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

# 1. the load path against each engine's floor
load_row() { # engine days-per-transaction locator empty-command floor-command
  local engine=$1 days=$2 locator=$3 empty=$4 floor_cmd=$5 out rows ours t floor
  # (into an empty table each time, as the floor loads: a slice over rows already there
  # would also delete them)
  "$empty" 2>/dev/null || true
  out=$("$LOAD" "$WORK/world/warehouse.sqlite" 1 "$locator" "$TSV" "$days")
  rows=$(echo "$out" | json '["rows"]'); ours=$(echo "$out" | json '["seconds"]')
  "$empty"; t=$(now); "$floor_cmd"; floor=$(secs "$t")
  printf '| %s | %s | %s | %.1f | %.0f | %.1f | %.0f | %.2f |\n' "$engine" "$days" "$rows" "$ours" \
    "$(echo "$rows / $ours" | bc -l)" "$floor" "$(echo "$rows / $floor" | bc -l)" "$(echo "$floor / $ours" | bc -l)"
}
sqlite_empty() { sqlite3 "$WORK/managed.sqlite" "DELETE FROM $TABLE"; }
pg_empty() { psql "$PG_URL" -qc "TRUNCATE $TABLE"; }
my_empty() { mariadb -h 127.0.0.1 -u root "$DB" -e "TRUNCATE $TABLE"; }
sqlite_floor() {
  printf 'BEGIN;\n.mode tabs\n.import %s %s\nCOMMIT;\n' "$TSV" "$TABLE" | sqlite3 "$WORK/managed.sqlite"
}
pg_floor() {
  psql "$PG_URL" -qc "\\copy $TABLE FROM '$TSV'"
}
my_floor() {
  mariadb --local-infile=1 -h 127.0.0.1 -u root "$DB" -e "LOAD DATA LOCAL INFILE '$TSV' INTO TABLE $TABLE"
}

# 2 and 3: a gateway with a managed tenant over the sandbox
"$BIN/partner-platform" world generate --scale large --seed 7 --today "$TODAY" --out "$WORK/simworld" > /dev/null
PARTNER_LOG=warn "$BIN/partner-platform" sim --world "$WORK/simworld" --data-dir "$WORK/sim" \
  --listen 127.0.0.1:18150 > "$WORK/sim.log" 2>&1 &
SIM=http://127.0.0.1:18150
C="$WORK/sim/sandbox-credentials.json"
for _ in $(seq 600); do grep -q "Try it" "$WORK/sim.log" 2>/dev/null && [ -s "$C" ] && break; sleep 0.1; done
[ -s "$C" ] || { echo "the sandbox did not start:" >&2; cat "$WORK/sim.log" >&2; exit 1; }
APP=$(field "d['client_secret']")
control() { curl -sf -H "Authorization: Bearer $APP" "$@"; }
# the creates the provider received: selling side, advertising (v3 and v1)
creates() { control "$SIM/__sandbox/calls" | python3 -c '
import json, sys
c = json.load(sys.stdin)["calls"]
print(c.get("reports.createReport", 0), c.get("reporting.createAsyncReport", 0) + c.get("reporting_v1.createReport", 0))'; }

GWPID=
gateway() { # port [pacing]: a gateway whose tenant `bench` is managed, both grants connected
  local port=$1 pacing=${2:-true} d="$WORK/gw-$1"
  export PARTNER_SECRET_KEY; PARTNER_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
  "$BIN/partner-platform" admin --data-dir "$d" tenant create bench > /dev/null
  PARTNER_REFRESH_TOKEN=$(field "d['merchants'][0]['refresh_token']") "$BIN/partner-platform" admin --data-dir "$d" \
    connection add --tenant bench --merchant "$(field "d['merchants'][0]['merchant']")" --kind seller > /dev/null
  PARTNER_REFRESH_TOKEN=$(field "d['advertising'][0]['refresh_token']") "$BIN/partner-platform" admin --data-dir "$d" \
    connection add --tenant bench --merchant "$(field "d['advertising'][0]['account']")" --kind ads > /dev/null
  local cred; cred=$("$BIN/partner-platform" admin --data-dir "$d" credential create --tenant bench --label bench --json)
  GW="http://127.0.0.1:$port"
  PARTNER_LOG=warn PARTNER_LWA_CLIENT_ID=$(field "d['client_id']") PARTNER_LWA_CLIENT_SECRET=$APP \
    PARTNER_LWA_TOKEN_URL="$SIM/auth/o2/token" PARTNER_SPAPI_URL="$SIM" PARTNER_ADS_URL="$SIM" PARTNER_SYNC_POLL_MS=500 PARTNER_UPSTREAM_PACING=$pacing \
    "$BIN/partner-platform" server --data-dir "$d" --listen "127.0.0.1:$port" --public-url "$GW" > "$d.log" 2>&1 &
  GWPID=$!
  wait_up "$GW/health"
  TOKEN=$(mint "$GW" "$(echo "$cred" | json '["client_id"]')" "$(echo "$cred" | json '["client_secret"]')")
}
status() { curl -sf -H "Authorization: Bearer $TOKEN" "$GW/api/warehouse/sync"; }
rows_loaded() { curl -sf "$GW/metrics" | awk '/^pp_sync_rows_loaded_total/ {s += $2} END {printf "%d", s}'; }
throttled() { curl -sf "$GW/metrics" | awk '/^pp_provider_calls_total.*outcome="429"/ {s += $2} END {printf "%d", s}'; }
states() { status | python3 -c '
import json, sys, collections
d = json.load(sys.stdin)["datasets"]
print(", ".join(f"{k} {v}" for k, v in sorted(collections.Counter(x["state"] for x in d).items())))'; }
settled() { status | python3 -c '
import json, sys
d = json.load(sys.stdin)["datasets"]
sys.exit(0 if d and all(x["state"] in ("synced", "unavailable") for x in d) else 1)'; }
rss() { awk '/^'"$1"':/ {printf "%.0f", $2 / 1024}' "/proc/$GWPID/status"; }

# 2. usage plans on, a fixed time
if part plans; then
  control -X PUT -H 'content-type: application/json' -d '{"enabled": true}' "$SIM/__sandbox/limits" > /dev/null
  read -r SP0 ADS0 < <(creates)
  gateway 18151
  sleep "$PLANS_SECONDS"
  read -r SP1 ADS1 < <(creates)
  PLANS_SP=$(( SP1 - SP0 )); PLANS_ADS=$(( ADS1 - ADS0 ))
  PLANS_ROWS=$(rows_loaded); PLANS_STATES=$(states); PLANS_THROTTLED=$(throttled)
  PLANS_WAITS=$(curl -sf "$GW/metrics" | awk '/^pp_pacing_wait_seconds_total/ {s += $2} END {printf "%.0f", s}')
  kill "$GWPID"; wait "$GWPID" 2>/dev/null || true
fi

# 3. usage plans and the gateway's pacing off, the whole backfill
if part full; then
  control -X PUT -H 'content-type: application/json' -d '{"enabled": false}' "$SIM/__sandbox/limits" > /dev/null
  read -r SP0 ADS0 < <(creates)
  gateway 18152 false
  RSS0=$(rss VmRSS)
  T=$(now)
  until settled; do
    [ "$(echo "$(secs "$T") > $FULL_SECONDS" | bc)" = 1 ] && break
    sleep 5
  done
  FULL=$(secs "$T")
  read -r SP1 ADS1 < <(creates)
  FULL_SP=$(( SP1 - SP0 )); FULL_ADS=$(( ADS1 - ADS0 ))
  FULL_ROWS=$(rows_loaded); FULL_STATES=$(states); PEAK=$(rss VmHWM)
  status > "$OUT/sync-status-latest.json"
fi

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr); PostgreSQL $(psql "$PG_ADMIN" -Atc 'SHOW server_version' | cut -d' ' -f1) and $(mariadb -h 127.0.0.1 -u root -Nse 'SELECT VERSION()') on the same machine; release build"
  echo "The large world (seed 7, today $TODAY), generated in ${GEN%.*} s; seller 1's \`$TABLE\` rows, one slice a day through the sync's loader (one or four slices to a transaction), then the engine's own bulk load of the same rows into the same emptied table"
  echo
  if part load; then
    echo "| engine | days a transaction | rows | sync loader s | rows/s | bulk load s | rows/s | loader ÷ bulk load speed |"
    echo "|---|---|---|---|---|---|---|---|"
    for days in 1 4; do
      load_row SQLite "$days" "sqlite:$WORK/managed.sqlite" sqlite_empty sqlite_floor
      load_row PostgreSQL "$days" "$PG_URL" pg_empty pg_floor
      load_row MariaDB "$days" "$MY_URL" my_empty my_floor
    done
    echo
  fi
  echo "Sandbox over the same world (reports made in 1.5 s), one managed tenant (embedded SQLite), seller grant \`$(field "d['merchants'][0]['merchant']")\` and advertising grant, sync poll 500 ms:"
  echo
  echo "| what | figure |"
  echo "|---|---|"
  if part plans; then
    echo "| usage plans on, ${PLANS_SECONDS} s, gateway pacing on: selling-side creates the provider received | $PLANS_SP (the plan allows 15 + 0.0167/s × ${PLANS_SECONDS} s = $(echo "15 + 0.0167 * $PLANS_SECONDS" | bc | cut -d. -f1) per selling partner) |"
    echo "| usage plans on: advertising creates | $PLANS_ADS |"
    echo "| usage plans on: calls the provider answered 429; seconds calls waited for the plans | $PLANS_THROTTLED; $PLANS_WAITS |"
    echo "| usage plans on: rows loaded; datasets by state at the end | $PLANS_ROWS; $PLANS_STATES |"
  fi
  if part full; then
    printf '| plans and pacing off: the whole backfill (or the cap of %s s) | %.0f s; %s |\n' "$FULL_SECONDS" "$FULL" "$FULL_STATES"
    printf '| plans and pacing off: rows loaded, rows/s | %s, %.0f |\n' "$FULL_ROWS" "$(echo "$FULL_ROWS / $FULL" | bc -l)"
    echo "| plans and pacing off: creates, selling side / advertising | $FULL_SP / $FULL_ADS |"
    echo "| gateway resident memory: after start / peak | ${RSS0} MiB / ${PEAK} MiB |"
  fi
} | tee "$OUT/sync-latest.md"
