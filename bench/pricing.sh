#!/usr/bin/env bash
# Pricing run benchmark: a 100-ASIN Competitive Summary run through a real (non-dev) gateway
# against the sandbox with the provider's usage plan on (0.033 requests/s, burst 1) and the
# gateway at its default pace (35 s between batches), timed from `/start` to `succeeded`,
# beside the floor the pacing sets: 5 batches, 4 gaps of 35 s after the first.
# Usage: bench/pricing.sh [asins]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-100}"
. bench/lib.sh
BINPP="$BIN/partner-platform"

"$BINPP" world generate --scale small --seed 1 --today 2026-11-22 --out "$WORK/world" > /dev/null
PARTNER_LOG=warn "$BINPP" sim --world "$WORK/world" --data-dir "$WORK/sim" --listen 127.0.0.1:18095 > "$WORK/sim.log" 2>&1 &
SIM=http://127.0.0.1:18095
C="$WORK/sim/sandbox-credentials.json"
for _ in $(seq 600); do grep -q "Try it" "$WORK/sim.log" 2>/dev/null && [ -s "$C" ] && break; sleep 0.1; done
[ -s "$C" ] || { echo "the sandbox did not start:" >&2; cat "$WORK/sim.log" >&2; exit 1; }
field() { python3 -c "import json,sys;d=json.load(open('$C'));print(eval(sys.argv[1]))" "$1"; }

export PARTNER_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
ADMIN() { "$BINPP" admin --data-dir "$WORK/gw" "$@"; }
ADMIN tenant create bench --warehouse "$WORK/world/warehouse.sqlite" > /dev/null
CRED=$(ADMIN credential create --tenant bench --label bench --json)
CID=$(echo "$CRED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])')
CSECRET=$(echo "$CRED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_secret"])')
PARTNER_REFRESH_TOKEN=$(field "d['merchants'][0]['refresh_token']") ADMIN connection add --tenant bench --merchant "$(field "d['merchants'][0]['merchant']")" > /dev/null
GW=http://127.0.0.1:18096
PARTNER_LOG=warn PARTNER_LWA_CLIENT_ID=$(field "d['client_id']") PARTNER_LWA_CLIENT_SECRET=$(field "d['client_secret']") \
  PARTNER_LWA_TOKEN_URL="$SIM/auth/o2/token" PARTNER_SPAPI_URL="$SIM" PARTNER_ADS_URL="$SIM" \
  "$BINPP" server --data-dir "$WORK/gw" --listen 127.0.0.1:18096 --public-url "$GW" > "$WORK/gw.log" 2>&1 &
wait_up "$GW/health"
TOKEN=$(mint "$GW" "$CID" "$CSECRET")

ASINS=$(python3 -c "
import sqlite3, json
db = sqlite3.connect('$WORK/world/warehouse.sqlite')
rows = [r[0] for r in db.execute('SELECT DISTINCT ASIN FROM catalog_item WHERE SellerID = 1 ORDER BY ASIN')]
rows += ['B0ZZ%06d' % i for i in range($N)]
print(json.dumps(rows[:$N]))")
START=$(date +%s.%N)
RUN=$(curl -sf -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -d "{\"legacySellerId\": 1, \"asins\": $ASINS}" "$GW/api/marketplace/pricing/competitive-summary/start")
ID=$(echo "$RUN" | sed -E 's/.*"runId":"([^"]+)".*/\1/')
while :; do
  V=$(curl -sf -H "Authorization: Bearer $TOKEN" "$GW/api/marketplace/pricing/runs/$ID")
  case "$V" in *'"status":"succeeded"'*|*'"status":"failed"'*) break;; esac
  sleep 0.5
done
END=$(date +%s.%N)
RESULT=$(curl -sf -H "Authorization: Bearer $TOKEN" "$GW/api/marketplace/pricing/runs/$ID/result")
ANSWERED=$(echo "$RESULT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["answered"])')
STATUS=$(echo "$V" | python3 -c 'import json,sys; print(json.load(sys.stdin)["status"])')
BATCHES=$(( (N + 19) / 20 ))
{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); $N ASINs; sandbox usage plan on; gateway pace 35 s"
  echo
  echo "| what | seconds |"
  echo "|---|---|"
  printf '| run, /start to %s (%s of %s answered, %s batches) | %.1f |\n' "$STATUS" "$ANSWERED" "$N" "$BATCHES" "$(echo "$END - $START" | bc)"
  echo "| floor: $((BATCHES - 1)) gaps × 35 s after the first batch | $(( (BATCHES - 1) * 35 )) |"
  echo "| the spec's estimate: $BATCHES batches × 35 s | $(( BATCHES * 35 )) |"
} | tee "$OUT/pricing-latest.md"
