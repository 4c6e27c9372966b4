//! Settlement reports (`GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2`): the provider schedules
//! them itself, one per closed settlement period and marketplace, and keeps them for 90 days;
//! nobody can request one. `getReports` lists them (already `DONE`), and their documents are
//! the V2 flat file: a tab-separated header, the settlement's summary line (total and deposit
//! date), then one line per amount, from the world's `spapi_settlement` rows.

use chrono::{Days, NaiveDate};
use serde_json::{Value, json};

use super::report_docs::{text, tsv};
use crate::error::SimError;
use crate::reports::now_ms;
use crate::sim::Sim;
use crate::world::Seller;

/// The report type.
pub const SETTLEMENT: &str = "GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2";

/// How long the provider keeps a settlement report after its period ends.
pub const RETENTION_DAYS: u64 = 90;

/// The V2 flat file's columns.
const COLUMNS: &[&str] = &[
    "settlement-id",
    "settlement-start-date",
    "settlement-end-date",
    "deposit-date",
    "total-amount",
    "currency",
    "transaction-type",
    "order-id",
    "merchant-order-id",
    "adjustment-id",
    "shipment-id",
    "marketplace-name",
    "amount-type",
    "amount-description",
    "amount",
    "fulfillment-id",
    "posted-date",
    "posted-date-time",
    "order-item-code",
    "merchant-order-item-id",
    "merchant-adjustment-item-id",
    "sku",
    "quantity-purchased",
    "promotion-id",
];

/// The report id of settlement `sid` (scheduled reports are numbered apart from requested
/// ones).
fn report_id(sid: &str) -> String {
    format!("7{sid:0>11}")
}

/// The first day a settlement period may end on and still be listed.
fn retained_from(sim: &Sim) -> NaiveDate {
    sim.world().today() - Days::new(RETENTION_DAYS)
}

/// Makes sure every settlement of `owner`'s sellers inside the retention window has its
/// report (done at once: the provider made it when the period closed).
pub fn schedule(sim: &Sim, owner: &str) -> Result<(), SimError> {
    let from = retained_from(sim).to_string();
    for seller in sim.world().seller_rows(owner)? {
        let periods = sim.world().rows(
            "SELECT DISTINCT \"Settlement-id\" AS id, \"Settlement-start-date\" AS start,
                    \"Settlement-end-date\" AS end
             FROM spapi_settlement WHERE SellerID = ?1 AND \"Settlement-end-date\" >= ?2
             ORDER BY 3",
            &[&seller.id, &from],
        )?;
        for p in periods {
            let sid = text(&p["id"]);
            let request = json!({
                "reportType": SETTLEMENT,
                "marketplaceIds": [seller.marketplace_id],
                "dataStartTime": p["start"],
                "dataEndTime": p["end"],
                "settlementId": sid,
            });
            sim.schedule_report("sp", owner, &report_id(&sid), &request, now_ms())?;
        }
    }
    Ok(())
}

/// Whether a listed report of this type is still kept.
pub fn kept(sim: &Sim, request: &Value) -> bool {
    request["dataEndTime"]
        .as_str()
        .and_then(|s| s.get(..10))
        .and_then(|d| d.parse::<NaiveDate>().ok())
        .is_some_and(|end| end >= retained_from(sim))
}

/// The V2 flat file of the settlement a report names.
pub fn document(sim: &Sim, seller: &Seller, request: &Value) -> Result<String, SimError> {
    let sid = request["settlementId"].as_str().unwrap_or_default();
    let lines = sim.world().rows(
        "SELECT * FROM spapi_settlement WHERE SellerID = ?1 AND \"Settlement-id\" = ?2
         ORDER BY \"Posted-date-time\", \"Sku\", \"Amount-type\", \"Amount-description\"",
        &[&seller.id, &sid],
    )?;
    let Some(first) = lines.first() else {
        return Err(SimError::not_found(format!("no settlement {sid}")));
    };
    let cents: i64 = lines
        .iter()
        .map(|l| (l["Amount"].as_f64().unwrap_or(0.0) * 100.0).round() as i64)
        .sum();
    let at = |k: &str| iso(&text(&first[k]));
    let mut summary = vec![String::new(); COLUMNS.len()];
    summary[..6].clone_from_slice(&[
        sid.to_owned(),
        at("Settlement-start-date"),
        at("Settlement-end-date"),
        at("Deposit-date"),
        format!("{:.2}", cents as f64 / 100.0),
        text(&first["Currency"]),
    ]);
    let market = super::MARKETPLACES
        .iter()
        .find(|m| m.id == seller.marketplace_id)
        .map_or("", |m| m.name);
    let rows = lines.iter().map(|l| {
        let posted = iso(&text(&l["Posted-date-time"]));
        let mut r = vec![String::new(); COLUMNS.len()];
        r[0] = sid.to_owned();
        r[5] = text(&l["Currency"]);
        r[6] = text(&l["Transaction-type"]);
        r[7] = text(&l["Order-id"]);
        r[11] = market.to_owned();
        r[12] = text(&l["Amount-type"]);
        r[13] = text(&l["Amount-description"]);
        r[14] = format!("{:.2}", l["Amount"].as_f64().unwrap_or(0.0));
        r[15] = if l["Order-id"].is_null() {
            String::new()
        } else {
            "AFN".into()
        };
        r[16] = posted.get(..10).unwrap_or_default().to_owned();
        r[17] = posted;
        r[21] = text(&l["Sku"]);
        r[22] = text(&l["Quantity-purchased"]);
        r
    });
    Ok(tsv(COLUMNS, std::iter::once(summary).chain(rows)))
}

/// A world time (`2026-11-08T00:00:00Z`) as the flat file writes it (`+00:00`).
fn iso(t: &str) -> String {
    match t.strip_suffix('Z') {
        Some(base) => format!("{base}+00:00"),
        None => t.to_owned(),
    }
}
