//! What every front door can reach: the built services (warehouse, marketplace, brand memory,
//! forecast state, intelligence), the state store for authentication, MCP sessions, the cursor signer, the
//! job settings and the public base URL (used in discovery documents). Services are built
//! here once from their dependencies; handlers and tools only call them.

use pp_brand::service::BrandMemory;
use std::sync::Arc;

use pp_core::Result;
use pp_core::cursor::Cursors;
use pp_forecast_state::service::ForecastState;
use pp_intelligence::Intelligence;
use pp_marketplace::Marketplace;
use pp_store::Store;
use pp_store::jobs::{Handler, Registry};
use pp_warehouse::Warehouses;

use crate::bounds::Bounds;
use crate::http::rate::Limiter;

use crate::mcp::{Guard, McpState};

/// Shared application state.
pub struct AppState {
    /// The state store (credentials, tokens, usage).
    pub store: Store,
    /// The tenants' warehouses and the limits their queries run under.
    pub warehouses: Warehouses,
    /// The base URL clients reach the service at (no trailing slash).
    pub public_url: String,
    /// Signs `/v1` paging cursors with a key kept in the state store.
    pub cursors: Cursors,
    /// MCP sessions and the MCP Host/Origin guard.
    pub mcp: McpState,
    /// The live marketplace: calls, reports, pricing runs and their job steps.
    pub market: Marketplace,
    /// Context documents, the lifecycle and the timeline.
    pub brand: BrandMemory,
    /// Administration: credentials, people, applications, policies (the console's pages).
    pub admin: pp_admin::Admin,
    /// Forecast corrections.
    pub forecast: ForecastState,
    /// The intelligence catalog and its runs.
    pub intelligence: Intelligence,
    /// Warehouse sync: managed warehouses filled from the tenants' connected accounts.
    pub sync: pp_sync::WarehouseSync,
    /// Outbound events: the feed, webhook endpoints and their deliveries.
    pub events: pp_events::Events,
    /// Profit's tenant data: landed costs, exchange rates, the reporting currency.
    pub profit: pp_profit::Profit,
    /// How the job workers run.
    pub jobs: crate::jobs::JobsConfig,
    /// Job kinds registered from outside the services built here ([`AppState::with_job_kind`]).
    more_jobs: Vec<Arc<dyn Handler>>,
    /// The datasets warehouse sync fills: the built-in ones and any added with
    /// [`AppState::with_dataset`].
    datasets: pp_sync::Datasets,
    /// The gateway's Marketing Stream queues, when it has them.
    stream: pp_sync::stream::Stream,
    /// The abuse bounds: connections, token attempts, MCP sessions, queries.
    pub bounds: Bounds,
    /// Token requests per source address and per client id.
    pub token_limits: TokenLimits,
    /// The bearer check, with its memory of verified tokens.
    pub verifier: pp_auth::Verifier,
    /// Each credential's request rate on the token routes (`Bounds::credential_*`).
    pub credential_limit: Limiter,
    /// The key client secrets are hashed under (read once: the token endpoint needs it on
    /// every attempt).
    pub secret_key: pp_auth::SecretKey,
    /// Client registrations (RFC 7591) per source network.
    pub register_limit: Limiter,
    /// The initial access token registration requires, when the operator set one (RFC 7591, docs/auth.md).
    pub registration_token: Option<String>,
    /// Password sign-ins: attempts per address and per email, and how many password hashes
    /// run at once.
    pub signin: SignInLimits,
}

/// The sign-in page's and the password form's bounds (docs/security.md says what they leave
/// an attacker). Only failed attempts count, so nobody is locked out by signing in. An address
/// is refused when it has failed too often itself: 20 failures (then 20 a minute) in all, 5
/// (then 5 a minute) for one email. An email that failed 50 times from everywhere (then 10 a
/// minute) is *under attack*: it is not refused then, but every attempt waits
/// [`UNDER_ATTACK_DELAY`], and only from an address that failed for it fewer than 3 times in
/// the last hour — so the person, from an address that has not been guessing, still signs in
/// with the right password, while each guessing address is down to 3 guesses an hour.
/// argon2 costs ~20 ms of CPU and 19 MiB per attempt, so at most two hashes run at once.
pub struct SignInLimits {
    per_address: Limiter,
    per_pair: Limiter,
    per_pair_hour: Limiter,
    per_email: Limiter,
    pub hashing: tokio::sync::Semaphore,
}

/// How long each sign-in attempt waits while its email is under attack.
pub const UNDER_ATTACK_DELAY: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether a sign-in attempt may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// At once.
    Now,
    /// After this wait (its email is under attack; this address is not the one guessing).
    After(std::time::Duration),
    /// Not now: this address failed too often; it may try again after this long.
    Refused(std::time::Duration),
}

impl SignInLimits {
    fn new() -> Self {
        Self {
            per_address: Limiter::new(20, 20),
            per_pair: Limiter::new(5, 5),
            per_pair_hour: Limiter::per_hour(3, 3),
            per_email: Limiter::new(50, 10),
            hashing: tokio::sync::Semaphore::new(2),
        }
    }

    /// Whether `who` may try to sign in from `address` now.
    pub fn admit(&self, who: &str, address: &str) -> Admission {
        let (who, pair) = Self::keys(who, address);
        let own = [self.per_address.check(address), self.per_pair.check(&pair)]
            .into_iter()
            .filter_map(Result::err)
            .max();
        if let Some(wait) = own {
            return Admission::Refused(wait);
        }
        match self.per_email.check(&who) {
            Ok(()) => Admission::Now,
            Err(_) => match self.per_pair_hour.check(&pair) {
                Ok(()) => Admission::After(UNDER_ATTACK_DELAY),
                Err(wait) => Admission::Refused(wait),
            },
        }
    }

    /// Counts a failed attempt of `who` from `address`.
    pub fn failed(&self, who: &str, address: &str) {
        let (who, pair) = Self::keys(who, address);
        let _ = self.per_address.take(address);
        let _ = self.per_pair.take(&pair);
        let _ = self.per_pair_hour.take(&pair);
        let _ = self.per_email.take(&who);
    }

    /// The email's key and the email-and-address key an attempt counts under.
    fn keys(who: &str, address: &str) -> (String, String) {
        let who = who.to_lowercase();
        let pair = format!("{who}|{address}");
        (who, pair)
    }
}

/// The token endpoint's attempt limits.
pub struct TokenLimits {
    pub per_address: Limiter,
    pub per_client: Limiter,
}

impl TokenLimits {
    fn new(b: &Bounds) -> Self {
        Self {
            per_address: Limiter::new(b.token_burst_per_address, b.token_per_minute_per_address),
            per_client: Limiter::new(b.token_burst_per_client, b.token_per_minute_per_client),
        }
    }
}

/// State as handlers receive it.
pub type SharedState = Arc<AppState>;

impl AppState {
    /// State over `store` with default limits and no marketplace upstream.
    pub async fn new(store: Store, public_url: &str) -> Result<Self> {
        Self::bounded(store, public_url, Bounds::default()).await
    }

    /// State over `store` within `bounds`, with no marketplace upstream.
    pub async fn bounded(store: Store, public_url: &str, bounds: Bounds) -> Result<Self> {
        // a catalog that does not parse stops the start, not the first call
        pp_marketplace::catalog::spapi();
        pp_marketplace::catalog::ads();
        let cursors = Cursors::new(store.keys().get("v1-cursor").await?);
        let secret_key = pp_auth::SecretKey::of(&store).await?;
        let verifier = pp_auth::Verifier::new(store.clone()).await?;
        verifier.watch(pp_auth::verifier::WATCH);
        let public_url = public_url.trim_end_matches('/');
        let warehouses = Warehouses::new(store.clone(), bounds.query_limits())
            .remembering(verifier.auth_epoch());
        let jobs = crate::jobs::JobsConfig::default();
        let market = Marketplace::new(store.clone(), warehouses.clone(), jobs.market());
        Ok(Self {
            intelligence: Intelligence::new(store.clone(), warehouses.clone(), market.wake())
                .with_marketplace(market.clone()),
            sync: pp_sync::WarehouseSync::new(
                store.clone(),
                market.clone(),
                warehouses.clone(),
                pp_sync::SyncSettings::default(),
            ),
            events: pp_events::Events::new(store.clone(), pp_events::Settings::default())?,
            profit: pp_profit::Profit::new(store.clone(), warehouses.clone()),
            market,
            brand: BrandMemory::new(store.clone(), warehouses.clone(), cursors.clone()),
            admin: pp_admin::Admin::new(store.clone()),
            forecast: ForecastState::new(store.clone(), warehouses.clone()),
            warehouses,
            public_url: public_url.to_owned(),
            cursors,
            mcp: McpState::new(store.clone(), public_url, &bounds, verifier.clone()),
            store,
            jobs,
            more_jobs: Vec::new(),
            datasets: pp_sync::Datasets::default(),
            stream: None,
            token_limits: TokenLimits::new(&bounds),
            verifier,
            credential_limit: Limiter::new(bounds.credential_burst, bounds.credential_per_minute),
            secret_key,
            register_limit: Limiter::new(10, 10),
            registration_token: None,
            signin: SignInLimits::new(),
            bounds,
        })
    }

    /// Runs jobs as `jobs` says (worker count, lease, pricing pace, intelligence bounds).
    pub fn with_jobs(mut self, jobs: crate::jobs::JobsConfig) -> Self {
        self.market.set_settings(jobs.market());
        self.intelligence = self.intelligence.with_settings(jobs.intelligence.clone());
        self.jobs = jobs;
        self.rebuild_sync();
        self
    }

    /// The services that hold a copy of the marketplace (warehouse sync, the intelligence
    /// catalog's plans), over the marketplace as it is now.
    fn rebuild_sync(&mut self) {
        self.intelligence = self
            .intelligence
            .clone()
            .with_marketplace(self.market.clone());
        self.sync = pp_sync::WarehouseSync::new(
            self.store.clone(),
            self.market.clone(),
            self.warehouses.clone(),
            self.jobs.sync.clone(),
        )
        .with_datasets(self.datasets.clone())
        .with_stream(self.stream.clone());
    }

    /// Consumes Marketing Stream from the gateway's queues (`pp_sync::stream`).
    pub fn with_stream(mut self, stream: pp_sync::stream::StreamConfig) -> Self {
        self.stream = Some(Arc::new(stream));
        self.rebuild_sync();
        self
    }

    /// Sends webhooks as `settings` say (dev, allowed hosts, retries), sealing their secrets
    /// with `sealer` when the operator set a secret key.
    pub fn with_events(
        mut self,
        settings: pp_events::Settings,
        sealer: Option<pp_marketplace::Sealer>,
    ) -> Result<Self> {
        let mut events = pp_events::Events::new(self.store.clone(), settings)?;
        if let Some(s) = sealer {
            events = events.with_sealer(s);
        }
        self.events = events;
        Ok(self)
    }

    /// Points the marketplace at `upstream`, opening connections with `sealer`.
    pub fn with_marketplace(
        mut self,
        upstream: pp_marketplace::Upstream,
        policy: pp_marketplace::Policy,
        sealer: pp_marketplace::Sealer,
    ) -> Result<Self> {
        let epoch = self.verifier.auth_epoch();
        self.market = self
            .market
            .with_upstream(upstream, policy, sealer, Some(epoch))?;
        self.rebuild_sync();
        Ok(self)
    }

    /// Also runs jobs of `kind` (a service built outside this crate registers its kinds here).
    pub fn with_job_kind(mut self, kind: Arc<dyn Handler>) -> Self {
        self.more_jobs.push(kind);
        self
    }

    /// Also syncs `dataset` into managed warehouses (a dataset declared outside the sync crate:
    /// its reader and its row); a name already taken is refused.
    pub fn with_dataset(mut self, dataset: &'static pp_sync::Dataset) -> Result<Self> {
        self.datasets = self.datasets.with(dataset)?;
        self.rebuild_sync();
        Ok(self)
    }

    /// Every job kind the worker pool runs, each handed to the service that registered it: the
    /// marketplace's, the intelligence catalog's, and any added with
    /// [`AppState::with_job_kind`]. A kind registered twice is refused.
    pub fn job_registry(&self) -> Result<Registry> {
        let mut registry = Registry::default();
        registry.register_all(self.market.job_handlers())?;
        registry.register_all(self.intelligence.job_handlers())?;
        registry.register_all(self.sync.job_handlers())?;
        registry.register_all(self.events.job_handlers())?;
        registry.register_all(self.more_jobs.iter().cloned())?;
        Ok(registry)
    }

    /// Requires `token` (when given) as the initial access token of client registration.
    pub fn with_registration_token(mut self, token: Option<String>) -> Self {
        self.registration_token = token.filter(|t| !t.is_empty());
        self
    }

    /// Also accepts these `Host` names and `Origin`s on the MCP endpoints (`*` accepts any).
    pub fn with_mcp_allowed(mut self, hosts: &[String], origins: &[String]) -> Self {
        self.mcp.guard = Guard::new(&self.public_url, hosts, origins);
        self
    }
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn the_deployment_page_names_every_job_kind_the_metrics_show() {
        let dir = tempfile::tempdir().unwrap();
        let store = pp_store::Store::open(dir.path()).unwrap();
        let app = super::AppState::new(store, "http://127.0.0.1")
            .await
            .unwrap();
        let page = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/deployment.md"
        ))
        .unwrap();
        let row = page
            .lines()
            .find(|l| l.starts_with("| `pp_jobs{"))
            .expect("docs/deployment.md has a pp_jobs row");
        let registry = app.job_registry().unwrap();
        assert!(registry.names().count() >= 4, "{registry:?}");
        for kind in registry.names() {
            assert!(row.contains(&format!("`{kind}`")), "{kind} missing: {row}");
        }
    }
}
