//! Advertising report documents, read into rows: Reporting v3 (a JSON array of rows with the
//! columns asked for) and v1 (the same, its fields dotted). Sponsored Products name their
//! attributed metrics with the window (`purchases7d`, `sales7d`); Brands and Display do not.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use pp_core::Result;
use serde_json::Value;

use super::{json_cents, json_count, unreadable};

/// One row of an advertising report: its day (daily reports), its dimensions as text, and
/// its measures (money in cents).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AdsRow {
    pub date: Option<NaiveDate>,
    pub dims: BTreeMap<String, String>,
    pub impressions: i64,
    pub clicks: i64,
    pub cost: i64,
    pub purchases: i64,
    pub sales: i64,
    /// DSP's promoted-only part (v1).
    pub purchases_promoted: i64,
    pub sales_promoted: i64,
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

fn rows(what: &str, text_doc: &str) -> Result<Vec<serde_json::Map<String, Value>>> {
    let v: Value = serde_json::from_str(text_doc).map_err(|e| unreadable(what, e))?;
    let Value::Array(items) = v else {
        return Err(unreadable(what, "it is not a list of rows"));
    };
    items
        .into_iter()
        .map(|r| match r {
            Value::Object(m) => Ok(m),
            other => Err(unreadable(what, format!("{other} is not a row"))),
        })
        .collect()
}

/// Reads the measures a row has, under any of `names`.
fn measure(
    what: &str,
    r: &serde_json::Map<String, Value>,
    names: &[&str],
    money: bool,
) -> Result<i64> {
    match names.iter().find_map(|n| r.get(*n)) {
        None => Ok(0),
        Some(v) if money => json_cents(what, v),
        Some(v) => json_count(what, v),
    }
}

fn date(what: &str, v: Option<&Value>) -> Result<Option<NaiveDate>> {
    v.map(|v| {
        v.as_str()
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| unreadable(what, format!("{v} is not a date")))
    })
    .transpose()
}

/// A Reporting v3 document.
pub fn v3(doc: &str) -> Result<Vec<AdsRow>> {
    const WHAT: &str = "Reporting v3";
    const MEASURES: &[&str] = &[
        "impressions",
        "clicks",
        "cost",
        "spend",
        "purchases7d",
        "sales7d",
        "purchases",
        "sales",
        "costPerClick",
        "clickThroughRate",
    ];
    rows(WHAT, doc)?
        .iter()
        .map(|r| {
            Ok(AdsRow {
                date: date(WHAT, r.get("date"))?,
                dims: r
                    .iter()
                    .filter(|(k, _)| !MEASURES.contains(&k.as_str()) && *k != "date")
                    .map(|(k, v)| (k.clone(), text(v)))
                    .collect(),
                impressions: measure(WHAT, r, &["impressions"], false)?,
                clicks: measure(WHAT, r, &["clicks"], false)?,
                cost: measure(WHAT, r, &["cost", "spend"], true)?,
                purchases: measure(WHAT, r, &["purchases7d", "purchases"], false)?,
                sales: measure(WHAT, r, &["sales7d", "sales"], true)?,
                ..AdsRow::default()
            })
        })
        .collect()
}

/// A Reporting v1 document (`GZIP_JSON`): fields are dotted (`metric.totalCost`,
/// `date.value`, `adGroup.id` …).
pub fn v1(doc: &str) -> Result<Vec<AdsRow>> {
    const WHAT: &str = "Reporting v1";
    rows(WHAT, doc)?
        .iter()
        .map(|r| {
            Ok(AdsRow {
                date: date(WHAT, r.get("date.value"))?,
                dims: r
                    .iter()
                    .filter(|(k, _)| !k.starts_with("metric.") && *k != "date.value")
                    .map(|(k, v)| (k.clone(), text(v)))
                    .collect(),
                impressions: measure(WHAT, r, &["metric.impressions"], false)?,
                clicks: measure(WHAT, r, &["metric.clicks"], false)?,
                cost: measure(WHAT, r, &["metric.totalCost"], true)?,
                purchases: measure(WHAT, r, &["metric.purchases"], false)?,
                sales: measure(WHAT, r, &["metric.sales"], true)?,
                purchases_promoted: measure(WHAT, r, &["metric.purchasesPromoted"], false)?,
                sales_promoted: measure(WHAT, r, &["metric.salesPromoted"], true)?,
            })
        })
        .collect()
}
