//! Several gateway processes on one PostgreSQL state (issue 14): two real `server` processes,
//! A and B, share a database made for the test on the machine's PostgreSQL (dropped after),
//! the sandbox provider and the tenant's warehouse. The test client moves between them.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::dev_server::{mcp_initialize, mcp_tools_list};
use crate::process::{Server, cmd, run_ok, start_server_with, token};

/// A database of its own on the machine's PostgreSQL, dropped when the test ends.
struct Database {
    name: String,
    pub url: String,
}

fn admin_url() -> String {
    std::env::var("PP_TEST_POSTGRES")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".into())
}

async fn admin_exec(sql: &str) -> Result<(), sqlx::Error> {
    use sqlx::Connection;
    let mut c = sqlx::PgConnection::connect(&admin_url()).await?;
    sqlx::query(sql).execute(&mut c).await?;
    c.close().await
}

impl Database {
    /// A fresh database, or none (with a note) where no PostgreSQL runs; under CI that fails.
    async fn create() -> Option<Self> {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let name = format!("pp_instances_{}_{n}", std::process::id());
        let _ = admin_exec(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
        if let Err(e) = admin_exec(&format!("CREATE DATABASE {name}")).await {
            let why = format!("no PostgreSQL at {}: {e}", admin_url());
            assert!(std::env::var_os("CI").is_none(), "{why}");
            eprintln!("SKIPPED: {why}");
            return None;
        }
        let base = admin_url();
        let base = base
            .rsplit_once('/')
            .map(|(b, _)| b.to_owned())
            .unwrap_or(base);
        Some(Self {
            url: format!("{base}/{name}"),
            name,
        })
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let name = self.name.clone();
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let _ = rt.block_on(admin_exec(&format!(
                "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
            )));
        })
        .join();
    }
}

/// The shared world: the sandbox, the tenant `acme` on the state database, a credential of
/// it (with forecast writes), and the merchant connected.
struct World {
    sim: Server,
    creds: Value,
    key: String,
    client: (String, String),
    db: Database,
}

fn admin(d: &Path, db: &Database, args: &[&str]) -> Vec<u8> {
    run_ok(
        d,
        &[
            &["admin", "--data-dir", "shared", "--state-url", &db.url][..],
            args,
        ]
        .concat(),
    )
}

async fn world(d: &Path) -> Option<World> {
    let db = Database::create().await?;
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
            "--no-rate-limits",
        ],
        "Sandbox provider is up at ",
        "Try it",
    );
    let creds: Value =
        serde_json::from_slice(&std::fs::read(d.join("sim/sandbox-credentials.json")).unwrap())
            .unwrap();
    let key = "cd".repeat(32);
    admin(
        d,
        &db,
        &[
            "tenant",
            "create",
            "acme",
            "--warehouse",
            "w/warehouse.sqlite",
        ],
    );
    let scopes =
        "account:read,retail:read,ads:read,brand_analytics:read,sql:query,corrections:write";
    let cred: Value = serde_json::from_slice(&admin(
        d,
        &db,
        &[
            "credential",
            "create",
            "--tenant",
            "acme",
            "--scopes",
            scopes,
            "--json",
        ],
    ))
    .unwrap();
    let merchant = &creds["merchants"][0];
    admin(
        d,
        &db,
        &[
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
        ],
    );
    let text = |k: &str| cred[k].as_str().unwrap().to_owned();
    Some(World {
        sim,
        client: (text("client_id"), text("client_secret")),
        creds,
        key,
        db,
    })
}

impl World {
    /// A gateway process on the shared state (`name` says which, for the reader).
    fn gateway(&self, d: &Path, name: &str) -> Server {
        let text = |k: &str| self.creds[k].as_str().unwrap().to_owned();
        let (id, secret) = (text("client_id"), text("client_secret"));
        let token_url = format!("{}/auth/o2/token", self.sim.base);
        let args = [
            "--state-url",
            &self.db.url,
            "--lwa-client-id",
            &id,
            "--lwa-client-secret",
            &secret,
            "--lwa-token-url",
            &token_url,
            "--spapi-url",
            &self.sim.base,
            "--ads-url",
            &self.sim.base,
            "--secret-key",
            &self.key,
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
        ];
        let _ = name;
        start_server_with(cmd(d), d, &args)
    }

    async fn token(&self, base: &str) -> String {
        let (s, t) = token(base, &self.client.0, &self.client.1).await;
        assert_eq!(s, 200, "{t}");
        t["access_token"].as_str().unwrap().to_owned()
    }

    async fn provider_calls(&self, op: &str) -> u64 {
        let secret = self.creds["client_secret"].as_str().unwrap();
        let v: Value = crate::http()
            .get(format!("{}/__sandbox/calls", self.sim.base))
            .bearer_auth(secret)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["calls"][op].as_u64().unwrap_or(0)
    }
}

async fn get(base: &str, token: &str, path: &str) -> (u16, Value) {
    let r = crate::http()
        .get(format!("{base}{path}"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
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
    let Some(w) = world(d).await else { return };
    let (a, b) = (w.gateway(d, "a"), w.gateway(d, "b"));
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
    let writers = (0..8_i64).map(|wr| {
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
    });
    let mut accepted = Vec::new();
    // spawned all at once, so they really race
    let writers: Vec<_> = writers.collect();
    for r in futures_util_join(writers.into_iter()).await {
        accepted.extend(r);
    }
    assert!(
        accepted.len() >= 3 && accepted.len() < 200,
        "the writers raced, and some won: {}",
        accepted.len()
    );
    eprintln!("{} of 200 writes accepted", accepted.len());
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
    admin(d, &w.db, &["credential", "revoke", &w.client.0]);
    assert_eq!(get(&b.base, &t, "/v1/me").await.0, 401);
    assert_eq!(get(&a.base, &t, "/v1/me").await.0, 401);
    a.stop();
    b.stop();
}

async fn futures_util_join<T: Send + 'static>(
    tasks: impl Iterator<Item = tokio::task::JoinHandle<T>>,
) -> Vec<T> {
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

#[tokio::test]
async fn work_started_on_a_killed_instance_is_finished_by_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(w) = world(d).await else { return };
    let a = w.gateway(d, "a");
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
    let b = w.gateway(d, "b");
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
    let secret = w.creds["client_secret"].as_str().unwrap();
    let r = crate::http()
        .post(format!("{}/__sandbox/faults", w.sim.base))
        .bearer_auth(secret)
        .json(
            &json!({"rules": [{"op": "reports.createReport", "effect": "hang_after", "times": 1}]}),
        )
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success());
    let a = w.gateway(d, "a");
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
    while w.provider_calls("reports.createReport").await == 0 {
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
        w.provider_calls("reports.createReport").await,
        1,
        "one create at the provider"
    );
    let again: Value = create(b.base.clone()).await.unwrap().json().await.unwrap();
    assert_eq!(again["reportId"], answer["reportId"]);
    b.stop();
}
