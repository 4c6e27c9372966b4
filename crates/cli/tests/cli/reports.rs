//! A report create survives a gateway crash: the real gateway binary is killed (SIGKILL) while
//! the provider holds the create it already acted on; after a restart, the caller's retry with
//! the same `Idempotency-Key` gets that report, and the provider saw one create.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::provider::Provider;

async fn create(base: &str, token: &str) -> reqwest::Result<reqwest::Response> {
    crate::http()
        .post(format!("{base}/api/marketplace/reports"))
        .bearer_auth(token)
        .header("Idempotency-Key", "crash-1")
        .json(&json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
                      "dataStartTime": "2026-10-01T00:00:00Z", "dataEndTime": "2026-10-31T00:00:00Z"}))
        .send()
        .await
}

#[tokio::test]
async fn a_gateway_killed_mid_create_hands_the_retry_the_original_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let p = Provider::start(d, &[], &[], None);
    let timeout = ["--upstream-timeout-ms", "2000"];
    let gw = p.gateway(d, &timeout);
    let t = p.token(&gw.base).await;

    // the provider makes the report, then holds its answer
    p.faults(
        json!({"rules": [{"op": "reports.createReport", "effect": "hang_after", "times": 1}]}),
    )
    .await;
    let base = gw.base.clone();
    let tok = t.clone();
    let first = tokio::spawn(async move { create(&base, &tok).await.map(|r| r.status()) });
    let deadline = Instant::now() + Duration::from_secs(20);
    while p.calls("reports.createReport").await == 0 {
        assert!(
            Instant::now() < deadline,
            "the create never reached the provider"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    gw.kill_hard();
    assert!(
        first.await.unwrap().is_err(),
        "the first caller never got an answer"
    );

    let gw = p.gateway(d, &timeout);
    let r = create(&gw.base, &t).await.unwrap();
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["recovered"], "listing", "{body}");
    assert!(body["reportId"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(
        p.calls("reports.createReport").await,
        1,
        "one create reached the provider"
    );
    // asked again, the same key gives the same report at once
    let again: Value = create(&gw.base, &t).await.unwrap().json().await.unwrap();
    assert_eq!(again["reportId"], body["reportId"]);
    gw.stop();
    p.sim.stop();
}
