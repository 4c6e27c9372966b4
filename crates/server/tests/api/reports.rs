//! Report creates through the ledger, against the sandbox with faults (docs/reports-and-pricing.md, docs/errors.md): identical
//! requests in flight share one report; an uncertain create answers `requestOutcome: unknown`
//! and is reconciled on the retry (the selling side by listing, v3 by its 425) without a second
//! report; keys bind to their request; status and documents; retired types send nothing.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Options, TestApp};

fn v3_report() -> Value {
    json!({"operation": "reporting.create_report", "profileId": 3100000001u64, "query": {"body": {
        "name": "camp", "startDate": "2026-10-01", "endDate": "2026-10-31",
        "configuration": {"adProduct": "SPONSORED_PRODUCTS", "groupBy": ["campaign"], "columns": ["date", "campaignId", "clicks", "cost"],
                          "reportTypeId": "spCampaigns", "timeUnit": "DAILY", "format": "GZIP_JSON"}}}})
}

#[tokio::test]
async fn identical_v3_requests_in_flight_share_one_report() {
    let app = TestApp::start_market_options(Options {
        report_ms: 10_000,
        ..Default::default()
    })
    .await;
    let t = app.token(&app.acme).await;
    // the first create is slow at the provider, so the second arrives while it is in flight
    app.faults(json!([{"op": "reporting.createAsyncReport", "effect": "latency", "latency_ms": 600, "times": 1}]))
        .await;
    let path = "/api/marketplace/ads/call";
    let (a, b) = tokio::join!(app.post_keyed(&t, path, None, v3_report()), async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        app.post_keyed(&t, path, None, v3_report()).await
    });
    assert_eq!((a.0, b.0), (200, 200), "{a:?} {b:?}");
    let id = a.1["report"]["reportId"].as_str().unwrap();
    assert_eq!(
        b.1["report"]["reportId"], id,
        "both callers get the same id"
    );
    assert_eq!(b.1["data"]["reportId"], id);
    // whichever reached the ledger first sent the create; the other waited for its answer
    let reused = [&a.1, &b.1].map(|r| r["report"]["reused"].as_bool().unwrap());
    assert_eq!(reused.iter().filter(|r| **r).count(), 1, "{reused:?}");
    assert_eq!(
        app.sandbox_calls("reporting.createAsyncReport").await,
        1,
        "one create reached the provider"
    );
    // a create whose answer never came: unknown; a plain retry sends nothing (v3 offers no
    // way to look the report up), and a retry that accepts the risk resends, where the 425
    // names the original while it is still in flight
    let mut other = v3_report();
    other["query"]["body"]["endDate"] = "2026-10-30".into();
    app.faults(json!([{"op": "reporting.createAsyncReport", "effect": "hang_after", "times": 1}]))
        .await;
    let (s, r) = app
        .post_keyed(&t, path, Some("v3-key"), other.clone())
        .await;
    assert_eq!(s, 502, "{r}");
    assert_eq!(
        (r["requestOutcome"].as_str(), r["automaticRetry"].as_bool()),
        (Some("unknown"), Some(false))
    );
    assert!(
        r["report"].is_null() && r.get("reportId").is_none(),
        "no report id: {r}"
    );
    let (s, r) = app
        .post_keyed(&t, path, Some("v3-key"), other.clone())
        .await;
    assert_eq!(
        (s, r["acknowledge"].as_str()),
        (502, Some("acceptDuplicateRisk")),
        "{r}"
    );
    assert_eq!(
        app.sandbox_calls("reporting.createAsyncReport").await,
        2,
        "nothing resent"
    );
    other["acceptDuplicateRisk"] = true.into();
    let (s, r) = app.post_keyed(&t, path, Some("v3-key"), other).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["report"]["recovered"], "425", "{r}");
    assert_eq!(
        app.sandbox_calls("reporting.createAsyncReport").await,
        3,
        "the unknown create and one acknowledged resend"
    );
    assert_eq!(
        app.provider_reports("ads_v3").await,
        2,
        "the resend made nothing new"
    );
}

fn sp_report() -> Value {
    json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
           "dataStartTime": "2026-10-01T00:00:00Z", "dataEndTime": "2026-10-31T00:00:00Z"})
}

#[tokio::test]
async fn an_unknown_create_is_found_on_the_retry_and_served_to_its_document() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    let path = "/api/marketplace/reports";
    // retired: nothing sent
    let (s, r) = app
        .post_keyed(
            &t,
            path,
            None,
            json!({"legacySellerId": 1, "reportType": "GET_FBA_FULFILLMENT_INVENTORY_HEALTH_DATA"}),
        )
        .await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("report_retired")),
        "{r}"
    );
    let calls = app
        .sandbox(Method::GET, "/__sandbox/calls", Value::Null)
        .await;
    assert_eq!(calls["calls"], json!({}));
    // the provider makes the report but its answer never arrives
    app.faults(json!([{"op": "reports.createReport", "effect": "hang_after", "times": 1}]))
        .await;
    let (s, r) = app.post_keyed(&t, path, Some("k-1"), sp_report()).await;
    assert_eq!(s, 502, "{r}");
    assert_eq!(
        (r["requestOutcome"].as_str(), r["automaticRetry"].as_bool()),
        (Some("unknown"), Some(false))
    );
    assert!(r.get("reportId").is_none());
    assert_eq!(app.sandbox_calls("reports.createReport").await, 1);
    // the same key on another request is refused
    let mut changed = sp_report();
    changed["dataEndTime"] = "2026-10-30T00:00:00Z".into();
    let (s, r) = app.post_keyed(&t, path, Some("k-1"), changed).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("invalid_request")),
        "{r}"
    );
    // the retry finds the report the provider made, and creates nothing
    let (s, r) = app.post_keyed(&t, path, Some("k-1"), sp_report()).await;
    assert_eq!(s, 202, "{r}");
    assert_eq!(r["recovered"], "listing");
    let id = r["reportId"].as_str().unwrap().to_owned();
    // and so does an identical request without a key
    let (_, again) = app.post_keyed(&t, path, None, sp_report()).await;
    assert_eq!(
        (again["reportId"].as_str(), again["reused"].as_bool()),
        (Some(id.as_str()), Some(true))
    );
    assert_eq!(
        app.sandbox_calls("reports.createReport").await,
        1,
        "one create in all"
    );
    // poll to done, then the document
    let status = loop {
        let (s, v) = app.get(&t, &format!("{path}/{id}")).await;
        assert_eq!(s, 200, "{v}");
        if v["status"] == "done" || v["status"] == "failed" {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(status["documentReady"], true, "{status}");
    // the watch job followed it to the end: the status comes from its record, not the provider
    let started = std::time::Instant::now();
    while app.get(&t, &format!("{path}/{id}")).await.1["checkedAt"].is_null() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the watch never recorded it"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let looks = app.sandbox_calls("reports.getReport").await;
    let (_, again) = app.get(&t, &format!("{path}/{id}")).await;
    assert_eq!(
        (again["status"].as_str(), again["documentReady"].as_bool()),
        (Some("done"), Some(true))
    );
    assert_eq!(
        app.sandbox_calls("reports.getReport").await,
        looks,
        "no provider call"
    );
    let (s, doc) = app.get(&t, &format!("{path}/{id}/document")).await;
    assert_eq!(s, 200, "{doc}");
    assert!(doc["url"].as_str().unwrap().starts_with("http"));
    // another tenant cannot see it
    let beta = app.token(&app.beta).await;
    assert_eq!(app.get(&beta, &format!("{path}/{id}")).await.0, 404);
}

#[tokio::test]
async fn a_fatal_report_says_why_and_has_no_document() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    app.faults(json!([{"op": "reports.createReport", "effect": "fatal_report", "times": 1}]))
        .await;
    let (s, r) = app
        .post_keyed(&t, "/api/marketplace/reports", None, sp_report())
        .await;
    assert_eq!(s, 202, "{r}");
    let id = r["reportId"].as_str().unwrap().to_owned();
    let v = loop {
        let (_, v) = app.get(&t, &format!("/api/marketplace/reports/{id}")).await;
        if v["status"] != "queued" && v["status"] != "running" {
            break v;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        (v["status"].as_str(), v["reason"].as_str()),
        (Some("failed"), Some("provider_fatal")),
        "{v}"
    );
    let (s, e) = app
        .get(&t, &format!("/api/marketplace/reports/{id}/document"))
        .await;
    assert_eq!(
        (s, e["kind"].as_str(), e["retryable"].as_bool()),
        (502, Some("report_fatal"), Some(false)),
        "{e}"
    );
}

#[tokio::test]
async fn a_report_that_never_finishes_is_called_stuck() {
    let mut o = Options {
        report_ms: 600_000,
        ..Default::default()
    };
    o.jobs.report_stuck_after = Duration::from_millis(500);
    let app = TestApp::start_market_options(o).await;
    let t = app.token(&app.acme).await;
    let (s, r) = app
        .post_keyed(&t, "/api/marketplace/reports", None, sp_report())
        .await;
    assert_eq!(s, 202, "{r}");
    let poll = format!(
        "/api/marketplace/reports/{}",
        r["reportId"].as_str().unwrap()
    );
    let started = std::time::Instant::now();
    let v = loop {
        let (_, v) = app.get(&t, &poll).await;
        if v["reason"] == "stuck" {
            break v;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "never called stuck: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        ["queued", "running"].contains(&v["status"].as_str().unwrap()),
        "{v}"
    );
}
