//! Several gateway processes on one PostgreSQL state (issue 14): two real `server` processes,
//! A and B, share a database made for the test on the machine's PostgreSQL (dropped after),
//! the sandbox provider and the tenant's warehouse. The test client moves between them.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::dev_server::{mcp_initialize, mcp_tools_list};
use crate::process::{Server, get_json as get};
use crate::provider::Provider;
use crate::scratch_db::ScratchDb;

/// The tenant's credential: the read bundle and forecast writes.
const SCOPES: &str =
    "account:read,retail:read,ads:read,brand_analytics:read,sql:query,corrections:write";

/// The provider world with its state on a database of the test's own (none where no
/// PostgreSQL runs; under CI that fails).
async fn world(d: &Path) -> Option<(Provider, ScratchDb)> {
    let db = ScratchDb::create("pp_instances").await?;
    let p = Provider::start(
        d,
        &["--no-rate-limits"],
        &["--state-url", &db.url],
        Some(SCOPES),
    );
    Some((p, db))
}

/// A gateway process on the shared state: fast pacing, a short job lease, two workers.
fn gateway(p: &Provider, d: &Path) -> Server {
    p.gateway(
        d,
        &[
            "--upstream-timeout-ms",
            "2000",
            "--upstream-pacing",
            "false",
            "--pricing-spacing-ms",
            "150",
            "--job-lease-ms",
            "3000",
            "--job-workers",
            "2",
        ],
    )
}

async fn post(base: &str, token: &str, path: &str, body: &Value) -> (u16, Value) {
    let r = crate::http()
        .post(format!("{base}{path}"))
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_share_tokens_revocation_sessions_and_forecast_state() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some((w, _db)) = world(d).await else {
        return;
    };
    let (a, b) = (gateway(&w, d), gateway(&w, d));
    let t = w.token(&a.base).await;
    assert_eq!(
        get(&b.base, &t, "/v1/me").await.0,
        200,
        "a token minted on A works on B"
    );

    // an MCP client whose requests alternate between A and B keeps one session
    let session = mcp_initialize(&a.base, &t).await;
    for base in [&b.base, &a.base, &b.base, &a.base] {
        assert_eq!(mcp_tools_list(base, &t, &session).await, 200);
    }

    // 8 writers x 25 rounds over 3 shared keys, alternating instances: nothing lost
    let keys: Vec<String> = (1..=3)
        .map(|m| format!("fb:override:src:acme:1:2026-{m:02}-01"))
        .collect();
    let base = "/api/app-state/forecasting";
    // spawned all at once, so they really race
    let writers: Vec<_> = (0..8_i64).map(|wr| {
        let (bases, t, keys) = ([a.base.clone(), b.base.clone()], t.clone(), keys.clone());
        tokio::spawn(async move {
            let mut accepted = Vec::new();
            for round in 0..25_i64 {
                let key = &keys[((wr + round) % 3) as usize];
                let on = &bases[((wr + round) % 2) as usize];
                let (s, doc) = get(on, &t, &format!("{base}/doc?key={key}")).await;
                let version = if s == 404 { 0 } else { doc["version"].as_i64().unwrap() };
                let value = wr * 1000 + round;
                let body = json!({ "writes": [{ "key": key, "expected_version": version, "doc": { "sales": { "mode": "replace", "value": value } } }] });
                match post(on, &t, &format!("{base}/batch"), &body).await {
                    (200, r) => accepted.push((key.clone(), r["results"][0]["version"].as_i64().unwrap(), value)),
                    (409, _) => {}
                    (s, r) => panic!("unexpected {s}: {r}"),
                }
            }
            accepted
        })
    }).collect();
    let mut accepted = Vec::new();
    for w in writers {
        accepted.extend(w.await.unwrap());
    }
    assert!(
        accepted.len() >= 3 && accepted.len() < 200,
        "the writers raced, and some won: {}",
        accepted.len()
    );
    let stale = json!({ "writes": [{ "key": keys[0], "expected_version": 0, "doc": { "sales": { "mode": "replace", "value": 1 } } }] });
    let (s, r) = post(&a.base, &t, &format!("{base}/batch"), &stale).await;
    assert_eq!(s, 409, "a stale version is refused: {r}");
    let (_, log) = get(
        &b.base,
        &t,
        &format!("{base}/revisions?scope_id=src:acme:1&limit=500"),
    )
    .await;
    let log = log["revisions"].as_array().unwrap().clone();
    for key in &keys {
        let mut mine: Vec<(i64, i64)> = accepted
            .iter()
            .filter(|x| &x.0 == key)
            .map(|x| (x.1, x.2))
            .collect();
        mine.sort();
        assert_eq!(
            mine.iter().map(|m| m.0).collect::<Vec<_>>(),
            (1..=mine.len() as i64).collect::<Vec<_>>(),
            "{key}: contiguous versions"
        );
        let month = key.rsplit(':').next().unwrap();
        let logged: Vec<(i64, i64)> = log
            .iter()
            .filter(|r| r["month"] == month && r["field"] == "sales")
            .map(|r| {
                (
                    r["version"].as_i64().unwrap(),
                    r["after"]["value"].as_i64().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            logged, mine,
            "{key}: every accepted write is in the change log"
        );
    }

    // a credential revoked through the shared store is refused by both at once
    w.admin(d, &["credential", "revoke", &w.client.0]);
    assert_eq!(get(&b.base, &t, "/v1/me").await.0, 401);
    assert_eq!(get(&a.base, &t, "/v1/me").await.0, 401);
    a.stop();
    b.stop();
}

#[tokio::test]
async fn work_started_on_a_killed_instance_is_finished_by_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some((w, _db)) = world(d).await else {
        return;
    };
    let a = gateway(&w, d);
    let t = w.token(&a.base).await;

    // a 250-ASIN pricing run started on A; A is killed mid-run; B finishes it
    let (_, rows) = post(
        &a.base,
        &t,
        "/api/query",
        &json!({"sql": "SELECT ASIN FROM catalog_item WHERE SellerID = 1 ORDER BY ASIN"}),
    )
    .await;
    assert!(rows["rows"].is_array(), "{rows}");
    let mut asins: Vec<String> = rows["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ASIN"].as_str().unwrap().to_owned())
        .collect();
    let mut n = 0;
    while asins.len() < 250 {
        asins.push(format!("B0ZZ{n:06}"));
        n += 1;
    }
    let (s, run) = post(
        &a.base,
        &t,
        "/api/marketplace/pricing/competitive-summary/start",
        &json!({"legacySellerId": 1, "asins": asins}),
    )
    .await;
    assert_eq!(s, 202, "{run}");
    let poll = format!(
        "/api/marketplace/pricing/runs/{}",
        run["runId"].as_str().unwrap()
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (_, v) = get(&a.base, &t, &poll).await;
        if v["done"].as_i64().unwrap_or(0) >= 40 {
            break;
        }
        assert!(Instant::now() < deadline, "the run never started: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    a.kill_hard();
    let b = gateway(&w, d);
    let deadline = Instant::now() + Duration::from_secs(120);
    let view = loop {
        let (_, v) = get(&b.base, &t, &poll).await;
        if v["status"] == "succeeded" || v["status"] == "failed" {
            break v;
        }
        assert!(Instant::now() < deadline, "B never finished the run: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(view["status"], "succeeded", "{view}");
    let (_, result) = get(&b.base, &t, &format!("{poll}/result?limit=500")).await;
    let answered: Vec<&str> = result["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["asin"].as_str().unwrap())
        .collect();
    assert_eq!(answered, asins, "every item answered once, in order");

    // a report create on A that A never answers (killed while the provider holds it), then
    // the same Idempotency-Key on B: one create at the provider, the original report
    w.faults(
        json!({"rules": [{"op": "reports.createReport", "effect": "hang_after", "times": 1}]}),
    )
    .await;
    let a = gateway(&w, d);
    let body = json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
                      "dataStartTime": "2026-10-01T00:00:00Z", "dataEndTime": "2026-10-31T00:00:00Z"});
    let create = |base: String| {
        let (t, body) = (t.clone(), body.clone());
        async move {
            crate::http()
                .post(format!("{base}/api/marketplace/reports"))
                .bearer_auth(&t)
                .header("Idempotency-Key", "instances-1")
                .json(&body)
                .send()
                .await
        }
    };
    let first = tokio::spawn(create(a.base.clone()));
    let deadline = Instant::now() + Duration::from_secs(20);
    while w.calls("reports.createReport").await == 0 {
        assert!(
            Instant::now() < deadline,
            "the create never reached the provider"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    a.kill_hard();
    assert!(
        first.await.unwrap().is_err(),
        "A's caller never got an answer"
    );
    let r = create(b.base.clone()).await.unwrap();
    let status = r.status().as_u16();
    let answer: Value = r.json().await.unwrap();
    assert_eq!(status, 202, "{answer}");
    assert!(
        answer["reportId"].as_str().is_some_and(|s| !s.is_empty()),
        "{answer}"
    );
    assert_eq!(
        w.calls("reports.createReport").await,
        1,
        "one create at the provider"
    );
    let again: Value = create(b.base.clone()).await.unwrap().json().await.unwrap();
    assert_eq!(again["reportId"], answer["reportId"]);
    b.stop();
}
