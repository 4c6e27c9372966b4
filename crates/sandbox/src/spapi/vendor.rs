//! Vendor analytics reports for the vendor merchant: `GET_VENDOR_SALES_REPORT` (ordered and
//! shipped revenue and units) and `GET_VENDOR_TRAFFIC_REPORT` (glance views), by ASIN and
//! day (`reportPeriod` `DAY`), from the world's `vendor_sales_and_traffic`. A request names
//! whole days, at most 15 of them, within the last 3 years; only a vendor may ask.

use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::error::SimError;
use crate::sim::Sim;
use crate::world::Seller;

pub const SALES: &str = "GET_VENDOR_SALES_REPORT";
pub const TRAFFIC: &str = "GET_VENDOR_TRAFFIC_REPORT";

/// The most days one `DAY` request spans.
pub const MOST_DAYS: i64 = 15;
/// How far back the reports reach.
pub const LOOKBACK_DAYS: u64 = 1_095;

/// Checks a vendor report request for `seller`: a vendor, `reportPeriod` `DAY`, a window of
/// whole days within reach.
pub fn check(
    sim: &Sim,
    seller: &Seller,
    start: Option<NaiveDate>,
    end: Option<NaiveDate>,
    req: &Value,
) -> Result<(), SimError> {
    if seller.account_type != "vendor" {
        return Err(SimError::invalid(
            "vendor reports are available to vendors only",
        ));
    }
    if req["reportOptions"]["reportPeriod"] != "DAY" {
        return Err(SimError::invalid(
            "reportOptions.reportPeriod must be DAY (the sandbox keeps daily vendor facts)",
        ));
    }
    let (Some(start), Some(end)) = (start, end) else {
        return Err(SimError::invalid(
            "dataStartTime and dataEndTime are required for vendor reports",
        ));
    };
    if (end - start).num_days() >= MOST_DAYS {
        return Err(SimError::invalid(format!(
            "a DAY report spans at most {MOST_DAYS} days"
        )));
    }
    super::reports::within(sim, start, LOOKBACK_DAYS)
}

fn money(v: &Value, currency: &str) -> Value {
    json!({ "amount": v.as_f64().unwrap_or(0.0), "currencyCode": currency })
}

/// The document of a vendor sales or traffic report for `start..=end`.
pub fn document(
    sim: &Sim,
    seller: &Seller,
    kind: &str,
    (start, end): (NaiveDate, NaiveDate),
    req: &Value,
) -> Result<Value, SimError> {
    let (s, e) = (start.to_string(), end.to_string());
    let rows = sim.world().rows(
        "SELECT Date, ASIN, OrderedRevenue, OrderedUnits, ShippedRevenue, ShippedUnits, GlanceViews
         FROM vendor_sales_and_traffic WHERE SellerID = ?1 AND Date BETWEEN ?2 AND ?3 ORDER BY Date, ASIN",
        &[&seller.id, &s, &e],
    )?;
    let cur = seller.currency.as_str();
    let spec = json!({
        "reportType": kind,
        "reportOptions": req["reportOptions"],
        "dataStartTime": s,
        "dataEndTime": e,
        "marketplaceIds": [seller.marketplace_id],
    });
    let by_asin = |r: &serde_json::Map<String, Value>| {
        let mut v = json!({ "startDate": r["Date"], "endDate": r["Date"], "asin": r["ASIN"] });
        if kind == SALES {
            v["orderedRevenue"] = money(&r["OrderedRevenue"], cur);
            v["orderedUnits"] = r["OrderedUnits"].clone();
            v["shippedRevenue"] = money(&r["ShippedRevenue"], cur);
            v["shippedUnits"] = r["ShippedUnits"].clone();
        } else {
            v["glanceViews"] = r["GlanceViews"].clone();
        }
        v
    };
    let listed: Vec<Value> = rows.iter().map(by_asin).collect();
    Ok(if kind == SALES {
        json!({ "reportSpecification": spec, "salesByAsin": listed })
    } else {
        json!({ "reportSpecification": spec, "trafficByAsin": listed })
    })
}
