//! Brand analytics search query performance (`GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT`,
//! `reportPeriod` `WEEK`): for the ASINs a request names (`reportOptions.asin`, space
//! separated, at most 200 characters), each week's queries with the marketplace's totals and
//! each ASIN's part. The world keeps the brand's part per query and week
//! (`spapi_brand_analytics_sqp`); the sandbox splits it evenly over the brand's ASINs, so the
//! ASIN rows of a query add up to the brand's figures exactly. Weeks run Sunday to Saturday;
//! only merchants with brand analytics may ask, within the last two years.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate, Weekday};
use serde_json::{Map, Value, json};

use super::report_docs::text;
use crate::error::SimError;
use crate::sim::Sim;
use crate::world::Seller;

pub const SQP: &str = "GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT";
/// How far back the report reaches, in weeks.
pub const LOOKBACK_WEEKS: u64 = 104;
/// The longest `reportOptions.asin` list, in characters.
const MOST_ASIN_CHARS: usize = 200;

/// Checks a request for `seller`: brand analytics available, whole weeks within reach, and
/// the ASINs named.
pub fn check(
    sim: &Sim,
    seller: &Seller,
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
    req: &Value,
) -> Result<(), SimError> {
    let available = pp_world::MERCHANTS
        .iter()
        .any(|m| m.id == seller.id && m.brand_analytics);
    if !available {
        return Err(SimError::invalid(
            "Brand Analytics is not available to this seller in this marketplace",
        ));
    }
    let o = &req["reportOptions"];
    if o["reportPeriod"] != "WEEK" {
        return Err(SimError::invalid(
            "reportOptions.reportPeriod must be WEEK (the sandbox keeps weekly brand analytics)",
        ));
    }
    let asins = o["asin"].as_str().unwrap_or_default();
    if asins.trim().is_empty() || asins.len() > MOST_ASIN_CHARS {
        return Err(SimError::invalid(format!(
            "reportOptions.asin names the ASINs, space separated, in at most {MOST_ASIN_CHARS} characters"
        )));
    }
    let (Some(start), Some(end)) = (start, end) else {
        return Err(SimError::invalid(
            "dataStartTime and dataEndTime are required",
        ));
    };
    if start.weekday() != Weekday::Sun || end.weekday() != Weekday::Sat || end < start {
        return Err(SimError::invalid(
            "a WEEK report starts on a Sunday and ends on a Saturday",
        ));
    }
    super::reports::within(sim, start, LOOKBACK_WEEKS * 7)
}

/// The brand a world query belongs to (its brand name, or one of its product nouns).
fn brand_of(query: &str) -> Option<&'static str> {
    pp_world::BRANDS
        .iter()
        .find(|(_, name, nouns, _)| name.to_lowercase() == query || nouns.contains(&query))
        .map(|b| b.1)
}

/// Splits `total` into `n` whole parts that add up to it (the first parts one larger).
fn parts(total: i64, n: usize) -> Vec<i64> {
    let n = n.max(1) as i64;
    (0..n)
        .map(|i| total / n + i64::from(i < total % n))
        .collect()
}

fn share(part: i64, total: i64) -> f64 {
    if total > 0 {
        (part as f64 / total as f64 * 10_000.0).round() / 10_000.0
    } else {
        0.0
    }
}

/// The report's document for `start..=end`.
pub fn document(
    sim: &Sim,
    seller: &Seller,
    (start, end): (NaiveDate, NaiveDate),
    req: &Value,
) -> Result<Value, SimError> {
    let world = sim.world();
    let wanted: Vec<&str> = req["reportOptions"]["asin"]
        .as_str()
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    let mut by_brand: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for r in world.rows(
        "SELECT Brand, ASIN FROM catalog_item WHERE SellerID = ?1 ORDER BY Brand, ASIN",
        &[&seller.id],
    )? {
        by_brand
            .entry(text(&r["Brand"]))
            .or_default()
            .push(text(&r["ASIN"]));
    }
    let rows = world.rows(
        "SELECT * FROM spapi_brand_analytics_sqp WHERE SellerID = ?1 AND WeekStart >= ?2 AND WeekEnd <= ?3
         ORDER BY WeekStart, SearchQuery",
        &[&seller.id, &start.to_string(), &end.to_string()],
    )?;
    let mut out = Vec::new();
    for r in &rows {
        let query = text(&r["SearchQuery"]);
        let Some(asins) = brand_of(&query).and_then(|b| by_brand.get(b)) else {
            continue;
        };
        let n = |k: &str| r[k].as_i64().unwrap_or(0);
        let split = |k: &str| parts(n(k), asins.len());
        let (imp, clk, cart, buy) = (
            split("ImpressionsBrand"),
            split("ClicksBrand"),
            split("CartAddsBrand"),
            split("PurchasesBrand"),
        );
        for (k, asin) in asins.iter().enumerate() {
            if !wanted.contains(&asin.as_str()) {
                continue;
            }
            out.push(row(r, &query, asin, [imp[k], clk[k], cart[k], buy[k]]));
        }
    }
    Ok(json!({
        "reportSpecification": {
            "reportType": SQP,
            "reportOptions": req["reportOptions"],
            "dataStartTime": start.to_string(),
            "dataEndTime": end.to_string(),
            "marketplaceIds": [seller.marketplace_id],
        },
        "dataByAsin": out,
    }))
}

/// One ASIN's row of one query and week: the totals and its part.
fn row(r: &Map<String, Value>, query: &str, asin: &str, mine: [i64; 4]) -> Value {
    let n = |k: &str| r[k].as_i64().unwrap_or(0);
    let volume = n("SearchQueryVolume");
    let (imp, clk, cart, buy) = (
        n("ImpressionsTotal"),
        n("ClicksTotal"),
        n("CartAddsTotal"),
        n("PurchasesTotal"),
    );
    json!({
        "startDate": r["WeekStart"],
        "endDate": r["WeekEnd"],
        "asin": asin,
        "searchQueryData": { "searchQuery": query, "searchQueryVolume": volume },
        "impressionData": {
            "totalQueryImpressionCount": imp,
            "asinImpressionCount": mine[0],
            "asinImpressionShare": share(mine[0], imp),
        },
        "clickData": {
            "totalClickCount": clk,
            "totalClickRate": share(clk, volume),
            "asinClickCount": mine[1],
            "asinClickShare": share(mine[1], clk),
        },
        "cartAddData": {
            "totalCartAddCount": cart,
            "totalCartAddRate": share(cart, volume),
            "asinCartAddCount": mine[2],
            "asinCartAddShare": share(mine[2], cart),
        },
        "purchaseData": {
            "totalPurchaseCount": buy,
            "totalPurchaseRate": share(buy, volume),
            "asinPurchaseCount": mine[3],
            "asinPurchaseShare": share(mine[3], buy),
        },
    })
}
