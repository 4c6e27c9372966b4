//! The marketplace service: everything REST routes, MCP tools, command-line commands and job
//! steps do with the live marketplace, behind one typed interface that takes the caller's
//! [`Principal`]. It owns what it needs — the state store, the tenants' warehouses (merchant
//! rows, profile owners), the upstream client with the key that opens refresh tokens, the
//! pricing pace and the job wake-up — and never knows HTTP.

mod answers;
mod approvals;
mod audiences;
mod calls;
pub mod connecting;
mod jobs;
mod listing_commit;
mod listings;
mod media;
mod pricing_runs;
mod reports;
pub mod requests;
mod writes;

use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Kind, Principal, Result};
use pp_store::Store;
use pp_warehouse::Warehouses;
use pp_warehouse::directory;
use tokio::sync::Notify;

use crate::connections::{self, GrantKind};
use crate::merchants::{self, Merchant, Selector};
use crate::pricing::Spacing;
use crate::upstream::{Client, Provider};
use crate::{Policy, Sealer, Upstream};

pub use answers::*;
pub use jobs::JobKind;
pub use listings::{MEDIA_SWITCH, TEXT_SWITCH};
pub use pricing_runs::REST_RESULT_PAGE;

/// How the service runs its long work.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The pace between pricing batches.
    pub pricing_spacing: Spacing,
    /// How long a report may stay unfinished before its watch calls it `stuck`.
    pub report_stuck_after: Duration,
    /// Listing writes: the configured switches and the image check's pace.
    pub listings: ListingSettings,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            pricing_spacing: Spacing::default(),
            report_stuck_after: Duration::from_secs(6 * 3600),
            listings: ListingSettings::default(),
        }
    }
}

/// Listing writes as configured. A switch off here holds whatever the stored switches say
/// (`admin listings switch` can only add an `off`).
#[derive(Debug, Clone)]
pub struct ListingSettings {
    /// Whether text changes (title, bullets …) may be written at all.
    pub text_writes: bool,
    /// Whether image slots may be written at all.
    pub media_writes: bool,
    /// How often the image check reads the listing again.
    pub media_poll: Duration,
    /// How long the image check waits for the provider before it says `timed_out`.
    pub media_verify_for: Duration,
}

impl Default for ListingSettings {
    fn default() -> Self {
        Self {
            text_writes: true,
            media_writes: true,
            media_poll: Duration::from_secs(15),
            media_verify_for: Duration::from_secs(30 * 60),
        }
    }
}

/// The provider's APIs, when configured.
struct Live {
    client: Client,
    sealer: Sealer,
}

/// The marketplace service.
pub struct Marketplace {
    store: Store,
    warehouses: Warehouses,
    live: Option<Live>,
    settings: Settings,
    wake: Arc<Notify>,
}

/// Which of the provider's APIs a call needs (for the not-configured answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    Spapi,
    Ads,
}

impl Marketplace {
    /// A service without an upstream: every call that needs the provider answers
    /// `spapi_not_configured` / `ads_not_configured`.
    pub fn new(store: Store, warehouses: Warehouses, settings: Settings) -> Self {
        Self {
            store,
            warehouses,
            live: None,
            settings,
            wake: Arc::new(Notify::new()),
        }
    }

    /// Points the service at `upstream`, opening connections with `sealer`.
    pub fn with_upstream(
        mut self,
        upstream: Upstream,
        policy: Policy,
        sealer: Sealer,
    ) -> Result<Self> {
        self.live = Some(Live {
            client: Client::new(upstream, policy)?,
            sealer,
        });
        Ok(self)
    }

    /// Remembers tenants' connections while `epoch` (the auth epoch) stands still, instead of
    /// reading them for every call.
    pub fn remembering(mut self, epoch: pp_core::Epoch) -> Self {
        if let Some(live) = &mut self.live {
            live.client.remember(epoch);
        }
        self
    }

    /// Where the provider is (for `/health`): kind and URLs, never the app secret.
    pub fn upstream(&self) -> Option<&Upstream> {
        self.live.as_ref().map(|l| &l.client.upstream)
    }

    /// Paces and watches runs as `settings` says.
    pub fn set_settings(&mut self, settings: Settings) {
        self.settings = settings;
    }

    /// Wakes when a job is enqueued (the worker pool waits on it).
    pub fn wake(&self) -> Arc<Notify> {
        self.wake.clone()
    }

    /// What a call needs to reach the provider, or the not-configured failure.
    fn provider(&self, api: Api) -> Result<Provider<'_>> {
        let live = self.live.as_ref().ok_or_else(|| {
            let (kind, name) = match api {
                Api::Ads => (Kind::AdsNotConfigured, "advertising"),
                Api::Spapi => (Kind::SpapiNotConfigured, "selling-side"),
            };
            Error::new(kind, format!("no upstream is configured for the {name} API"))
                .with_fix("Set lwa_client_id, lwa_client_secret and the API URLs (docs/configuration.md); server --dev uses its sandbox.")
        })?;
        Ok(Provider {
            client: &live.client,
            store: &self.store,
            sealer: &live.sealer,
        })
    }

    /// The merchants `p` can act for: seller rows whose token has a selling-side grant.
    /// The memory of connections, when the provider is configured (and remembered).
    fn memory(&self) -> Option<&connections::Memory> {
        self.live.as_ref().and_then(|l| l.client.memory())
    }

    async fn merchant_rows(&self, p: &Principal) -> Result<Vec<Merchant>> {
        let connected: Vec<String> = connections::for_calls(&self.store, self.memory(), &p.tenant)
            .await?
            .iter()
            .filter(|c| c.connection.kind == GrantKind::Seller)
            .map(|c| c.connection.merchant.clone())
            .collect();
        let engine = self.warehouses.of(p).await?;
        Ok(directory::sellers(engine.as_ref(), &self.warehouses.limits)
            .await?
            .into_iter()
            .filter(|s| connected.contains(&s.token))
            .map(Merchant::from)
            .collect())
    }

    /// The one merchant `sel` names (§2.1).
    /// Queues a job of `kind` for `p`'s tenant and `merchant` and wakes the workers; its id.
    async fn enqueue(
        &self,
        p: &Principal,
        kind: JobKind,
        merchant: &str,
        total: i64,
        input: &impl serde::Serialize,
    ) -> Result<String> {
        let input = serde_json::to_value(input).map_err(Error::internal)?;
        let id = self
            .store
            .jobs()
            .enqueue(&p.tenant, kind.as_str(), Some(merchant), total, &input)
            .await?;
        self.wake.notify_waiters();
        Ok(id)
    }

    async fn resolve(&self, p: &Principal, sel: &Selector) -> Result<Merchant> {
        merchants::resolve(&self.merchant_rows(p).await?, sel)
    }
}
