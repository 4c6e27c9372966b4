//! What a new user tripped over, each fixed and held here: an optional request body sent as
//! `{}` with its media type, actors that name their credential, `/v1/accounts` reading the
//! grants' states, cancels that need only `retail:read`, the clean-room rules checked before
//! anything is sent, and refusals that say where a field goes.

use serde_json::{Value, json};

use crate::common::TestApp;

async fn call(app: &TestApp, token: &str, api: &str, body: Value) -> (u16, Value) {
    app.post(token, &format!("/api/marketplace/{api}/call"), body)
        .await
}

async fn a_profile(app: &TestApp, token: &str) -> i64 {
    let (_, p) = app.get(token, "/api/marketplace/ads/profiles").await;
    p["logins"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["profiles"].as_array().cloned().unwrap_or_default())
        .find_map(|p| p["profileId"].as_i64())
        .expect("a profile")
}

/// `sp.list_campaigns` with no `query` used to reach the provider with no body and no media
/// type, and come back as its 415.
#[tokio::test]
async fn an_optional_body_is_sent_as_an_empty_one_with_its_media_type() {
    let app = TestApp::start_market().await;
    let t = app
        .token(&app.credential("acme", Some("ads:read")).await)
        .await;
    let profile = a_profile(&app, &t).await;
    let (s, r) = call(
        &app,
        &t,
        "ads",
        json!({"operation": "sp.list_campaigns", "profileId": profile}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    assert!(r["data"]["campaigns"].is_array(), "{r}");
}

/// Two credentials made alike (same label) are two actors in the trail.
#[tokio::test]
async fn two_credentials_never_read_alike_in_the_trail() {
    let app = TestApp::start().await;
    let scopes = Some("context:read context:write timeline:read timeline:write");
    let (a, b) = (
        app.credential("gamma", scopes).await,
        app.credential("gamma", scopes).await,
    );
    let (ta, tb) = (app.token(&a).await, app.token(&b).await);
    let comment = json!({"brand": "alpha", "kind": "comment", "note": "Seen."});
    let (_, ea) = app.post(&ta, "/v1/timeline/event", comment.clone()).await;
    let (_, eb) = app.post(&tb, "/v1/timeline/event", comment).await;
    assert_eq!(
        ea["event"]["actor"],
        format!("svc:test/{}", a.credential_id)
    );
    assert_eq!(
        eb["event"]["actor"],
        format!("svc:test/{}", b.credential_id)
    );
    let (_, ch) = app
        .post(
            &tb,
            "/api/context/lifecycle",
            json!({"brand_slug": "alpha", "action": "retire"}),
        )
        .await;
    assert_eq!(ch["changed"], true, "{ch}");
    let (_, m) = app.get(&ta, "/api/context/manifest").await;
    let alpha = m["brands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["brand_slug"] == "alpha")
        .unwrap()
        .clone();
    assert_eq!(
        alpha["lifecycle"]["changed_by"],
        format!("svc:test/{}", b.credential_id)
    );
}

/// The auth status of an account is its grant's state, not whether the warehouse has rows.
#[tokio::test]
async fn accounts_show_the_state_of_each_grant() {
    use pp_marketplace::connections::{ConnectionStatus, GrantKind, set_status};
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    let auth = |body: &Value, id: &str| {
        let a = body["accounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["account_id"] == id)
            .unwrap();
        (
            a["auth"]["retail"].as_str().unwrap().to_owned(),
            a["auth"]["ads"].as_str().unwrap().to_owned(),
        )
    };
    let (s, before) = app.get(&t, "/v1/accounts").await;
    assert_eq!(s, 200, "{before}");
    assert_eq!(auth(&before, "acme:1").0, "active");
    let acme = pp_core::TenantId::parse("acme").unwrap();
    set_status(
        &app.store,
        &acme,
        GrantKind::Seller,
        "A2DEMOSELLER01",
        ConnectionStatus::Lapsed,
    )
    .await
    .unwrap();
    set_status(
        &app.store,
        &acme,
        GrantKind::Ads,
        "A1DEMOSELLERMX",
        ConnectionStatus::NotActivated,
    )
    .await
    .unwrap();
    let (_, after) = app.get(&t, "/v1/accounts").await;
    assert_eq!(auth(&after, "acme:1").0, "lapsed");
    assert_eq!(
        auth(&after, "acme:2").0,
        "lapsed",
        "one token, two marketplaces, one grant"
    );
    assert_eq!(
        auth(&after, "acme:3"),
        ("active".to_owned(), "not_activated".to_owned())
    );
}

/// Cancelling one's own report or query is not a write: `retail:read` does it.
#[tokio::test]
async fn cancelling_own_work_needs_only_retail_read() {
    let app = TestApp::start_market_options(crate::common::Options {
        report_ms: 60_000,
        ..Default::default()
    })
    .await;
    let t = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let (s, report) = app
        .post(
            &t,
            "/api/marketplace/reports",
            json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT"}),
        )
        .await;
    assert_eq!(s, 202, "{report}");
    let (s, r) = call(
        &app,
        &t,
        "spapi",
        json!({"operation": "reports.cancel_report", "legacySellerId": 1,
        "query": {"reportId": report["reportId"]}}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    let (_, st) = app
        .get(
            &t,
            &format!(
                "/api/marketplace/reports/{}",
                report["reportId"].as_str().unwrap()
            ),
        )
        .await;
    assert_eq!(st["status"], "cancelled", "{st}");
    let (s, q) = call(&app, &t, "spapi", json!({"operation": "data_kiosk.create_query", "legacySellerId": 1,
        "query": {"body": {"query": "query { analytics_salesAndTraffic_2024_04_24 { salesAndTrafficByDate { startDate } } }"}}})).await;
    assert_eq!(s, 200, "{q}");
    let (s, r) = call(
        &app,
        &t,
        "spapi",
        json!({"operation": "data_kiosk.cancel_query", "legacySellerId": 1,
        "query": {"queryId": q["data"]["queryId"]}}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(app.sandbox_calls("dataKiosk.cancelQuery").await, 1);
}

/// docs/writes.md: an execution without `timeWindowType`, and Reporting v1 naming one account twice,
/// are refused at the gateway; nothing reaches the provider.
#[tokio::test]
async fn clean_room_rules_are_checked_before_anything_is_sent() {
    let app = TestApp::start_market().await;
    let t = app
        .token(&app.credential("acme", Some("ads:read")).await)
        .await;
    let (s, r) = call(
        &app,
        &t,
        "ads",
        json!({"operation": "amc.create_workflow_execution", "sellerId": "ENTITY2DEMOVENDOR",
        "query": {"instanceId": "amcdemo1", "body": {"workflow": {"query": {"operations": []}}}}}),
    )
    .await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("invalid_request")),
        "{r}"
    );
    assert!(
        r["message"].as_str().unwrap().contains("timeWindowType"),
        "{r}"
    );
    assert_eq!(app.sandbox_calls("amc.createWorkflowExecution").await, 0);
    let twice = json!({"operation": "reporting_v1.create_report", "sellerId": "ENTITY2DEMOVENDOR", "query": {"body": {
        "accessRequestedAccounts": [{"advertiserAccountId": "590000000000001"}, {"advertiserAccountId": "590000000000001"}],
        "reports": [{"format": "GZIP_JSON", "periods": [{"datePeriod": {"startDate": "2026-10-01", "endDate": "2026-10-31"}}], "query": {"fields": ["campaign.id"]}}]}}});
    let (s, r) = call(&app, &t, "ads", twice).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("invalid_request")),
        "{r}"
    );
    assert!(r["message"].as_str().unwrap().contains("distinct"), "{r}");
    assert_eq!(app.sandbox_calls("reporting_v1.createReport").await, 0);
}

/// A field in the wrong place is refused in words that say where it goes.
#[tokio::test]
async fn a_misplaced_field_says_where_it_goes() {
    let app = TestApp::start_market().await;
    let t = app
        .token(&app.credential("acme", Some("ads:read")).await)
        .await;
    let profile = a_profile(&app, &t).await;
    let (s, r) = call(&app, &t, "ads", json!({"operation": "reporting.create_report", "profileId": profile, "query": {"name": "weekly"}})).await;
    assert_eq!(s, 400, "{r}");
    let m = r["message"].as_str().unwrap();
    assert!(
        m.contains("'name' is not a parameter of reporting.create_report")
            && m.contains("query.body"),
        "{m}"
    );
    let (s, r) = call(
        &app,
        &t,
        "ads",
        json!({"operation": "sp.list_campaigns", "profileId": profile, "campaigns": []}),
    )
    .await;
    assert_eq!(s, 400, "{r}");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("'campaigns' is not a field of"),
        "{r}"
    );
}
