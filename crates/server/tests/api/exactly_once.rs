//! Exactly once under upstream faults: the duplicate-report scenarios of the outside fault
//! run (a selling-side reconcile that failed once, v3 and Reporting v1 after an uncertain
//! create, and their concurrent variants) each leave one report at the provider — counted in
//! the sandbox's own report table — unless the caller acknowledged the risk, which the answer
//! then says. Also: a lapsed advertising login, a hung read's deadline, and one tenant's hung
//! provider beside another tenant's pricing run.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Options, READ_DEADLINE, TestApp};

fn sp_report() -> Value {
    json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
           "dataStartTime": "2026-09-01T00:00:00Z", "dataEndTime": "2026-09-30T00:00:00Z"})
}

fn v3_report() -> Value {
    json!({"operation": "reporting.create_report", "profileId": 3100000001u64, "query": {"body": {
        "name": "once", "startDate": "2026-09-01", "endDate": "2026-09-30",
        "configuration": {"adProduct": "SPONSORED_PRODUCTS", "groupBy": ["campaign"], "columns": ["date", "campaignId", "clicks"],
                          "reportTypeId": "spCampaigns", "timeUnit": "DAILY", "format": "GZIP_JSON"}}}})
}

fn v1_report() -> Value {
    json!({"operation": "reporting_v1.create_report", "sellerId": "ENTITY2DEMOVENDOR", "query": {"body": {
        "accessRequestedAccounts": [{"advertiserAccountId": "590000000000001"}],
        "reports": [{"format": "GZIP_JSON", "periods": [{"datePeriod": {"startDate": "2026-09-01", "endDate": "2026-09-30"}}],
                     "query": {"fields": ["campaign.id", "metric.clicks"]}}]}}})
}

fn unknown(r: &Value) -> bool {
    r["requestOutcome"] == "unknown" && r["automaticRetry"] == false
}

const REPORTS: &str = "/api/marketplace/reports";
const ADS: &str = "/api/marketplace/ads/call";

#[tokio::test]
async fn a_selling_side_create_is_made_once_through_a_failed_reconcile() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    // the provider makes the report and answers garbage
    app.faults(json!([{"op": "reports.createReport", "effect": "garbage", "times": 1}]))
        .await;
    let (s, r) = app.post_keyed(&t, REPORTS, Some("sp-1"), sp_report()).await;
    assert_eq!(s, 502, "{r}");
    assert!(unknown(&r), "{r}");
    // the retry's reconcile cannot list: nothing is sent, and it says why
    app.faults(
        json!([{"op": "reports.getReports", "effect": "status", "status": 500, "times": 3}]),
    )
    .await;
    let (s, r) = app.post_keyed(&t, REPORTS, Some("sp-1"), sp_report()).await;
    assert_eq!(s, 502, "{r}");
    assert!(
        unknown(&r) && r["reconcile"]["kind"] == "upstream_unavailable",
        "{r}"
    );
    assert_eq!(r["retryable"], true, "a later retry can reconcile: {r}");
    assert_eq!(app.sandbox_calls("reports.createReport").await, 1);
    // three concurrent retries: one reconciles, every one gets the first report
    let tries = (0..3).map(|_| app.post_keyed(&t, REPORTS, Some("sp-1"), sp_report()));
    let answers = futures_util::future::join_all(tries).await;
    let ids: Vec<&Value> = answers.iter().map(|(_, r)| &r["reportId"]).collect();
    assert!(answers.iter().all(|(s, _)| *s == 202), "{answers:?}");
    assert!(
        ids.iter().all(|id| *id == ids[0] && id.is_string()),
        "{ids:?}"
    );
    assert!(answers.iter().any(|(_, r)| r["recovered"] == "listing"));
    assert_eq!(app.sandbox_calls("reports.createReport").await, 1);
    assert_eq!(
        app.provider_reports("sp").await,
        1,
        "one report at the provider"
    );
}

#[tokio::test]
async fn v3_after_a_create_that_never_answered_makes_one_report() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    // the provider acts, then never answers; three identical calls at once
    app.faults(json!([{"op": "reporting.createAsyncReport", "effect": "hang_after", "times": 1}]))
        .await;
    let calls = (0..3).map(|_| app.post_keyed(&t, ADS, None, v3_report()));
    let answers = futures_util::future::join_all(calls).await;
    for (s, r) in &answers {
        assert_eq!(*s, 502, "{r}");
        assert!(unknown(r), "{r}");
    }
    // a keyed retry after the first report has finished: still nothing sent
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (s, r) = app.post_keyed(&t, ADS, Some("v3-1"), v3_report()).await;
    assert_eq!(
        (s, r["acknowledge"].as_str()),
        (502, Some("acceptDuplicateRisk")),
        "{r}"
    );
    assert_eq!(r["retryable"], false, "{r}");
    assert_eq!(app.sandbox_calls("reporting.createAsyncReport").await, 1);
    assert_eq!(app.provider_reports("ads_v3").await, 1);
    // the caller accepts the risk: a second report, and the answer says so
    let mut ack = v3_report();
    ack["acceptDuplicateRisk"] = true.into();
    let (s, r) = app.post_keyed(&t, ADS, Some("v3-1"), ack).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["report"]["duplicateRisk"], true, "{r}");
    assert_eq!(app.provider_reports("ads_v3").await, 2);
}

#[tokio::test]
async fn reporting_v1_after_an_uncertain_create_makes_one_report_also_when_concurrent() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    for (effect, key) in [("garbage", "v1-g"), ("hang_after", "v1-h")] {
        // each effect on a request of its own (another window), so the ledger keeps them apart
        let mut body = v1_report();
        let end = if effect == "garbage" {
            "2026-09-29"
        } else {
            "2026-09-28"
        };
        body["query"]["body"]["reports"][0]["periods"][0]["datePeriod"]["endDate"] = end.into();
        let before = app.provider_reports("ads_v1").await;
        app.faults(json!([{"op": "reporting_v1.createReport", "effect": effect, "times": 1}]))
            .await;
        // three identical keyed calls at once: one sends, the others wait for its outcome
        let calls = (0..3).map(|_| app.post_keyed(&t, ADS, Some(key), body.clone()));
        for (s, r) in futures_util::future::join_all(calls).await {
            assert_eq!(s, 502, "{effect}: {r}");
            assert!(unknown(&r), "{effect}: {r}");
        }
        // and later retries send nothing either
        for _ in 0..2 {
            let (s, r) = app.post_keyed(&t, ADS, Some(key), body.clone()).await;
            assert_eq!(
                (s, r["acknowledge"].as_str()),
                (502, Some("acceptDuplicateRisk")),
                "{effect}: {r}"
            );
        }
        assert_eq!(app.provider_reports("ads_v1").await, before + 1, "{effect}");
    }
}

#[tokio::test]
async fn a_lapsed_advertising_login_is_reauth_required_and_not_called_again() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    let logins = app.sandbox.as_ref().unwrap().creds["advertising"].clone();
    for l in logins.as_array().unwrap() {
        app.sandbox(
            Method::POST,
            "/__sandbox/merchants/lapse",
            json!({"merchant": l["account"]}),
        )
        .await;
    }
    let list = json!({"operation": "sp.list_campaigns", "profileId": 3100000001u64, "query": {"body": {}}});
    let (s, r) = app.post_keyed(&t, ADS, None, list.clone()).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (409, Some("reauth_required")),
        "{r}"
    );
    let reached = app.sandbox_calls("sp.listCampaigns").await;
    let (s, r) = app.post_keyed(&t, ADS, None, list).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (409, Some("reauth_required")),
        "{r}"
    );
    assert_eq!(
        app.sandbox_calls("sp.listCampaigns").await,
        reached,
        "the provider was not asked again"
    );
    let (s, r) = app.post_keyed(&t, ADS, None, v3_report()).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (409, Some("reauth_required")),
        "{r}"
    );
}

#[tokio::test]
async fn a_hung_read_answers_within_its_deadline() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    app.faults(json!([{"op": "sellers.getAccount", "effect": "hang"}]))
        .await;
    let started = Instant::now();
    let (s, r) = app
        .post(
            &t,
            "/api/marketplace/spapi/call",
            json!({"operation": "sellers.get_account", "legacySellerId": 1}),
        )
        .await;
    let took = started.elapsed();
    assert_eq!(
        (s, r["kind"].as_str()),
        (502, Some("upstream_unavailable")),
        "{r}"
    );
    assert!(
        took < READ_DEADLINE + Duration::from_millis(500),
        "answered after {took:?}"
    );
}

#[tokio::test]
async fn one_tenants_hung_provider_does_not_stall_anothers_run() {
    let mut o = Options {
        pacing: false,
        sim_limits: false,
        workers: Some((2, 1)),
        ..Default::default()
    };
    o.jobs.pricing_spacing = pp_marketplace::pricing::Spacing(Some(Duration::from_millis(100)));
    // a long lease (and so a long step deadline): only fair claims, not a step cut short, can
    // free a worker for delta in time
    o.jobs.lease = Duration::from_secs(30);
    let app = TestApp::start_market_options(o).await;
    let acme = app.token(&app.acme).await;
    let delta = app.token(&app.credential("delta", None).await).await;
    // acme's Competitive Summary runs hang at the provider…
    app.faults(json!([{"op": "productPricing.getCompetitiveSummary", "effect": "hang"}]))
        .await;
    for _ in 0..2 {
        let (s, r) = app
            .post(
                &acme,
                "/api/marketplace/pricing/competitive-summary/start",
                json!({"legacySellerId": 1, "asins": ["B000000001"]}),
            )
            .await;
        assert_eq!(s, 202, "{r}");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // …while delta's one-batch run goes through within a few seconds of its unhindered time
    let skus = app.skus(&delta, 3).await;
    let poll = app.start_feop_run(&delta, &skus).await;
    let last = app
        .until_run_ends(&delta, &poll, Duration::from_secs(2))
        .await;
    assert_eq!(last["status"], "succeeded", "{last}");
}
