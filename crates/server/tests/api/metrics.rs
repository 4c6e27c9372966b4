//! `GET /metrics` read by the official Prometheus client's parser, its counters moving with
//! real traffic (requests, provider calls, warehouse queries, MCP sessions); and each
//! credential's request budget in `RateLimit-*` headers, `/v1` answering `rate_limited` and
//! `/api` `throttled` past it, another credential unaffected.

use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Options, TestApp, external_tool, run_external};

/// The samples of `/metrics`, as the Prometheus client's parser reads them.
async fn scrape(app: &TestApp, python: &std::path::Path) -> Value {
    let res = app.http.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()["content-type"],
        "text/plain; version=0.0.4; charset=utf-8"
    );
    let text = res.text().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let scraped = dir.path().join("metrics.txt");
    std::fs::write(&scraped, &text).unwrap();
    let mut cmd = Command::new(python);
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/metrics/parse.py"
    ))
    .arg(&scraped);
    let out = run_external(
        cmd,
        &format!("the Prometheus parser refused /metrics:\n{text}"),
    )
    .await;
    serde_json::from_str(&out).unwrap()
}

/// Whether there is a sample `name` whose labels include `labels`.
fn has(scraped: &Value, name: &str, labels: &[(&str, &str)]) -> bool {
    scraped["samples"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["name"] == name && labels.iter().all(|(k, v)| s["labels"][*k] == *v))
}

/// The value of the sample `name` whose labels include `labels` (0 when there is none yet).
fn value(scraped: &Value, name: &str, labels: &[(&str, &str)]) -> f64 {
    scraped["samples"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == name)
        .filter(|s| labels.iter().all(|(k, v)| s["labels"][*k] == *v))
        .map(|s| s["value"].as_f64().unwrap())
        .sum()
}

#[tokio::test]
async fn metrics_parse_as_prometheus_text_and_move_with_the_traffic() {
    let why = "reading /metrics with the Prometheus client needs the python .ci/run installs";
    let Some(python) = external_tool("PP_MCP_PYTHON", "mcp-venv/bin/python", why) else {
        return;
    };
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    let before = scrape(&app, &python).await;
    assert_eq!(before["types"]["pp_http_requests"], "counter");
    assert_eq!(
        before["types"]["pp_http_request_duration_seconds"],
        "histogram"
    );
    assert_eq!(before["types"]["pp_mcp_sessions"], "gauge");
    // an empty queue is 0 for every kind the workers run, not a missing series
    for kind in [
        "pricing_run",
        "report_watch",
        "listing_media_check",
        "intelligence_run",
    ] {
        for status in ["queued", "running"] {
            let labels = [("kind", kind), ("status", status)];
            for name in ["pp_jobs", "pp_jobs_oldest_age_seconds"] {
                assert!(has(&before, name, &labels), "{name} {labels:?}: {before}");
                assert_eq!(value(&before, name, &labels), 0.0);
            }
        }
    }

    for _ in 0..5 {
        assert_eq!(app.get(&t, "/v1/me").await.0, 200);
    }
    let (s, _) = app
        .query(
            &t,
            json!({"sql": "SELECT ID FROM seller WHERE ID = ?", "params": [1]}),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = app
        .post(
            &t,
            "/api/marketplace/spapi/call",
            json!({"operation": "sellers.get_marketplace_participations", "legacySellerId": 1}),
        )
        .await;
    assert_eq!(s, 200);
    assert_eq!(app.get(&t, "/no/such/route/42").await.0, 404);
    // a pricing run of two batches waits out the plan's pace between them: a job in the queue
    let asins: Vec<String> = (0..25).map(|i| format!("B0METRIC{i:02}")).collect();
    let (s, run) = app
        .post(
            &t,
            "/api/marketplace/pricing/competitive-summary/start",
            json!({"legacySellerId": 1, "asins": asins}),
        )
        .await;
    assert_eq!(s, 202, "{run}");
    // an MCP session
    let init = app
        .http
        .post(app.url("/mcp"))
        .bearer_auth(&t)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(init.status(), 200);

    let after = scrape(&app, &python).await;
    let moved = |name: &str, labels: &[(&str, &str)]| {
        value(&after, name, labels) - value(&before, name, labels)
    };
    let me = [("method", "GET"), ("route", "/v1/me"), ("status", "200")];
    assert!(moved("pp_http_requests_total", &me) >= 5.0, "{after}");
    assert!(
        moved(
            "pp_http_request_duration_seconds_count",
            &[("method", "GET"), ("route", "/v1/me")]
        ) >= 5.0
    );
    // a path nobody declared is counted under one label, not as typed
    assert!(
        moved(
            "pp_http_requests_total",
            &[("route", "unmatched"), ("status", "404")]
        ) >= 1.0
    );
    let typed = after["samples"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["labels"]["route"] == "/no/such/route/42");
    assert!(!typed, "a typed path became a label");
    let provider = [
        ("operation", "sellers.get_marketplace_participations"),
        ("outcome", "2xx"),
    ];
    assert!(
        moved("pp_provider_calls_total", &provider) >= 1.0,
        "{after}"
    );
    let sql = [("engine", "sqlite"), ("outcome", "ok")];
    assert!(moved("pp_sql_query_duration_seconds_count", &sql) >= 1.0);
    assert_eq!(value(&after, "pp_store_up", &[]), 1.0);
    assert!(value(&after, "pp_jobs", &[]) >= 1.0, "{after}");
    assert!(value(&after, "pp_mcp_sessions", &[]) >= 1.0);
}

#[tokio::test]
async fn a_credential_past_its_rate_is_refused_and_every_answer_says_its_budget() {
    let mut o = Options::default();
    o.bounds.credential_burst = 3;
    o.bounds.credential_per_minute = 6;
    let app = TestApp::start_market_options(o).await;
    let t = app.token(&app.acme).await;
    for left in [2, 1, 0] {
        let r = app.get_raw(&t, "/v1/me").await;
        assert_eq!(r.status(), 200);
        let h = r.headers();
        assert_eq!(h["ratelimit-limit"], "3");
        assert_eq!(h["ratelimit-remaining"], left.to_string().as_str());
        let reset: u64 = h["ratelimit-reset"].to_str().unwrap().parse().unwrap();
        assert!((1..=30).contains(&reset), "{reset}");
    }
    let r = app.get_raw(&t, "/v1/me").await;
    assert_eq!(r.status(), 429);
    assert_eq!(r.headers()["ratelimit-remaining"], "0");
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=11).contains(&wait), "{wait}");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limited", "{body}");
    // /api says it in its own envelope
    let (s, body) = app.get(&t, "/api/marketplace/merchants").await;
    assert_eq!(s, 429);
    assert_eq!(body["kind"], "throttled");
    // the MCP endpoint spends the same budget: refused with 429 and Retry-After
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}}});
    let mcp = |token: &str| {
        app.http
            .post(app.url("/mcp"))
            .bearer_auth(token)
            .header("accept", "application/json, text/event-stream")
            .json(&init)
    };
    let r = mcp(&t).send().await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().contains_key("retry-after"));
    assert_eq!(r.headers()["ratelimit-remaining"], "0");
    // another credential has its own budget, on every door
    let other = app.token(&app.beta).await;
    assert_eq!(app.get_raw(&other, "/v1/me").await.status(), 200);
    let r = mcp(&other).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["ratelimit-limit"], "3");
    assert_eq!(r.headers()["ratelimit-remaining"], "1");
}
