//! Clean-room audiences as audited writes (docs/writes.md, "Clean-room audiences"): each gateway refusal (trailing
//! semicolon, refresh outside 0–21 days, interval date arithmetic, a paid dataset the instance
//! has not activated) with nothing sent; an activated paid dataset passes; a successful
//! audience cannot be updated or removed, a FAILED one can.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::TestApp;

const CALL: &str = "/api/marketplace/ads/call";
const LOGIN: &str = "ENTITY2DEMOVENDOR";
/// The sandbox's instance of that login.
const INSTANCE: &str = "amcdemoentity2d";

fn create(query: &str, refresh: Value) -> Value {
    json!({ "operation": "amc.create_audience", "sellerId": LOGIN, "query": { "body": {
        "instanceId": INSTANCE, "audienceName": "cart abandoners", "query": query,
        "refreshRateDays": refresh, "destination": { "advertiserId": "590000000000001" } } } })
}

fn rules(r: &Value) -> Vec<String> {
    r["items"][0]["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("{r}"))
        .iter()
        .map(|p| p["rule"].as_str().unwrap().to_owned())
        .collect()
}

async fn writer(app: &TestApp) -> String {
    app.token(&app.credential("acme", Some("ads:read ads:write")).await)
        .await
}

const CART: &str = "SELECT user_id FROM amazon_attributed_events_by_conversion_time_for_audiences WHERE conversion_event_subtype = 'shoppingCart'";

#[tokio::test]
async fn each_audience_refusal_is_made_at_the_gateway_with_nothing_sent() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    for (query, refresh, rule) in [
        (format!("{CART};"), json!(1), "trailing_semicolon"),
        (CART.to_owned(), json!(22), "refresh_range"),
        (
            format!("{CART} AND event_dt > CURRENT_DATE - INTERVAL '30' DAY"),
            json!(1),
            "interval_arithmetic",
        ),
        (
            "SELECT user_id FROM conversions_for_audiences JOIN segment_metadata_003 s ON true"
                .to_owned(),
            json!(1),
            "paid_dataset",
        ),
    ] {
        let (s, r) = app.post(&t, CALL, create(&query, refresh)).await;
        assert_eq!(s, 200, "{r}");
        assert_eq!(r["valid"], false, "{rule}: {r}");
        assert_eq!(rules(&r), [rule], "{r}");
        assert!(r["plan"].is_null(), "{r}");
    }
    assert_eq!(app.sandbox_calls("amc.createAudience").await, 0);
    // a paid dataset the instance activated passes, and the plan commits once
    let ok = create(
        "SELECT user_id FROM audience_segments_inmarket_for_audiences",
        json!(7),
    );
    let (_, p) = app.post(&t, CALL, ok.clone()).await;
    assert_eq!(p["valid"], true, "{p}");
    let mut commit = ok;
    commit["dryRun"] = false.into();
    commit["planId"] = p["plan"]["planId"].clone();
    commit["planHash"] = p["plan"]["planHash"].clone();
    let (s, c) = app.post(&t, CALL, commit).await;
    assert_eq!(
        (s, c["items"][0]["outcome"].as_str()),
        (200, Some("succeeded")),
        "{c}"
    );
    assert_eq!(app.sandbox_calls("amc.createAudience").await, 1);
}

/// Creates an audience through the audited flow; its id once it has left PROCESSING.
async fn audience(app: &TestApp, t: &str) -> (String, String) {
    let body = create(CART, json!(1));
    let (_, p) = app.post(t, CALL, body.clone()).await;
    let mut commit = body;
    commit["dryRun"] = false.into();
    commit["planId"] = p["plan"]["planId"].clone();
    commit["planHash"] = p["plan"]["planHash"].clone();
    let (_, c) = app.post(t, CALL, commit).await;
    let id = c["items"][0]["entityId"]
        .as_str()
        .unwrap_or_else(|| panic!("{c}"))
        .to_owned();
    let started = std::time::Instant::now();
    loop {
        let (_, r) = app
            .post(t, CALL, json!({ "operation": "amc.get_audience", "sellerId": LOGIN, "query": { "audienceExecutionId": id } }))
            .await;
        let status = r["data"]["status"].as_str().unwrap_or_default().to_owned();
        if status != "PROCESSING" {
            return (id, status);
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{r}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn update(id: &str) -> Value {
    json!({ "operation": "amc.update_audience", "sellerId": LOGIN, "query": {
        "audienceExecutionId": id, "body": { "query": CART } } })
}

#[tokio::test]
async fn a_successful_audience_is_immutable_and_a_failed_one_can_change() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let (active, status) = audience(&app, &t).await;
    assert_eq!(status, "ACTIVE");
    let (s, r) = app.post(&t, CALL, update(&active)).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(
        (r["valid"].as_bool(), rules(&r)),
        (Some(false), vec!["entity_state".to_owned()]),
        "{r}"
    );
    let delete = json!({ "operation": "amc.delete_audience", "sellerId": LOGIN, "query": { "audienceExecutionId": active } });
    let (_, r) = app.post(&t, CALL, delete).await;
    assert_eq!(rules(&r), ["entity_state"], "{r}");
    assert_eq!(app.sandbox_calls("amc.updateAudience").await, 0);
    assert_eq!(app.sandbox_calls("amc.deleteAudience").await, 0);
    // a FAILED audience may be changed
    app.faults(json!([{ "op": "amc.createAudience", "effect": "fatal_report", "times": 1 }]))
        .await;
    let (failed, status) = audience(&app, &t).await;
    assert_eq!(status, "FAILED");
    let (_, r) = app.post(&t, CALL, update(&failed)).await;
    assert_eq!(r["valid"], true, "{r}");
    assert_eq!(r["items"][0]["current"]["status"], "FAILED", "{r}");
}
