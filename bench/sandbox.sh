#!/usr/bin/env bash
# Sandbox benchmark on the `large` world: requests/s and latency of a cheap selling-side read
# (getMarketplaceParticipations, usage plans off) beside a bare hyper hello-world, then the time
# to build 31-day report documents (ads reporting v3 spCampaigns daily, and the selling-side
# sales-and-traffic report): each report is created, and the read that finds it done builds
# the document. Usage: bench/sandbox.sh [duration-seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DUR="${1:-10}"
CONN="${2:-32}"
. bench/lib.sh
PP() { "$BIN/partner-platform" "$@"; }

PP world generate --scale large --seed 1 --today 2026-11-22 --out "$WORK/world" > /dev/null
"$BIN/hello-hyper" 127.0.0.1:18090 > /dev/null 2>&1 &
PARTNER_LOG=warn PP sim --world "$WORK/world" --data-dir "$WORK/sim" --listen 127.0.0.1:18093 --report-ms 1 --no-rate-limits > "$WORK/sim.log" 2>&1 &
BASE=http://127.0.0.1:18093
for _ in $(seq 300); do grep -q "Try it" "$WORK/sim.log" 2>/dev/null && break; sleep 0.1; done
C="$WORK/sim/sandbox-credentials.json"
field() { python3 -c "import json,sys;d=json.load(open('$C'));print(eval(sys.argv[1]))" "$1"; }
lwa() {
  curl -sf "$BASE/auth/o2/token" -d grant_type=refresh_token -d "client_id=$(field "d['client_id']")" \
    --data-urlencode "client_secret=$(field "d['client_secret']")" --data-urlencode "refresh_token=$1" \
    | sed -E 's/.*"access_token":"([^"]+)".*/\1/'
}
SP=$(lwa "$(field "d['merchants'][0]['refresh_token']")")
ADS=$(lwa "$(field "d['advertising'][0]['refresh_token']")")
CLIENT=$(field "d['client_id']")

# v3: create, then time the read that builds the document (5 different 31-day windows)
v3_report() {
  local start=$1 end=$2
  local id
  id=$(curl -sf "$BASE/reporting/reports" -H "Authorization: Bearer $ADS" -H "Amazon-Advertising-API-ClientId: $CLIENT" \
    -H "Amazon-Advertising-API-Scope: 3100000001" -H 'content-type: application/vnd.createasyncreportrequest.v3+json' \
    -d "{\"startDate\":\"$start\",\"endDate\":\"$end\",\"configuration\":{\"adProduct\":\"SPONSORED_PRODUCTS\",\"groupBy\":[\"campaign\"],\"columns\":[\"date\",\"campaignId\",\"impressions\",\"clicks\",\"cost\",\"sales7d\"],\"reportTypeId\":\"spCampaigns\",\"timeUnit\":\"DAILY\",\"format\":\"GZIP_JSON\"}}" \
    | sed -E 's/.*"reportId":"([^"]+)".*/\1/')
  sleep 0.05
  curl -sf -o /dev/null -w '%{time_total}' "$BASE/reporting/reports/$id" -H "Authorization: Bearer $ADS" \
    -H "Amazon-Advertising-API-ClientId: $CLIENT" -H "Amazon-Advertising-API-Scope: 3100000001"
}
sp_report() {
  local start=$1 end=$2
  local id
  id=$(curl -sf "$BASE/reports/2021-06-30/reports" -H "x-amz-access-token: $SP" -H 'content-type: application/json' \
    -d "{\"reportType\":\"GET_SALES_AND_TRAFFIC_REPORT\",\"marketplaceIds\":[\"ATVPDKIKX0DER\"],\"dataStartTime\":\"${start}T00:00:00Z\",\"dataEndTime\":\"${end}T00:00:00Z\"}" \
    | sed -E 's/.*"reportId":"([^"]+)".*/\1/')
  sleep 0.05
  curl -sf -o /dev/null -w '%{time_total}' "$BASE/reports/2021-06-30/reports/$id" -H "x-amz-access-token: $SP"
}
WINDOWS="2026-08-20:2026-09-19 2026-09-01:2026-10-01 2026-09-15:2026-10-15 2026-10-01:2026-10-31 2026-10-20:2026-11-19"
ms() { awk '{printf "%.0f", $1 * 1000}'; }
median() { tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); large world; wrk -t2 -c$CONN -d${DUR}s"
  echo
  echo "| target | requests/s | p50 | p99 | non-2xx |"
  echo "|---|---|---|---|---|"
  wrk_row hello-hyper http://127.0.0.1:18090/
  wrk_row sellers-participations "$BASE/sellers/v1/marketplaceParticipations" -H "x-amz-access-token: $SP"
  echo
  v3=""; sp=""
  for w in $WINDOWS; do
    v3="$v3 $(v3_report "${w%%:*}" "${w##*:}" | ms)"
    sp="$sp $(sp_report "${w%%:*}" "${w##*:}" | ms)"
  done
  echo "| 31-day report, document built on the read that finds it done | median | all five windows (ms) |"
  echo "|---|---|---|"
  echo "| ads reporting v3 spCampaigns, DAILY by campaign | $(echo $v3 | median) ms | $v3 |"
  echo "| GET_SALES_AND_TRAFFIC_REPORT, by date and by ASIN | $(echo $sp | median) ms | $sp |"
} | tee "$OUT/sandbox-latest.md"
