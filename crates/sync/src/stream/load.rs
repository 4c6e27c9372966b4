//! A day's hourly warehouse rows made from the stream's records: traffic summed by hour,
//! target and placement; conversions the same, every restatement's delta added to the first
//! record (an hour whose sum comes to nothing has no row); budget use one row per reading. The
//! day's slice of the table (one seller, one day, the dataset's ad product) is replaced whole,
//! so making a day again is always safe.

use std::collections::BTreeMap;

use pp_warehouse::managed::Slice;
use pp_warehouse::schema::{Cell, Table, table};
use serde_json::Value;

use super::message::{DATASETS, cents, id, int};

/// The warehouse table a dataset's rows go to.
pub fn table_of(dataset: &str) -> &'static Table {
    if dataset == "budget-usage" {
        table("ads_stream_budget_usage")
    } else if dataset.ends_with("-conversion") {
        table("ads_stream_conversion_hourly")
    } else {
        table("ads_stream_traffic_hourly")
    }
}

/// The slice a day of a seller's dataset replaces.
pub fn slice(dataset: &str, seller_id: i64, day: &str) -> Slice {
    let product = DATASETS.iter().find(|d| d.0 == dataset).and_then(|d| d.1);
    Slice {
        table: table_of(dataset),
        seller_id,
        range: Some(("Date", day.to_owned(), day.to_owned())),
        part: product.map(|p| ("AdProduct", p.to_owned())),
    }
}

type Key = (u32, i64, i64, i64, String);

/// The rows of one day of `dataset` for the seller (`seller_id`, merchant `token`), from its
/// records (each with its local `hour`).
pub fn rows(
    dataset: &str,
    seller_id: i64,
    token: &str,
    day: &str,
    records: &[(u32, Value)],
) -> Result<Vec<Vec<Cell>>, String> {
    let head = |hour: u32| -> Vec<Cell> {
        vec![
            Cell::Int(seller_id),
            token.into(),
            day.into(),
            Cell::Int(i64::from(hour)),
        ]
    };
    if dataset == "budget-usage" {
        let mut out = Vec::new();
        for (hour, r) in records {
            let mut row = head(*hour);
            row.extend([
                text(r, "advertising_product_type")?.into(),
                Cell::Int(id(r, "budget_scope_id")?),
                Cell::Cents(cents(r, "budget")?),
                Cell::Cents(cents(r, "budget_usage_percentage")?),
                local_time(text(r, "usage_updated_timestamp")?)?.into(),
            ]);
            out.push(row);
        }
        out.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
        return Ok(out);
    }
    let product = DATASETS
        .iter()
        .find(|d| d.0 == dataset)
        .and_then(|d| d.1)
        .ok_or_else(|| format!("no dataset {dataset}"))?;
    let conversion = dataset.ends_with("-conversion");
    let target_key = if dataset.starts_with("sd-") {
        "target_id"
    } else {
        "keyword_id"
    };
    let mut sums: BTreeMap<Key, ([i64; 3], String)> = BTreeMap::new();
    for (hour, r) in records {
        let key = (
            *hour,
            id(r, "campaign_id")?,
            id(r, "ad_group_id")?,
            id(r, target_key)?,
            text(r, "placement")?.to_owned(),
        );
        let m = if conversion {
            [
                int(r, "attributed_conversions_7d")?,
                cents(r, "attributed_sales_7d")?,
                0,
            ]
        } else {
            [int(r, "impressions")?, int(r, "clicks")?, cents(r, "cost")?]
        };
        let e = sums
            .entry(key)
            .or_insert(([0; 3], text(r, "currency")?.to_owned()));
        for (s, v) in e.0.iter_mut().zip(m) {
            *s += v;
        }
    }
    Ok(sums
        .into_iter()
        .filter(|(_, (m, _))| m.iter().any(|v| *v != 0))
        .map(
            |((hour, campaign, group, target, placement), (m, currency))| {
                let mut row = head(hour);
                row.extend([
                    product.into(),
                    Cell::Int(campaign),
                    Cell::Int(group),
                    Cell::Int(target),
                    placement.into(),
                ]);
                if conversion {
                    row.extend([Cell::Int(m[0]), Cell::Cents(m[1])]);
                } else {
                    row.extend([Cell::Int(m[0]), Cell::Int(m[1]), Cell::Cents(m[2])]);
                }
                row.push(currency.into());
                row
            },
        )
        .collect())
}

fn text<'a>(v: &'a Value, key: &str) -> Result<&'a str, String> {
    v.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("the record has no {key}"))
}

/// `2026-11-20T16:59:59-08:00` as the warehouse's local `2026-11-20 16:59:59`.
fn local_time(iso: &str) -> Result<String, String> {
    chrono::DateTime::parse_from_rfc3339(iso)
        .map(|t| t.naive_local().format("%Y-%m-%d %H:%M:%S").to_string())
        .map_err(|e| format!("{iso} is not ISO 8601: {e}"))
}
