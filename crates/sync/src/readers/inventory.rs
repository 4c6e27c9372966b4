//! FBA inventory by SKU and day: the inventory ledger's daily balances (read from 27 days
//! before the slice, for each day's days of supply), and on the run's last day the units in
//! inbound shipments from today's unsuppressed inventory report.

use chrono::NaiveDate;
use pp_core::Result;
use pp_marketplace::documents::selling;
use pp_marketplace::ledger::Family;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::{Value, json};

use super::{days, unreadable};
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started};

/// The reader.
pub struct Inventory;

impl Reader for Inventory {
    fn label(&self) -> &'static str {
        "GET_LEDGER_SUMMARY_VIEW_DATA and GET_FBA_MYI_UNSUPPRESSED_INVENTORY_DATA"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, (from, to): Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let run = cx.run()?;
            // the 27 days before the slice too, for its days of supply
            let start = (from - chrono::Days::new(27)).max(run.earliest.unwrap_or(from));
            let ledger = cx.spapi_request(
                "GET_LEDGER_SUMMARY_VIEW_DATA",
                Some((start, to)),
                json!({ "aggregatedByTimePeriod": "DAILY", "aggregateByLocation": "COUNTRY" }),
            );
            let id = cx.create(Family::Spapi, ledger, (from, to), "").await?;
            // the run's last day: today's inbound units
            let also = match to == run.to && !run.backfill {
                true => {
                    let body = cx.spapi_request(
                        "GET_FBA_MYI_UNSUPPRESSED_INVENTORY_DATA",
                        None,
                        Value::Null,
                    );
                    Some(
                        cx.create(Family::Spapi, body, (from, to), "inbound")
                            .await?,
                    )
                }
                false => None,
            };
            Ok(Started::Asked(ReportCk {
                also,
                ..ReportCk::new(id, (from, to))
            }))
        })
    }

    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            let Some(ledger) = cx.spapi_done(r, &r.id).await? else {
                return Ok(None);
            };
            let inbound = match &r.also {
                Some(id) => match cx.spapi_done(r, id).await? {
                    None => return Ok(None),
                    Some(t) => t,
                },
                None => None,
            };
            let ledger = match &ledger {
                Some(t) => selling::ledger(t)?,
                None => Vec::new(),
            };
            let inbound = inbound.as_deref().map(inbound_units).transpose()?;
            let latest = inbound.as_ref().map(|m| (r.to, m));
            Ok(Some(vec![rows(&cx.seller, r.days(), &ledger, latest)]))
        })
    }
}

/// How many days of sales a day's supply is averaged over.
const SUPPLY_DAYS: i64 = 28;

/// The FBA inventory of `from..=to` from the ledger's days (which start up to 27 days earlier,
/// for the days of supply), with today's inbound units (`inbound`, by SKU, from the
/// unsuppressed inventory report) on the day `inbound_day`.
pub fn rows(
    seller: &Seller,
    (from, to): (NaiveDate, NaiveDate),
    ledger: &[selling::LedgerDay],
    inbound: Option<(NaiveDate, &std::collections::BTreeMap<String, i64>)>,
) -> Load {
    use std::collections::BTreeMap;
    let t = table("spapi_fba_inventory");
    let sellable: Vec<&selling::LedgerDay> = ledger
        .iter()
        .filter(|l| l.disposition == "SELLABLE")
        .collect();
    // units sold by SKU and day (shipments are written as removals), and each SKU's first
    // day in the document (the report's start, or the day it first had stock)
    let mut sold: BTreeMap<(&str, NaiveDate), i64> = BTreeMap::new();
    let mut first: BTreeMap<&str, NaiveDate> = BTreeMap::new();
    for l in &sellable {
        *sold.entry((l.sku.as_str(), l.date)).or_default() += -l.customer_shipments;
        let f = first.entry(l.sku.as_str()).or_insert(l.date);
        *f = (*f).min(l.date);
    }
    let mut rows = Vec::new();
    for l in sellable.iter().filter(|l| l.date >= from && l.date <= to) {
        let since = l.date - chrono::Days::new(SUPPLY_DAYS as u64 - 1);
        // a day whose 28 days the ledger does not reach (the reach's first days, a new SKU's
        // first days) has no days of supply
        let known = first.get(l.sku.as_str()).is_some_and(|f| *f <= since);
        let units: i64 = sold
            .range((l.sku.as_str(), since)..=(l.sku.as_str(), l.date))
            .map(|(_, u)| u)
            .sum();
        let supply = match (known, units) {
            (true, u) if u > 0 => {
                let avg = u as f64 / SUPPLY_DAYS as f64;
                Cell::Real((l.ending as f64 / avg * 10.0).round() / 10.0)
            }
            _ => Cell::Null,
        };
        let inbound = match inbound {
            Some((day, by_sku)) if day == l.date => {
                by_sku.get(&l.sku).copied().map_or(Cell::Null, Cell::Int)
            }
            _ => Cell::Null,
        };
        rows.push(vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(l.date.to_string()),
            Cell::Text(l.asin.clone()),
            Cell::Text(l.sku.clone()),
            Cell::Int(l.ending),
            inbound,
            Cell::Int(l.in_transit),
            supply,
        ]);
    }
    Load {
        slice: days(t, seller, from, to, "Date"),
        rows,
    }
}

/// Units in inbound shipments by SKU, from the unsuppressed inventory report.
pub fn inbound_units(text: &str) -> Result<std::collections::BTreeMap<String, i64>> {
    pp_marketplace::documents::tsv("unsuppressed inventory", text)?
        .iter()
        .map(|r| {
            let sku = r.get("sku").cloned().unwrap_or_default();
            let n = r
                .get("afn-inbound-working-quantity")
                .and_then(|v| v.trim().parse::<i64>().ok())
                .ok_or_else(|| {
                    unreadable(
                        "unsuppressed inventory",
                        format!("SKU {sku} has no inbound quantity"),
                    )
                })?;
            Ok((sku, n))
        })
        .collect()
}
