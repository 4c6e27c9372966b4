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
writes `DIR/warehouse.sqlite` and `DIR/ground-truth.json`. Same seed, origin and today, same
bytes. Data covers the days from `origin` (by default 1,096 days before `today`) through the
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
(it is not restated). A settlement period appears once it has closed (every 14 days from the
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
per seller, and one product launch per brand (270 days before `today`).
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
