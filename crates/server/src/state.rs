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
    pub upstream: Option<Upstream>,
}

/// Where the marketplace provider's APIs are: the provider's own hosts in production, the
/// sandbox under `server --dev`. The LWA app secret stays here and is never rendered.
#[derive(Clone)]
pub struct Upstream {
    /// `sandbox` or `provider`.
    pub kind: String,
    /// The LWA token endpoint.
    pub token_url: String,
    /// The selling-side API's base URL.
    pub spapi_url: String,
    /// The advertising API's base URL.
    pub ads_url: String,
    /// The LWA app's client id.
    pub client_id: String,
    /// The LWA app's client secret.
    pub client_secret: String,
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upstream")
            .field("kind", &self.kind)
            .field("spapi_url", &self.spapi_url)
            .field("ads_url", &self.ads_url)
            .finish_non_exhaustive()
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
            upstream: None,
        })
    }

    /// Points the marketplace surfaces at `upstream`.
    pub fn with_upstream(mut self, upstream: Upstream) -> Self {
        self.upstream = Some(upstream);
        self
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
