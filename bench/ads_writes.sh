#!/usr/bin/env bash
# Audited ads writes: a 200-item Sponsored Products keyword bid update through a real (non-dev)
# gateway against the sandbox — the dry run (which reads the 200 keywords' current values) and
# the commit (which reads them again, writes the audit row, sends, settles) — beside the same
# requests sent straight to the sandbox (the list read, and the PUT). Usage plans off on both,
# so the figures are the work, not the pacing. Usage: bench/ads_writes.sh [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS="${1:-5}"
CONN=1
. bench/lib.sh

start_sim 18097 --no-rate-limits
start_gateway 18098 ads --scopes ads:read,ads:write
PROFILE=$(field "d['advertising'][0]['profiles'][0]")
ADS=$(curl -sf "$SIM/auth/o2/token" -d grant_type=refresh_token -d "client_id=$(field "d['client_id']")" \
  --data-urlencode "client_secret=$(field "d['client_secret']")" --data-urlencode "refresh_token=$(field "d['advertising'][0]['refresh_token']")" \
  | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
MEDIA=application/vnd.spKeyword.v3+json
direct() { curl -sf -o /dev/null -w '%{time_total}' -X "$1" "$SIM$2" -H "Authorization: Bearer $ADS" \
  -H "Amazon-Advertising-API-ClientId: $(field "d['client_id']")" -H "Amazon-Advertising-API-Scope: $PROFILE" \
  -H "content-type: $MEDIA" -H "accept: $MEDIA" -d "$3"; }
# the small world holds a few dozen keywords: make 200 in one of its ad groups first
GROUP=$(curl -sf -X POST "$SIM/sp/adGroups/list" -H "Authorization: Bearer $ADS" -H "Amazon-Advertising-API-ClientId: $(field "d['client_id']")" \
  -H "Amazon-Advertising-API-Scope: $PROFILE" -H "content-type: application/vnd.spAdGroup.v3+json" -d '{"maxResults": 1}' \
  | python3 -c 'import json,sys; g=json.load(sys.stdin)["adGroups"][0]; print(json.dumps({"campaignId": g["campaignId"], "adGroupId": g["adGroupId"]}))')
NEW=$(python3 -c "import json; g=json.loads('$GROUP'); print(json.dumps({'keywords': [dict(g, keywordText='bench %d' % i, matchType='EXACT', state='ENABLED', bid=0.3) for i in range(200)]}))")
IDS=$(curl -sf -X POST "$SIM/sp/keywords" -H "Authorization: Bearer $ADS" -H "Amazon-Advertising-API-ClientId: $(field "d['client_id']")" \
  -H "Amazon-Advertising-API-Scope: $PROFILE" -H "content-type: $MEDIA" -d "$NEW" \
  | python3 -c 'import json,sys; print(json.dumps([k["keywordId"] for k in json.load(sys.stdin)["keywords"]["success"]]))')
[ "$(echo "$IDS" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" = 200 ] || { echo "could not make 200 keywords" >&2; exit 1; }
ms() { awk '{printf "%.0f", $1 * 1000}'; }
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
P=""; CM=""; DL=""; DP=""
for r in $(seq "$ROUNDS"); do
  BID="0.$((40 + r))"
  ITEMS=$(echo "$IDS" | python3 -c "import json,sys; print(json.dumps([{'keywordId': k, 'bid': $BID} for k in json.load(sys.stdin)]))")
  CALL="{\"operation\":\"sp.update_keywords\",\"profileId\":$PROFILE,\"query\":{\"body\":{\"keywords\":$ITEMS}}}"
  curl -sf -o "$WORK/preview.json" -w '%{time_total}\n' -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$CALL" "$GW/api/marketplace/ads/call" > "$WORK/t"
  P="$P $(ms < "$WORK/t")"
  PLAN=$(python3 -c "import json; p=json.load(open('$WORK/preview.json'))['plan']; print(json.dumps({'planId': p['planId'], 'planHash': p['planHash'], 'dryRun': False}))")
  COMMIT=$(python3 -c "import json,sys; c=json.loads(sys.argv[1]); c.update(json.loads(sys.argv[2])); print(json.dumps(c))" "$CALL" "$PLAN")
  curl -sf -o "$WORK/commit.json" -w '%{time_total}\n' -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$COMMIT" "$GW/api/marketplace/ads/call" > "$WORK/t"
  CM="$CM $(ms < "$WORK/t")"
  python3 -c "import json; c=json.load(open('$WORK/commit.json')); assert sum(i['outcome']=='succeeded' for i in c['items'])==200, c['commit']"
  DL="$DL $(direct POST /sp/keywords/list "{\"keywordIdFilter\":{\"include\":$IDS},\"maxResults\":100}" | ms)"
  DP="$DP $(direct PUT /sp/keywords "{\"keywords\":$(echo "$ITEMS" | sed "s/0.$((40 + r))/0.3$r/g")}" | ms)"
done
{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); small world; 200 keywords; $ROUNDS rounds, medians"
  echo
  echo "| what | median ms |"
  echo "|---|---|"
  echo "| straight to the sandbox: one list page of 100 of the 200 keywords (reference read) | $(echo $DL | median) |"
  echo "| straight to the sandbox: the PUT of 200 bids (reference write) | $(echo $DP | median) |"
  echo "| gateway dry run (checks, two list pages, plan stored) | $(echo $P | median) |"
  echo "| gateway commit (two list pages, audit row, the PUT, settle) | $(echo $CM | median) |"
}
