//! The FBA inventory ledger summary (`GET_LEDGER_SUMMARY_VIEW_DATA`, `aggregatedByTimePeriod`
//! `DAILY`, `aggregateByLocation` `COUNTRY`): each SKU's sellable units day by day, within the
//! provider's 18 months, from the world's daily inventory (`spapi_fba_inventory`) and sales.
//! A day's ending warehouse balance is its fulfillable units; reserved units (transfers between
//! fulfillment centres) are in transit between warehouses; customer shipments are the day's
//! units sold (negative, as the ledger writes removals), receipts what arrived, and any other
//! fall (a stock-out's write-off) other events. Units in inbound shipments are not in the
//! ledger: the unsuppressed inventory report has today's.

use chrono::{Days, NaiveDate};
use serde_json::Value;

use super::report_docs::{text, tsv};
use crate::error::SimError;
use crate::sim::Sim;
use crate::world::Seller;

pub const LEDGER: &str = "GET_LEDGER_SUMMARY_VIEW_DATA";
/// How far back the ledger reaches (18 months).
pub const LOOKBACK_DAYS: u64 = 548;

const COLUMNS: &[&str] = &[
    "Date",
    "FNSKU",
    "ASIN",
    "MSKU",
    "Title",
    "Disposition",
    "Starting Warehouse Balance",
    "In Transit Between Warehouses",
    "Receipts",
    "Customer Shipments",
    "Customer Returns",
    "Vendor Returns",
    "Warehouse Transfer In/Out",
    "Found",
    "Lost",
    "Damaged",
    "Disposed",
    "Other Events",
    "Ending Warehouse Balance",
    "Unknown Events",
    "Location",
];

/// Checks a request: daily, by country, whole days within reach.
pub fn check(sim: &Sim, start: Option<NaiveDate>, req: &Value) -> Result<(), SimError> {
    let o = &req["reportOptions"];
    if o["aggregatedByTimePeriod"] != "DAILY" || o["aggregateByLocation"] != "COUNTRY" {
        return Err(SimError::invalid(
            "reportOptions: the sandbox keeps the ledger DAILY by COUNTRY (aggregatedByTimePeriod, aggregateByLocation)",
        ));
    }
    super::reports::started_within(sim, start, LOOKBACK_DAYS)
}

/// The ledger's TSV for `start..=end`.
pub fn document(
    sim: &Sim,
    seller: &Seller,
    (start, end): (NaiveDate, NaiveDate),
) -> Result<String, SimError> {
    let before = (start - Days::new(1)).to_string();
    let rows = sim.world().rows(
        "SELECT i.Date, i.ASIN, i.SKU, i.Fulfillable, i.Reserved, c.Title,
                COALESCE(s.UnitsOrdered, 0) AS Sold
         FROM spapi_fba_inventory i
         JOIN catalog_item c ON c.SellerID = i.SellerID AND c.SKU = i.SKU
         LEFT JOIN spapi_sales_and_traffic_by_asin s
                ON s.SellerID = i.SellerID AND s.SKU = i.SKU AND s.Date = i.Date
         WHERE i.SellerID = ?1 AND i.Date BETWEEN ?2 AND ?3
         ORDER BY i.SKU, i.Date",
        &[&seller.id, &before, &end.to_string()],
    )?;
    let market = super::MARKETPLACES
        .iter()
        .find(|m| m.id == seller.marketplace_id)
        .map_or("", |m| m.country);
    let mut out = Vec::new();
    let mut previous: Option<(String, i64)> = None;
    for r in &rows {
        let (sku, ending) = (text(&r["SKU"]), r["Fulfillable"].as_i64().unwrap_or(0));
        // the balance the SKU closed the day before with (none on its first day: it starts
        // from nothing)
        let starting = match &previous {
            Some((s, e)) if *s == sku => *e,
            _ => 0,
        };
        previous = Some((sku.clone(), ending));
        let date = text(&r["Date"]);
        if date < start.to_string() {
            continue; // the day before the window only opens the balance
        }
        let sold = r["Sold"].as_i64().unwrap_or(0);
        let moved = ending - starting + sold;
        let mut line = vec!["0".to_owned(); COLUMNS.len()];
        line[0] = us_date(&date);
        line[1] = format!("X00{}", &sku.chars().rev().take(7).collect::<String>());
        line[2] = text(&r["ASIN"]);
        line[3] = sku;
        line[4] = text(&r["Title"]);
        line[5] = "SELLABLE".into();
        line[6] = starting.to_string();
        line[7] = text(&r["Reserved"]);
        line[8] = moved.max(0).to_string();
        line[9] = (-sold).to_string();
        line[17] = moved.min(0).to_string();
        line[18] = ending.to_string();
        line[20] = market.to_owned();
        out.push(line);
    }
    Ok(tsv(COLUMNS, out.into_iter()))
}

/// `2026-11-08` as the ledger writes dates (`11/08/2026`).
fn us_date(iso: &str) -> String {
    match iso.split('-').collect::<Vec<_>>()[..] {
        [y, m, d] => format!("{m}/{d}/{y}"),
        _ => iso.to_owned(),
    }
}
