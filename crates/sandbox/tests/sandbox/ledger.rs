//! The inventory ledger summary: every SKU's sellable units for every day of the 18 months
//! it keeps, each day's movements adding up from its starting to its ending balance, and the
//! balances those of the world's daily inventory.

use std::collections::BTreeMap;

use pp_marketplace::documents::selling::ledger;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US};
use crate::spapi_reports::{create, document_of};

fn request(start: &str, end: &str) -> Value {
    json!({
        "reportType": "GET_LEDGER_SUMMARY_VIEW_DATA",
        "marketplaceIds": [US],
        "dataStartTime": format!("{start}T00:00:00Z"),
        "dataEndTime": format!("{end}T00:00:00Z"),
        "reportOptions": {"aggregatedByTimePeriod": "DAILY", "aggregateByLocation": "COUNTRY"}
    })
}

/// Issue 53: the ledger's daily balances are the world's, to the unit.
#[tokio::test]
async fn the_ledger_keeps_every_days_balance_of_the_world() {
    let app = SimApp::small(|_| {}).await;
    app.no_limits().await;
    let token = app.access("seller", SELLER).await;
    let (start, end) = ("2025-05-23", "2026-11-21");
    let text = document_of(&app, &token, request(start, end)).await;
    // (ISO date, SKU) → (ending balance, in transit)
    let mut served = BTreeMap::new();
    for d in ledger(&text).unwrap() {
        let moved = d.receipts + d.customer_shipments + d.other_events;
        assert_eq!(d.starting + moved, d.ending, "{d:?}");
        served.insert((d.date.to_string(), d.sku), (d.ending, d.in_transit));
    }
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let truth: BTreeMap<(String, String), (i64, i64)> = world
        .prepare(
            "SELECT Date, SKU, Fulfillable, Reserved FROM spapi_fba_inventory
             WHERE SellerID = 1 AND Date BETWEEN ?1 AND ?2",
        )
        .unwrap()
        .query_map([start, end], |r| {
            Ok(((r.get(0)?, r.get(1)?), (r.get(2)?, r.get(3)?)))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(truth.len() > 500, "{}", truth.len());
    assert_eq!(served.len(), truth.len());
    assert!(served == truth, "the ledger's balances are the world's");
    // beyond 18 months, or by week, it is refused
    for body in [request("2025-05-01", "2025-05-10"), {
        let mut b = request(start, end);
        b["reportOptions"]["aggregatedByTimePeriod"] = "WEEKLY".into();
        b
    }] {
        let (s, b) = create(&app, &token, body.clone()).await;
        assert_eq!(s, 400, "{body} → {b}");
    }
}
