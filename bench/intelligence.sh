#!/usr/bin/env bash
# Intelligence benchmark: INS-OPS-BRIDGE-01 answered synchronously on a large-world account
# (seller 1: 800 items, three years of days), a quarter against the same quarter a year before,
# beside the reference: the same bridge (per-item Shapley values over traffic, share,
# conversion and price) computed by one hand-written SQL query on the same warehouse file, in
# the same run. Usage: bench/intelligence.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-15}"
CONN=1 DUR=1
. bench/lib.sh
PP() { "$BIN/partner-platform" "$@"; }

PP world generate --scale large --seed 1 --today 2026-11-22 --out "$WORK/world" > /dev/null
PP admin --data-dir "$WORK/state" tenant create bench --warehouse "$WORK/world/warehouse.sqlite" > /dev/null
CRED=$(PP admin --data-dir "$WORK/state" credential create --tenant bench --label bench --scopes intelligence:read --json)
ID=$(echo "$CRED" | sed -nE 's/.*"client_id": "([^"]+)".*/\1/p')
SECRET=$(echo "$CRED" | sed -nE 's/.*"client_secret": "([^"]+)".*/\1/p')
PARTNER_LOG=warn PP server --data-dir "$WORK/state" --listen 127.0.0.1:18094 --public-url http://127.0.0.1:18094 > /dev/null 2>&1 &
BASE=http://127.0.0.1:18094
wait_up "$BASE/health"
TOKEN=$(mint "$BASE" "$ID" "$SECRET")

BODY='{"id":"INS-OPS-BRIDGE-01","params":{"sellerId":"A2DEMOSELLER01","marketplaceId":"ATVPDKIKX0DER","period":{"start":"2026-07-01","end":"2026-09-30"},"comparePeriod":{"start":"2025-07-01","end":"2025-09-30"}}}'
curl -sf -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$BODY" "$BASE/api/intelligence/run" > "$OUT/intelligence-answer.json"
for _ in $(seq "$RUNS"); do
  curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$BODY" "$BASE/api/intelligence/run"
done > "$OUT/intelligence-gateway.txt"

python3 - "$WORK/world/warehouse.sqlite" "$RUNS" "$OUT/intelligence-answer.json" > "$OUT/intelligence-reference.txt" <<'PY'
import json, sqlite3, sys, time
db, runs, answer = sys.argv[1], int(sys.argv[2]), json.load(open(sys.argv[3]))
# One query: both periods per item, the scope's sessions, then each factor's Shapley value in
# closed form (four factors: weights 1/4 for the empty and full coalitions, 1/12 for the rest).
SQL = """
WITH p AS (
  SELECT ChildASIN AS asin,
    SUM(CASE WHEN Date BETWEEN '2025-07-01' AND '2025-09-30' THEN ROUND(OrderedProductSales * 100) ELSE 0 END) AS r0,
    SUM(CASE WHEN Date BETWEEN '2025-07-01' AND '2025-09-30' THEN UnitsOrdered ELSE 0 END) AS u0,
    SUM(CASE WHEN Date BETWEEN '2025-07-01' AND '2025-09-30' THEN Sessions ELSE 0 END) AS s0,
    SUM(CASE WHEN Date BETWEEN '2026-07-01' AND '2026-09-30' THEN ROUND(OrderedProductSales * 100) ELSE 0 END) AS r1,
    SUM(CASE WHEN Date BETWEEN '2026-07-01' AND '2026-09-30' THEN UnitsOrdered ELSE 0 END) AS u1,
    SUM(CASE WHEN Date BETWEEN '2026-07-01' AND '2026-09-30' THEN Sessions ELSE 0 END) AS s1
  FROM spapi_sales_and_traffic_by_asin
  WHERE SellerID = 1 AND (Date BETWEEN '2025-07-01' AND '2025-09-30' OR Date BETWEEN '2026-07-01' AND '2026-09-30')
  GROUP BY ChildASIN),
t AS (SELECT SUM(s0) AS t0, SUM(s1) AS t1 FROM p),
f AS (
  SELECT asin, t0 AS a0, t1 AS a1, s0 * 1.0 / t0 AS b0, s1 * 1.0 / t1 AS b1,
    COALESCE(u0 * 1.0 / NULLIF(s0, 0), u1 * 1.0 / NULLIF(s1, 0), 0) AS c0,
    COALESCE(u1 * 1.0 / NULLIF(s1, 0), u0 * 1.0 / NULLIF(s0, 0), 0) AS c1,
    COALESCE(r0 * 1.0 / NULLIF(u0, 0), r1 * 1.0 / NULLIF(u1, 0), 0) AS d0,
    COALESCE(r1 * 1.0 / NULLIF(u1, 0), r0 * 1.0 / NULLIF(u0, 0), 0) AS d1
  FROM p, t)
SELECT
  SUM((a1 - a0) * ((b0*c0*d0 + b1*c1*d1) / 4 + (b1*c0*d0 + b0*c1*d0 + b0*c0*d1 + b1*c1*d0 + b1*c0*d1 + b0*c1*d1) / 12)) AS traffic,
  SUM((b1 - b0) * ((a0*c0*d0 + a1*c1*d1) / 4 + (a1*c0*d0 + a0*c1*d0 + a0*c0*d1 + a1*c1*d0 + a1*c0*d1 + a0*c1*d1) / 12)) AS mix,
  SUM((c1 - c0) * ((a0*b0*d0 + a1*b1*d1) / 4 + (a1*b0*d0 + a0*b1*d0 + a0*b0*d1 + a1*b1*d0 + a1*b0*d1 + a0*b1*d1) / 12)) AS conversion,
  SUM((d1 - d0) * ((a0*b0*c0 + a1*b1*c1) / 4 + (a1*b0*c0 + a0*b1*c0 + a0*b0*c1 + a1*b1*c0 + a1*b0*c1 + a0*b1*c1) / 12)) AS price,
  COUNT(*) AS items
FROM f
"""
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
times = []
for _ in range(runs):
    t = time.perf_counter()
    row = con.execute(SQL).fetchone()
    times.append(time.perf_counter() - t)
for x in times:
    print(f"{x:.4f}")
ours = answer["result"]["totals"]["effects"]
for name, ref in zip(["traffic", "mix", "conversion", "price"], row[:4]):
    print(f"# {name}: reference {ref / 100:.2f}, gateway {ours[name]}", file=sys.stderr)
print(f"# items: reference {row[4]}, gateway {answer['result']['itemCount']}", file=sys.stderr)
PY

stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.0f ms | %.0f ms | %.0f ms", a[int((NR+1)/2)]*1000, a[1]*1000, a[NR]*1000}'; }
{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); $RUNS runs each, one at a time"
  echo
  echo "| what | p50 | min | max |"
  echo "|---|---|---|---|"
  echo "| \`POST /api/intelligence/run\` INS-OPS-BRIDGE-01, seller 1, Q3 2026 against Q3 2025 (synchronous, end to end) | $(stats "$OUT/intelligence-gateway.txt") |"
  echo "| reference: the same bridge as one hand-written SQL query (Python sqlite3, same file) | $(stats "$OUT/intelligence-reference.txt") |"
} | tee "$OUT/intelligence-latest.md"
