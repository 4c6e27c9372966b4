//! `TestApp`: the real router on an ephemeral port over its own data directory, with two
//! tenants (`acme` on the tiny demo world, `beta` on a small warehouse of its own), used
//! over HTTP exactly as a client would.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pp_core::{ScopeSet, TenantId};
use pp_server::AppState;
use pp_store::Store;
use serde_json::{Value, json};

pub struct Client {
    pub client_id: String,
    pub client_secret: String,
    pub credential_id: String,
}

/// A read's whole deadline in the marketplace test apps (attempts time out after 1.5 s).
pub const READ_DEADLINE: std::time::Duration = std::time::Duration::from_millis(4000);

/// The sandbox provider a marketplace test app talks to.
pub struct Sandbox {
    pub base: String,
    pub creds: Value,
}

/// How a marketplace test app is set up beyond the defaults.
pub struct Options {
    /// The gateway paces calls to the catalog's usage plans.
    pub pacing: bool,
    /// The sandbox enforces its usage plans.
    pub sim_limits: bool,
    /// How long the sandbox's reports take.
    pub report_ms: u64,
    pub jobs: pp_server::JobsConfig,
    /// Browser origins the MCP endpoints accept beyond the public URL's.
    pub mcp_origins: Vec<String>,
    /// Job workers, and the running jobs one tenant may hold.
    pub workers: Option<(usize, usize)>,
    /// The abuse bounds.
    pub bounds: pp_server::Bounds,
    /// The initial access token client registration requires, if any.
    pub registration_token: Option<String>,
    /// Where omega's managed warehouse is (a database URL); an SQLite file by default.
    pub omega: Option<String>,
    /// How webhooks go out (dev: any address; quick retries).
    pub events: pp_events::Settings,
    /// Datasets the sync fills besides the built-in ones.
    pub datasets: Vec<&'static pp_sync::Dataset>,
    /// The gateway is set up as for the real provider (`kind` `provider`), pointed at the
    /// sandbox, as a production gateway pointed at a standalone `sim` is.
    pub as_provider: bool,
    /// Where the gateway's stream queues are (none: it consumes no stream).
    pub streams: Option<Queues>,
    /// Days of hours the sandbox sends a new stream subscription.
    pub stream_backfill_days: i64,
    /// When a quiet queue shows as lagging (the gateway's two hours when `None`).
    pub stream_lagging_after: Option<std::time::Duration>,
}

/// The gateway's stream consumer over `q` (the sandbox's SQS from its `creds`), confirming
/// subscriptions at the sandbox.
pub fn stream_config(q: &Queues, creds: &Value, sim_base: &str) -> pp_sync::stream::StreamConfig {
    let endpoint = match q {
        Queues::Sqs(e) => e.clone(),
        Queues::Sandbox => {
            let s = &creds["sqs"];
            let text = |k: &str| s[k].as_str().unwrap().to_owned();
            pp_sqs::Endpoint {
                url: text("endpoint").parse().unwrap(),
                region: text("region"),
                credentials: pp_sqs::Credentials {
                    access_key_id: text("access_key_id"),
                    secret_access_key: text("secret_access_key"),
                    session_token: None,
                },
            }
        }
    };
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut c = pp_sync::stream::StreamConfig::new(endpoint, &[sim_base.to_owned()]).unwrap();
    // short polls, and a message a killed consumer received comes back soon
    c.wait = std::time::Duration::ZERO;
    c.visibility = std::time::Duration::from_secs(2);
    // the intraday monitors look at the hours as soon as they come
    c.monitor_every = std::time::Duration::from_millis(500);
    c
}

/// The SQS server the gateway's stream queues are on.
#[derive(Clone)]
pub enum Queues {
    /// The sandbox's own.
    Sandbox,
    /// Another (moto's): the sandbox delivers there too.
    Sqs(pp_sqs::Endpoint),
}

impl Default for Options {
    fn default() -> Self {
        Self {
            pacing: true,
            sim_limits: true,
            report_ms: 300,
            jobs: pp_server::JobsConfig {
                lease: std::time::Duration::from_secs(2),
                poll: std::time::Duration::from_millis(50),
                sync: pp_sync::SyncSettings {
                    poll: std::time::Duration::from_millis(200),
                    ..Default::default()
                },
                ..Default::default()
            },
            mcp_origins: Vec::new(),
            workers: None,
            bounds: pp_server::Bounds::default(),
            registration_token: None,
            omega: None,
            events: pp_events::Settings {
                dev: true,
                first_retry: std::time::Duration::from_millis(200),
                max_retry_gap: std::time::Duration::from_secs(1),
                retry_for: std::time::Duration::from_secs(120),
                timeout: std::time::Duration::from_secs(3),
                ..Default::default()
            },
            datasets: Vec::new(),
            as_provider: false,
            streams: None,
            stream_backfill_days: 5,
            stream_lagging_after: None,
        }
    }
}

/// What rebuilding the gateway's in-memory state needs (a restart).
struct Rebuild {
    upstream: pp_marketplace::Upstream,
    policy: pp_marketplace::Policy,
    sealer_hex: String,
    jobs: pp_server::JobsConfig,
    events: pp_events::Settings,
    stream: Option<pp_sync::stream::StreamConfig>,
}

pub struct TestApp {
    pub sandbox: Option<Sandbox>,
    /// The key sealing connections' tokens and webhook secrets.
    sealer_hex: String,
    workers: std::sync::Mutex<Option<pp_server::Workers>>,
    rebuild: Option<Rebuild>,
    pub base: String,
    pub store: Store,
    pub http: reqwest::Client,
    pub dir: tempfile::TempDir,
    pub acme: Client,
    pub beta: Client,
}

fn beta_warehouse(path: &PathBuf) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode=DELETE;
         CREATE TABLE seller (ID INTEGER PRIMARY KEY, MarketplaceSellerID VARCHAR(32), Name VARCHAR(64), Marketplace VARCHAR(2));
         INSERT INTO seller VALUES (7, 'ABETAONLY', 'Beta Only Seller', 'US');
         CREATE TABLE beta_secret_table (x INTEGER);",
    )
    .unwrap();
}

/// A tenant with two brands and nothing else: a clean slate for brand memory.
fn gamma_warehouse(path: &PathBuf) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "PRAGMA journal_mode=DELETE;
         CREATE TABLE brand (ID INTEGER PRIMARY KEY, Slug VARCHAR(64), Name VARCHAR(128));
         INSERT INTO brand VALUES (1, 'alpha', 'Alpha'), (2, 'beta-co', 'Beta Co');",
    )
    .unwrap();
}

impl TestApp {
    pub async fn start() -> Self {
        Self::start_with(false).await
    }

    /// A test app whose marketplace surfaces call a sandbox provider over acme's world, with
    /// acme's merchants connected (short timeouts, so hangs are quick to see).
    pub async fn start_market() -> Self {
        Self::start_market_with(|_| {}).await
    }

    /// As `start_market`, with the upstream configuration changed by `tweak`.
    pub async fn start_market_with(tweak: impl FnOnce(&mut pp_marketplace::Upstream)) -> Self {
        Self::start_inner(true, tweak, Options::default()).await
    }

    async fn start_with(market: bool) -> Self {
        Self::start_inner(market, |_| {}, Options::default()).await
    }

    /// A test app whose MCP endpoints also accept browser pages from `origins`.
    pub async fn start_with_mcp_origins(origins: &[&str]) -> Self {
        let options = Options {
            mcp_origins: origins.iter().map(|s| (*s).to_owned()).collect(),
            ..Options::default()
        };
        Self::start_inner(false, |_| {}, options).await
    }

    /// A test app (no marketplace) set up by `options`.
    pub async fn start_options(options: Options) -> Self {
        Self::start_inner(false, |_| {}, options).await
    }

    /// A marketplace test app set up by `options` (pricing runs want no usage plans and a
    /// short pace).
    pub async fn start_market_options(options: Options) -> Self {
        Self::start_inner(true, |_| {}, options).await
    }

    async fn start_inner(
        market: bool,
        tweak: impl FnOnce(&mut pp_marketplace::Upstream),
        options: Options,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let acme = TenantId::parse("acme").unwrap();
        let beta = TenantId::parse("beta").unwrap();
        let acme_wh = store.default_warehouse_path(&acme);
        let beta_wh = store.default_warehouse_path(&beta);
        let spec = pp_world::WorldSpec::new(
            1,
            pp_world::Scale::Tiny,
            chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
        );
        let world = pp_world::generate_sqlite(&spec, acme_wh.parent().unwrap()).unwrap();
        beta_warehouse(&beta_wh);
        store
            .tenants()
            .create(&acme, "Acme", &format!("sqlite:{}", acme_wh.display()))
            .await
            .unwrap();
        store
            .tenants()
            .create(&beta, "Beta", &format!("sqlite:{}", beta_wh.display()))
            .await
            .unwrap();
        pp_brand::seed::from_world(&store, "acme", &world.warehouse, &world.ground_truth)
            .await
            .unwrap();
        let delta = TenantId::parse("delta").unwrap();
        store
            .tenants()
            .create(&delta, "Delta", &format!("sqlite:{}", acme_wh.display()))
            .await
            .unwrap();
        // omega: a managed warehouse, empty until its sync fills it from acme's world
        let omega = TenantId::parse("omega").unwrap();
        let omega_wh = store.default_warehouse_path(&omega);
        let omega_locator = options
            .omega
            .clone()
            .unwrap_or_else(|| format!("sqlite:{}", omega_wh.display()));
        store
            .tenants()
            .create(&omega, "Omega", &omega_locator)
            .await
            .unwrap();
        pp_sync::manage(&store, &omega, &omega_locator)
            .await
            .unwrap();
        // sigma: a second managed warehouse, with the Mexican merchant's selling account only
        let sigma = TenantId::parse("sigma").unwrap();
        let sigma_locator = format!("sqlite:{}", store.default_warehouse_path(&sigma).display());
        store
            .tenants()
            .create(&sigma, "Sigma", &sigma_locator)
            .await
            .unwrap();
        pp_sync::manage(&store, &sigma, &sigma_locator)
            .await
            .unwrap();
        let gamma = TenantId::parse("gamma").unwrap();
        let gamma_wh = store.default_warehouse_path(&gamma);
        gamma_warehouse(&gamma_wh);
        store
            .tenants()
            .create(&gamma, "Gamma", &format!("sqlite:{}", gamma_wh.display()))
            .await
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut jobs = options.jobs.clone();
        if let Some((workers, per_tenant)) = options.workers {
            jobs.workers = workers;
            jobs.per_tenant = per_tenant;
        }
        // one key seals the connections' tokens and the webhooks' secrets
        let sealer_hex = pp_marketplace::Sealer::generate_hex().unwrap();
        let mut state = AppState::bounded(store.clone(), &base, options.bounds.clone())
            .await
            .unwrap()
            .with_mcp_allowed(&[], &options.mcp_origins)
            .with_registration_token(options.registration_token.clone())
            .with_jobs(jobs.clone())
            .with_events(
                options.events.clone(),
                Some(pp_marketplace::Sealer::from_hex(&sealer_hex).unwrap()),
            )
            .unwrap();
        for d in &options.datasets {
            state = state.with_dataset(d).unwrap();
        }
        let mut sandbox = None;
        let mut rebuild = None;
        if market {
            let sim_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let sim_base = format!("http://{}", sim_listener.local_addr().unwrap());
            let mut cfg = pp_sandbox::SimConfig::new(
                world.warehouse.clone(),
                dir.path().join("sim"),
                &sim_base,
            );
            cfg.report_ms = options.report_ms;
            cfg.rate_limits = options.sim_limits;
            cfg.redirect_uris = vec![format!("{base}{}", pp_server::CONNECT_CALLBACK)];
            cfg.stream_backfill_days = options.stream_backfill_days;
            if let Some(Queues::Sqs(e)) = &options.streams {
                cfg.stream_sqs = Some(e.clone());
            }
            let sim = Arc::new(pp_sandbox::Sim::open(cfg).unwrap());
            let creds = sim.credentials().unwrap();
            tokio::spawn(pp_sandbox::serve(sim_listener, sim, std::future::pending()));
            let sealer = pp_marketplace::Sealer::from_hex(&sealer_hex).unwrap();
            for (list, key, kind) in [
                ("merchants", "merchant", "seller"),
                ("advertising", "account", "ads"),
            ] {
                for m in creds[list].as_array().unwrap() {
                    let grant = pp_marketplace::connections::Grant {
                        kind,
                        merchant: m[key].as_str().unwrap(),
                        region: "na",
                        refresh_token: m["refresh_token"].as_str().unwrap(),
                        status: "active",
                        connected_by: "test",
                        reach: &[],
                    };
                    // delta: a second tenant on the same world and logins; omega syncs it
                    for t in [&acme, &delta, &omega] {
                        pp_marketplace::connections::connect(&store, &sealer, t, &grant)
                            .await
                            .unwrap();
                    }
                    if kind == "seller" && grant.merchant == "A1DEMOSELLERMX" {
                        pp_marketplace::connections::connect(&store, &sealer, &sigma, &grant)
                            .await
                            .unwrap();
                    }
                }
            }
            let mut upstream = pp_marketplace::Upstream {
                kind: if options.as_provider {
                    "provider"
                } else {
                    "sandbox"
                }
                .into(),
                token_url: format!("{sim_base}/auth/o2/token"),
                spapi_url: sim_base.clone(),
                ads_url: sim_base.clone(),
                client_id: creds["client_id"].as_str().unwrap().into(),
                client_secret: creds["client_secret"].as_str().unwrap().into(),
                ads_token_urls: pp_marketplace::Regional::same(&format!(
                    "{sim_base}/auth/o2/token"
                )),
                consent: pp_marketplace::Consent {
                    application_id: Some(creds["application_id"].as_str().unwrap().into()),
                    draft: false,
                    seller_urls: pp_marketplace::Regional::same(
                        creds["seller_consent_url"].as_str().unwrap(),
                    ),
                    ads_urls: pp_marketplace::Regional::same(
                        creds["ads_authorize_url"].as_str().unwrap(),
                    ),
                },
            };
            tweak(&mut upstream);
            let policy = pp_marketplace::Policy {
                timeout: std::time::Duration::from_millis(1500),
                read_deadline: READ_DEADLINE,
                read_retries: 2,
                max_wait: std::time::Duration::from_secs(3),
                pacing: options.pacing,
            };
            let stream = options.streams.as_ref().map(|q| {
                let mut c = stream_config(q, &creds, &sim_base);
                if let Some(after) = options.stream_lagging_after {
                    c.lagging_after = after;
                }
                c
            });
            rebuild = Some(Rebuild {
                upstream: upstream.clone(),
                policy: policy.clone(),
                sealer_hex: sealer_hex.clone(),
                jobs: jobs.clone(),
                events: options.events.clone(),
                stream: stream.clone(),
            });
            state = state.with_marketplace(upstream, policy, sealer).unwrap();
            if let Some(c) = stream {
                state = state.with_stream(c);
            }
            sandbox = Some(Sandbox {
                base: sim_base,
                creds,
            });
        }
        let state = Arc::new(state);
        let workers = pp_server::Workers::spawn(state.clone()).unwrap();
        tokio::spawn(pp_server::serve(listener, state, std::future::pending()));
        let mut app = Self {
            sandbox,
            sealer_hex,
            workers: std::sync::Mutex::new(Some(workers)),
            rebuild,
            base,
            store,
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
            dir,
            acme: Client {
                client_id: String::new(),
                client_secret: String::new(),
                credential_id: String::new(),
            },
            beta: Client {
                client_id: String::new(),
                client_secret: String::new(),
                credential_id: String::new(),
            },
        };
        app.acme = app.credential("acme", None).await;
        app.beta = app.credential("beta", None).await;
        app
    }

    /// The key this app seals with (a second gateway on its state needs the same).
    pub fn sealer(&self) -> pp_marketplace::Sealer {
        pp_marketplace::Sealer::from_hex(&self.sealer_hex).unwrap()
    }

    /// A new credential for `tenant` (default bundle when `scopes` is None).
    pub async fn credential(&self, tenant: &str, scopes: Option<&str>) -> Client {
        let c = pp_auth::create_credential(
            &self.store,
            &TenantId::parse(tenant).unwrap(),
            scopes.map(|s| ScopeSet::parse(s).unwrap()),
            "test",
        )
        .await
        .unwrap();
        Client {
            client_id: c.row.client_id,
            client_secret: c.client_secret,
            credential_id: c.row.id,
        }
    }

    /// Waits as anything that changes credentials outside the gateway's routes must (the
    /// `admin` command does): every instance's bearer check has read the change after this.
    pub async fn auth_changed(&self) {
        tokio::time::sleep(pp_auth::verifier::SETTLE).await;
    }

    /// A second gateway over the same state store on a new port, as after a restart: what the
    /// store holds survives, what the first gateway held in memory does not. Its base URL.
    pub async fn restarted_gateway(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(AppState::new(self.store.clone(), &base).await.unwrap());
        tokio::spawn(pp_server::serve(listener, state, std::future::pending()));
        base
    }

    /// A second marketplace gateway over the same state store and sandbox on a new port, as
    /// after a restart (nothing held in memory survives). Its base URL.
    pub async fn restarted_market_gateway(&self) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let state = self.fresh_state().await;
        tokio::spawn(pp_server::serve(listener, state, std::future::pending()));
        base
    }

    /// Gateway state built afresh over the same store, as a new process would hold it (a new
    /// upstream client: no cached tokens, no pacing history).
    async fn fresh_state(&self) -> Arc<AppState> {
        let r = self.rebuild.as_ref().expect("a market test app");
        let mut state = AppState::new(self.store.clone(), &self.base)
            .await
            .unwrap()
            .with_jobs(r.jobs.clone())
            .with_marketplace(
                r.upstream.clone(),
                r.policy.clone(),
                pp_marketplace::Sealer::from_hex(&r.sealer_hex).unwrap(),
            )
            .unwrap()
            .with_events(
                r.events.clone(),
                Some(pp_marketplace::Sealer::from_hex(&r.sealer_hex).unwrap()),
            )
            .unwrap();
        if let Some(c) = &r.stream {
            state = state.with_stream(c.clone());
        }
        Arc::new(state)
    }

    /// The client of the SQS server the gateway's stream queues are on.
    pub fn stream_sqs(&self) -> Option<pp_sqs::Client> {
        self.rebuild
            .as_ref()
            .and_then(|r| r.stream.as_ref())
            .map(|s| s.sqs.clone())
    }

    /// Stops the job workers (and the stream consumer) at once, as a crash would.
    pub fn stop_workers(&self) {
        if let Some(w) = self.workers.lock().unwrap().take() {
            w.stop();
        }
    }

    /// Stops the job workers at once, as a crash would, and starts new ones over fresh state.
    pub async fn restart_workers(&self) {
        if let Some(w) = self.workers.lock().unwrap().take() {
            w.stop();
        }
        *self.workers.lock().unwrap() =
            Some(pp_server::Workers::spawn(self.fresh_state().await).unwrap());
    }

    /// Starts `n` job workers over fresh state and the same store (for an app started with
    /// none), as a restarted gateway would; they replace any this app runs.
    pub async fn spawn_workers(&self, n: usize) {
        let jobs = pp_server::JobsConfig {
            workers: n,
            ..Default::default()
        };
        let state = AppState::new(self.store.clone(), &self.base)
            .await
            .unwrap()
            .with_jobs(jobs);
        if let Some(w) = self.workers.lock().unwrap().take() {
            w.stop();
        }
        *self.workers.lock().unwrap() = Some(pp_server::Workers::spawn(Arc::new(state)).unwrap());
    }

    /// A second worker pool over fresh state and the same store, as a second gateway process
    /// would run; it lives as long as the test.
    pub async fn second_worker_pool(&self) {
        std::mem::forget(pp_server::Workers::spawn(self.fresh_state().await).unwrap());
    }

    /// A control call on the sandbox.
    pub async fn sandbox(&self, method: reqwest::Method, path: &str, body: Value) -> Value {
        let sb = self.sandbox.as_ref().expect("a market test app");
        let r = self
            .http
            .request(method, format!("{}{path}", sb.base))
            .bearer_auth(sb.creds["client_secret"].as_str().unwrap())
            .json(&body)
            .send()
            .await
            .unwrap();
        assert!(
            r.status().is_success(),
            "sandbox control {path}: {}",
            r.status()
        );
        r.json().await.unwrap_or(Value::Null)
    }

    /// Up to `n` SKUs of merchant 1, read as `token` sees the warehouse.
    pub async fn skus(&self, token: &str, n: usize) -> Vec<Value> {
        let sql = format!(
            "SELECT SKU FROM catalog_item WHERE SellerID = 1 AND SKU IS NOT NULL LIMIT {n}"
        );
        let (_, r) = self.post(token, "/api/query", json!({ "sql": sql })).await;
        r["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["SKU"].clone())
            .collect()
    }

    /// Starts a Featured Offer Expected Price run of `skus` for merchant 1; its poll path.
    pub async fn start_feop_run(&self, token: &str, skus: &[Value]) -> String {
        let (s, run) = self
            .post(
                token,
                "/api/marketplace/pricing/featured-offer-expected-price/start",
                json!({"legacySellerId": 1, "skus": skus}),
            )
            .await;
        assert_eq!(s, 202, "{run}");
        format!(
            "/api/marketplace/pricing/runs/{}",
            run["runId"].as_str().unwrap()
        )
    }

    /// Polls a run until it ends, failing past `limit`; its last view.
    pub async fn until_run_ends(&self, token: &str, poll: &str, limit: Duration) -> Value {
        let started = std::time::Instant::now();
        loop {
            let (_, v) = self.get(token, poll).await;
            if v["status"] == "succeeded" || v["status"] == "failed" {
                return v;
            }
            assert!(
                started.elapsed() < limit,
                "{v} after {:?}",
                started.elapsed()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Reports the provider holds for `family` (`sp`, `ads_v3`, `ads_v1`).
    pub async fn provider_reports(&self, family: &str) -> u64 {
        self.sandbox(reqwest::Method::GET, "/__sandbox/reports", Value::Null)
            .await["reports"][family]
            .as_u64()
            .unwrap_or(0)
    }

    /// Calls the sandbox received for `op`.
    pub async fn sandbox_calls(&self, op: &str) -> u64 {
        self.sandbox(reqwest::Method::GET, "/__sandbox/calls", Value::Null)
            .await["calls"][op]
            .as_u64()
            .unwrap_or(0)
    }

    /// The calls the sandbox's usage plans refused with a 429, per operation.
    pub async fn sandbox_throttled(&self) -> Value {
        self.sandbox(reqwest::Method::GET, "/__sandbox/calls", Value::Null)
            .await["throttled"]
            .clone()
    }

    /// Connects `merchant`'s grants (selling and advertising, where the sandbox has them) to
    /// `tenant` again, as a person reconnecting the account would.
    pub async fn reconnect(&self, tenant: &str, merchant: &str) {
        self.connect_grants(tenant, merchant, &["seller", "ads"])
            .await;
    }

    /// Connects `tenant` to the sandbox's grants of `merchant` of the given kinds (`seller`,
    /// `ads`).
    pub async fn connect_grants(&self, tenant: &str, merchant: &str, kinds: &[&str]) {
        self.connect_grants_through(&self.store, tenant, merchant, kinds)
            .await;
    }

    /// As [`Self::connect_grants`], written through `store` (another process's store over the
    /// same state, as the command line's).
    pub async fn connect_grants_through(
        &self,
        store: &Store,
        tenant: &str,
        merchant: &str,
        kinds: &[&str],
    ) {
        let r = self.rebuild.as_ref().expect("a market test app");
        let sealer = pp_marketplace::Sealer::from_hex(&r.sealer_hex).unwrap();
        let creds = &self.sandbox.as_ref().unwrap().creds;
        let tenant = TenantId::parse(tenant).unwrap();
        for (list, key, kind) in [
            ("merchants", "merchant", "seller"),
            ("advertising", "account", "ads"),
        ] {
            for m in creds[list].as_array().unwrap() {
                if m[key] != merchant || !kinds.contains(&kind) {
                    continue;
                }
                let grant = pp_marketplace::connections::Grant {
                    kind,
                    merchant,
                    region: "na",
                    refresh_token: m["refresh_token"].as_str().unwrap(),
                    status: "active",
                    connected_by: "test",
                    reach: &[],
                };
                pp_marketplace::connections::connect(store, &sealer, &tenant, &grant)
                    .await
                    .unwrap();
            }
        }
    }

    /// Adds sandbox fault rules.
    pub async fn faults(&self, rules: Value) {
        self.sandbox(
            reqwest::Method::POST,
            "/__sandbox/faults",
            serde_json::json!({ "rules": rules }),
        )
        .await;
    }

    /// `GET /metrics`, the Prometheus text as served (no credentials).
    pub async fn metrics_text(&self) -> String {
        let res = self.http.get(self.url("/metrics")).send().await.unwrap();
        res.text().await.unwrap()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POST /oauth/token with HTTP Basic; returns (status, body).
    pub async fn token_raw(&self, id: &str, secret: &str, extra: &[(&str, &str)]) -> (u16, Value) {
        let mut form = vec![("grant_type", "client_credentials")];
        form.extend_from_slice(extra);
        let res = self.token_form(Some((id, secret)), &form).await;
        let status = res.status().as_u16();
        (status, res.json().await.unwrap())
    }

    /// POST /oauth/token with exactly `form`, and HTTP Basic when `basic` is given.
    pub async fn token_form(
        &self,
        basic: Option<(&str, &str)>,
        form: &[(&str, &str)],
    ) -> reqwest::Response {
        let mut req = self.http.post(self.url("/oauth/token")).form(form);
        if let Some((id, secret)) = basic {
            req = req.basic_auth(id, Some(secret));
        }
        req.send().await.unwrap()
    }

    /// GET with a bearer token, as the raw response (for headers).
    pub async fn get_raw(&self, token: &str, path: &str) -> reqwest::Response {
        self.http
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap()
    }

    /// A token for `c`.
    pub async fn token(&self, c: &Client) -> String {
        let (status, body) = self.token_raw(&c.client_id, &c.client_secret, &[]).await;
        assert_eq!(status, 200, "{body}");
        body["access_token"].as_str().unwrap().to_owned()
    }

    /// POSTs a JSON body, with an `Idempotency-Key` when given; status and body.
    pub async fn post_keyed(
        &self,
        token: &str,
        path: &str,
        key: Option<&str>,
        body: Value,
    ) -> (u16, Value) {
        let mut r = self
            .http
            .post(self.url(path))
            .bearer_auth(token)
            .json(&body);
        if let Some(k) = key {
            r = r.header("Idempotency-Key", k);
        }
        let r = r.send().await.unwrap();
        (r.status().as_u16(), r.json().await.unwrap_or(Value::Null))
    }

    /// POSTs a JSON body; status and body.
    pub async fn post(&self, token: &str, path: &str, body: Value) -> (u16, Value) {
        self.post_keyed(token, path, None, body).await
    }

    pub async fn get(&self, token: &str, path: &str) -> (u16, Value) {
        let res = self
            .http
            .get(self.url(path))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap_or(Value::Null))
    }

    /// POST /api/query with a raw body.
    pub async fn query_raw(&self, token: &str, body: &str) -> (u16, Value) {
        let res = self
            .http
            .post(self.url("/api/query"))
            .bearer_auth(token)
            .header("content-type", "application/json")
            .body(body.to_owned())
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json().await.unwrap())
    }

    pub async fn query(&self, token: &str, body: Value) -> (u16, Value) {
        self.query_raw(token, &body.to_string()).await
    }

    pub fn warehouse_file(&self, tenant: &str) -> PathBuf {
        self.store
            .default_warehouse_path(&TenantId::parse(tenant).unwrap())
    }
}

/// Whether `v` is the actor of a test service credential: `svc:test/<credential id>`, naming
/// the one credential that acted.
pub fn service_actor(v: &Value) -> bool {
    v.as_str()
        .and_then(|a| a.strip_prefix("svc:test/cred_"))
        .is_some_and(|id| !id.is_empty())
}

/// An external client a test drives (the Python MCP SDK, schemathesis): the path in `env`, or
/// `default` under `~/.cache/partner-platform` where `.ci/run` installs it. `None` means the
/// caller skips with `why`; under CI a missing client is a failure instead.
pub fn external_tool(env: &str, default: &str, why: &str) -> Option<PathBuf> {
    let found = std::env::var_os(env).map(PathBuf::from).or_else(|| {
        let path = PathBuf::from(std::env::var_os("HOME")?)
            .join(".cache/partner-platform")
            .join(default);
        path.exists().then_some(path)
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{env} is not set: .ci/run installs it and sets it"
        );
        eprintln!("SKIPPED: {why} (set {env}, or run .ci/run once, which installs it)");
    }
    found
}

/// Runs an external client to its end off the async workers; its standard output, once it
/// has exited successfully (`failed` heads the report when it has not).
pub async fn run_external(mut cmd: std::process::Command, failed: &str) -> String {
    let out = tokio::task::spawn_blocking(move || cmd.output().expect("the client runs"))
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{failed}:\n{stdout}\n{stderr}");
    stdout
}

/// As [`run_external`], with `input` on the client's standard input.
pub async fn run_external_with_stdin(
    mut cmd: std::process::Command,
    input: &str,
    failed: &str,
) -> String {
    use std::io::Write;
    let input = input.to_owned();
    let out = tokio::task::spawn_blocking(move || {
        let mut child = cmd
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the client runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{failed}:\n{stdout}\n{stderr}");
    stdout
}

/// Whether `text` is what the reviewed file at `path` holds; with `UPDATE_SNAPSHOTS` set the
/// file is written first (after an intended change, then reviewed in the diff).
pub fn matches_snapshot(path: &std::path::Path, text: &str) -> bool {
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    std::fs::read_to_string(path).unwrap_or_default() == text
}
