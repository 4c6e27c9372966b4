//! A report create survives a gateway crash: the real gateway binary is killed (SIGKILL) while
//! the provider holds the create it already acted on; after a restart, the caller's retry with
//! the same `Idempotency-Key` gets that report, and the provider saw one create.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::process::{Server, cmd, run_ok, start_server_with, token};

fn gateway(d: &Path, url: &str, creds: &Value, key: &str) -> Server {
    let text = |k: &str| creds[k].as_str().unwrap().to_owned();
    let (id, secret) = (text("client_id"), text("client_secret"));
    let token_url = format!("{url}/auth/o2/token");
    let args = [
        "--lwa-client-id",
        &id,
        "--lwa-client-secret",
        &secret,
        "--lwa-token-url",
        &token_url,
        "--spapi-url",
        url,
        "--ads-url",
        url,
        "--secret-key",
        key,
        "--upstream-timeout-ms",
        "2000",
    ];
    start_server_with(cmd(d), d, &args)
}

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

async fn creates(sim: &Server, secret: &str) -> u64 {
    let v: Value = crate::http()
        .get(format!("{}/__sandbox/calls", sim.base))
        .bearer_auth(secret)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["calls"]["reports.createReport"].as_u64().unwrap_or(0)
}

#[tokio::test]
async fn a_gateway_killed_mid_create_hands_the_retry_the_original_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_ok(
        d,
        &[
            "world",
            "generate",
            "--scale",
            "tiny",
            "--seed",
            "1",
            "--today",
            "2026-11-22",
            "--out",
            "w",
        ],
    );
    let sim = Server::start(
        d,
        &[
            "sim",
            "--world",
            "w",
            "--data-dir",
            "sim",
            "--listen",
            "127.0.0.1:0",
        ],
        "Sandbox provider is up at ",
        "Try it",
    );
    let creds: Value =
        serde_json::from_slice(&std::fs::read(d.join("sim/sandbox-credentials.json")).unwrap())
            .unwrap();
    let secret = creds["client_secret"].as_str().unwrap().to_owned();
    let key = "ab".repeat(32);
    let admin = |args: &[&str]| run_ok(d, &[&["admin", "--data-dir", "state"][..], args].concat());
    admin(&[
        "tenant",
        "create",
        "acme",
        "--warehouse",
        "w/warehouse.sqlite",
    ]);
    let cred: Value = serde_json::from_slice(&admin(&[
        "credential",
        "create",
        "--tenant",
        "acme",
        "--json",
    ]))
    .unwrap();
    let merchant = &creds["merchants"][0];
    admin(&[
        "connection",
        "add",
        "--tenant",
        "acme",
        "--merchant",
        merchant["merchant"].as_str().unwrap(),
        "--refresh-token",
        merchant["refresh_token"].as_str().unwrap(),
        "--secret-key",
        &key,
    ]);
    let gw = gateway(d, &sim.base, &creds, &key);
    let (_, t) = token(
        &gw.base,
        cred["client_id"].as_str().unwrap(),
        cred["client_secret"].as_str().unwrap(),
    )
    .await;
    let t = t["access_token"].as_str().unwrap().to_owned();

    // the provider makes the report, then holds its answer
    let r = crate::http()
        .post(format!("{}/__sandbox/faults", sim.base))
        .bearer_auth(&secret)
        .json(
            &json!({"rules": [{"op": "reports.createReport", "effect": "hang_after", "times": 1}]}),
        )
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let base = gw.base.clone();
    let tok = t.clone();
    let first = tokio::spawn(async move { create(&base, &tok).await.map(|r| r.status()) });
    let deadline = Instant::now() + Duration::from_secs(20);
    while creates(&sim, &secret).await == 0 {
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

    let gw = gateway(d, &sim.base, &creds, &key);
    let r = create(&gw.base, &t).await.unwrap();
    let status = r.status().as_u16();
    let body: Value = r.json().await.unwrap();
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["recovered"], "listing", "{body}");
    assert!(body["reportId"].as_str().is_some_and(|s| !s.is_empty()));
    assert_eq!(
        creates(&sim, &secret).await,
        1,
        "one create reached the provider"
    );
    // asked again, the same key gives the same report at once
    let again: Value = create(&gw.base, &t).await.unwrap().json().await.unwrap();
    assert_eq!(again["reportId"], body["reportId"]);
    gw.stop();
    sim.stop();
}
