//! Vendor analytics reports for the vendor merchant: daily sales (ordered and shipped) and
//! traffic (glance views) by ASIN, adding up to the world's `vendor_sales_and_traffic`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US};
use crate::spapi_reports::{create, document_of};

const VENDOR: &str = "ENTITY2DEMOVENDOR";

fn request(kind: &str, start: &str, end: &str) -> Value {
    json!({
        "reportType": kind,
        "marketplaceIds": [US],
        "dataStartTime": format!("{start}T00:00:00Z"),
        "dataEndTime": format!("{end}T00:00:00Z"),
        "reportOptions": {"reportPeriod": "DAY", "distributorView": "MANUFACTURING", "sellingProgram": "RETAIL"}
    })
}

fn cents(v: &Value) -> i64 {
    (v["amount"].as_f64().unwrap() * 100.0).round() as i64
}

/// Issue 53: vendor sales and traffic, from the world to the cent.
#[tokio::test]
async fn vendor_sales_and_traffic_add_up_to_the_world_by_day() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let token = app.access("seller", VENDOR).await;
    let (start, end) = ("2026-11-07", "2026-11-21");
    let sales: Value = serde_json::from_str(
        &document_of(&app, &token, request("GET_VENDOR_SALES_REPORT", start, end)).await,
    )
    .unwrap();
    let traffic: Value = serde_json::from_str(
        &document_of(
            &app,
            &token,
            request("GET_VENDOR_TRAFFIC_REPORT", start, end),
        )
        .await,
    )
    .unwrap();
    // per day: ordered revenue, ordered units, shipped revenue, shipped units, glance views
    let mut served: BTreeMap<String, [i64; 5]> = BTreeMap::new();
    for r in sales["salesByAsin"].as_array().unwrap() {
        let d = served
            .entry(r["startDate"].as_str().unwrap().into())
            .or_default();
        d[0] += cents(&r["orderedRevenue"]);
        d[1] += r["orderedUnits"].as_i64().unwrap();
        d[2] += cents(&r["shippedRevenue"]);
        d[3] += r["shippedUnits"].as_i64().unwrap();
    }
    for r in traffic["trafficByAsin"].as_array().unwrap() {
        served
            .entry(r["startDate"].as_str().unwrap().into())
            .or_default()[4] += r["glanceViews"].as_i64().unwrap();
    }
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let mut st = world
        .prepare(
            "SELECT Date, CAST(ROUND(SUM(OrderedRevenue) * 100) AS INTEGER), SUM(OrderedUnits),
                    CAST(ROUND(SUM(ShippedRevenue) * 100) AS INTEGER), SUM(ShippedUnits), SUM(GlanceViews)
             FROM vendor_sales_and_traffic WHERE MarketplaceSellerID = ?1 AND Date BETWEEN ?2 AND ?3
             GROUP BY Date",
        )
        .unwrap();
    let truth: BTreeMap<String, [i64; 5]> = st
        .query_map([VENDOR, start, end], |r| {
            Ok((
                r.get(0)?,
                [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?],
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(truth.len(), 15);
    assert_eq!(served, truth);
    // refused as the provider refuses: a seller, too long a window, too far back, by week
    let seller = app.access("seller", SELLER).await;
    let mut week = request("GET_VENDOR_SALES_REPORT", start, end);
    week["reportOptions"]["reportPeriod"] = "WEEK".into();
    for (who, body) in [
        (&seller, request("GET_VENDOR_SALES_REPORT", start, end)),
        (
            &token,
            request("GET_VENDOR_SALES_REPORT", "2026-11-01", "2026-11-21"),
        ),
        (
            &token,
            request("GET_VENDOR_TRAFFIC_REPORT", "2023-11-01", "2023-11-05"),
        ),
        (&token, week),
    ] {
        let (s, b) = create(&app, who, body.clone()).await;
        assert_eq!(s, 400, "{body} → {b}");
    }
}
