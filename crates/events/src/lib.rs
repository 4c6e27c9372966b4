//! Outbound events (docs/events.md). Every event is a row of the state store
//! (`pp_store::events`), appended by the service that saw it happen; this crate is what reads
//! and sends them:
//!
//! - `feed`: the event feed a credential reads (`GET /api/events`, the `events_list` tool, the
//!   command line's `events list --follow`), only the events of surfaces its scopes can read;
//! - `endpoints`: webhook endpoints a tenant admin registers, their secrets (shown once, rotated
//!   with a grace period, sealed at rest), the delivery log and replays;
//! - `delivery`: the `webhook_delivery` job kind, one job per event and endpoint, signed the
//!   Standard Webhooks way (`signing`), retried with exponential backoff for the retry period,
//!   the endpoint disabled (with an event saying so) after failing for the disable period;
//! - `guard`: where a webhook may go (no loopback, private, link-local or metadata address
//!   outside `--dev`, unless the operator allows the host), checked at registration and again
//!   at each delivery on the address actually connected to (`sender`: the client deliveries go
//!   through, which never takes a proxy from the environment).

pub mod delivery;
pub mod endpoints;
pub mod feed;
pub mod guard;
pub mod sender;
pub mod signing;

use std::sync::Arc;
use std::time::Duration;

use pp_core::{Principal, Result, Scope};
use pp_store::Store;
use pp_store::jobs::Handler;
use pp_store::sealing::Sealer;

pub use endpoints::{EndpointAdmin, RegisterRequest};
pub use feed::{FeedAnswer, FeedRequest};

/// How webhooks are sent and where they may go.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Development: loopback and private addresses are allowed (the dev server's receivers).
    pub dev: bool,
    /// Host names (or addresses) the operator allows even though they resolve privately.
    pub allow_hosts: Vec<String>,
    /// The wait before the first retry; each further retry waits twice as long…
    pub first_retry: Duration,
    /// …up to this.
    pub max_retry_gap: Duration,
    /// How long a delivery is retried before it is given up.
    pub retry_for: Duration,
    /// How long an endpoint's deliveries may keep failing before it is disabled.
    pub disable_after: Duration,
    /// How long the old secret keeps signing after a rotation.
    pub rotation_grace: Duration,
    /// How long one attempt may take.
    pub timeout: Duration,
    /// The operator's egress proxy for deliveries (`webhook_proxy`); the environment's proxy
    /// variables are never read (`sender`).
    pub proxy: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            dev: false,
            allow_hosts: Vec::new(),
            first_retry: Duration::from_secs(30),
            max_retry_gap: Duration::from_secs(12 * 3600),
            retry_for: Duration::from_secs(3 * 24 * 3600),
            disable_after: Duration::from_secs(3 * 24 * 3600),
            rotation_grace: Duration::from_secs(24 * 3600),
            timeout: Duration::from_secs(15),
            proxy: None,
        }
    }
}

/// The events service: the feed, webhook administration and the delivery job.
#[derive(Clone)]
pub struct Events {
    store: Store,
    sealer: Option<Sealer>,
    settings: Arc<Settings>,
    guard: guard::Guard,
}

impl Events {
    /// Events over `store`; webhooks stay unavailable until [`Events::with_sealer`].
    pub fn new(store: Store, settings: Settings) -> Result<Self> {
        let guard = guard::Guard::new(&settings)?;
        Ok(Self {
            store,
            sealer: None,
            settings: Arc::new(settings),
            guard,
        })
    }

    /// Seals webhook secrets under the service's secret key.
    pub fn with_sealer(mut self, sealer: Sealer) -> Self {
        self.sealer = Some(sealer);
        self
    }

    /// The settings it runs with.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The feed, as `p` may read it.
    pub async fn feed(&self, p: &Principal, req: FeedRequest) -> Result<FeedAnswer> {
        feed::read(&self.store, p, req).await
    }

    /// Webhook administration, for a principal holding `webhooks:write`: it registers only
    /// event types its scopes read, and its endpoints are disabled when its access ends.
    pub fn endpoints(&self, p: &Principal) -> Result<EndpointAdmin<'_>> {
        p.require(&[Scope::WebhooksWrite])?;
        Ok(EndpointAdmin::new(self, p.tenant.clone(), p.actor.as_str())
            .registering_as(p.scopes, &p.credential_id))
    }

    /// Webhook administration for a tenant's admin in the console (the page checks the
    /// person's role) or the operator at the command line, recorded as `actor`: any type.
    pub fn endpoints_as(&self, tenant: pp_core::TenantId, actor: &str) -> EndpointAdmin<'_> {
        EndpointAdmin::new(self, tenant, actor)
    }

    /// The job kinds this service runs: webhook deliveries.
    pub fn job_handlers(&self) -> Vec<Arc<dyn Handler>> {
        vec![pp_store::jobs::handler(delivery::Delivery::new(
            self.clone(),
        ))]
    }

    fn sealer(&self) -> Result<&Sealer> {
        self.sealer.as_ref().ok_or_else(|| {
            pp_core::Error::new(
                pp_core::Kind::WebhooksNotConfigured,
                "webhooks need the service's secret_key (64 hex characters) to seal their signing secrets",
            )
            .with_fix("The operator sets secret_key in the configuration (docs/configuration.md).")
        })
    }
}
