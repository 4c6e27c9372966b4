//! FBA customer returns (`GET_FBA_FULFILLMENT_CUSTOMER_RETURNS_DATA`): each refund's returned
//! units by disposition, from the world's `spapi_fba_returns`, within the provider's 18 months.

use chrono::NaiveDate;

use super::report_docs::{text, tsv};
use crate::error::SimError;
use crate::sim::Sim;
use crate::world::Seller;

pub const RETURNS: &str = "GET_FBA_FULFILLMENT_CUSTOMER_RETURNS_DATA";
/// How far back returns reach (18 months).
pub const LOOKBACK_DAYS: u64 = 548;

const COLUMNS: &[&str] = &[
    "return-date",
    "order-id",
    "sku",
    "asin",
    "fnsku",
    "product-name",
    "quantity",
    "fulfillment-center-id",
    "detailed-disposition",
    "reason",
    "status",
    "license-plate-number",
    "customer-comments",
];

/// Checks a request: a start within reach.
pub fn check(sim: &Sim, start: Option<NaiveDate>) -> Result<(), SimError> {
    super::reports::started_within(sim, start, LOOKBACK_DAYS)
}

/// The report's TSV for returns on `start..=end`.
pub fn document(
    sim: &Sim,
    seller: &Seller,
    (start, end): (NaiveDate, NaiveDate),
) -> Result<String, SimError> {
    let rows = sim.world().rows(
        "SELECT r.*, c.Title FROM spapi_fba_returns r
         LEFT JOIN catalog_item c ON c.SellerID = r.SellerID AND c.SKU = r.SKU
         WHERE r.SellerID = ?1 AND r.Date BETWEEN ?2 AND ?3
         ORDER BY r.\"Return-date\", r.\"Order-id\", r.\"Detailed-disposition\"",
        &[&seller.id, &start.to_string(), &end.to_string()],
    )?;
    let lines = rows.iter().map(|r| {
        let sku = text(&r["SKU"]);
        let disposition = text(&r["Detailed-disposition"]);
        let status = match disposition.as_str() {
            "SELLABLE" => "Unit returned to inventory",
            "CARRIER_DAMAGED" => "Reimbursed",
            _ => "Unit returned to inventory (unsellable)",
        };
        vec![
            text(&r["Return-date"]).replace('Z', "+00:00"),
            text(&r["Order-id"]),
            sku.clone(),
            text(&r["ASIN"]),
            format!("X00{}", sku.chars().rev().take(7).collect::<String>()),
            text(&r["Title"]),
            text(&r["Quantity"]),
            "PHX7".into(),
            disposition,
            text(&r["Reason"]),
            status.into(),
            String::new(),
            String::new(),
        ]
    });
    Ok(tsv(COLUMNS, lines))
}
