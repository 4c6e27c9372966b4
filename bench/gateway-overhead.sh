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
# With BEFORE=<path to another partner-platform binary> (an earlier build), a gateway of that
# build over the same sandbox is driven in the same run too, for a before/after table.
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-16}"
. bench/lib.sh

"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
start_sim 18093 --no-rate-limits
ACCESS=$(curl -sf "$SIM/auth/o2/token" -d grant_type=refresh_token -d "client_id=$(field "d['client_id']")" \
  --data-urlencode "client_secret=$(field "d['client_secret']")" --data-urlencode "refresh_token=$(field "d['merchants'][0]['refresh_token']")" \
  | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
# the gateway: tenant over the same world, a credential, the merchant connected by hand
PARTNER_UPSTREAM_PACING=false start_gateway 18094 seller
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
if [ -n "${BEFORE:-}" ]; then
  AFTER_GW=$GW AFTER_TOKEN=$TOKEN
  PP="$BEFORE" PARTNER_UPSTREAM_PACING=false start_gateway 18095 seller
  BEFORE_GW=$GW BEFORE_TOKEN=$TOKEN GW=$AFTER_GW TOKEN=$AFTER_TOKEN
  sed "s|$TOKEN|$BEFORE_TOKEN|" "$WORK/call.lua" > "$WORK/call-before.lua"
  curl -sf -o /dev/null -H "Authorization: Bearer $BEFORE_TOKEN" -H 'content-type: application/json' \
    -d '{"operation": "sellers.get_marketplace_participations", "legacySellerId": 1}' "$BEFORE_GW/api/marketplace/spapi/call"
fi

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
  if [ -n "${BEFORE:-}" ]; then
    wrk_row gateway-spapi-call-before "$BEFORE_GW/api/marketplace/spapi/call" -s "$WORK/call-before.lua"
    CONN=1 wrk_row gateway-spapi-call-c1-before "$BEFORE_GW/api/marketplace/spapi/call" -s "$WORK/call-before.lua"
  fi
} | tee "$OUT/gateway-overhead-latest.md"
