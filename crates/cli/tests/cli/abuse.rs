//! One request must not take the machine: each attack from the security sweep runs against a
//! real server process, and the test watches that process from `/proc` (resident memory, CPU
//! time, temporary files) while it runs.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::process::{
    Server, cmd, new_credential, run_ok, start_server_with, tiny_world_tenants, token,
};

/// The sweep's tests run one at a time: each loads a server on purpose, and its timings should
/// not include another's load.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// What a test needs of its server: the process, a token, and where SQLite's temporary
/// files go (and, held while it lives, its turn).
pub struct Target {
    _turn: tokio::sync::MutexGuard<'static, ()>,
    pub server: Server,
    pub token: String,
    pub tmp: PathBuf,
    pub id: String,
    pub secret: String,
}

/// A server over the tiny world with a read-all credential; its temporary files go to a
/// folder of their own so the test can see them.
pub async fn target(d: &Path, extra_config: &str) -> Target {
    let turn = SERIAL.lock().await;
    tiny_world_tenants(d, &["acme", "beta"]);
    let (id, secret) = new_credential(d, "acme", None, "sweep");
    let tmp = d.join("sqlite-tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(d.join("gateway.toml"), extra_config).unwrap();
    let mut command = cmd(d);
    command.env("SQLITE_TMPDIR", &tmp);
    let server = start_server_with(command, d, &["--config", "gateway.toml"]);
    let (status, t) = token(&server.base, &id, &secret).await;
    assert_eq!(status, 200, "{t}");
    Target {
        _turn: turn,
        token: t["access_token"].as_str().unwrap().to_owned(),
        server,
        tmp,
        id,
        secret,
    }
}

/// One reading of a process from `/proc`.
pub struct Reading {
    /// Resident memory, bytes.
    pub rss: u64,
    /// CPU time used so far (user + system), seconds.
    pub cpu: f64,
    /// Bytes of open files under the watched temporary folder (deleted ones included).
    pub temp: u64,
}

/// Reads `pid`'s resident memory, CPU time and temporary files under `tmp`.
pub fn read(pid: u32, tmp: &Path) -> Reading {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let rss = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|kb| kb.parse::<u64>().ok())
        .unwrap()
        * 1024;
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let fields: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
    let mut temp = 0;
    if let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) {
        for fd in fds.flatten() {
            let Ok(link) = std::fs::read_link(fd.path()) else {
                continue;
            };
            if link.starts_with(tmp) {
                temp += std::fs::metadata(fd.path()).map(|m| m.len()).unwrap_or(0);
            }
        }
    }
    Reading {
        rss,
        cpu: ticks / 100.0,
        temp,
    }
}

/// The highest resident memory and temporary space seen while `f` runs, sampled every 20 ms.
pub async fn peaks<T>(pid: u32, tmp: &Path, f: impl Future<Output = T>) -> (T, u64, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let (rss, temp) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let sampler = {
        let (stop, rss, temp, tmp) = (stop.clone(), rss.clone(), temp.clone(), tmp.to_owned());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let r = read(pid, &tmp);
                rss.fetch_max(r.rss, Ordering::Relaxed);
                temp.fetch_max(r.temp, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(20));
            }
        })
    };
    let out = f.await;
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    (
        out,
        rss.load(Ordering::Relaxed),
        temp.load(Ordering::Relaxed),
    )
}

/// An answer without its rows, for failure messages.
pub fn brief(body: &Value) -> Value {
    let mut b = body.clone();
    if let Some(o) = b.as_object_mut() {
        o.remove("rows");
    }
    b
}

pub async fn query(base: &str, token: &str, sql: &str, timeout_ms: u64) -> (u16, Value) {
    let res = crate::http()
        .post(format!("{base}/api/query"))
        .bearer_auth(token)
        .json(&json!({ "sql": sql, "queryTimeoutMs": timeout_ms }))
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

const MIB: u64 = 1024 * 1024;

/// CPU seconds the server spends over the next second, once a query has been answered.
fn cpu_over_next_second(pid: u32, tmp: &Path) -> f64 {
    let before = read(pid, tmp).cpu;
    std::thread::sleep(Duration::from_secs(1));
    read(pid, tmp).cpu - before
}

#[tokio::test]
async fn pattern_matching_answers_within_its_deadline_and_leaves_no_work_behind() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(dir.path(), "").await;
    let pid = t.server.child.id();
    for sql in [
        "SELECT printf('%.*c',2000000,'a') LIKE '%'||printf('%.*c',40000,'a')||'b'",
        "SELECT printf('%.*c',2000000,'a') GLOB '*'||printf('%.*c',40000,'a')||'b'",
        // Within the limits, but many rows of the most work one call may do.
        "SELECT count(*) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 100000) SELECT i FROM n) WHERE printf('%.*c',250000+i%2,'a') LIKE '%'||printf('%.*c',250,'a')||'b'",
        "SELECT count(*) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 100000) SELECT i FROM n) WHERE instr(printf('%.*c',250000+i%2,'a'), printf('%.*c',120000,'a')||'b') > 0",
    ] {
        let started = Instant::now();
        let (status, body) = query(&t.server.base, &t.token, sql, 2000).await;
        let took = started.elapsed();
        assert!(
            took < Duration::from_millis(2000 + 1000),
            "{sql}: answered after {took:?}: {}",
            brief(&body)
        );
        assert_eq!(status, 400, "{sql}: {}", brief(&body));
        let kind = body["kind"].as_str().unwrap();
        assert!(
            ["query_timeout", "too_large"].contains(&kind),
            "{sql}: {}",
            brief(&body)
        );
        let busy = cpu_over_next_second(pid, &t.tmp);
        assert!(busy < 0.5, "{sql}: {busy:.2} CPU seconds after the answer");
    }
}

#[tokio::test]
async fn a_query_whose_client_went_away_stops() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(dir.path(), "").await;
    let pid = t.server.child.id();
    let endless =
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n";
    let call = query(&t.server.base, &t.token, endless, 120_000);
    assert!(
        tokio::time::timeout(Duration::from_millis(700), call)
            .await
            .is_err()
    );
    // The client is gone; within a moment the server stops working on its behalf.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let busy = cpu_over_next_second(pid, &t.tmp);
    assert!(busy < 0.3, "{busy:.2} CPU seconds after the client left");
}

#[tokio::test]
async fn wide_values_are_refused_before_they_are_built() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(dir.path(), "").await;
    let pid = t.server.child.id();
    let cols: Vec<String> = (0..30)
        .map(|i| format!("printf('%.*c',60000000,'x') AS c{i}"))
        .collect();
    let wide = format!("SELECT {}", cols.join(", "));
    let cols: Vec<String> = (0..30)
        .map(|i| format!("printf('%.*c',200000,'x') AS c{i}"))
        .collect();
    let many = format!(
        "SELECT {} FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 1000) SELECT i FROM n)",
        cols.join(", ")
    );
    let start = read(pid, &t.tmp).rss;
    let ((a, b), peak, _) = peaks(pid, &t.tmp, async {
        (
            query(&t.server.base, &t.token, &wide, 30_000).await,
            query(&t.server.base, &t.token, &many, 30_000).await,
        )
    })
    .await;
    // SQLite refuses to build a value past the limit (printf gives NULL, others too_large).
    assert!(
        a.0 == 200 && a.1["rows"][0]["c0"].is_null() || a.1["kind"] == "too_large",
        "{}",
        brief(&a.1)
    );
    assert_eq!(b.0, 200, "{}", brief(&b.1));
    assert_eq!(b.1["truncation"]["reason"], "max_bytes");
    let grew = peak.saturating_sub(start);
    assert!(
        grew < 256 * MIB,
        "resident memory grew by {} MiB",
        grew / MIB
    );
}

#[tokio::test]
async fn temporary_space_stays_within_its_bound() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(dir.path(), "").await;
    let pid = t.server.child.id();
    let sort = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n LIMIT 20000000) \
                SELECT i, printf('%.*c',200,'x') AS pad FROM n ORDER BY random()";
    let start = read(pid, &t.tmp).rss;
    let ((status, body), rss, temp) =
        peaks(pid, &t.tmp, query(&t.server.base, &t.token, sort, 120_000)).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (400, Some("too_large")),
        "{}",
        brief(&body)
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .contains("temporary space"),
        "{body}"
    );
    assert!(temp > 0, "the sort never reached the temporary folder");
    assert!(
        temp <= 256 * MIB,
        "temporary files reached {} MiB",
        temp / MIB
    );
    let grew = rss.saturating_sub(start);
    assert!(
        grew < 256 * MIB,
        "resident memory grew by {} MiB",
        grew / MIB
    );
}

async fn health_time(base: &str) -> Duration {
    let started = Instant::now();
    let res = crate::http()
        .get(format!("{base}/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    started.elapsed()
}

#[tokio::test]
async fn a_flood_of_wrong_secrets_is_refused_cheaply() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(dir.path(), "").await;
    let pid = t.server.child.id();
    let base = t.server.base.clone();
    let start = read(pid, &t.tmp).rss;
    let flood = async {
        let attempts: Vec<_> = (0..300)
            .map(|i| {
                let base = base.clone();
                let id = if i % 2 == 0 {
                    t.id.clone()
                } else {
                    format!("ppc_unknown{i}")
                };
                tokio::spawn(async move {
                    let res = crate::http()
                        .post(format!("{base}/oauth/token"))
                        .basic_auth(id, Some("pps_wrong"))
                        .form(&[("grant_type", "client_credentials")])
                        .send()
                        .await
                        .unwrap();
                    let retry = res.headers().get("retry-after").cloned();
                    let status = res.status().as_u16();
                    let body: Value = res.json().await.unwrap();
                    (status, retry, body)
                })
            })
            .collect();
        // Timed from a thread and runtime of its own, so the flood's client work is not counted.
        let health_base = base.clone();
        let health = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(health_time(&health_base))
        });
        let health = async move {
            tokio::task::spawn_blocking(move || health.join().unwrap())
                .await
                .unwrap()
        };
        let all = async {
            let mut out = Vec::new();
            for a in attempts {
                out.push(a.await.unwrap());
            }
            out
        };
        tokio::join!(all, health)
    };
    let ((answers, health), peak, _) = peaks(pid, &t.tmp, flood).await;
    let limited: Vec<_> = answers.iter().filter(|(s, _, _)| *s == 429).collect();
    assert!(!limited.is_empty(), "no attempt was refused with 429");
    for (_, retry, body) in &limited {
        let secs: u64 = retry.as_ref().unwrap().to_str().unwrap().parse().unwrap();
        assert!(secs >= 1, "{body}");
        assert_eq!(body["error"], "temporarily_unavailable");
    }
    assert!(answers.iter().all(|(s, _, _)| *s == 401 || *s == 429));
    assert!(
        health < Duration::from_millis(500),
        "/health took {health:?}"
    );
    let grew = peak.saturating_sub(start);
    assert!(
        grew < 256 * MIB,
        "resident memory grew by {} MiB",
        grew / MIB
    );
}

const GENEROUS_TOKENS: &str = "[limits]\ntoken_burst_per_address = 100000\ntoken_per_minute_per_address = 1000000\ntoken_burst_per_client = 100000\ntoken_per_minute_per_client = 1000000\n";

#[tokio::test]
async fn no_token_minted_from_the_old_secret_outlives_a_rotation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_owned();
    let t = target(&d, GENEROUS_TOKENS).await;
    let base = t.server.base.clone();
    let stop = Arc::new(AtomicBool::new(false));
    let loops: Vec<_> = (0..12)
        .map(|_| {
            let (base, id, secret, stop) =
                (base.clone(), t.id.clone(), t.secret.clone(), stop.clone());
            tokio::spawn(async move {
                let mut minted = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let (status, body) = token(&base, &id, &secret).await;
                    if status == 200 {
                        minted.push(body["access_token"].as_str().unwrap().to_owned());
                    }
                }
                minted
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let rotate = tokio::task::spawn_blocking(move || {
        run_ok(
            &d,
            &[
                "admin",
                "--data-dir",
                "state",
                "credential",
                "rotate",
                &t.id,
                "--json",
            ],
        )
    });
    rotate.await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    let mut minted = Vec::new();
    for l in loops {
        minted.extend(l.await.unwrap());
    }
    assert!(minted.len() > 20, "only {} tokens minted", minted.len());
    let mut alive = 0;
    for tok in &minted {
        if crate::process::get_status(&base, "/v1/me", tok).await == 200 {
            alive += 1;
        }
    }
    assert_eq!(
        alive,
        0,
        "{alive} of {} old-secret tokens still work",
        minted.len()
    );
}

async fn mcp_initialize(base: &str, token: &str) -> (u16, Option<String>, Value) {
    let res = crate::http()
        .post(format!("{base}/mcp"))
        .bearer_auth(token)
        .header("accept", "application/json, text/event-stream")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": { "name": "sweep", "version": "1" }
            }
        }))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let session = res
        .headers()
        .get("mcp-session-id")
        .map(|v| v.to_str().unwrap().to_owned());
    (status, session, res.json().await.unwrap())
}

#[tokio::test]
async fn one_credential_cannot_fill_the_session_table() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(dir.path(), "[limits]\nmcp_sessions = 40\n").await;
    let base = &t.server.base;
    let mut first = None;
    for i in 0..200 {
        let (status, session, body) = mcp_initialize(base, &t.token).await;
        assert_eq!(status, 200, "initialize {i}: {body}");
        first.get_or_insert(session.unwrap());
    }
    // The flood replaced its own sessions: its first one is gone…
    let res = crate::http()
        .post(format!("{base}/mcp"))
        .bearer_auth(&t.token)
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", first.unwrap())
        .json(&json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 404);
    // …and another tenant still opens one.
    let (id, secret) = new_credential(dir.path(), "beta", None, "other");
    let (_, other) = token(base, &id, &secret).await;
    let (status, session, body) =
        mcp_initialize(base, other["access_token"].as_str().unwrap()).await;
    assert_eq!(status, 200, "{body}");
    assert!(session.is_some());
}

#[tokio::test]
async fn slow_and_idle_connections_are_closed_and_capped() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let t = target(
        dir.path(),
        "[limits]\nheader_timeout_ms = 1000\nmax_connections = 4\n",
    )
    .await;
    let addr = t.server.base.trim_start_matches("http://").to_owned();
    // Four clients that never finish their request head take every connection slot…
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
        s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n")
            .await
            .unwrap();
        slow.push(s);
    }
    let started = Instant::now();
    // …so a fifth waits, and is answered once the header timeout has dropped them.
    let waited = health_time(&t.server.base).await;
    assert!(
        waited >= Duration::from_millis(500),
        "answered after {waited:?} with every slot held"
    );
    for mut s in slow {
        let mut buf = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_secs(3), s.read(&mut buf)).await;
        assert!(
            matches!(read, Ok(Ok(_)) | Ok(Err(_))),
            "a half-sent request was still held after {:?}",
            started.elapsed()
        );
    }
    // An idle keep-alive connection is closed too.
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    s.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(4), s.read_to_end(&mut answer)).await;
    assert!(
        closed.is_ok(),
        "an idle keep-alive connection was held open"
    );
    assert!(String::from_utf8_lossy(&answer).starts_with("HTTP/1.1 200"));
}

#[tokio::test]
async fn busy_queries_do_not_starve_the_rest_of_the_gateway() {
    let dir = tempfile::tempdir().unwrap();
    let t = target(dir.path(), "").await;
    let endless =
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n) SELECT count(*) FROM n";
    let queries: Vec<_> = (0..8)
        .map(|_| {
            let (base, token) = (t.server.base.clone(), t.token.clone());
            tokio::spawn(async move {
                let started = Instant::now();
                let (status, body) = query(&base, &token, endless, 3_000).await;
                (started.elapsed(), status, body)
            })
        })
        .collect();
    // From a thread of its own: the gateway keeps answering while every query slot is taken.
    let (base, id, secret) = (t.server.base.clone(), t.id.clone(), t.secret.clone());
    let others = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(500));
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let health = health_time(&base).await;
            let started = Instant::now();
            let (status, _) = token(&base, &id, &secret).await;
            (health, started.elapsed(), status)
        })
    });
    let (health, mint, status) = tokio::task::spawn_blocking(move || others.join().unwrap())
        .await
        .unwrap();
    assert!(
        health < Duration::from_millis(300),
        "/health took {health:?}"
    );
    assert_eq!(status, 200);
    assert!(mint < Duration::from_millis(500), "a token took {mint:?}");
    for q in queries {
        let (took, status, body) = q.await.unwrap();
        assert!(
            took < Duration::from_millis(3_000 + 1_000),
            "{took:?}: {}",
            brief(&body)
        );
        let kind = body["kind"].as_str().unwrap_or_default();
        assert!(
            (status, kind) == (400, "query_timeout") || (status, kind) == (503, "unavailable"),
            "{status} {}",
            brief(&body)
        );
    }
}

/// A client that sends its head and then trickles nothing of the body it announced is dropped
/// once nothing has moved for the idle timeout (the header timeout no longer applies).
#[tokio::test]
async fn a_stalled_body_is_dropped_after_the_idle_timeout() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let dir = tempfile::tempdir().unwrap();
    let t = target(
        dir.path(),
        "[limits]\nheader_timeout_ms = 30000\nidle_timeout_ms = 1000\n",
    )
    .await;
    let addr = t.server.base.trim_start_matches("http://").to_owned();
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let head = format!(
        "POST /api/query HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"sql\"",
        t.token
    );
    s.write_all(head.as_bytes()).await.unwrap();
    let started = Instant::now();
    let mut buf = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut buf)).await;
    assert!(
        read.is_ok(),
        "a stalled body was still held after {:?}",
        started.elapsed()
    );
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "dropped too early"
    );
}
