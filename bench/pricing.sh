#!/usr/bin/env bash
# Pricing run benchmark: a 100-ASIN Competitive Summary run through a real (non-dev) gateway
# against the sandbox with the provider's usage plan on (0.033 requests/s, burst 1) and the
# gateway at its default pace (the plan's), timed from `/start` to `succeeded`, beside the
# plan's floor: 5 batches, 4 gaps of 1 / 0.033 s = 30.3 s after the first. It also counts the
# batches the provider throttled (the run's throttledBatches), which must be none.
# Usage: bench/pricing.sh [asins]
set -euo pipefail
cd "$(dirname "$0")/.."
N="${1:-100}"
. bench/lib.sh

start_sim 18095
start_gateway 18096 seller

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
THROTTLED=$(echo "$V" | python3 -c 'import json,sys; print(json.load(sys.stdin)["throttledBatches"])')
BATCHES=$(( (N + 19) / 20 ))
{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); $N ASINs; sandbox usage plan on; gateway pace: the plan's"
  echo
  echo "| what | seconds |"
  echo "|---|---|"
  printf '| run, /start to %s (%s of %s answered, %s batches, %s throttled) | %.1f |\n' "$STATUS" "$ANSWERED" "$N" "$BATCHES" "$THROTTLED" "$(echo "$END - $START" | bc)"
  printf '| the plan'"'"'s floor: %s gaps × 1 / 0.033 s after the first batch | %.1f |\n' "$((BATCHES - 1))" "$(echo "($BATCHES - 1) / 0.033" | bc -l)"
  echo "| the spec's estimate: $BATCHES batches × 35 s | $(( BATCHES * 35 )) |"
} | tee "$OUT/pricing-latest.md"
