#!/usr/bin/env bash
# Gateway overhead per marketplace call: the same selling-side read
# (getMarketplaceParticipations) sent straight to the sandbox provider with an LWA access token,
# and sent through the gateway as `POST /api/marketplace/spapi/call` with a bearer credential,
# in one run, beside a bare hyper hello-world. The gateway is a real (non-dev) server: its
# tenant, credential and merchant connection are made with the admin commands, and it reaches
# the sandbox over HTTP. Both sides run without usage plans (sim --no-rate-limits, gateway
# upstream_pacing off) so the figure is the gateway's own work: auth, merchant resolution
# (a warehouse read), the catalog, the cached LWA token, the upstream round trip and the answer.
# Usage: bench/gateway-overhead.sh [duration-seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-16}"
. bench/lib.sh
PP() { "$BIN/partner-platform" "$@"; }

PP world generate --scale small --seed 1 --today 2026-11-22 --out "$WORK/world" > /dev/null
"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
PARTNER_LOG=warn PP sim --world "$WORK/world" --data-dir "$WORK/sim" --listen 127.0.0.1:18093 --no-rate-limits > "$WORK/sim.log" 2>&1 &
SIM=http://127.0.0.1:18093
C="$WORK/sim/sandbox-credentials.json"
for _ in $(seq 600); do grep -q "Try it" "$WORK/sim.log" 2>/dev/null && [ -s "$C" ] && break; sleep 0.1; done
[ -s "$C" ] || { echo "the sandbox did not start:" >&2; cat "$WORK/sim.log" >&2; exit 1; }
field() { python3 -c "import json,sys;d=json.load(open('$C'));print(eval(sys.argv[1]))" "$1"; }
REFRESH=$(field "d['merchants'][0]['refresh_token']")
MERCHANT=$(field "d['merchants'][0]['merchant']")
ACCESS=$(curl -sf "$SIM/auth/o2/token" -d grant_type=refresh_token -d "client_id=$(field "d['client_id']")" \
  --data-urlencode "client_secret=$(field "d['client_secret']")" --data-urlencode "refresh_token=$REFRESH" \
  | sed -E 's/.*"access_token":"([^"]+)".*/\1/')

# the gateway: tenant over the same world, a credential, the merchant connected by hand
export PARTNER_SECRET_KEY=$(python3 -c 'import secrets; print(secrets.token_hex(32))')
ADMIN() { PP admin --data-dir "$WORK/gw" "$@"; }
ADMIN tenant create bench --warehouse "$WORK/world/warehouse.sqlite" > /dev/null
CRED=$(ADMIN credential create --tenant bench --label bench --json)
CID=$(echo "$CRED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])')
CSECRET=$(echo "$CRED" | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_secret"])')
PARTNER_REFRESH_TOKEN="$REFRESH" ADMIN connection add --tenant bench --merchant "$MERCHANT" > /dev/null
GW=http://127.0.0.1:18094
PARTNER_LOG=warn PARTNER_LWA_CLIENT_ID=$(field "d['client_id']") PARTNER_LWA_CLIENT_SECRET=$(field "d['client_secret']") \
  PARTNER_LWA_TOKEN_URL="$SIM/auth/o2/token" PARTNER_SPAPI_URL="$SIM" PARTNER_ADS_URL="$SIM" PARTNER_UPSTREAM_PACING=false \
  PP server --data-dir "$WORK/gw" --listen 127.0.0.1:18094 --public-url "$GW" > "$WORK/gw.log" 2>&1 &
wait_up "$GW/health"
TOKEN=$(mint "$GW" "$CID" "$CSECRET")
cat > "$WORK/call.lua" <<EOF
wrk.method = "POST"
wrk.body = '{"operation": "sellers.get_marketplace_participations", "legacySellerId": 1}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $TOKEN"
EOF
# one call each way first: both must answer 200 (and the gateway's LWA token gets cached)
curl -sf -o /dev/null -H "x-amz-access-token: $ACCESS" "$SIM/sellers/v1/marketplaceParticipations"
curl -sf -o /dev/null -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
  -d '{"operation": "sellers.get_marketplace_participations", "legacySellerId": 1}' "$GW/api/marketplace/spapi/call"

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); small world; wrk -t2 -c$CONN -d${DUR}s (the -c1 rows: one connection)"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  wrk_row hello-hyper http://127.0.0.1:18090/
  wrk_row sandbox-direct "$SIM/sellers/v1/marketplaceParticipations" -H "x-amz-access-token: $ACCESS"
  wrk_row gateway-spapi-call "$GW/api/marketplace/spapi/call" -s "$WORK/call.lua"
  wrk_row gateway-v1-me "$GW/v1/me" -H "Authorization: Bearer $TOKEN"
  # one connection: latency with no queueing behind other requests
  CONN=1 wrk_row sandbox-direct-c1 "$SIM/sellers/v1/marketplaceParticipations" -H "x-amz-access-token: $ACCESS"
  CONN=1 wrk_row gateway-spapi-call-c1 "$GW/api/marketplace/spapi/call" -s "$WORK/call.lua"
} | tee "$OUT/gateway-overhead-latest.md"
