#!/usr/bin/env bash
# Large-world benchmark: generation time and size of the `large` demo world, then p50/p99 of
# /v1/ads/campaign-performance and /v1/retail/sales on it, beside /v1/me and a bare hyper
# hello-world in the same run. Usage: bench/world.sh [duration-seconds] [connections]
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
for _ in $(seq 100); do curl -sf http://127.0.0.1:18092/health >/dev/null && break; sleep 0.1; done
BASE=http://127.0.0.1:18092
TOKEN=$(curl -sf -u "$ID:$SECRET" -d grant_type=client_credentials "$BASE/oauth/token" | sed -E 's/.*"access_token":"([^"]+)".*/\1/')

run() { # name url
  wrk -t2 -c"$CONN" -d"${DUR}s" --latency -H "Authorization: Bearer $TOKEN" "$2" > "$OUT/$1.txt"
  printf '| %s | %s | %s | %s | %s |\n' "$1" "$(awk '/Requests\/sec/ {print $2}' "$OUT/$1.txt")" \
    "$(awk '$1=="50%" {print $2}' "$OUT/$1.txt")" "$(awk '$1=="99%" {print $2}' "$OUT/$1.txt")" \
    "$(awk '/Non-2xx/ {print $5}' "$OUT/$1.txt" | grep . || echo 0)"
}
{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr)"
  echo
  echo "large world: ${items} items, ${rows} sales-and-traffic rows, generated in $((gen_ms / 1000)).$(( (gen_ms % 1000) / 100 )) s, ${size_mib} MiB"
  echo
  echo "wrk -t2 -c$CONN -d${DUR}s, default 30-day windows"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  run hello-hyper http://127.0.0.1:18090/
  run v1-me "$BASE/v1/me"
  run campaign-performance "$BASE/v1/ads/campaign-performance?account_id=bench:1"
  run retail-sales "$BASE/v1/retail/sales?account_id=bench:1"
} | tee "$OUT/world-latest.md"
