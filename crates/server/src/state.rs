//! What every handler can reach: the state store, the warehouse engines, limits and the
//! public base URL (used in discovery documents).

use std::sync::Arc;

use pp_core::cursor::Cursors;
use pp_core::{Error, Kind, Principal, Result};
use pp_store::Store;
use pp_warehouse::{Engine, Limits, Registry};

use crate::mcp::{Guard, McpState};

/// Shared application state.
pub struct AppState {
    /// The state store.
    pub store: Store,
    /// One warehouse engine per tenant.
    pub warehouses: Registry,
    /// Query limits.
    pub limits: Limits,
    /// The base URL clients reach the service at (no trailing slash).
    pub public_url: String,
    /// Signs `/v1` paging cursors with a key kept in the state store.
    pub cursors: Cursors,
    /// MCP sessions and the MCP Host/Origin guard.
    pub mcp: McpState,
    /// The marketplace provider's APIs, when configured.
    pub marketplace: Option<Arc<Marketplace>>,
    /// How the job workers run.
    pub jobs: crate::jobs::JobsConfig,
    /// Wakes idle workers when a job is added.
    pub wake: crate::jobs::WakeHandle,
}

/// The live marketplace: the upstream client and the key that opens connected refresh tokens.
pub struct Marketplace {
    pub client: pp_marketplace::Client,
    pub sealer: pp_marketplace::Sealer,
}

impl Marketplace {
    /// What a call needs to reach the provider, over `store`.
    pub fn provider<'a>(
        &'a self,
        store: &'a pp_store::Store,
    ) -> pp_marketplace::upstream::Provider<'a> {
        pp_marketplace::upstream::Provider {
            client: &self.client,
            store,
            sealer: &self.sealer,
        }
    }
}

/// State as handlers receive it.
pub type SharedState = Arc<AppState>;

impl AppState {
    /// State over `store` with default limits.
    pub fn new(store: Store, public_url: &str) -> Result<Self> {
        let cursors = Cursors::new(store.service_key("v1-cursor")?);
        let public_url = public_url.trim_end_matches('/');
        Ok(Self {
            store,
            warehouses: Registry::default(),
            limits: Limits::default(),
            public_url: public_url.to_owned(),
            cursors,
            mcp: McpState::new(public_url),
            marketplace: None,
            jobs: crate::jobs::JobsConfig::default(),
            wake: Default::default(),
        })
    }

    /// Runs jobs as `jobs` says (worker count, lease, pricing pace).
    pub fn with_jobs(mut self, jobs: crate::jobs::JobsConfig) -> Self {
        self.jobs = jobs;
        self
    }

    /// Points the marketplace surfaces at `upstream`, opening connections with `sealer`.
    pub fn with_marketplace(
        mut self,
        upstream: pp_marketplace::Upstream,
        policy: pp_marketplace::Policy,
        sealer: pp_marketplace::Sealer,
    ) -> Result<Self> {
        let client = pp_marketplace::Client::new(upstream, policy)?;
        self.marketplace = Some(Arc::new(Marketplace { client, sealer }));
        Ok(self)
    }

    /// The marketplace, or `spapi_not_configured` / `ads_not_configured`.
    pub fn marketplace(&self, api: &str) -> Result<&Marketplace> {
        self.marketplace.as_deref().ok_or_else(|| {
            let kind = if api == "ads" { Kind::AdsNotConfigured } else { Kind::SpapiNotConfigured };
            Error::new(kind, format!("no upstream is configured for the {} API", if api == "ads" { "advertising" } else { "selling-side" }))
                .with_fix("Set lwa_client_id, lwa_client_secret and the API URLs (docs/configuration.md); server --dev uses its sandbox.")
        })
    }

    /// Also accepts these `Host` names and `Origin`s on the MCP endpoints (`*` accepts any).
    pub fn with_mcp_allowed(mut self, hosts: &[String], origins: &[String]) -> Self {
        self.mcp.guard = Guard::new(&self.public_url, hosts, origins);
        self
    }

    /// The caller's own tenant warehouse; there is no way to name another.
    pub fn warehouse_for(&self, p: &Principal) -> Result<Arc<dyn Engine>> {
        let tenant = self.store.tenant(&p.tenant)?.ok_or_else(|| {
            Error::new(Kind::WarehouseUnavailable, "the tenant has no warehouse")
                .with_field("_cause", format!("tenant {} missing from store", p.tenant))
        })?;
        self.warehouses.engine(&tenant.id, &tenant.warehouse)
    }
}
