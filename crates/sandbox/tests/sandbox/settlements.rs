//! Settlement reports: scheduled by the provider (never requested), listed for their 90-day
//! retention, each a V2 flat file whose lines add up, to the cent, to the world's settlement
//! (read with the gateway's reader, `pp_marketplace::documents`).

use std::collections::BTreeMap;

use pp_marketplace::documents::selling::settlement;
use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US, parts};
use crate::spapi_reports::create;

const SETTLEMENT: &str = "GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2";

/// Every settlement report `getReports` lists for the token, paging with `nextToken`.
async fn listed(app: &SimApp, token: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut path = format!("/reports/2021-06-30/reports?reportTypes={SETTLEMENT}&pageSize=3");
    loop {
        let (s, _, b) = parts(app.sp(Method::GET, &path, token).send().await.unwrap()).await;
        assert_eq!(s, 200, "{b}");
        out.extend(b["reports"].as_array().unwrap().iter().cloned());
        match b["nextToken"].as_str() {
            Some(t) => {
                path = format!(
                    "/reports/2021-06-30/reports?nextToken={}",
                    form_urlencoded::byte_serialize(t.as_bytes()).collect::<String>()
                )
            }
            None => return out,
        }
    }
}

/// A report's document as text.
async fn text_of(app: &SimApp, token: &str, doc: &str) -> String {
    let (s, _, d) = parts(
        app.sp(
            Method::GET,
            &format!("/reports/2021-06-30/documents/{doc}"),
            token,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(s, 200, "{d}");
    app.download_gz(d["url"].as_str().unwrap()).await
}

/// Issue 53: settlements, for the provider's retention window only.
#[tokio::test]
async fn settlement_reports_are_kept_90_days_and_add_up_to_the_world() {
    let app = SimApp::small(|_| {}).await;
    app.no_limits().await;
    let token = app.access("seller", SELLER).await;
    // nobody requests one
    let (s, b) = create(
        &app,
        &token,
        json!({"reportType": SETTLEMENT, "marketplaceIds": [US]}),
    )
    .await;
    assert_eq!(s, 400, "{b}");
    let reports = listed(&app, &token).await;
    // what the world settled for this merchant (US and CA) in the last 90 days
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let mut st = world
        .prepare(
            "SELECT \"Settlement-id\", COUNT(*), CAST(ROUND(SUM(Amount) * 100) AS INTEGER)
             FROM spapi_settlement WHERE MarketplaceSellerID = ?1 AND \"Settlement-end-date\" >= '2026-08-24'
             GROUP BY 1",
        )
        .unwrap();
    let truth: BTreeMap<String, (i64, i64)> = st
        .query_map([SELLER], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(truth.len() >= 6, "{truth:?}");
    let mut served = BTreeMap::new();
    for r in &reports {
        assert_eq!(r["processingStatus"], "DONE", "{r}");
        let text = text_of(&app, &token, r["reportDocumentId"].as_str().unwrap()).await;
        let doc = settlement(&text).unwrap();
        let sum: i64 = doc.lines.iter().map(|l| l.amount).sum();
        assert_eq!(
            sum, doc.total,
            "settlement {}: the lines add up to its total",
            doc.id
        );
        let (sid, n) = (doc.id.clone(), doc.lines.len() as i64);
        served.insert(sid, (n, sum));
    }
    assert_eq!(served, truth);
    // listing again lists the same reports, once each
    assert_eq!(listed(&app, &token).await.len(), reports.len());
}

/// Issue 53: the fault controls apply to the new report flows as to every other: a throttle,
/// a 5xx, a hang, an unreadable body, a fatal report and a lapsed authorization.
#[tokio::test]
async fn the_fault_controls_apply_to_the_new_report_flows() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let token = app.access("seller", "ENTITY2DEMOVENDOR").await;
    let list = format!("/reports/2021-06-30/reports?reportTypes={SETTLEMENT}");
    let vendor = json!({
        "reportType": "GET_VENDOR_SALES_REPORT", "marketplaceIds": [US],
        "dataStartTime": "2026-11-10T00:00:00Z", "dataEndTime": "2026-11-12T00:00:00Z",
        "reportOptions": {"reportPeriod": "DAY"}
    });
    for (rule, status) in [
        (
            json!({"op": "reports.getReports", "effect": "throttle", "times": 1}),
            429,
        ),
        (
            json!({"op": "reports.getReports", "effect": "status", "status": 503, "times": 1}),
            503,
        ),
    ] {
        app.faults(json!([rule])).await;
        let r = app.sp(Method::GET, &list, &token).send().await.unwrap();
        assert_eq!(r.status().as_u16(), status);
        let r = app.sp(Method::GET, &list, &token).send().await.unwrap();
        assert_eq!(r.status().as_u16(), 200, "the rule held once");
    }
    app.faults(json!([{"op": "reports.getReports", "effect": "hang", "times": 1}]))
        .await;
    let hung = app
        .sp(Method::GET, &list, &token)
        .timeout(std::time::Duration::from_millis(500))
        .send()
        .await;
    assert!(hung.is_err_and(|e| e.is_timeout()), "a hang never answers");
    app.faults(json!([{"op": "reports.createReport", "effect": "garbage", "times": 1}]))
        .await;
    let r = app
        .sp(Method::POST, "/reports/2021-06-30/reports", &token)
        .json(&vendor)
        .send()
        .await
        .unwrap();
    assert!(r.json::<Value>().await.is_err(), "an unreadable body");
    app.faults(json!([{"op": "reports.createReport", "effect": "fatal_report", "times": 1}]))
        .await;
    let (s, b) = create(&app, &token, vendor.clone()).await;
    assert_eq!(s, 202, "{b}");
    let end =
        crate::spapi_reports::wait_for_end(&app, &token, b["reportId"].as_str().unwrap()).await;
    assert_eq!(end["report"]["processingStatus"], "FATAL", "{end}");
    let lapse = |on: bool| {
        app.control(Method::POST, "/__sandbox/merchants/lapse")
            .json(&json!({"merchant": "ENTITY2DEMOVENDOR", "on": on}))
            .send()
    };
    lapse(true).await.unwrap();
    let (s, _) = create(&app, &token, vendor).await;
    assert_eq!(s, 403, "a lapsed authorization");
    lapse(false).await.unwrap();
}
