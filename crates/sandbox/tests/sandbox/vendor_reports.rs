//! Vendor analytics reports for the vendor merchant: daily sales (ordered and shipped) and
//! traffic (glance views) by ASIN, adding up to the world's `vendor_sales_and_traffic`.

use std::collections::BTreeMap;

use chrono::{Duration, NaiveDate};
use pp_marketplace::documents::selling::{vendor_sales, vendor_traffic};
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

/// Issue 53: vendor sales and traffic, from the world to the cent, for every day of the
/// reports' three-year reach.
#[tokio::test]
async fn vendor_sales_and_traffic_add_up_to_the_world_by_day() {
    let app = SimApp::small(|c| c.report_ms = 20).await;
    app.no_limits().await;
    let token = app.access("seller", VENDOR).await;
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let first = today - Duration::days(1_095);
    // per day: ordered revenue, ordered units, shipped revenue, shipped units, glance views
    let mut served: BTreeMap<String, [i64; 5]> = BTreeMap::new();
    let mut windows = Vec::new();
    let mut day = first;
    while day < today {
        let end = (day + Duration::days(14)).min(today - Duration::days(1));
        windows.push((day.to_string(), end.to_string()));
        day = end + Duration::days(1);
    }
    // the windows' sales and traffic reports, ten windows at a time
    for batch in windows.chunks(10) {
        let docs = futures_util::future::join_all(batch.iter().flat_map(|(s, e)| {
            [
                document_of(&app, &token, request("GET_VENDOR_SALES_REPORT", s, e)),
                document_of(&app, &token, request("GET_VENDOR_TRAFFIC_REPORT", s, e)),
            ]
        }))
        .await;
        for pair in docs.chunks(2) {
            let sales: Value = serde_json::from_str(&pair[0]).unwrap();
            let traffic: Value = serde_json::from_str(&pair[1]).unwrap();
            for r in vendor_sales(&sales).unwrap() {
                let d = served.entry(r.date.to_string()).or_default();
                d[0] += r.ordered_revenue;
                d[1] += r.ordered_units;
                d[2] += r.shipped_revenue;
                d[3] += r.shipped_units;
            }
            for (date, _, views) in vendor_traffic(&traffic).unwrap() {
                served.entry(date.to_string()).or_default()[4] += views;
            }
        }
    }
    let (start, end) = (first.to_string(), (today - Duration::days(1)).to_string());
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
        .query_map([VENDOR, start.as_str(), end.as_str()], |r| {
            Ok((
                r.get(0)?,
                [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?],
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(truth.len(), 1_095);
    assert_eq!(served, truth);
    // refused as the provider refuses: a seller, too long a window, too far back, by week
    let seller = app.access("seller", SELLER).await;
    let (start, end) = ("2026-11-07", "2026-11-21");
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
