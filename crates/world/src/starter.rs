//! Builds the starter warehouse: a small, deterministic tenant database for the dev server
//! and tests. Sales follow sessions × conversion × price; ads spend follows clicks × CPC.

use std::path::Path;

use chrono::{Duration, NaiveDate};
use rusqlite::{Connection, Transaction, params};

use crate::rng::Rng;
use crate::schema::DDL;

/// Days of history the starter warehouse holds.
pub const STARTER_DAYS: i64 = 90;

struct Seller {
    id: i64,
    token: &'static str,
    name: &'static str,
    country: &'static str,
    marketplace_id: &'static str,
    currency: &'static str,
    profile_id: i64,
}

const SELLERS: &[Seller] = &[
    Seller {
        id: 1,
        token: "A2DEMOSELLER01",
        name: "Northwind Goods",
        country: "US",
        marketplace_id: "ATVPDKIKX0DER",
        currency: "USD",
        profile_id: 3_100_000_001,
    },
    Seller {
        id: 2,
        token: "A2DEMOSELLER01",
        name: "Northwind Goods",
        country: "CA",
        marketplace_id: "A2EUQ1WTGCTBG2",
        currency: "CAD",
        profile_id: 3_100_000_002,
    },
    Seller {
        id: 3,
        token: "A1DEMOSELLERMX",
        name: "Sierra Casa",
        country: "MX",
        marketplace_id: "A1AM78C64UM0Y8",
        currency: "MXN",
        profile_id: 3_100_000_003,
    },
];

const ITEMS_PER_SELLER: i64 = 5;

/// What was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StarterSummary {
    /// Seller rows.
    pub sellers: usize,
    /// Sales-and-traffic rows.
    pub sales_rows: usize,
    /// First and last day of data.
    pub first_day: NaiveDate,
    /// Last complete day.
    pub last_day: NaiveDate,
}

/// Writes the starter warehouse to `path` (atomically: built beside it, then renamed), with
/// data for the 90 days ending on `last_day`. Refuses to overwrite an existing file.
pub fn build_starter_warehouse(
    path: &Path,
    seed: u64,
    last_day: NaiveDate,
) -> Result<StarterSummary, String> {
    if path.exists() {
        return Err(format!("{} already exists", path.display()));
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    let tmp = path.with_extension("building");
    let _ = std::fs::remove_file(&tmp);
    let summary = write(&tmp, seed, last_day).map_err(|e| format!("building warehouse: {e}"))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(summary)
}

fn write(path: &Path, seed: u64, last_day: NaiveDate) -> rusqlite::Result<StarterSummary> {
    let mut conn = Connection::open(path)?;
    conn.execute_batch("PRAGMA journal_mode = DELETE; PRAGMA page_size = 4096;")?;
    let tx = conn.transaction()?;
    tx.execute_batch(DDL)?;
    let mut rng = Rng::new(seed);
    let first_day = last_day - Duration::days(STARTER_DAYS - 1);
    let mut sales_rows = 0;
    for s in SELLERS {
        tx.execute(
            "INSERT INTO seller VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                s.id,
                s.token,
                format!("{} {}", s.name, s.country),
                s.country,
                s.marketplace_id,
                s.currency
            ],
        )?;
        let prices = items(&tx, s, &mut rng)?;
        sales_rows += daily_facts(&tx, s, &prices, first_day, &mut rng)?;
        settlements(&tx, s, first_day, &mut rng)?;
    }
    tx.commit()?;
    conn.execute_batch("VACUUM;")?;
    Ok(StarterSummary {
        sellers: SELLERS.len(),
        sales_rows,
        first_day,
        last_day,
    })
}

fn asin(s: &Seller, i: i64) -> String {
    format!("B0DEMO{}{:03}", s.id, i)
}

fn items(tx: &Transaction<'_>, s: &Seller, rng: &mut Rng) -> rusqlite::Result<Vec<f64>> {
    let mut prices = Vec::new();
    for i in 1..=ITEMS_PER_SELLER {
        let price = (rng.range(1299, 4999) as f64) / 100.0;
        tx.execute(
            "INSERT INTO item VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                s.id,
                s.token,
                asin(s, i),
                format!("B0DEMOP{}{:02}", s.id, (i + 1) / 2),
                format!("{}-SKU-{i:03}", s.country),
                s.name,
                format!("{} item {i}", s.name),
                price
            ],
        )?;
        prices.push(price);
    }
    Ok(prices)
}

fn daily_facts(
    tx: &Transaction<'_>,
    s: &Seller,
    prices: &[f64],
    first_day: NaiveDate,
    rng: &mut Rng,
) -> rusqlite::Result<usize> {
    let mut sales = tx.prepare(
        "INSERT INTO spapi_sales_and_traffic_by_asin VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    let mut ads = tx.prepare(
        "INSERT INTO ads_sp_campaigns VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
    )?;
    let mut rows = 0;
    for d in 0..STARTER_DAYS {
        let day = (first_day + Duration::days(d)).to_string();
        let weekly = 1.0 + 0.15 * ((d % 7) as f64 / 6.0);
        for (i, price) in prices.iter().enumerate() {
            let idx = i as i64 + 1;
            let sessions =
                ((80 + 40 * idx) as f64 * weekly * (0.8 + 0.4 * rng.unit())).round() as i64;
            let units = (sessions as f64 * (0.06 + 0.06 * rng.unit())).round() as i64;
            let page_views = sessions + rng.range(0, sessions / 3 + 1);
            sales.execute(params![
                s.id,
                s.token,
                day,
                format!("B0DEMOP{}{:02}", s.id, (idx + 1) / 2),
                asin(s, idx),
                cents(units as f64 * price),
                s.currency,
                units,
                units,
                sessions,
                page_views,
                cents(90.0 + 10.0 * rng.unit())
            ])?;
            rows += 1;
        }
        for c in 1..=2_i64 {
            let impressions = rng.range(2_000, 9_000);
            let clicks = impressions * rng.range(3, 9) / 1_000;
            let cost = cents(clicks as f64 * (0.6 + 0.8 * rng.unit()));
            let purchases = clicks * rng.range(5, 15) / 100;
            ads.execute(params![
                s.id,
                s.token,
                s.profile_id,
                day,
                s.profile_id * 10 + c,
                format!(
                    "{} SP {}",
                    s.country,
                    if c == 1 { "Brand" } else { "Generic" }
                ),
                impressions,
                clicks,
                cost,
                cents(purchases as f64 * prices[0]),
                purchases,
                s.currency
            ])?;
        }
    }
    Ok(rows)
}

fn settlements(
    tx: &Transaction<'_>,
    s: &Seller,
    first_day: NaiveDate,
    rng: &mut Rng,
) -> rusqlite::Result<()> {
    let mut st = tx.prepare(
        "INSERT INTO spapi_settlement VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    for period in 0..(STARTER_DAYS / 14) {
        let start = first_day + Duration::days(period * 14);
        let end = start + Duration::days(14);
        let settlement_id = format!("{}{:08}", s.id, 10_000 + period);
        for line in 0..12 {
            let posted = format!(
                "{}T{:02}:{:02}:00Z",
                start + Duration::days(line),
                8 + line % 10,
                rng.range(0, 59)
            );
            let order = format!(
                "11{}-{:07}-{:07}",
                s.id,
                rng.range(0, 9_999_999),
                rng.range(0, 9_999_999)
            );
            let sku = format!("{}-SKU-{:03}", s.country, 1 + line % ITEMS_PER_SELLER);
            let principal = cents(rng.range(1_299, 9_999) as f64 / 100.0);
            for (kind, desc, amount) in [
                ("ItemPrice", "Principal", principal),
                (
                    "ItemFees",
                    "FBAPerUnitFulfillmentFee",
                    -cents(principal * 0.12),
                ),
                ("ItemFees", "Commission", -cents(principal * 0.15)),
            ] {
                st.execute(params![
                    s.id,
                    s.token,
                    settlement_id,
                    format!("{start}T00:00:00Z"),
                    format!("{end}T00:00:00Z"),
                    posted,
                    "Order",
                    order,
                    sku,
                    kind,
                    desc,
                    amount,
                    s.currency
                ])?;
            }
        }
    }
    Ok(())
}

fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let day = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        let sa = build_starter_warehouse(&a, 1, day).unwrap();
        build_starter_warehouse(&b, 1, day).unwrap();
        build_starter_warehouse(&c, 2, day).unwrap();
        assert_eq!(sa.sales_rows, 3 * 5 * 90);
        assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
        assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
        assert!(
            build_starter_warehouse(&a, 1, day).is_err(),
            "never overwrites"
        );
    }
}
