//! Outbound events (docs/events.md): the feed shows a credential only the events of surfaces
//! its scopes read (REST and the `events_list` tool alike); a webhook delivery verifies with
//! the official Standard Webhooks library of another language (Python's `standardwebhooks`)
//! and a tampered body or an old timestamp does not, also across a secret rotation; a receiver
//! that is down for a while gets every event afterwards, each exactly once by `webhook-id`;
//! outside `--dev`, internal addresses are refused at registration and again at delivery.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::ads_writes::{WRITER, bid_update, commit, keywords, preview_ok};
use crate::common::{Options, TestApp, external_tool};

/// One request a receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub headers: HashMap<String, String>,
    pub body: String,
}

/// A local webhook receiver that records what it gets and answers `status`; it can be stopped
/// and started again on the same port.
pub struct Receiver {
    pub addr: SocketAddr,
    pub got: Arc<Mutex<Vec<Received>>>,
    pub status: Arc<AtomicU16>,
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
}

impl Receiver {
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let r = Self {
            addr: listener.local_addr().unwrap(),
            got: Arc::default(),
            status: Arc::new(AtomicU16::new(200)),
            stop: Mutex::new(None),
        };
        r.serve(listener);
        r
    }

    fn serve(&self, listener: tokio::net::TcpListener) {
        let (got, status) = (self.got.clone(), self.status.clone());
        let app = axum::Router::new().route(
            "/hook",
            axum::routing::post(
                move |headers: axum::http::HeaderMap, body: String| async move {
                    let headers = headers
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_owned()))
                        .collect();
                    got.lock().unwrap().push(Received { headers, body });
                    axum::http::StatusCode::from_u16(status.load(Ordering::SeqCst)).unwrap()
                },
            ),
        );
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        *self.stop.lock().unwrap() = Some(tx);
        tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = rx.await;
                })
                .await
                .unwrap();
        });
    }

    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// Stops listening: connections are refused until [`Receiver::restart`].
    pub async fn stop(&self) {
        if let Some(tx) = self.stop.lock().unwrap().take() {
            let _ = tx.send(());
        }
        // the port is free once the listener is dropped
        for _ in 0..100 {
            if tokio::net::TcpStream::connect(self.addr).await.is_err() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("the receiver did not stop");
    }

    pub async fn restart(&self) {
        let listener = tokio::net::TcpListener::bind(self.addr).await.unwrap();
        self.serve(listener);
    }

    /// The `webhook-id`s received, in order.
    pub fn ids(&self) -> Vec<String> {
        self.got
            .lock()
            .unwrap()
            .iter()
            .map(|r| r.headers["webhook-id"].clone())
            .collect()
    }
}

/// An endpoint admin's credential: `webhooks:write` and the reads every event type needs
/// (a credential registers only the types it reads, issue 66).
pub const HOOKS: &str = "webhooks:write account:read retail:read ads:read intelligence:read";
/// A seller connected in the market app.
const SELLER: &str = "A1DEMOSELLERMX";

/// Registers `url` for `types` as acme's admin; the answer (with the secret).
pub async fn register(app: &TestApp, admin: &str, url: &str, types: &[&str]) -> Value {
    let (s, r) = app
        .post(
            admin,
            "/api/webhooks",
            json!({ "url": url, "types": types }),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    assert!(r["secret"].as_str().unwrap().starts_with("whsec_"), "{r}");
    r
}

/// One committed advertising write (an `ads.write.committed` event).
async fn one_commit(app: &TestApp, t: &str, bid: f64) {
    let k = keywords(app, t, 1).await;
    let c = bid_update(&[&k[0]["keywordId"]], bid);
    let p = preview_ok(app, t, &c).await;
    let r = commit(app, t, &c, &p).await;
    assert_eq!(r["commit"]["outcome"], "answered", "{r}");
}

/// Waits until `f` holds, for up to `secs`.
pub async fn until(secs: u64, what: &str, mut f: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !f().await {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn the_feed_shows_a_credential_only_the_events_of_surfaces_it_reads() {
    let app = TestApp::start_market().await;
    let writer = app.token(&app.credential("acme", Some(WRITER)).await).await;
    one_commit(&app, &writer, 0.61).await;
    // a connection that lapses at the provider is told to account readers
    app.store
        .connections()
        .set_status(
            &pp_core::TenantId::parse("acme").unwrap(),
            "seller",
            SELLER,
            "lapsed",
        )
        .await
        .unwrap();
    let feed = |token: String| {
        let app = &app;
        async move {
            let (s, r) = app.get(&token, "/api/events").await;
            assert_eq!(s, 200, "{r}");
            r["events"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["type"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    let ads = app
        .token(&app.credential("acme", Some("ads:read")).await)
        .await;
    let retail = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let account = app
        .token(&app.credential("acme", Some("account:read")).await)
        .await;
    assert_eq!(feed(ads.clone()).await, ["ads.write.committed"]);
    assert!(
        feed(retail.clone()).await.is_empty(),
        "no ads or account events for retail"
    );
    assert_eq!(feed(account.clone()).await, ["connection.lapsed"]);
    // another tenant sees none of acme's
    let beta = app.token(&app.beta).await;
    assert!(feed(beta).await.is_empty());
    // over MCP, one read scope is enough too, and filters alike
    for (token, want) in [
        (ads.clone(), "ads.write.committed"),
        (account.clone(), "connection.lapsed"),
    ] {
        let mut mcp = crate::mcp::Mcp::with_token(&app, token);
        mcp.initialize("2025-11-25").await;
        let (result, text) = mcp.call("events_list", json!({})).await;
        assert_eq!(result["isError"], false, "{result}");
        let types: Vec<&str> = text["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["type"].as_str().unwrap())
            .collect();
        assert_eq!(types, [want], "{text}");
    }
    // the tool answers alike, and reads on from a cursor
    let (s, r) = app.get(&ads, "/api/events").await;
    assert_eq!(s, 200);
    let first = r["events"][0].clone();
    assert_eq!(
        first["subject"]["operation"], "sp.update_keywords",
        "{first}"
    );
    assert_eq!(r["cursor"], first["id"]);
    let (s, after) = app
        .get(
            &ads,
            &format!("/api/events?after={}", first["id"].as_str().unwrap()),
        )
        .await;
    assert_eq!(s, 200);
    assert!(after["events"].as_array().unwrap().is_empty(), "{after}");
    // an unknown type or cursor is a clear refusal
    let (s, r) = app.get(&ads, "/api/events?type=nothing.*").await;
    assert_eq!((s, r["kind"].as_str()), (400, Some("bad_params")), "{r}");
    let (s, r) = app.get(&ads, "/api/events?after=evt_nope").await;
    assert_eq!((s, r["kind"].as_str()), (400, Some("bad_params")), "{r}");
    // issue 66, finding 9: an event the caller cannot read is as unknown as one that does not
    // exist (the old main answered 200 for it, telling that it exists)
    let hidden = first["id"].as_str().unwrap();
    let (s, r) = app
        .get(&retail, &format!("/api/events?after={hidden}"))
        .await;
    assert_eq!((s, r["kind"].as_str()), (400, Some("bad_params")), "{r}");
    let (_, unknown) = app.get(&retail, "/api/events?after=evt_nope").await;
    assert_eq!(
        r["message"].as_str().map(|m| m.replace(hidden, "ID")),
        unknown["message"]
            .as_str()
            .map(|m| m.replace("evt_nope", "ID"))
    );
    // a credential with no read scope is refused outright
    let writes_only = app
        .token(&app.credential("acme", Some("timeline:read")).await)
        .await;
    let (s, r) = app.get(&writes_only, "/api/events").await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (403, Some("insufficient_scope")),
        "{r}"
    );
}

/// Verifies `deliveries` with Python's `standardwebhooks` under each of `secrets`: per
/// delivery, whether it verifies as sent, with its body changed, and ten minutes later.
async fn python_verdicts(python: &std::path::Path, secrets: &[&str], got: &[Received]) -> Value {
    const SCRIPT: &str = r#"
import json, sys, datetime as real
import standardwebhooks.webhooks as sw
from standardwebhooks import Webhook
given = json.load(sys.stdin)
class Later(real.datetime):
    @classmethod
    def now(cls, tz=None):
        return real.datetime.now(tz) + real.timedelta(minutes=10)
def verdict(secret, body, headers, later=False):
    saved = sw.datetime
    if later:
        sw.datetime = Later
    try:
        Webhook(secret).verify(body, headers)
        return "ok"
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
    finally:
        sw.datetime = saved
out = []
for secret in given["secrets"]:
    for d in given["deliveries"]:
        out.append({
            "asSent": verdict(secret, d["body"], d["headers"]),
            "tampered": verdict(secret, d["body"].replace("committed", "comitted"), d["headers"]),
            "later": verdict(secret, d["body"], d["headers"], later=True),
        })
print(json.dumps(out))
"#;
    let input = json!({
        "secrets": secrets,
        "deliveries": got.iter().map(|r| json!({ "body": r.body, "headers": r.headers })).collect::<Vec<_>>(),
    });
    let mut cmd = std::process::Command::new(python);
    cmd.arg("-c").arg(SCRIPT);
    let out =
        crate::common::run_external_with_stdin(cmd, &input.to_string(), "python standardwebhooks")
            .await;
    serde_json::from_str(&out).unwrap()
}

#[tokio::test]
async fn a_delivery_verifies_with_pythons_standard_webhooks_and_a_tampered_or_old_one_does_not() {
    let Some(python) = external_tool(
        "PP_WEBHOOKS_PYTHON",
        "webhooks-venv/bin/python",
        "verifying deliveries needs Python's standardwebhooks",
    ) else {
        return;
    };
    let app = TestApp::start_market().await;
    let receiver = Receiver::start().await;
    let admin = app.token(&app.credential("acme", Some(HOOKS)).await).await;
    let endpoint = register(&app, &admin, &receiver.url(), &["ads.*"]).await;
    let secret = endpoint["secret"].as_str().unwrap().to_owned();
    let writer = app.token(&app.credential("acme", Some(WRITER)).await).await;
    one_commit(&app, &writer, 0.62).await;
    until(20, "the first delivery", async || receiver.ids().len() == 1).await;
    let first = receiver.got.lock().unwrap()[0].clone();
    assert_eq!(first.headers["content-type"], "application/json");
    let body: Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(body["type"], "ads.write.committed");
    assert_eq!(
        body["id"].as_str(),
        Some(first.headers["webhook-id"].as_str())
    );
    let v = python_verdicts(&python, &[&secret], std::slice::from_ref(&first)).await;
    assert_eq!(v[0]["asSent"], "ok", "{v}");
    assert!(
        v[0]["tampered"]
            .as_str()
            .unwrap()
            .contains("No matching signature"),
        "{v}"
    );
    assert!(v[0]["later"].as_str().unwrap().contains("too old"), "{v}");

    // rotated: the next delivery verifies under the new secret and, in the grace period, the old
    let id = endpoint["endpoint"]["id"].as_str().unwrap();
    let (s, rotated) = app
        .post(&admin, &format!("/api/webhooks/{id}/rotate"), json!({}))
        .await;
    assert_eq!(s, 200, "{rotated}");
    let new_secret = rotated["secret"].as_str().unwrap().to_owned();
    assert_ne!(new_secret, secret);
    assert!(
        rotated["endpoint"]["previousSecretUntil"].is_string(),
        "{rotated}"
    );
    one_commit(&app, &writer, 0.63).await;
    until(20, "the second delivery", async || {
        receiver.ids().len() == 2
    })
    .await;
    let second = receiver.got.lock().unwrap()[1].clone();
    let v = python_verdicts(&python, &[&new_secret, &secret], &[second]).await;
    assert_eq!(
        (v[0]["asSent"].as_str(), v[1]["asSent"].as_str()),
        (Some("ok"), Some("ok")),
        "{v}"
    );
    let stranger = "whsec_".to_owned() + &"A".repeat(43) + "=";
    let v = python_verdicts(&python, &[&stranger], &[first]).await;
    assert_ne!(v[0]["asSent"], "ok", "{v}");
    // the listing never shows a secret
    let (_, list) = app.get(&admin, "/api/webhooks").await;
    assert!(
        !list.to_string().contains(&new_secret) && !list.to_string().contains("whsec_"),
        "{list}"
    );
}

#[tokio::test]
async fn a_receiver_that_was_down_gets_every_event_afterwards_once_each() {
    let app = TestApp::start_market().await;
    let receiver = Receiver::start().await;
    let admin = app.token(&app.credential("acme", Some(HOOKS)).await).await;
    let endpoint = register(&app, &admin, &receiver.url(), &["*"]).await;
    let id = endpoint["endpoint"]["id"].as_str().unwrap().to_owned();
    let writer = app.token(&app.credential("acme", Some(WRITER)).await).await;
    one_commit(&app, &writer, 0.64).await;
    until(20, "the first delivery", async || receiver.ids().len() == 1).await;

    receiver.stop().await;
    for bid in [0.65, 0.66, 0.67] {
        one_commit(&app, &writer, bid).await;
    }
    // the attempts fail while it is down, and the log says why
    until(20, "failed attempts", async || {
        let (_, log) = app
            .get(&admin, &format!("/api/webhooks/{id}/deliveries"))
            .await;
        log["deliveries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["attempts"].as_array().is_some_and(|a| {
                    a.iter()
                        .any(|a| a["error"].as_str().is_some_and(|e| e.contains("connect")))
                })
            })
            .count()
            >= 3
    })
    .await;
    // a worker restart meanwhile loses nothing
    app.restart_workers().await;
    receiver.restart().await;
    until(30, "every event delivered", async || {
        receiver.ids().len() >= 4
    })
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let ids = receiver.ids();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        (ids.len(), unique.len()),
        (4, 4),
        "each event once: {ids:?}"
    );
    let (_, feed) = app.get(&writer, "/api/events?type=ads.*").await;
    let mut fed: Vec<String> = feed["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_owned())
        .collect();
    fed.sort();
    assert_eq!(fed, unique, "the events delivered are the feed's");
    let (_, log) = app
        .get(&admin, &format!("/api/webhooks/{id}/deliveries"))
        .await;
    for d in log["deliveries"].as_array().unwrap() {
        assert_eq!(d["status"], "delivered", "{d}");
    }

    // a replay sends the same event again, under the same webhook-id
    let last = log["deliveries"][0]["id"].as_str().unwrap();
    let (s, replay) = app
        .post(
            &admin,
            &format!("/api/webhooks/deliveries/{last}/replay"),
            json!({}),
        )
        .await;
    assert_eq!(s, 200, "{replay}");
    assert_eq!(replay["replayOf"], last, "{replay}");
    until(20, "the replay", async || receiver.ids().len() == 5).await;
    assert_eq!(
        receiver.ids()[4],
        log["deliveries"][0]["eventId"].as_str().unwrap()
    );
}

#[tokio::test]
async fn outside_dev_internal_addresses_are_refused_at_registration_and_at_delivery() {
    let strict = pp_events::Settings {
        dev: false,
        first_retry: Duration::from_millis(200),
        max_retry_gap: Duration::from_secs(1),
        retry_for: Duration::from_secs(120),
        ..Default::default()
    };
    let app = TestApp::start_options(Options {
        events: strict.clone(),
        ..Options::default()
    })
    .await;
    let admin = app.token(&app.credential("acme", Some(HOOKS)).await).await;
    for url in [
        "http://127.0.0.1:9/hook",
        "https://10.0.0.1/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://localhost:9/hook",
        "http://[::1]:9/hook",
    ] {
        let (s, r) = app
            .post(
                &admin,
                "/api/webhooks",
                json!({ "url": url, "types": ["*"] }),
            )
            .await;
        assert_eq!(
            (s, r["kind"].as_str()),
            (400, Some("url_refused")),
            "{url}: {r}"
        );
    }
    let (_, list) = app.get(&admin, "/api/webhooks").await;
    assert!(
        list["endpoints"].as_array().unwrap().is_empty(),
        "nothing was registered"
    );
    // a scope is needed to register at all
    let reader = app
        .token(&app.credential("acme", Some("account:read")).await)
        .await;
    let (s, _) = app
        .post(
            &reader,
            "/api/webhooks",
            json!({ "url": "https://hooks.example/x", "types": ["*"] }),
        )
        .await;
    assert_eq!(s, 403);

    // registered while allowed (a dev gateway on the same state), delivered by a strict one
    let receiver = Receiver::start().await;
    let dev = pp_events::Events::new(
        app.store.clone(),
        pp_events::Settings {
            dev: true,
            ..strict.clone()
        },
    )
    .unwrap()
    .with_sealer(app.sealer());
    let acme = pp_core::TenantId::parse("acme").unwrap();
    let by_name = format!("http://localhost:{}/hook", receiver.addr.port());
    for url in [receiver.url(), by_name] {
        dev.endpoints_as(acme.clone(), "test")
            .register(pp_events::RegisterRequest {
                url,
                types: vec!["*".into()],
                description: None,
            })
            .await
            .unwrap();
    }
    let told = report_done("r0");
    app.store.events().append(&acme, told).await.unwrap();
    let (_, list) = app.get(&admin, "/api/webhooks").await;
    for e in list["endpoints"].as_array().unwrap() {
        let id = e["id"].as_str().unwrap();
        until(20, "a refused attempt", async || {
            let (_, log) = app
                .get(&admin, &format!("/api/webhooks/{id}/deliveries"))
                .await;
            log["deliveries"][0]["attempts"][0]["error"]
                .as_str()
                .is_some_and(|e| e.contains("loopback"))
        })
        .await;
    }
    assert!(
        receiver.ids().is_empty(),
        "nothing reached the internal receiver"
    );
}

#[tokio::test]
async fn monitor_settings_are_the_defaults_until_an_admin_changes_them_and_bad_ones_change_nothing()
{
    let app = TestApp::start().await;
    let reader = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let admin = app.token(&app.credential("acme", Some(HOOKS)).await).await;
    let (s, v) = app.get(&reader, "/api/monitors").await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["settings"]["stockout"]["recentDays"], 28, "{v}");
    assert_eq!(v["settings"]["anomaly"]["minClicks"], 100, "{v}");
    // the intraday monitors' too
    assert_eq!(v["settings"]["spendPaceByHour"]["fromHour"], 6, "{v}");
    assert_eq!(v["settings"]["hourlyAnomaly"]["minClicks"], 20, "{v}");
    assert!(v["setBy"].is_null());
    // a reader cannot change them; an unknown field or a value out of range changes nothing
    let put = |token: String, body: Value| {
        let app = &app;
        async move {
            let r = app
                .http
                .put(app.url("/api/monitors/settings"))
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (s, _) = put(reader.clone(), json!({"anomaly": {"minClicks": 50}})).await;
    assert_eq!(s, 403);
    for bad in [
        json!({"anomaly": {"minClickz": 50}}),
        json!({"outOfBudget": {"share": 3}}),
        json!({"hourlyAnomaly": {"windowDays": 20, "minDays": 21}}),
        json!({"spendPaceByHour": {"fromHour": 24}}),
    ] {
        let (s, r) = put(admin.clone(), bad.clone()).await;
        assert_eq!(s, 400, "{bad}: {r}");
    }
    let (s, v) = put(
        admin.clone(),
        json!({"anomaly": {"minClicks": 50}, "lowCover": {"enabled": false}}),
    )
    .await;
    assert_eq!(s, 200, "{v}");
    let (_, v) = app.get(&reader, "/api/monitors").await;
    assert_eq!(
        (
            v["settings"]["anomaly"]["minClicks"].as_i64(),
            v["settings"]["lowCover"]["enabled"].as_bool()
        ),
        (Some(50), Some(false)),
        "{v}"
    );
    assert_eq!(
        v["settings"]["anomaly"]["minOrders"], 10,
        "the rest keeps its default: {v}"
    );
    assert!(v["setBy"].as_str().unwrap().contains("cred_"), "{v}");
}

#[tokio::test]
async fn an_endpoint_failing_for_the_disable_period_is_disabled_with_an_event_and_its_deliveries_give_up()
 {
    let quick = pp_events::Settings {
        dev: true,
        first_retry: Duration::from_millis(100),
        max_retry_gap: Duration::from_millis(400),
        retry_for: Duration::from_secs(3),
        disable_after: Duration::from_secs(1),
        timeout: Duration::from_secs(2),
        ..Default::default()
    };
    let app = TestApp::start_options(Options {
        events: quick,
        ..Options::default()
    })
    .await;
    let receiver = Receiver::start().await;
    receiver.status.store(500, Ordering::SeqCst);
    let admin = app
        .token(
            &app.credential("acme", Some(&format!("{HOOKS} account:read retail:read")))
                .await,
        )
        .await;
    let endpoint = register(&app, &admin, &receiver.url(), &["report.*"]).await;
    let id = endpoint["endpoint"]["id"].as_str().unwrap().to_owned();
    let acme = pp_core::TenantId::parse("acme").unwrap();
    let told = report_done("r1");
    app.store.events().append(&acme, told).await.unwrap();
    until(20, "the endpoint disabled", async || {
        let (_, e) = app.get(&admin, &format!("/api/webhooks/{id}")).await;
        e["enabled"] == false
    })
    .await;
    let (_, e) = app.get(&admin, &format!("/api/webhooks/{id}")).await;
    assert!(
        e["disabledReason"].as_str().unwrap().contains("HTTP 500"),
        "{e}"
    );
    let (_, feed) = app.get(&admin, "/api/events?type=webhook.*").await;
    assert_eq!(feed["events"].as_array().unwrap().len(), 1, "{feed}");
    assert_eq!(feed["events"][0]["subject"]["endpointId"], id.as_str());
    until(20, "the delivery given up", async || {
        let (_, log) = app
            .get(&admin, &format!("/api/webhooks/{id}/deliveries"))
            .await;
        log["deliveries"][0]["status"] == "failed"
    })
    .await;
    let attempts = receiver.ids().len();
    assert!(attempts >= 2, "it was retried: {attempts}");
    // a new event is not sent to a disabled endpoint; enabled again, a replay reaches it
    receiver.status.store(200, Ordering::SeqCst);
    let told = report_done("r2");
    app.store.events().append(&acme, told).await.unwrap();
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        receiver.ids().len(),
        attempts,
        "nothing sent while disabled"
    );
    let (s, _) = app
        .post(&admin, &format!("/api/webhooks/{id}/enable"), json!({}))
        .await;
    assert_eq!(s, 200);
    let (_, log) = app
        .get(&admin, &format!("/api/webhooks/{id}/deliveries"))
        .await;
    let failed = log["deliveries"][0]["id"].as_str().unwrap();
    let (s, _) = app
        .post(
            &admin,
            &format!("/api/webhooks/deliveries/{failed}/replay"),
            json!({}),
        )
        .await;
    assert_eq!(s, 200);
    until(20, "the replay delivered", async || {
        receiver.ids().len() == attempts + 1
    })
    .await;
}

/// Issue 66, finding 2: a `webhooks:write`-only credential received every event. Reproduced
/// on the old main against the release binary: refused by `GET /api/events` (403), it
/// registered an endpoint for `ads.*` and `approval.*` and got `ads.write.committed`
/// deliveries, which went on after the credential was revoked. Now registration names the
/// types it cannot read and stores nothing; revoking the credential that registered an
/// endpoint disables it, with an event.
#[tokio::test]
async fn an_endpoint_gets_only_what_its_registrant_reads_and_ends_with_its_access() {
    let app = TestApp::start_market().await;
    let receiver = Receiver::start().await;
    let hooks_only = app
        .token(&app.credential("acme", Some("webhooks:write")).await)
        .await;
    let (s, r) = app
        .post(
            &hooks_only,
            "/api/webhooks",
            json!({ "url": receiver.url(), "types": ["ads.*", "approval.*"] }),
        )
        .await;
    assert_eq!((s, r["kind"].as_str()), (400, Some("bad_params")), "{r}");
    let message = r["message"].as_str().unwrap();
    for t in [
        "ads.write.committed",
        "ads.write.failed",
        "approval.requested",
        "approval.decided",
    ] {
        assert!(message.contains(t), "{t} named: {message}");
    }
    assert!(r["fix"].as_str().unwrap().contains("ads:read"), "{r}");
    let (_, list) = app.get(&hooks_only, "/api/webhooks").await;
    assert_eq!(list["endpoints"], json!([]), "nothing stored");
    // with ads:read it may have advertising events, and still not retail ones
    let cred = app
        .credential("acme", Some("webhooks:write ads:read"))
        .await;
    let ads_reader = app.token(&cred).await;
    let (s, r) = app
        .post(
            &ads_reader,
            "/api/webhooks",
            json!({ "url": receiver.url(), "types": ["*"] }),
        )
        .await;
    assert_eq!(s, 400, "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("report.done"),
        "{r}"
    );
    let endpoint = register(&app, &ads_reader, &receiver.url(), &["ads.*"]).await;
    let id = endpoint["endpoint"]["id"].as_str().unwrap().to_owned();
    let writer = app.token(&app.credential("acme", Some(WRITER)).await).await;
    one_commit(&app, &writer, 0.71).await;
    until(20, "the delivery", async || receiver.ids().len() == 1).await;

    // the credential is revoked: its endpoint is disabled, with an event, and gets no more
    let admin = pp_admin::Admin::new(app.store.clone());
    let (_, ended) = admin
        .credentials(&pp_admin::Operator::service("admin:test"))
        .revoke(&cred.credential_id)
        .await
        .unwrap();
    assert_eq!(ended.disabled_webhooks, std::slice::from_ref(&id));
    let reader = app.token(&app.credential("acme", Some(HOOKS)).await).await;
    let (_, got) = app.get(&reader, &format!("/api/webhooks/{id}")).await;
    assert_eq!(got["enabled"], false, "{got}");
    assert!(
        got["disabledReason"].as_str().unwrap().contains("revoked"),
        "{got}"
    );
    let (_, feed) = app.get(&reader, "/api/events?type=webhook.*").await;
    assert_eq!(
        feed["events"][0]["subject"]["endpointId"],
        id.as_str(),
        "{feed}"
    );
    one_commit(&app, &writer, 0.72).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        receiver.ids().len(),
        1,
        "nothing delivered after the revocation"
    );
}

/// Issue 66, finding 8: replays had no limit of their own. Reproduced on the old main
/// against the release binary: 300 replays of one delivery in 2.5 s sent 300 POSTs. Now a
/// replay of a delivery whose replay is still pending answers that one, and an endpoint
/// takes at most 10 replays a minute.
#[tokio::test]
async fn replays_collapse_while_pending_and_are_limited_per_endpoint() {
    let app = TestApp::start_market().await;
    let receiver = Receiver::start().await;
    let admin = app.token(&app.credential("acme", Some(HOOKS)).await).await;
    let endpoint = register(&app, &admin, &receiver.url(), &["ads.*"]).await;
    let id = endpoint["endpoint"]["id"].as_str().unwrap().to_owned();
    let writer = app.token(&app.credential("acme", Some(WRITER)).await).await;
    for n in 0..3 {
        one_commit(&app, &writer, 0.81 + f64::from(n) / 100.0).await;
    }
    until(20, "three deliveries", async || receiver.ids().len() == 3).await;
    let (_, log) = app
        .get(&admin, &format!("/api/webhooks/{id}/deliveries"))
        .await;
    let deliveries: Vec<String> = log["deliveries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap().to_owned())
        .collect();
    // the receiver stops answering: replays wait for their next attempt
    receiver.status.store(500, Ordering::SeqCst);
    let replay = async |d: &str| {
        app.post(
            &admin,
            &format!("/api/webhooks/deliveries/{d}/replay"),
            json!({}),
        )
        .await
    };
    let (s, first) = replay(&deliveries[0]).await;
    assert_eq!(s, 200, "{first}");
    for _ in 0..30 {
        let (s, again) = replay(&deliveries[0]).await;
        assert_eq!(s, 200, "{again}");
        assert_eq!(again["id"], first["id"], "the pending replay answers");
    }
    let mut statuses = Vec::new();
    // the replays made: a replay answered while an earlier one of the same delivery is still
    // pending is that one (an attempt in flight can put a delivery the test gave up back to
    // pending), so replays are counted by id, not by 200s
    let mut made = std::collections::BTreeSet::new();
    let began = std::time::Instant::now();
    for _ in 0..12 {
        for d in &deliveries[1..] {
            let (s, r) = replay(d).await;
            statuses.push(s);
            if s == 200 {
                made.insert(r["id"].as_str().unwrap().to_owned());
            }
        }
        // each replay is new once the one before it has given up
        let (_, log) = app
            .get(&admin, &format!("/api/webhooks/{id}/deliveries?limit=100"))
            .await;
        for d in log["deliveries"].as_array().unwrap() {
            if d["status"] == "pending" {
                app.store
                    .webhooks()
                    .record(
                        &app.store
                            .webhooks()
                            .delivery(d["id"].as_str().unwrap())
                            .await
                            .unwrap()
                            .unwrap(),
                        pp_store::webhooks::Attempt {
                            at_ms: pp_store::jobs::now_ms(),
                            status: Some(500),
                            error: Some("given up by the test".into()),
                            duration_ms: 0,
                        },
                        pp_store::webhooks::DeliveryStatus::Failed,
                    )
                    .await
                    .unwrap();
            }
        }
    }
    let ids = made;
    let made = ids.len();
    // the window is the last minute: on a machine so loaded that the loop outlasted it, the
    // first replays left the window and more were rightly made
    if began.elapsed() < std::time::Duration::from_secs(55) {
        assert_eq!(
            made, 9,
            "ten replays a minute, the first included: {statuses:?}"
        );
    } else {
        assert!(made >= 9, "{statuses:?}");
    }
    assert!(
        statuses.iter().all(|s| matches!(s, 200 | 429)),
        "{statuses:?}"
    );
    assert!(statuses.contains(&429), "{statuses:?}");
    let (s, r) = replay(&deliveries[1]).await;
    match s {
        429 => assert_eq!(r["kind"], "throttled", "{r}"),
        // a pending replay of it answers (the race above); no new one is made
        _ => assert!(
            s == 200 && ids.contains(r["id"].as_str().unwrap_or_default()),
            "{s} {r}"
        ),
    }
}

/// A `report.done` event for report `id`, as a report watch tells it.
fn report_done(id: &str) -> pp_store::events::NewEvent {
    use pp_core::events::payloads::{ReportData, ReportSubject, ReportTold};
    pp_store::events::NewEvent::of(&ReportTold {
        subject: ReportSubject {
            report_id: id.into(),
            merchant: None,
        },
        data: ReportData {
            status: "done".into(),
            reason: Value::Null,
            report_type: Value::Null,
            report_document_id: Value::Null,
            error: None,
        },
    })
}
