//! Events and webhooks through real processes: the command line registers an endpoint (its
//! secret printed once), `events list --follow` prints an event as it happens, and the
//! endpoint's log shows it delivered; two gateway processes on one PostgreSQL state deliver
//! each event once (by `webhook-id`) to a receiver the operator allowed by name.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::client::{Dev, client_cmd};
use crate::process::{Server, get_json as get, run_ok, token};
use crate::provider::Provider;
use crate::scratch_db::ScratchDb;

/// A receiver on 127.0.0.1 that records each request's `webhook-id` and answers 204.
struct Receiver {
    url: String,
    ids: Arc<Mutex<Vec<String>>>,
}

impl Receiver {
    async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        let ids: Arc<Mutex<Vec<String>>> = Arc::default();
        let seen = ids.clone();
        tokio::spawn(async move {
            loop {
                let Ok((mut s, _)) = listener.accept().await else {
                    return;
                };
                let seen = seen.clone();
                tokio::spawn(async move {
                    let mut buf = Vec::new();
                    let mut chunk = [0u8; 4096];
                    // the head, then as much body as content-length says
                    loop {
                        let n = s.read(&mut chunk).await.unwrap_or(0);
                        if n == 0 {
                            return;
                        }
                        buf.extend_from_slice(&chunk[..n]);
                        let text = String::from_utf8_lossy(&buf).to_string();
                        if let Some(end) = text.find("\r\n\r\n") {
                            let head = text[..end].to_ascii_lowercase();
                            let len: usize = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length:"))
                                .and_then(|v| v.trim().parse().ok())
                                .unwrap_or(0);
                            if buf.len() >= end + 4 + len {
                                if let Some(id) =
                                    head.lines().find_map(|l| l.strip_prefix("webhook-id:"))
                                {
                                    seen.lock().unwrap().push(id.trim().to_owned());
                                }
                                let _ = s
                                    .write_all(b"HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                                    .await;
                                return;
                            }
                        }
                    }
                });
            }
        });
        Self { url, ids }
    }

    fn ids(&self) -> Vec<String> {
        self.ids.lock().unwrap().clone()
    }
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

/// A report of `month` (an event when its watch ends).
fn report(month: u32) -> Value {
    json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
           "dataStartTime": format!("2026-{month:02}-01T00:00:00Z"), "dataEndTime": format!("2026-{month:02}-20T00:00:00Z")})
}

/// A credential of `tenant` holding `scopes`, made with the admin command in `d`: its id and
/// secret.
fn credential(d: &Path, extra: &[&str], tenant: &str, scopes: &str) -> (String, String) {
    let mut args = vec!["admin"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&[
        "credential",
        "create",
        "--tenant",
        tenant,
        "--scopes",
        scopes,
        "--json",
    ]);
    let c: Value = serde_json::from_slice(&run_ok(d, &args)).unwrap();
    (
        c["client_id"].as_str().unwrap().to_owned(),
        c["client_secret"].as_str().unwrap().to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_registers_an_endpoint_and_follows_the_feed() {
    let dev = Dev::start();
    let d = dev.dir.path();
    let base = dev.cred["base_url"].as_str().unwrap().to_owned();
    let (id, secret) = credential(
        d,
        &[],
        "demo",
        "account:read,retail:read,ads:read,webhooks:write",
    );
    let cred = json!({ "base_url": base, "client_id": id, "client_secret": secret });
    let receiver = Receiver::start().await;

    let out = client_cmd(
        d,
        Some(&cred),
        &[
            "webhooks",
            "add",
            &receiver.url,
            "--type",
            "report.*",
            "--json",
        ],
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let added: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        added["secret"].as_str().unwrap().starts_with("whsec_"),
        "{added}"
    );
    let endpoint = added["endpoint"]["id"].as_str().unwrap().to_owned();

    // a follower started before the event prints it when it comes
    let mut follow = client_cmd(
        d,
        Some(&cred),
        &[
            "events", "list", "--type", "report.*", "--follow", "--every", "1",
        ],
    )
    .stdout(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let stdout = follow.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let (_, t) = token(&base, &id, &secret).await;
    let t = t["access_token"].as_str().unwrap().to_owned();
    let (s, r) = post(&base, &t, "/api/marketplace/reports", &report(9)).await;
    assert!(s == 200 || s == 202, "{r}");
    let line = rx
        .recv_timeout(Duration::from_secs(60))
        .expect("the follower printed the event");
    let _ = follow.kill();
    let _ = follow.wait();
    assert!(line.contains("report.done"), "{line}");
    let deadline = Instant::now() + Duration::from_secs(30);
    while receiver.ids().is_empty() {
        assert!(Instant::now() < deadline, "nothing was delivered");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let out = client_cmd(d, Some(&cred), &["webhooks", "deliveries", &endpoint])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("delivered") && table.contains("report.done"),
        "{table}"
    );
    assert!(
        line.contains(&receiver.ids()[0]),
        "the follower and the receiver saw one event: {line}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_instances_on_postgresql_deliver_each_event_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(db) = ScratchDb::create("pp_webhooks").await else {
        return;
    };
    let state = ["--state-url", db.url.as_str()];
    let w = Provider::start(
        d,
        &["--no-rate-limits"],
        &state,
        Some("account:read,retail:read"),
    );
    let gateway = || -> Server {
        w.gateway(
            d,
            &[
                "--upstream-pacing",
                "false",
                "--job-lease-ms",
                "3000",
                "--job-workers",
                "2",
                "--webhook-allow-hosts",
                "127.0.0.1",
            ],
        )
    };
    let (a, b) = (gateway(), gateway());
    let mut extra = vec!["--data-dir", "state"];
    extra.extend_from_slice(&state);
    let (id, secret) = credential(d, &extra, "acme", "retail:read,webhooks:write");
    let (_, t) = token(&a.base, &id, &secret).await;
    let t = t["access_token"].as_str().unwrap().to_owned();
    let receiver = Receiver::start().await;
    let (s, r) = post(
        &a.base,
        &t,
        "/api/webhooks",
        &json!({"url": receiver.url, "types": ["report.*"]}),
    )
    .await;
    assert_eq!(s, 200, "{r}");

    // reports created on both instances; their watches end on either
    let months = [3, 4, 5, 6, 7, 8];
    for (i, m) in months.iter().enumerate() {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        let (s, r) = post(base, &t, "/api/marketplace/reports", &report(*m)).await;
        assert!(s == 200 || s == 202, "{r}");
    }
    let deadline = Instant::now() + Duration::from_secs(90);
    while receiver.ids().len() < months.len() {
        assert!(Instant::now() < deadline, "delivered {:?}", receiver.ids());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for id in receiver.ids() {
        *seen.entry(id).or_default() += 1;
    }
    assert_eq!(seen.len(), months.len(), "{seen:?}");
    assert!(seen.values().all(|n| *n == 1), "each event once: {seen:?}");
    let (_, feed) = get(&b.base, &t, "/api/events?type=report.*").await;
    let fed: Vec<&str> = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(fed.len(), months.len(), "{feed}");
    assert!(fed.iter().all(|id| seen.contains_key(*id)));
}
