//! Report documents built from the world: the sales-and-traffic JSON report (by date and by
//! child ASIN over the window), the all-listings report and the FBA inventory report (TSV).

use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::error::SimError;
use crate::sim::Sim;
use crate::world::Seller;

fn money(v: &Value, currency: &str) -> Value {
    json!({ "amount": v.as_f64().unwrap_or(0.0), "currencyCode": currency })
}

/// `GET_SALES_AND_TRAFFIC_REPORT` for `seller` over `start..=end`.
pub fn sales_and_traffic(
    sim: &Sim,
    seller: &Seller,
    start: NaiveDate,
    end: NaiveDate,
    req: &Value,
) -> Result<Value, SimError> {
    let (s, e) = (start.to_string(), end.to_string());
    let cur = seller.currency.as_str();
    let by_date: Vec<Value> = sim
        .world()
        .rows(
            "SELECT Date, OrderedProductSales, UnitsOrdered, TotalOrderItems, Sessions, PageViews, BuyBoxPercentage
             FROM spapi_sales_and_traffic_by_date WHERE SellerID = ?1 AND Date BETWEEN ?2 AND ?3 ORDER BY Date",
            &[&seller.id, &s, &e],
        )?
        .into_iter()
        .map(|r| {
            json!({
                "date": r["Date"],
                "salesByDate": {
                    "orderedProductSales": money(&r["OrderedProductSales"], cur),
                    "unitsOrdered": r["UnitsOrdered"],
                    "totalOrderItems": r["TotalOrderItems"],
                },
                "trafficByDate": {
                    "pageViews": r["PageViews"],
                    "sessions": r["Sessions"],
                    "buyBoxPercentage": r["BuyBoxPercentage"],
                },
            })
        })
        .collect();
    let by_asin: Vec<Value> = sim
        .world()
        .rows(
            "SELECT ParentASIN, ChildASIN, SKU, SUM(UnitsOrdered) AS Units, ROUND(SUM(OrderedProductSales), 2) AS Sales,
                    SUM(TotalOrderItems) AS Items, SUM(Sessions) AS Sessions, SUM(PageViews) AS Views,
                    ROUND(SUM(BuyBoxPercentage * Sessions) / MAX(SUM(Sessions), 1), 2) AS BuyBox
             FROM spapi_sales_and_traffic_by_asin WHERE SellerID = ?1 AND Date BETWEEN ?2 AND ?3
             GROUP BY ParentASIN, ChildASIN, SKU ORDER BY ChildASIN",
            &[&seller.id, &s, &e],
        )?
        .into_iter()
        .map(|r| {
            json!({
                "parentAsin": r["ParentASIN"],
                "childAsin": r["ChildASIN"],
                "sku": r["SKU"],
                "salesByAsin": { "unitsOrdered": r["Units"], "orderedProductSales": money(&r["Sales"], cur), "totalOrderItems": r["Items"] },
                "trafficByAsin": { "sessions": r["Sessions"], "pageViews": r["Views"], "buyBoxPercentage": r["BuyBox"] },
            })
        })
        .collect();
    Ok(json!({
        "reportSpecification": {
            "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
            "reportOptions": req.get("reportOptions").cloned().unwrap_or_else(|| json!({ "dateGranularity": "DAY", "asinGranularity": "CHILD" })),
            "dataStartTime": s,
            "dataEndTime": e,
            "marketplaceIds": [seller.marketplace_id],
        },
        "salesAndTrafficByDate": by_date,
        "salesAndTrafficByAsin": by_asin,
    }))
}

pub(super) fn tsv(header: &[&str], rows: impl Iterator<Item = Vec<String>>) -> String {
    let mut out = header.join("\t");
    out.push('\n');
    for r in rows {
        out.push_str(&r.join("\t"));
        out.push('\n');
    }
    out
}

pub(super) fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

/// `GET_MERCHANT_LISTINGS_ALL_DATA`.
pub fn listings(sim: &Sim, seller: &Seller) -> Result<String, SimError> {
    let rows = sim.world().rows(
        "SELECT Title, SKU, ListPrice, LaunchDate, ASIN FROM catalog_item WHERE SellerID = ?1 AND SKU IS NOT NULL ORDER BY SKU",
        &[&seller.id],
    )?;
    Ok(tsv(
        &[
            "item-name",
            "seller-sku",
            "price",
            "open-date",
            "asin1",
            "status",
            "fulfillment-channel",
        ],
        rows.iter().map(|r| {
            vec![
                text(&r["Title"]),
                text(&r["SKU"]),
                text(&r["ListPrice"]),
                text(&r["LaunchDate"]),
                text(&r["ASIN"]),
                "Active".into(),
                "AMAZON_NA".into(),
            ]
        }),
    ))
}

/// `GET_FBA_MYI_UNSUPPRESSED_INVENTORY_DATA` (the latest snapshot).
pub fn inventory(sim: &Sim, seller: &Seller) -> Result<String, SimError> {
    let rows = sim.world().rows(
        "SELECT SKU, ASIN, Fulfillable, Inbound, Reserved FROM spapi_fba_inventory
         WHERE SellerID = ?1 AND Date = (SELECT MAX(Date) FROM spapi_fba_inventory WHERE SellerID = ?1) ORDER BY SKU",
        &[&seller.id],
    )?;
    Ok(tsv(
        &[
            "sku",
            "asin",
            "afn-fulfillable-quantity",
            "afn-inbound-working-quantity",
            "afn-reserved-quantity",
        ],
        rows.iter().map(|r| {
            vec![
                text(&r["SKU"]),
                text(&r["ASIN"]),
                text(&r["Fulfillable"]),
                text(&r["Inbound"]),
                text(&r["Reserved"]),
            ]
        }),
    ))
}
