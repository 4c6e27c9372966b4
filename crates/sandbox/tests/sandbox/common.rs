//! `SimApp`: a sandbox on an ephemeral port over a tiny demo world of its own.

#![allow(dead_code)]

use std::sync::Arc;

use pp_sandbox::{Sim, SimConfig};
use serde_json::Value;

pub struct SimApp {
    pub base: String,
    pub http: reqwest::Client,
    pub creds: Value,
    pub sim: Arc<Sim>,
    pub dir: tempfile::TempDir,
}

/// The seller with stores in the US and CA (one merchant token, two marketplaces).
pub const SELLER: &str = "A2DEMOSELLER01";
pub const US: &str = "ATVPDKIKX0DER";

impl SimApp {
    pub async fn start() -> Self {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(tweak: impl FnOnce(&mut SimConfig)) -> Self {
        Self::start_scaled(pp_world::Scale::Tiny, tweak).await
    }

    /// A sandbox over the small world (the dev server's size): what the dataset checks run on.
    pub async fn small(tweak: impl FnOnce(&mut SimConfig)) -> Self {
        Self::start_scaled(pp_world::Scale::Small, tweak).await
    }

    async fn start_scaled(scale: pp_world::Scale, tweak: impl FnOnce(&mut SimConfig)) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let spec = pp_world::WorldSpec::new(
            1,
            scale,
            chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        );
        let world = pp_world::generate_sqlite(&spec, &dir.path().join("world")).unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut cfg = SimConfig::new(world.warehouse.clone(), dir.path().join("sim"), &base);
        cfg.report_ms = 300;
        tweak(&mut cfg);
        let sim = Arc::new(Sim::open(cfg).unwrap());
        let creds = sim.credentials().unwrap();
        tokio::spawn(pp_sandbox::serve(
            listener,
            sim.clone(),
            std::future::pending(),
        ));
        Self {
            base,
            http: {
                // reqwest is built without a default crypto provider; install ring's.
                let _ = rustls::crypto::ring::default_provider().install_default();
                // a request the server never answers fails the test, naming the request,
                // instead of holding the whole run until CI gives up on it
                reqwest::Client::builder()
                    .timeout(std::time::Duration::from_secs(180))
                    .build()
                    .unwrap()
            },
            creds,
            sim,
            dir,
        }
    }

    /// A presigned document URL's body, un-gzipped by the gateway's reader, as text (no
    /// credentials sent).
    pub async fn download_gz(&self, url: &str) -> String {
        let gz = self
            .http
            .get(url)
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        pp_marketplace::documents::gunzip(&gz).unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn client_id(&self) -> &str {
        self.creds["client_id"].as_str().unwrap()
    }

    pub fn secret(&self) -> &str {
        self.creds["client_secret"].as_str().unwrap()
    }

    /// The refresh token of `merchant` for `seller` (selling side) or `ads` grants.
    pub fn refresh_token(&self, kind: &str, merchant: &str) -> String {
        let list = if kind == "seller" {
            "merchants"
        } else {
            "advertising"
        };
        let key = if kind == "seller" {
            "merchant"
        } else {
            "account"
        };
        self.creds[list]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m[key] == merchant)
            .unwrap()["refresh_token"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// POST /auth/o2/token; (status, body).
    pub async fn lwa(&self, refresh: &str) -> (u16, Value) {
        let r = self
            .http
            .post(self.url("/auth/o2/token"))
            .form(&[
                ("grant_type", "refresh_token"),
                ("refresh_token", refresh),
                ("client_id", self.client_id()),
                ("client_secret", self.secret()),
            ])
            .send()
            .await
            .unwrap();
        (r.status().as_u16(), r.json().await.unwrap())
    }

    /// An access token for `merchant`'s `kind` grant.
    pub async fn access(&self, kind: &str, merchant: &str) -> String {
        let (s, b) = self.lwa(&self.refresh_token(kind, merchant)).await;
        assert_eq!(s, 200, "{b}");
        b["access_token"].as_str().unwrap().to_owned()
    }

    /// A selling-side request with `token`.
    pub fn sp(&self, method: reqwest::Method, path: &str, token: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(path))
            .header("x-amz-access-token", token)
    }

    /// A control request.
    pub fn control(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, self.url(path))
            .bearer_auth(self.secret())
    }

    /// Turns the usage plans off (for tests about something else).
    pub async fn no_limits(&self) {
        let r = self
            .control(reqwest::Method::PUT, "/__sandbox/limits")
            .json(&serde_json::json!({ "enabled": false }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
    }

    /// Adds fault rules.
    pub async fn faults(&self, rules: Value) {
        let r = self
            .control(reqwest::Method::POST, "/__sandbox/faults")
            .json(&serde_json::json!({ "rules": rules }))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{}", r.text().await.unwrap());
    }

    /// Calls received by `op` so far.
    pub async fn calls(&self, op: &str) -> u64 {
        let v: Value = self
            .control(reqwest::Method::GET, "/__sandbox/calls")
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v["calls"][op].as_u64().unwrap_or(0)
    }
}

/// (status, headers, JSON body) of a response.
pub async fn parts(r: reqwest::Response) -> (u16, reqwest::header::HeaderMap, Value) {
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let body = r.json().await.unwrap_or(Value::Null);
    (status, headers, body)
}

/// The official models folder (`$PP_PROVIDER_MODELS`, joined with `sub`) and a Python with
/// `jsonschema` and PyYAML (`$PP_MCP_PYTHON`, or the venv `.ci/run` makes); `None`, with the
/// reason printed, when either is missing outside CI (under CI a missing one fails).
pub fn model_tools(sub: &str) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    use std::path::PathBuf;
    let models = std::env::var_os("PP_PROVIDER_MODELS").map(|p| PathBuf::from(p).join(sub));
    let python = std::env::var_os("PP_MCP_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            let p = PathBuf::from(std::env::var_os("HOME")?)
                .join(".cache/partner-platform/mcp-venv/bin/python");
            p.exists().then_some(p)
        });
    match (models, python) {
        (Some(m), Some(p)) if m.is_dir() => Some((m, p)),
        (m, p) => {
            let why = format!(
                "PP_PROVIDER_MODELS ({m:?}) must name the official models folder and PP_MCP_PYTHON ({p:?}) a Python with jsonschema and PyYAML; .ci/run sets both"
            );
            assert!(std::env::var_os("CI").is_none(), "{why}");
            eprintln!("SKIPPED model validation: {why}");
            None
        }
    }
}

/// (status, content type, JSON body — or the text when it is not JSON) of a response.
pub async fn typed_parts(r: reqwest::Response) -> (u16, String, Value) {
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = r.text().await.unwrap();
    let body = if text.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&text).unwrap_or(Value::String(text))
    };
    (status, ct, body)
}

/// The US seller's advertising profile.
pub const US_PROFILE: &str = "3100000001";

/// An advertising API client of one login.
pub struct Ads<'a> {
    pub app: &'a SimApp,
    pub token: String,
}

impl<'a> Ads<'a> {
    /// Logs `merchant`'s advertising grant in through LWA.
    pub async fn login(app: &'a SimApp, merchant: &str) -> Self {
        Self {
            app,
            token: app.access("ads", merchant).await,
        }
    }

    /// A request with the bearer token and the client-id header.
    pub fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.app
            .http
            .request(method, self.app.url(path))
            .bearer_auth(&self.token)
            .header("Amazon-Advertising-API-ClientId", self.app.client_id())
    }

    /// A call on the US profile with `media` as Content-Type and Accept (no body when null):
    /// (status, content type, JSON body).
    pub async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        media: &str,
        body: Value,
    ) -> (u16, String, Value) {
        let mut r = self
            .req(method, path)
            .header("Amazon-Advertising-API-Scope", US_PROFILE)
            .header("content-type", media)
            .header("accept", media);
        if !body.is_null() {
            r = r.body(body.to_string());
        }
        let (status, ct, body) = typed_parts(r.send().await.unwrap()).await;
        (
            status,
            ct,
            if body.is_string() { Value::Null } else { body },
        )
    }

    /// An Ads API v1 POST (its own client-id header, JSON): (status, JSON body).
    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .app
            .http
            .post(self.app.url(path))
            .bearer_auth(&self.token)
            .header("Amazon-Ads-ClientId", self.app.client_id())
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        let s = r.status().as_u16();
        (s, r.json().await.unwrap_or(Value::Null))
    }
}
