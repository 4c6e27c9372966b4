#!/usr/bin/env bash
# Profit benchmark (issue 68): INS-PROFIT-BRIDGE-01 answered synchronously on a large-world
# seller (800 items, three years of days, its costs and rates imported with the command line),
# Q3 2026 against Q3 2025, beside the reference: the same bridge's totals (volume, mix, price,
# fee rates, cost of goods, refunds, advertising) computed by one hand-written SQL query over
# the same warehouse file (settlement lines classified, order lines joined to the dated cost
# periods, returns to stock credited), in the same run. Usage: bench/profit.sh [runs]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${1:-15}"
. bench/lib.sh
PP() { "$BIN/partner-platform" "$@"; }

started=$(date +%s)
PP world generate --scale large --seed 1 --today 2026-11-22 --out "$WORK/world" > /dev/null
echo "world generated in $(( $(date +%s) - started )) s" >&2
PP admin --data-dir "$WORK/state" tenant create bench --warehouse "$WORK/world/warehouse.sqlite" > /dev/null
CRED=$(PP admin --data-dir "$WORK/state" credential create --tenant bench --label bench --scopes intelligence:read,retail:read,costs:write --json)
ID=$(echo "$CRED" | sed -nE 's/.*"client_id": "([^"]+)".*/\1/p')
SECRET=$(echo "$CRED" | sed -nE 's/.*"client_secret": "([^"]+)".*/\1/p')
PARTNER_LOG=warn PP server --data-dir "$WORK/state" --listen 127.0.0.1:18095 --public-url http://127.0.0.1:18095 > /dev/null 2>&1 &
BASE=http://127.0.0.1:18095
wait_up "$BASE/health"
# the seller's costs and the world's rates, entered as a tenant would
export PP_BASE_URL=$BASE PP_CLIENT_ID=$ID PP_CLIENT_SECRET=$SECRET PARTNER_PLATFORM_CONFIG="$WORK/config"
PP costs import "$WORK/world/landed-costs.csv" --quiet >&2
PP rates import "$WORK/world/reference-rates.csv" --quiet >&2
TOKEN=$(mint "$BASE" "$ID" "$SECRET")

BODY='{"id":"INS-PROFIT-BRIDGE-01","params":{"sellerId":"A2DEMOSELLER01","marketplaceId":"ATVPDKIKX0DER","period":{"start":"2026-07-01","end":"2026-09-30"},"comparePeriod":{"start":"2025-07-01","end":"2025-09-30"}}}'
curl -sf -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$BODY" "$BASE/api/intelligence/run" > "$OUT/profit-answer.json"
for _ in $(seq "$RUNS"); do
  curl -s -o /dev/null -w '%{time_total}\n' -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$BODY" "$BASE/api/intelligence/run"
done > "$OUT/profit-gateway.txt"

python3 - "$WORK/world/warehouse.sqlite" "$RUNS" "$OUT/profit-answer.json" > "$OUT/profit-reference.txt" <<'PY'
import json, sqlite3, sys, time
db, runs, answer = sys.argv[1], int(sys.argv[2]), json.load(open(sys.argv[3]))
Q = "(p >= '2025-07-01' AND p < '2025-10-01' OR p >= '2026-07-01' AND p < '2026-10-01')"
# One query: every settlement line of both quarters on its P&L line, the order lines' units at
# the cost in force on their day, the units returned to stock credited at theirs, each SKU's
# facts per quarter, then the bridge: volume and mix at the earlier margin per unit, price,
# fee rates and cost per unit at the later units, refunds and advertising as they changed.
SQL = f"""
WITH s AS (
  SELECT Sku AS sku, substr(`Posted-date-time`, 1, 10) AS p, `Transaction-type` AS tt,
    `Amount-type` AS at, `Amount-description` AS ad, `Quantity-purchased` AS qty,
    CAST(ROUND(Amount * 100) AS INTEGER) AS c
  FROM spapi_settlement
  WHERE SellerID = 1 AND (`Posted-date-time` >= '2025-07-01' AND `Posted-date-time` < '2025-10-01'
    OR `Posted-date-time` >= '2026-07-01' AND `Posted-date-time` < '2026-10-01')),
l AS (
  SELECT sku, p, CASE WHEN p >= '2026-01-01' THEN 1 ELSE 0 END AS q, qty, c,
    CASE
      WHEN at = 'Cost of Advertising' OR ad IN ('Current Reserve Amount', 'Previous Reserve Amount Balance') THEN NULL
      WHEN tt = 'Order' AND at = 'ItemPrice' AND ad = 'Principal' THEN 'sale'
      WHEN tt = 'Order' AND at = 'Promotion' THEN 'paid'
      WHEN tt = 'Refund' AND at IN ('ItemPrice', 'Promotion') THEN 'refund'
      ELSE 'fee' END AS k
  FROM s),
cogs AS (
  SELECT l.sku, l.q, -SUM(l.qty * CAST(ROUND(c.UnitCost * 100) AS INTEGER)) - SUM(l.qty * CAST(ROUND((c.Freight + c.Duties) * 100) AS INTEGER)) AS cost
  FROM l JOIN cost_period c ON c.SellerID = 1 AND c.SKU = l.sku AND l.p >= c.ValidFrom AND (c.ValidThrough IS NULL OR l.p <= c.ValidThrough)
  WHERE l.k = 'sale' GROUP BY l.sku, l.q),
back AS (
  SELECT r.SKU AS sku, CASE WHEN r.Date >= '2026-01-01' THEN 1 ELSE 0 END AS q,
    SUM(r.Quantity * CAST(ROUND(c.UnitCost * 100) AS INTEGER)) + SUM(r.Quantity * CAST(ROUND((c.Freight + c.Duties) * 100) AS INTEGER)) AS cost
  FROM spapi_fba_returns r JOIN cost_period c ON c.SellerID = 1 AND c.SKU = r.SKU AND r.Date >= c.ValidFrom AND (c.ValidThrough IS NULL OR r.Date <= c.ValidThrough)
  WHERE r.SellerID = 1 AND r.`Detailed-disposition` = 'SELLABLE' AND (r.Date BETWEEN '2025-07-01' AND '2025-09-30' OR r.Date BETWEEN '2026-07-01' AND '2026-09-30')
  GROUP BY r.SKU, q),
f AS (
  SELECT sku, q, SUM(CASE WHEN k = 'sale' THEN qty ELSE 0 END) AS u,
    SUM(CASE WHEN k IN ('sale', 'paid') THEN c ELSE 0 END) AS paid,
    SUM(CASE WHEN k = 'fee' THEN c ELSE 0 END) AS fees,
    SUM(CASE WHEN k = 'refund' THEN c ELSE 0 END) AS refunds
  FROM l WHERE k IS NOT NULL AND sku IS NOT NULL GROUP BY sku, q),
g AS (
  SELECT f.sku, f.q, f.u, f.paid, f.fees, f.refunds,
    COALESCE((SELECT cost FROM cogs WHERE cogs.sku = f.sku AND cogs.q = f.q), 0)
      + COALESCE((SELECT cost FROM back WHERE back.sku = f.sku AND back.q = f.q), 0) AS cost
  FROM f),
w AS (
  SELECT k.sku,
    COALESCE(b.u, 0) AS u0, COALESCE(a.u, 0) AS u1,
    COALESCE(b.paid, 0) AS p0, COALESCE(a.paid, 0) AS p1, COALESCE(b.fees, 0) AS f0, COALESCE(a.fees, 0) AS f1,
    COALESCE(b.cost, 0) AS c0, COALESCE(a.cost, 0) AS c1, COALESCE(b.refunds, 0) AS r0, COALESCE(a.refunds, 0) AS r1
  FROM (SELECT DISTINCT sku FROM g) k LEFT JOIN g b ON b.sku = k.sku AND b.q = 0 LEFT JOIN g a ON a.sku = k.sku AND a.q = 1),
t AS (SELECT SUM(u0) AS t0, SUM(u1) AS t1 FROM w),
x AS (
  SELECT w.*, t0, t1,
    COALESCE(p0 * 1.0 / NULLIF(u0, 0), p1 * 1.0 / NULLIF(u1, 0), 0) AS pp0, COALESCE(p1 * 1.0 / NULLIF(u1, 0), p0 * 1.0 / NULLIF(u0, 0), 0) AS pp1,
    COALESCE(f0 * 1.0 / NULLIF(u0, 0), f1 * 1.0 / NULLIF(u1, 0), 0) AS ff0, COALESCE(f1 * 1.0 / NULLIF(u1, 0), f0 * 1.0 / NULLIF(u0, 0), 0) AS ff1,
    COALESCE(c0 * 1.0 / NULLIF(u0, 0), c1 * 1.0 / NULLIF(u1, 0), 0) AS cc0, COALESCE(c1 * 1.0 / NULLIF(u1, 0), c0 * 1.0 / NULLIF(u0, 0), 0) AS cc1
  FROM w, t),
ads AS (
  SELECT SUM(CASE WHEN Date >= '2026-01-01' THEN -CAST(ROUND(Cost * 100) AS INTEGER) ELSE 0 END)
       - SUM(CASE WHEN Date < '2026-01-01' THEN -CAST(ROUND(Cost * 100) AS INTEGER) ELSE 0 END) AS d
  FROM ads_campaign_daily WHERE SellerID = 1 AND (Date BETWEEN '2025-07-01' AND '2025-09-30' OR Date BETWEEN '2026-07-01' AND '2026-09-30')),
acct AS (
  SELECT SUM(CASE WHEN q = 1 THEN c ELSE -c END) AS d FROM l WHERE k = 'fee' AND sku IS NULL)
SELECT
  SUM((t1 - t0) * (u0 * 1.0 / t0) * (pp0 + ff0 + cc0)) AS volume,
  SUM(t1 * (u1 * 1.0 / t1 - u0 * 1.0 / t0) * (pp0 + ff0 + cc0)) AS mix,
  SUM(u1 * (pp1 - pp0)) AS price,
  SUM(u1 * (ff1 - ff0) + ((p1 + f1 + c1) - u1 * (pp1 + ff1 + cc1)) - ((p0 + f0 + c0) - u0 * (pp0 + ff0 + cc0))) + (SELECT COALESCE(d, 0) FROM acct) AS fee_rates,
  SUM(u1 * (cc1 - cc0)) AS cost_of_goods,
  SUM(r1 - r0) AS refunds,
  (SELECT d FROM ads) AS advertising,
  COUNT(*) AS items
FROM x
"""
con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
times = []
for _ in range(runs):
    t = time.perf_counter()
    row = con.execute(SQL).fetchone()
    times.append(time.perf_counter() - t)
for x in times:
    print(f"{x:.4f}")
parts = {p["part"]: p["local"] for p in answer["result"]["parts"]}
for name, ref in zip(["volume", "mix", "price", "feeRates", "costOfGoods", "refunds", "advertising"], row[:7]):
    print(f"# {name}: reference {ref / 100:.2f}, gateway {parts[name]}", file=sys.stderr)
print(f"# change: reference {sum(row[:7]) / 100:.2f}, gateway {answer['result']['change']['local']}; items: reference {row[7]}", file=sys.stderr)
PY

stats() { sort -n "$1" | awk '{a[NR]=$1} END {printf "%.0f ms | %.0f ms | %.0f ms", a[int((NR+1)/2)]*1000, a[1]*1000, a[NR]*1000}'; }
{
  echo "Run: $(date -u +%Y-%m-%dT%H:%MZ) on $(nproc) cores, $(uname -sr); $RUNS runs each, one at a time"
  echo
  echo "| what | p50 | min | max |"
  echo "|---|---|---|---|"
  echo "| \`POST /api/intelligence/run\` INS-PROFIT-BRIDGE-01, seller 1, Q3 2026 against Q3 2025 (synchronous, end to end) | $(stats "$OUT/profit-gateway.txt") |"
  echo "| reference: the same bridge's totals as one hand-written SQL query (Python sqlite3, same file) | $(stats "$OUT/profit-reference.txt") |"
  echo
  echo "engine computeMs: $(sed -nE 's/.*"computeMs":([0-9]+).*/\1/p' "$OUT/profit-answer.json")"
} | tee "$OUT/profit-latest.md"
