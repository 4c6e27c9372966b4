//! The fault matrix: every sandbox fault against every class of operation — a plain read, a
//! paged advertising read, the three report creates (and their retry) and a pricing run —
//! asserting what the caller sees (status, kind, `retryable`, `Retry-After`, the uncertain
//! outcome's fields) and what reached the provider (calls, and reports it holds), one table
//! per class in the manner of the triage table (docs/errors.md).

use std::ops::RangeInclusive;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Options, TestApp};

/// A fault rule for `op` (affecting `times` calls).
fn rule(op: &str, fault: &str, times: u32) -> Value {
    let mut r = json!({ "op": op, "times": times });
    match fault {
        "latency" => {
            r["effect"] = "latency".into();
            r["latency_ms"] = 200.into();
        }
        "status_500" | "status_503" => {
            r["effect"] = "status".into();
            r["status"] = fault[7..].parse::<u16>().unwrap().into();
        }
        "throttle_retry_after" => {
            r["effect"] = "throttle".into();
            r["retry_after"] = 1.into();
        }
        other => r["effect"] = other.into(),
    }
    r
}

const FAULTS: &[&str] = &[
    "latency",
    "hang",
    "hang_after",
    "status_500",
    "status_503",
    "throttle_retry_after",
    "throttle",
    "garbage",
    "reset",
    "fatal_report",
];

/// What one cell must show.
#[derive(Debug, Clone)]
struct Cell {
    status: u16,
    kind: Option<&'static str>,
    retryable: Option<bool>,
    retry_after: Option<&'static str>,
    /// `requestOutcome: unknown` with `automaticRetry: false`.
    unknown: bool,
    calls: RangeInclusive<u64>,
}

fn ok(calls: u64) -> Cell {
    Cell {
        status: 200,
        kind: None,
        retryable: None,
        retry_after: None,
        unknown: false,
        calls: calls..=calls,
    }
}

fn fail(status: u16, kind: &'static str, retryable: bool, calls: RangeInclusive<u64>) -> Cell {
    Cell {
        status,
        kind: Some(kind),
        retryable: Some(retryable),
        retry_after: None,
        unknown: false,
        calls,
    }
}

fn uncertain() -> Cell {
    Cell {
        unknown: true,
        ..fail(502, "upstream_unavailable", true, 1..=1)
    }
}

fn with_retry_after(c: Cell) -> Cell {
    Cell {
        retry_after: Some("1"),
        ..c
    }
}

async fn reset(app: &TestApp) {
    app.sandbox(Method::DELETE, "/__sandbox/faults", Value::Null)
        .await;
    app.sandbox(Method::DELETE, "/__sandbox/calls", Value::Null)
        .await;
}

/// One call of a cell: where it goes, the provider operation it reaches, its key and body.
struct Call<'a> {
    path: &'a str,
    op: &'a str,
    key: Option<&'a str>,
    body: Value,
}

/// A test app whose provider neither paces nor enforces usage plans (the cells count calls).
async fn quiet_app(spacing: Option<Duration>) -> TestApp {
    let mut o = Options {
        pacing: false,
        sim_limits: false,
        ..Default::default()
    };
    if spacing.is_some() {
        o.jobs.pricing_spacing = pp_marketplace::pricing::Spacing(spacing);
    }
    TestApp::start_market_options(o).await
}

/// Sends the call and checks the answer against `want`; the body.
async fn check(app: &TestApp, token: &str, call: Call<'_>, cell: &str, want: &Cell) -> Value {
    let Call {
        path,
        op,
        key,
        body,
    } = call;
    let mut req = app.http.post(app.url(path)).bearer_auth(token).json(&body);
    if let Some(k) = key {
        req = req.header("Idempotency-Key", k);
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let retry_after = res
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_owned());
    let r: Value = res.json().await.unwrap();
    let at = format!("{op} × {cell}: {r}");
    let expected_status = if want.status == 200 && path.ends_with("/reports") {
        202
    } else {
        want.status
    };
    assert_eq!(status, expected_status, "{at}");
    assert_eq!(r["kind"].as_str(), want.kind, "{at}");
    if let Some(retryable) = want.retryable {
        assert_eq!(r["retryable"], retryable, "{at}");
    }
    assert_eq!(retry_after.as_deref(), want.retry_after, "{at}");
    assert_eq!(
        r["requestOutcome"] == "unknown" && r["automaticRetry"] == false,
        want.unknown,
        "{at}"
    );
    let calls = app.sandbox_calls(op).await;
    assert!(
        want.calls.contains(&calls),
        "{at}: {calls} calls, want {:?}",
        want.calls
    );
    r
}

fn read_table() -> Vec<Cell> {
    let failing = |calls| fail(502, "upstream_unavailable", true, calls);
    vec![
        ok(1),
        failing(2..=3),
        failing(2..=3),
        failing(3..=3),
        failing(3..=3),
        with_retry_after(fail(429, "throttled", true, 3..=3)),
        with_retry_after(fail(429, "throttled", true, 3..=3)),
        failing(1..=1),
        failing(3..=3),
        ok(1),
    ]
}

#[tokio::test]
async fn reads_plain_and_paged() {
    let app = quiet_app(None).await;
    let t = app.token(&app.acme).await;
    let classes = [
        (
            "/api/marketplace/spapi/call",
            "sellers.getAccount",
            json!({"operation": "sellers.get_account", "legacySellerId": 1}),
        ),
        (
            "/api/marketplace/ads/call",
            "sp.listCampaigns",
            json!({"operation": "sp.list_campaigns", "profileId": 3100000001u64, "query": {"body": {"maxResults": 10}}}),
        ),
    ];
    for (path, op, body) in classes {
        for (fault, want) in FAULTS.iter().zip(read_table()) {
            reset(&app).await;
            app.faults(json!([rule(op, fault, 3)])).await;
            let call = Call {
                path,
                op,
                key: None,
                body: body.clone(),
            };
            check(&app, &t, call, fault, &want).await;
        }
    }
}

/// A report create's table: what the first call shows, and how many reports the provider
/// holds after it and after a keyed retry (without acknowledging any risk).
struct CreateCase {
    path: &'static str,
    op: &'static str,
    family: &'static str,
    /// The request for cell `i` (a window of its own, so the ledger keeps cells apart).
    body: fn(usize) -> Value,
    /// Reports after the retry when the first create's outcome was unknown.
    retry_creates_when_nothing_made: bool,
}

fn sp_body(i: usize) -> Value {
    json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
           "dataStartTime": "2026-08-01T00:00:00Z", "dataEndTime": format!("2026-08-{:02}T00:00:00Z", i + 2)})
}

fn v3_body(i: usize) -> Value {
    json!({"operation": "reporting.create_report", "profileId": 3100000001u64, "query": {"body": {
        "name": format!("cell {i}"), "startDate": "2026-10-01", "endDate": format!("2026-10-{:02}", i + 2),
        "configuration": {"adProduct": "SPONSORED_PRODUCTS", "groupBy": ["campaign"], "columns": ["date", "campaignId", "clicks"],
                          "reportTypeId": "spCampaigns", "timeUnit": "DAILY", "format": "GZIP_JSON"}}}})
}

fn v1_body(i: usize) -> Value {
    json!({"operation": "reporting_v1.create_report", "sellerId": "ENTITY2DEMOVENDOR", "query": {"body": {
        "accessRequestedAccounts": [{"advertiserAccountId": "590000000000001"}],
        "reports": [{"format": "GZIP_JSON", "periods": [{"datePeriod": {"startDate": "2026-08-01", "endDate": format!("2026-08-{:02}", i + 2)}}],
                     "query": {"fields": ["campaign.id", "metric.clicks"]}}]}}})
}

/// Whether the fault lets the provider act (the report is made) before its answer goes wrong.
fn acts(fault: &str) -> bool {
    matches!(fault, "latency" | "hang_after" | "garbage" | "fatal_report")
}

fn create_table(capped_429: bool) -> Vec<Cell> {
    let throttled = Cell {
        retry_after: Some("1"),
        ..fail(429, "throttled", !capped_429, 1..=1)
    };
    vec![
        ok(1),
        uncertain(),
        uncertain(),
        uncertain(),
        uncertain(),
        throttled.clone(),
        throttled,
        uncertain(),
        uncertain(),
        ok(1),
    ]
}

async fn create_matrix(case: CreateCase, capped_429: bool) {
    let app = quiet_app(None).await;
    let t = app.token(&app.acme).await;
    for (i, (fault, want)) in FAULTS.iter().zip(create_table(capped_429)).enumerate() {
        reset(&app).await;
        let before = app.provider_reports(case.family).await;
        app.faults(json!([rule(case.op, fault, 1)])).await;
        let key = format!("{}-{i}", case.family);
        let body = (case.body)(i);
        let call = Call {
            path: case.path,
            op: case.op,
            key: Some(&key),
            body: body.clone(),
        };
        check(&app, &t, call, fault, &want).await;
        let made = app.provider_reports(case.family).await - before;
        assert_eq!(
            made,
            u64::from(acts(fault)),
            "{} × {fault}: reports made",
            case.op
        );
        if !want.unknown {
            continue;
        }
        // the keyed retry: one report in all, whatever the first call did
        let retry = app.post_keyed(&t, case.path, Some(&key), body).await;
        let after = app.provider_reports(case.family).await - before;
        match (acts(fault), case.retry_creates_when_nothing_made) {
            // the selling side's listing adopts the report, or proves there is none and creates
            (_, true) => {
                assert!(
                    retry.0 == 202 || retry.0 == 200,
                    "{} × {fault} retry: {:?}",
                    case.op,
                    retry
                );
                assert_eq!(
                    after, 1,
                    "{} × {fault}: one report after the retry",
                    case.op
                );
            }
            // the advertising families cannot look: nothing is sent without acknowledgement
            (_, false) => {
                assert_eq!(retry.0, 502, "{} × {fault} retry: {:?}", case.op, retry);
                assert_eq!(retry.1["acknowledge"], "acceptDuplicateRisk", "{:?}", retry);
                assert_eq!(after, made, "{} × {fault}: nothing more made", case.op);
            }
        }
    }
}

#[tokio::test]
async fn selling_side_report_creates() {
    create_matrix(
        CreateCase {
            path: "/api/marketplace/reports",
            op: "reports.createReport",
            family: "sp",
            body: sp_body,
            retry_creates_when_nothing_made: true,
        },
        false,
    )
    .await;
}

#[tokio::test]
async fn v3_report_creates() {
    create_matrix(
        CreateCase {
            path: "/api/marketplace/ads/call",
            op: "reporting.createAsyncReport",
            family: "ads_v3",
            body: v3_body,
            retry_creates_when_nothing_made: false,
        },
        false,
    )
    .await;
}

#[tokio::test]
async fn reporting_v1_creates() {
    create_matrix(
        CreateCase {
            path: "/api/marketplace/ads/call",
            op: "reporting_v1.createReport",
            family: "ads_v1",
            body: v1_body,
            retry_creates_when_nothing_made: false,
        },
        true,
    )
    .await;
}

#[tokio::test]
async fn pricing_runs_finish_through_every_fault() {
    let app = quiet_app(Some(Duration::from_millis(50))).await;
    let t = app.token(&app.acme).await;
    let op = "productPricing.getFeaturedOfferExpectedPriceBatch";
    let skus = app.skus(&t, 2).await;
    for fault in FAULTS {
        reset(&app).await;
        app.faults(json!([rule(op, fault, 1)])).await;
        let poll = app.start_feop_run(&t, &skus).await;
        let last = app.until_run_ends(&t, &poll, Duration::from_secs(30)).await;
        assert_eq!(last["status"], "succeeded", "{fault}: {last}");
        assert_eq!(last["done"], skus.len(), "{fault}: {last}");
        // the read's own retry (or the run's next try) sends the batch once more
        let calls = app.sandbox_calls(op).await;
        let want = if matches!(*fault, "latency" | "fatal_report") {
            1..=1
        } else {
            2..=2
        };
        assert!(want.contains(&calls), "{fault}: {calls} calls");
    }
}
