//! `docs/warehouse.md`, generated from the schema so the document and the tables never drift
//! (`partner-platform world schema-doc > docs/warehouse.md`; a test compares them).

use pp_warehouse::schema::TABLES;

const HEADER: &str = r#"# Warehouse schema

A tenant warehouse holds one tenant's business. The demo world fills it with a deterministic,
seeded copy (`partner-platform world generate`); a managed tenant's warehouse is filled with the
same tables by the gateway's sync ([`warehouse-sync.md`](warehouse-sync.md)).
Types are MySQL's (the tables are MySQL-flavoured); the embedded SQLite engine stores
them by affinity (`DECIMAL` as a real number, `DATE` and `DATETIME` as ISO-8601 text).

Conventions:

- Seller-scoped tables carry both the integer `SellerID` and the varchar `MarketplaceSellerID`;
  they identify the same seller. Indexes lead with the integer: filter on `SellerID` (with a
  date range) for speed. Translate a token with `SELECT ID FROM seller WHERE MarketplaceSellerID = ?`.
- One merchant token can exist in several marketplaces (the demo's `A2DEMOSELLER01` sells in
  US and CA), so the token alone can be ambiguous; `SellerID` never is.
- `spapi_settlement` has `MIX_MAX_Record_IDX` (`SellerID`, `Posted-date-time`) and
  `Delete_Settlement_IDX` (`MarketplaceSellerID`, `Settlement-id`): use the varchar to look up
  one `Settlement-id`.
- Money columns are in the seller's currency (`seller.Currency`, or the table's `Currency`).
- Tables are named after the provider reports they mirror.

## The demo world

`partner-platform world generate --scale tiny|small|large --seed N --out DIR [--today YYYY-MM-DD] [--origin YYYY-MM-DD]`
writes `DIR/warehouse.sqlite`, `DIR/ground-truth.json`, `DIR/reference-rates.csv` and
`DIR/landed-costs.csv` (the sellers' cost periods as the gateway's cost file, docs/profit.md). Same
seed, origin and today, same bytes. Data covers the days from `origin` (by default 1,096 days before `today`) through the
day before `today`. Merchants: `Northwind Goods` in US (ID 1) and CA
(ID 2) under one token, `Sierra Casa` in MX (ID 3, no brand analytics), and the vendor
`Acme Kitchen Vendor US` (ID 4, DSP advertiser with a distinct seat id). Scales: tiny = 3 items
per brand, small = 12 (the dev server's), large = 400 (2,000 items).

The world moves forward: the same seed, scale and origin at a later `today` is the same world
with more days (what the sandbox serves after `POST /__sandbox/world {"days": N}` or
`sim --advance N`, docs/sandbox.md). Every day the earlier world had stays as it was, except
the advertising days still inside the attribution window: a day's attributed purchases and
sales (`Purchases7d`/`Sales7d` of the `ads_*_daily` tables, and DSP's `Purchases`, `Sales`
and their `*Promoted` parts) are reported at 70% of their final values the next day, growing
evenly to all of them once 14 days have passed, as the provider restates recent days while
late attribution arrives. Purchases arrive whole: the world draws the order in which a
merchant's purchases of the day arrive, and reports those whose sales before them are under
the day's share, so each merchant's reported sales are at least that share of the final ones
and each row only grows; DSP reports the share of each line item's purchases rounded up.
Rollups stay the exact sums of their rows. The final values are the ground truth; the retail side sells them
(it is not restated). A settlement appears once its period has closed (every 14 days from the
origin), and a seasonal peak under way at `today` counts for its days so far.

Demand model (`crates/world/src/sim.rs`):

- organic sessions = base × weekday (1.12 weekends, 0.95 weekdays) × trend (+30% over three
  years) × seasonal peak (Q4 20 Nov–24 Dec ×1.5; the July event, second Tuesday of July and
  the day after, ×2.2) × promotion lift × launch ramp (60 days) × noise (±15%);
- every keyword or target asks for impressions (base × season × noise) and clicks
  (impressions × CTR); cost = clicks × CPC (55–90% of the bid); a campaign whose demand costs
  more than its daily budget in force is scaled down to the budget; clicks go to the ad
  group's items that are on sale and in stock;
- sessions = organic sessions + ad clicks; conversion = base × (price ÷ list price)^elasticity;
  units = sessions × conversion × noise (±10%), never fewer than the ad-attributed purchases;
  attributed purchases = clicks × conversion (their final values: see above for how much of
  them a recent day reports);
- a stocked-out item sells nothing, serves no ads and shows zero fulfillable units while its
  organic traffic continues; the units it would have sold are its `lost_units`;
- inventory: reorder 60 days of expected demand when cover falls under 30 days, 12 days'
  lead time; `DaysOfSupply` = fulfillable ÷ trailing 28-day average units.

Injected events, all in `ground-truth.json`: a stock-out a year per seller (10–21 days, with the
units lost), a 28-day price test per seller in the last year (±10%, with the elasticity
used), two week-long promotions a year per brand (`DEAL` with a 1.3× traffic lift,
`PRICE_DISCOUNT` with 1.1×; 15–25% off), the seasonal peaks, a budget change on one campaign
per seller, and one product launch per brand (270 days before `today`). A `PRICE_DISCOUNT` is
a coupon, taken off at checkout (the shelf price stays); a `DEAL` lowers the shelf price.

## The demo world's economics

What each sale earned after the marketplace's charges, what the goods cost, and how it became
each payout (`crates/world/src/economics/`). The economics draw from streams of their own, so
every other fact of a seed is the same as before they existed. Sellers only: the vendor sells
to the retailer and has no settlements.

- **Orders.** One order line per SKU and day: the day's units at the day's price, posted that
  day (a time between 08:00 and 19:59 UTC). `Principal` is units × the shelf price; a coupon's
  rebate is a `Promotion` line (units × (shelf − price paid)) with a `CouponRedemptionFee` of
  0.60 a unit.
- **Referral fees** by category on the price paid, at least 0.30 a unit: Kitchen & Dining
  (Northwind) 15%, Clothing & Accessories (Trailhead) 17%, or 10% at or under 20.00, Home &
  Kitchen (Sierra Casa) 15%.
- **FBA fulfillment fees** by size tier (small standard: socks, caps, gaiters; large bulky:
  molcajetes; large standard: the rest) from 3.22, 4.75 and 6.89 at the origin, each raised 2–7%
  every 15 January (the changes are in the ground truth's `fee_changes`).
- **Storage**: each month's average fulfillable units × the tier's cubic feet (0.06, 0.28,
  0.72) × 0.78 a cubic foot (2.40 from October to December), charged on the 7th of the next
  month (`Storage Fee`); units beyond 180 days of supply at the month's end add 1.50 a cubic
  foot (`StorageRenewalBilling`; the demo's stock seldom ages that long).
- **Refunds**: 3.5% of Kitchen units, 8% of Clothing, 4.5% of Home & Kitchen, posted 4–30
  days after the sale: the principal back to the buyer (less the coupon's rebate), the
  commission returned and a `RefundCommission` of 20% of it (at most 5.00 a unit). Of the
  refunded units 65% return to sellable stock (their landed cost comes back), 25% are damaged
  by the buyer (lost), and 10% are reimbursed three weeks after the refund
  (`CUSTOMER_RETURN`, half the list price a unit); `spapi_fba_returns` lists each refund's units
  by disposition (`SELLABLE`, `CUSTOMER_DAMAGED`, `CARRIER_DAMAGED`) on the refund's day. A warehouse damages 1–3 units of a SKU in 4%
  of SKU-months (`WAREHOUSE_DAMAGE`, reimbursed on the 15th).
- **Other fees**: the professional selling plan on each month's first day (39.99 US, 29.99
  CAD, 600.00 MXN) and a deal's fee on its first day (70.00 US).
- **Advertising** is invoiced to the payout (US and MX: one `Cost of Advertising` line per
  settlement, the period's spend) or charged to a card (CA: no line); the P&L takes
  advertising from the advertising reports either way.
- **Settlements** close every 14 days from the origin, deposited three days after. Each holds
  the proceeds of its last 7 days' orders (10 in MX) as a reserve (`Current Reserve Amount`,
  negative) and releases the previous one (`Previous Reserve Amount Balance`); refunds of
  orders from earlier periods settle in the period they post in. A settlement's lines add up
  to its deposit (the flat file's `total-amount`). Until its period closes, what was posted is
  in `spapi_finance_transaction`, the provider's transaction list: 180 days but the last 48
  hours, an order's proceeds deferred for the reserve days, each amount with its settlement.
- Fees scale from the US amounts by 1.35 in CAD and 17 in MXN.
- **Landed cost** per SKU, in the merchant's currency: a unit cost of 22–34% of the list price,
  inbound freight of 3–6%, duties of 0–8% of the unit cost (none in MX), each brand's unit
  costs rising 4–12% once a year on a drawn date (`cost_changes`, and the periods in `costs`);
  the warehouse's `cost_period` holds the periods and `landed-costs.csv` gives them as the
  gateway's cost file, as a tenant who entered them would have them.
- **Exchange rates**: reference rates against the euro for every working day (weekends and
  the days before the first keep the last one), written beside the warehouse as
  `reference-rates.csv` in the ECB's historical format (`Date,USD,CAD,MXN`, newest first, four
  decimals), and in the warehouse's `exchange_rate`. An amount converts on its posted date as `amount × rate(to) ÷ rate(from)`, rounded
  half away from zero to the cent, each settlement line (and each SKU-day's cost) on its own.

Settlement lines and the P&L lines they are:

| transaction type | amount type | amount description | P&L line |
|---|---|---|---|
| Order | ItemPrice | Principal | sales |
| Order | Promotion | Principal | promotions |
| Refund | ItemPrice, Promotion | Principal | refunds |
| Order, Refund | ItemFees | Commission, RefundCommission | referral fees |
| Order | ItemFees | FBAPerUnitFulfillmentFee | fulfillment fees |
| other-transaction | other-transaction | Storage Fee, StorageRenewalBilling | storage fees |
| other-transaction | other-transaction | Subscription Fee, DealFee, CouponRedemptionFee | other fees |
| other-transaction | FBA Inventory Reimbursement | CUSTOMER_RETURN, WAREHOUSE_DAMAGE | reimbursements |
| ServiceFee | Cost of Advertising | TransactionTotalAmount | (advertising taken from the payout) |
| other-transaction | other-transaction | Current Reserve Amount, Previous Reserve Amount Balance | (reserve) |

The ground truth's `economics` (every amount integer cents, signed: money in is positive):
`months` — per SKU and month of posted date (UTC), and per merchant and month for the lines no
SKU carries (`sku` null: advertising by product, the selling plan, deal fees), the P&L lines
in the merchant's currency and in `reporting_currency` (USD), `settled` once every day of the
month is in a closed settlement; cost of goods is units × the unit cost in force on the sale
day, inbound units × freight and duties, both credited back for units returned to stock at the
cost in force on the refund's day. `settlements` — each one's lines by P&L line, its refunds
of earlier periods' orders, advertising, reserve released and held, and deposit. `costs`,
`fee_changes`, `cost_changes` and `rates` (units per euro × 10,000 of USD, CAD and MXN).
"#;

/// The whole document.
pub fn schema_markdown() -> String {
    let mut out = String::from(HEADER);
    out.push_str("\n## Tables\n");
    for t in TABLES {
        out.push_str(&format!(
            "\n### `{}`\n\n{}\n\n| column | type | meaning |\n|---|---|---|\n",
            t.name, t.doc
        ));
        for c in t.columns {
            out.push_str(&format!("| `{}` | {} | {} |\n", c.name, c.ty, c.doc));
        }
        if !t.indexes.is_empty() {
            out.push_str("\nIndexes:\n\n");
            for i in t.indexes {
                let cols: Vec<String> = i.columns.iter().map(|c| format!("`{c}`")).collect();
                out.push_str(&format!("- `{}` on ({})\n", i.name, cols.join(", ")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn docs_warehouse_md_is_current() {
        let doc = include_str!("../../../docs/warehouse.md");
        assert!(
            doc == super::schema_markdown(),
            "docs/warehouse.md is stale: run `cargo run -- world schema-doc > docs/warehouse.md`"
        );
    }
}
