//! The webhook benchmark's harness (`bench/webhooks.sh`): events appended to a state store
//! with ENDPOINTS endpoints registered, delivered by the gateway's own worker pool to a local
//! receiver, beside the same receiver hit directly by one client with the same concurrency.
//! Prints one JSON document: deliveries and events per second, the latency from an event's
//! commit to the receiver's 2xx (p50, p99), the direct figures, and the state store's cost per
//! event (time to append, bytes and rows written).
//!
//! Usage: webhooks_bench <events> <endpoints> <workers> [state-url]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pp_core::TenantId;
use pp_core::events::payloads::{ReportData, ReportSubject, ReportTold};
use pp_store::Store;
use pp_store::events::NewEvent;
use serde_json::{Value, json};

/// When each (webhook-id, endpoint path) arrived.
type Arrivals = Arc<Mutex<HashMap<String, Vec<Instant>>>>;

async fn receiver() -> (String, Arrivals) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let got: Arrivals = Arc::default();
    let seen = got.clone();
    let app = axum::Router::new().route(
        "/hook/{n}",
        axum::routing::post(move |headers: axum::http::HeaderMap, _body: String| {
            let seen = seen.clone();
            async move {
                let id = headers
                    .get("webhook-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("direct")
                    .to_owned();
                seen.lock()
                    .unwrap()
                    .entry(id)
                    .or_default()
                    .push(Instant::now());
                axum::http::StatusCode::NO_CONTENT
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, got)
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// The embedded store's pages in use, after folding its write-ahead log in.
fn db_bytes(dir: &std::path::Path) -> u64 {
    let c = rusqlite::Connection::open(dir.join("state.sqlite")).unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    let pages: i64 = c.query_row("PRAGMA page_count", [], |r| r.get(0)).unwrap();
    let free: i64 = c
        .query_row("PRAGMA freelist_count", [], |r| r.get(0))
        .unwrap();
    let size: i64 = c.query_row("PRAGMA page_size", [], |r| r.get(0)).unwrap();
    ((pages - free) * size) as u64
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let args: Vec<String> = std::env::args().collect();
    let events: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let endpoints: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let workers: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(4);
    let dir = tempfile::tempdir().unwrap();
    let store = match args.get(4) {
        Some(url) => {
            let url = pp_store::StateUrl::parse(url, dir.path()).unwrap();
            Store::connect(&url, dir.path()).await.unwrap()
        }
        None => Store::open(dir.path()).unwrap(),
    };
    let tenant = TenantId::parse("bench").unwrap();
    store
        .tenants()
        .create(&tenant, "Bench", "sqlite:/nonexistent")
        .await
        .unwrap();
    let (base, got) = receiver().await;
    let sealer =
        pp_store::sealing::Sealer::from_hex(&pp_store::sealing::Sealer::generate_hex().unwrap())
            .unwrap();
    let settings = pp_events::Settings {
        dev: true,
        ..Default::default()
    };
    let jobs = pp_server::JobsConfig {
        workers,
        per_tenant: workers,
        poll: Duration::from_millis(20),
        ..Default::default()
    };
    let state = pp_server::AppState::new(store.clone(), "http://127.0.0.1:1")
        .await
        .unwrap()
        .with_jobs(jobs)
        .with_events(settings, Some(sealer))
        .unwrap();
    let admin = state.events.endpoints_as(tenant.clone(), "bench");
    for n in 0..endpoints {
        admin
            .register(pp_events::RegisterRequest {
                url: format!("{base}/hook/{n}"),
                types: vec!["*".into()],
                description: None,
            })
            .await
            .unwrap();
    }
    let state = Arc::new(state);

    // the store's cost of appending (with each event's deliveries and jobs), workers stopped
    let sqlite = args.get(4).is_none();
    let bytes_before = if sqlite { db_bytes(dir.path()) } else { 0 };
    let mut committed: HashMap<String, Instant> = HashMap::new();
    let mut append_ms = Vec::new();
    let workers_pool = pp_server::Workers::spawn(state.clone()).unwrap();
    let started = Instant::now();
    for i in 0..events {
        let t = Instant::now();
        let e = store
            .events()
            .append(
                &tenant,
                NewEvent::of(&ReportTold {
                    subject: ReportSubject {
                        report_id: format!("r{i}"),
                        merchant: None,
                    },
                    data: ReportData {
                        status: "done".into(),
                        reason: serde_json::Value::Null,
                        report_type: "GET_SALES_AND_TRAFFIC_REPORT".into(),
                        report_document_id: serde_json::Value::Null,
                        error: None,
                    },
                }),
            )
            .await
            .unwrap();
        append_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        committed.insert(e.id, Instant::now());
    }
    let total = events * endpoints;
    let deadline = Instant::now() + Duration::from_secs(1800);
    loop {
        let n: usize = got.lock().unwrap().values().map(Vec::len).sum();
        if n >= total || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed().as_secs_f64();
    workers_pool.stop();
    let bytes_after = if sqlite { db_bytes(dir.path()) } else { 0 };
    let mut lat: Vec<f64> = Vec::new();
    let mut delivered = 0usize;
    let mut duplicates = 0usize;
    for (id, at) in got.lock().unwrap().iter() {
        if let Some(c) = committed.get(id) {
            delivered += at.len();
            duplicates += at.len().saturating_sub(endpoints);
            lat.extend(
                at.iter()
                    .map(|t| t.duration_since(*c).as_secs_f64() * 1000.0),
            );
        }
    }
    lat.sort_by(|a, b| a.partial_cmp(b).unwrap());
    append_ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let rows = json!({
        "events": 1, "webhook_deliveries": endpoints, "jobs": endpoints,
        "webhook_attempts": endpoints, "note": "per event, once delivered"
    });

    // the same receiver, hit directly: the same number of POSTs, `workers` at a time
    got.lock().unwrap().clear();
    let client = reqwest::Client::new();
    let body =
        serde_json::to_vec(&json!({"id": "evt_x", "type": "report.done", "data": {}})).unwrap();
    let sem = Arc::new(tokio::sync::Semaphore::new(workers));
    let direct_started = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..total {
        let (client, body, sem, url) = (
            client.clone(),
            body.clone(),
            sem.clone(),
            format!("{base}/hook/{}", i % endpoints),
        );
        tasks.push(tokio::spawn(async move {
            let _p = sem.acquire().await.unwrap();
            let t = Instant::now();
            let r = client
                .post(url)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .unwrap();
            assert!(r.status().is_success());
            t.elapsed().as_secs_f64() * 1000.0
        }));
    }
    let mut direct: Vec<f64> = Vec::new();
    for t in tasks {
        direct.push(t.await.unwrap());
    }
    let direct_elapsed = direct_started.elapsed().as_secs_f64();
    direct.sort_by(|a, b| a.partial_cmp(b).unwrap());

    let out: Value = json!({
        "events": events, "endpoints": endpoints, "workers": workers,
        "store": if args.get(4).is_some() { "postgresql" } else { "sqlite" },
        "gateway": {
            "deliveries": delivered, "expected": total, "duplicates": duplicates,
            "seconds": (elapsed * 100.0).round() / 100.0,
            "deliveries_per_s": (delivered as f64 / elapsed).round(),
            "events_per_s": ((delivered as f64 / endpoints as f64) / elapsed * 100.0).round() / 100.0,
            "commit_to_2xx_ms_p50": quantile(&lat, 0.5).round(),
            "commit_to_2xx_ms_p99": quantile(&lat, 0.99).round(),
        },
        "direct": {
            "posts": total, "seconds": (direct_elapsed * 100.0).round() / 100.0,
            "posts_per_s": (total as f64 / direct_elapsed).round(),
            "ms_p50": (quantile(&direct, 0.5) * 100.0).round() / 100.0,
            "ms_p99": (quantile(&direct, 0.99) * 100.0).round() / 100.0,
        },
        "store_per_event": {
            "append_ms_p50": (quantile(&append_ms, 0.5) * 100.0).round() / 100.0,
            "append_ms_p99": (quantile(&append_ms, 0.99) * 100.0).round() / 100.0,
            "bytes": if args.get(4).is_some() { Value::Null } else { json!((bytes_after.saturating_sub(bytes_before)) / events as u64) },
            "rows": rows,
        },
    });
    println!("{out}");
}
