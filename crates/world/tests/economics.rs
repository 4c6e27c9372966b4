//! The world's economics (issue 68): its settlements as the warehouse holds them add up to
//! their deposits, the P&L truth is what the settlement lines say (in the merchant's currency
//! and, line by line on the posted date, in the reporting currency at the world's published
//! rates), and the fee and cost changes it records are the ones its lines show.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use pp_world::{GroundTruth, Pnl, Scale, WorldSpec, generate_sqlite};
use rusqlite::Connection;

fn world(seed: u64) -> (tempfile::TempDir, Connection, GroundTruth, String) {
    let dir = tempfile::tempdir().unwrap();
    let spec = WorldSpec::new(
        seed,
        Scale::Tiny,
        NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
    );
    let g = generate_sqlite(&spec, dir.path()).unwrap();
    let rates = std::fs::read_to_string(&g.rates).unwrap();
    let db = Connection::open(&g.warehouse).unwrap();
    (dir, db, g.truth, rates)
}

/// Every settlement line: (seller, settlement, posted, type, amount type, description, SKU,
/// cents, currency).
type Row = (
    i64,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    i64,
    String,
);

fn lines(db: &Connection) -> Vec<Row> {
    let mut st = db
        .prepare(
            "SELECT SellerID, \"Settlement-id\", \"Posted-date-time\", \"Transaction-type\",
                    \"Amount-type\", \"Amount-description\", Sku,
                    CAST(ROUND(Amount * 100) AS INTEGER), Currency
             FROM spapi_settlement",
        )
        .unwrap();
    st.query_map([], |r| {
        Ok((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
            r.get(6)?,
            r.get(7)?,
            r.get(8)?,
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// The P&L line a settlement line is, as docs/warehouse.md's table maps them (none for the
/// advertising invoice and the reserves).
fn pnl_line(ttype: &str, atype: &str, desc: &str) -> Option<&'static str> {
    Some(match (ttype, atype, desc) {
        ("Order", "ItemPrice", "Principal") => "sales",
        ("Order", "Promotion", _) => "promotions",
        ("Refund", "ItemPrice" | "Promotion", _) => "refunds",
        (_, "ItemFees", "Commission" | "RefundCommission") => "referral_fees",
        (_, "ItemFees", "FBAPerUnitFulfillmentFee") => "fulfillment_fees",
        (_, _, "Storage Fee" | "StorageRenewalBilling") => "storage_fees",
        (_, _, "Subscription Fee" | "DealFee" | "CouponRedemptionFee") => "other_fees",
        (_, "FBA Inventory Reimbursement", _) => "reimbursements",
        (_, "Cost of Advertising", _) => return None,
        (_, _, "Current Reserve Amount" | "Previous Reserve Amount Balance") => return None,
        other => panic!("a settlement line nobody maps: {other:?}"),
    })
}

fn get(p: &Pnl, line: &str) -> i64 {
    serde_json::to_value(p).unwrap()[line].as_i64().unwrap()
}

/// The rates file: date → units per euro ×10,000 of USD, CAD, MXN.
fn rates(csv: &str) -> BTreeMap<NaiveDate, [i64; 3]> {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("Date,USD,CAD,MXN"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            let e4 = |s: &str| (s.parse::<f64>().unwrap() * 10_000.0).round() as i64;
            (f[0].parse().unwrap(), [e4(f[1]), e4(f[2]), e4(f[3])])
        })
        .collect()
}

/// `cents` of `currency` in US cents on `day`: the last published rate on or before it,
/// half away from zero.
fn usd(rates: &BTreeMap<NaiveDate, [i64; 3]>, cents: i64, currency: &str, day: NaiveDate) -> i64 {
    let r = rates
        .range(..=day)
        .next_back()
        .expect("a rate on or before")
        .1;
    let from = match currency {
        "USD" => return cents,
        "CAD" => r[1],
        _ => r[2],
    };
    let num = i128::from(cents) * i128::from(r[0]);
    let den = i128::from(from);
    ((2 * num.abs() + den) / (2 * den) * num.signum()) as i64
}

#[test]
fn every_settlement_adds_up_to_its_deposit() {
    for seed in [1, 11] {
        let (_dir, db, truth, _) = world(seed);
        let e = &truth.economics;
        assert!(e.settlements.len() > 150, "{}", e.settlements.len());
        let mut sums: BTreeMap<String, i64> = BTreeMap::new();
        for l in lines(&db) {
            *sums.entry(l.1).or_default() += l.7;
        }
        assert_eq!(sums.len(), e.settlements.len());
        let (mut held, mut earlier) = (0, 0);
        for s in &e.settlements {
            assert_eq!(sums[&s.id], s.deposit, "settlement {} (seed {seed})", s.id);
            assert_eq!(
                s.lines.total() + s.advertising + s.reserve_released + s.reserve_held,
                s.deposit,
                "settlement {}: its parts",
                s.id
            );
            held += i64::from(s.reserve_held < 0);
            earlier += i64::from(s.earlier_orders != 0);
        }
        assert!(
            held > 100 && earlier > 100,
            "{held} held, {earlier} with earlier orders"
        );
        // Canada pays for its advertising by card: no invoice in its payouts
        assert!(
            e.settlements
                .iter()
                .filter(|s| s.seller_id == 2)
                .all(|s| s.advertising == 0)
        );
        assert!(
            e.settlements
                .iter()
                .filter(|s| s.seller_id == 1)
                .all(|s| s.advertising < 0)
        );
    }
}

#[test]
fn the_pnl_truth_is_what_the_settlement_lines_say() {
    let (_dir, db, truth, csv) = world(1);
    let rates = rates(&csv);
    let e = &truth.economics;
    // the settled months' lines, from the warehouse alone
    type Key = (i64, Option<String>, String);
    let mut local: BTreeMap<Key, BTreeMap<&str, i64>> = BTreeMap::new();
    let mut reporting: BTreeMap<Key, BTreeMap<&str, i64>> = BTreeMap::new();
    for (seller, _, posted, ttype, atype, desc, sku, cents, cur) in lines(&db) {
        let Some(line) = pnl_line(&ttype, &atype, &desc) else {
            continue;
        };
        let day: NaiveDate = posted[..10].parse().unwrap();
        let key = (seller, sku, posted[..7].to_owned());
        *local
            .entry(key.clone())
            .or_default()
            .entry(line)
            .or_default() += cents;
        *reporting.entry(key).or_default().entry(line).or_default() +=
            usd(&rates, cents, &cur, day);
    }
    let settled: Vec<_> = e.months.iter().filter(|m| m.settled).collect();
    assert!(settled.len() > 400, "{}", settled.len());
    let lines = [
        "sales",
        "promotions",
        "refunds",
        "referral_fees",
        "fulfillment_fees",
        "storage_fees",
        "other_fees",
        "reimbursements",
    ];
    let mut seen = BTreeMap::<&str, usize>::new();
    for m in &settled {
        let key = (m.seller_id, m.sku.clone(), m.month.clone());
        for line in lines {
            let want = (get(&m.lines, line), get(&m.reporting, line));
            let got = (
                local
                    .get(&key)
                    .and_then(|l| l.get(line))
                    .copied()
                    .unwrap_or(0),
                reporting
                    .get(&key)
                    .and_then(|l| l.get(line))
                    .copied()
                    .unwrap_or(0),
            );
            assert_eq!(got, want, "{key:?} {line}");
            *seen.entry(line).or_default() += usize::from(want.0 != 0);
        }
        if m.sku.is_some() && m.lines.sales > 0 {
            assert!(m.lines.cost_of_goods < 0 && m.lines.inbound < 0, "{m:?}");
        }
        if m.currency != "USD" {
            assert_ne!(m.lines, m.reporting, "{key:?}: converted");
        }
    }
    for line in lines {
        assert!(
            seen.get(line).copied().unwrap_or(0) > 0,
            "{line} never happens"
        );
    }
    // the merchant's own lines: advertising by product, the selling plan
    let us: Vec<_> = settled
        .iter()
        .filter(|m| m.seller_id == 1 && m.sku.is_none())
        .collect();
    assert!(us.len() > 30, "{}", us.len());
    for m in &us[1..] {
        assert!(
            m.lines.advertising_sp < 0 && m.lines.advertising_sb < 0 && m.lines.other_fees < 0,
            "{m:?}"
        );
    }
}

#[test]
fn fee_and_cost_changes_are_the_ones_the_lines_show() {
    let (_dir, db, truth, _) = world(1);
    let e = &truth.economics;
    // the fulfillment fee per unit, for a US SKU, the days around each 15 January
    let per_unit = |sku: &str, day: &str| -> Option<i64> {
        db.query_row(
            "SELECT CAST(ROUND(-Amount * 100) AS INTEGER) / \"Quantity-purchased\" FROM spapi_settlement
             WHERE Sku = ?1 AND \"Amount-description\" = 'FBAPerUnitFulfillmentFee'
               AND \"Transaction-type\" = 'Order' AND substr(\"Posted-date-time\", 1, 10) = ?2",
            [sku, day],
            |r| r.get(0),
        )
        .ok()
    };
    let usd: Vec<_> = e
        .fee_changes
        .iter()
        .filter(|c| c.currency == "USD")
        .collect();
    assert_eq!(usd.len(), 9, "three tiers, three Januaries");
    let mut checked = 0;
    for change in usd
        .iter()
        .filter(|c| serde_json::to_value(c.tier).unwrap() == "large_standard")
    {
        let (before, after) = (
            (change.date - chrono::Duration::days(1)).to_string(),
            change.date.to_string(),
        );
        if let (Some(b), Some(a)) = (
            per_unit("US-NORTHWIND-0001", &before),
            per_unit("US-NORTHWIND-0001", &after),
        ) {
            assert_eq!(
                (b, a),
                (
                    (change.old_fee * 100.0).round() as i64,
                    (change.new_fee * 100.0).round() as i64
                )
            );
            checked += 1;
        }
    }
    assert!(checked >= 2, "{checked}");
    // a supplier's change starts a cost period for each of the brand's SKUs on its date
    assert!(e.cost_changes.len() >= 6, "{}", e.cost_changes.len());
    for c in &e.cost_changes {
        let periods: Vec<_> = e
            .costs
            .iter()
            .filter(|p| p.seller_id == c.seller_id && p.from == c.date)
            .collect();
        assert!(!periods.is_empty(), "{c:?}");
    }
}

/// Cost of goods and inbound from what a tenant has: each order line's units at the unit cost
/// in force on its posted day, less the units the returns report says came back to stock, at
/// the cost in force on their return day.
#[test]
fn cost_of_goods_is_the_orders_less_the_sellable_returns_at_the_dated_costs() {
    let (_dir, db, truth, _) = world(1);
    let e = &truth.economics;
    let cost = |seller: i64, sku: &str, day: &str| -> (i64, i64) {
        let p = e
            .costs
            .iter()
            .filter(|c| c.seller_id == seller && c.sku == sku && c.from.to_string().as_str() <= day)
            .max_by_key(|c| c.from)
            .unwrap();
        (p.unit_cost, p.freight + p.duties)
    };
    type Key = (i64, String, String);
    let mut got: BTreeMap<Key, (i64, i64)> = BTreeMap::new();
    let mut add = |sql: &str, sign: i64| {
        let mut st = db.prepare(sql).unwrap();
        let rows: Vec<(i64, String, String, i64)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        for (seller, sku, day, units) in rows {
            let (unit, inbound) = cost(seller, &sku, &day);
            let e = got.entry((seller, sku, day[..7].to_owned())).or_default();
            e.0 += sign * units * unit;
            e.1 += sign * units * inbound;
        }
    };
    add(
        "SELECT SellerID, Sku, substr(\"Posted-date-time\", 1, 10), \"Quantity-purchased\" FROM spapi_settlement
         WHERE \"Transaction-type\" = 'Order' AND \"Amount-type\" = 'ItemPrice'",
        -1,
    );
    add(
        "SELECT SellerID, SKU, Date, Quantity FROM spapi_fba_returns WHERE \"Detailed-disposition\" = 'SELLABLE'",
        1,
    );
    let mut checked = 0;
    for m in e.months.iter().filter(|m| m.settled && m.sku.is_some()) {
        let key = (m.seller_id, m.sku.clone().unwrap(), m.month.clone());
        assert_eq!(
            got.get(&key).copied().unwrap_or_default(),
            (m.lines.cost_of_goods, m.lines.inbound),
            "{key:?}"
        );
        checked += 1;
    }
    assert!(checked > 300, "{checked}");
    let sellable: i64 = db
        .query_row(
            "SELECT SUM(Quantity) FROM spapi_fba_returns WHERE \"Detailed-disposition\" = 'SELLABLE'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(sellable > 100, "{sellable}");
}
