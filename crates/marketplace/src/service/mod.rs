//! The marketplace service: everything REST routes, MCP tools, command-line commands and job
//! steps do with the live marketplace, behind one typed interface that takes the caller's
//! [`Principal`]. It owns what it needs — the state store, the tenants' warehouses (merchant
//! rows, profile owners), the upstream client with the key that opens refresh tokens, the
//! pricing pace and the job wake-up — and never knows HTTP.
//!
//! [`Marketplace`] is the shared core (the provider, merchant resolution, enqueueing, the write
//! policy); each area is a small handle in its own module, handed out here the way `Store`
//! hands out aggregates: `calls`, `ads_writes`, `listings` and `listing_writes`, `reports`,
//! `pricing`, `connections`, `approvals`, `audit`. A write handle is only handed out for a
//! principal that holds its write scope, so no method behind it checks a scope. A new area is
//! a module with its handle and one constructor here; `impl Marketplace` lives in this file
//! alone.

mod answers;
mod approvals;
mod audiences;
mod audit;
mod calls;
pub mod connecting;
mod feeds;
mod held;
mod jobs;
mod listing_reads;
mod listing_writes;
mod listings;
mod media;
mod pricing_runs;
mod record;
mod reports;
pub mod requests;
mod target;
mod writes;

use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Kind, Principal, Result, Scope, TenantId};
use pp_store::Store;
use pp_store::jobs::BackgroundJob;
use pp_warehouse::Warehouses;
use pp_warehouse::directory;
use tokio::sync::Notify;

use crate::connections::{self, GrantKind};
use crate::merchants::{self, Merchant, Selector};
use crate::pricing::Spacing;
use crate::upstream::{Client, Provider};
use crate::{Policy, Sealer, Upstream};

pub use answers::*;
pub use approvals::{Approvals, withdraw};
pub use audit::Audit;
pub use calls::Calls;
pub use connecting::Connections;
pub use feeds::{Account, Feeds, SliceCreate};
pub use listing_writes::ListingWrites;
pub use listings::{Listings, MEDIA_SWITCH, TEXT_SWITCH};
pub use pricing_runs::{Pricing, REST_RESULT_PAGE};
pub use reports::Reports;
pub use writes::AdsWrites;

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

/// The marketplace service: cheap to clone (its job kinds each hold one).
#[derive(Clone)]
pub struct Marketplace {
    store: Store,
    warehouses: Warehouses,
    live: Option<Arc<Live>>,
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

    /// Points the service at `upstream`, opening connections with `sealer`. With `remember`
    /// (the auth epoch), tenants' connections are remembered while it stands still instead of
    /// read for every call.
    pub fn with_upstream(
        mut self,
        upstream: Upstream,
        policy: Policy,
        sealer: Sealer,
        remember: Option<pp_core::Epoch>,
    ) -> Result<Self> {
        let mut client = Client::new(upstream, policy)?;
        if let Some(epoch) = remember {
            client.remember(epoch);
        }
        self.live = Some(Arc::new(Live { client, sealer }));
        Ok(self)
    }

    /// The job kinds this service owns (pricing runs, report watches, listing image checks),
    /// for the worker pool's registry.
    pub fn job_handlers(&self) -> Vec<Arc<dyn pp_store::jobs::Handler>> {
        jobs::handlers(self)
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

    /// Catalogued calls: the merchants, both catalogs, one selling-side or advertising call,
    /// the advertising logins and the `/v1` accounts.
    pub fn calls(&self) -> Calls<'_> {
        Calls(self)
    }

    /// Audited advertising writes, for a principal holding `ads:write` only.
    pub fn ads_writes<'a>(&'a self, p: &'a Principal) -> Result<AdsWrites<'a>> {
        p.require(&[Scope::AdsWrite])?;
        Ok(AdsWrites { m: self, p })
    }

    /// Listing change sets: a change set's read (`retail:read`).
    pub fn listings(&self) -> Listings<'_> {
        Listings(self)
    }

    /// Guarded listing writes, for a principal holding `retail:read` and `listings:write` only.
    pub fn listing_writes<'a>(&'a self, p: &'a Principal) -> Result<ListingWrites<'a>> {
        p.require(&[Scope::RetailRead, Scope::ListingsWrite])?;
        Ok(ListingWrites { m: self, p })
    }

    /// Selling-side reports through the ledger, for a principal holding `retail:read`.
    pub fn reports<'a>(&'a self, p: &'a Principal) -> Result<Reports<'a>> {
        p.require(&[Scope::RetailRead])?;
        Ok(Reports { m: self, p })
    }

    /// Pricing reads and paced pricing runs, for a principal holding `retail:read`.
    pub fn pricing<'a>(&'a self, p: &'a Principal) -> Result<Pricing<'a>> {
        p.require(&[Scope::RetailRead])?;
        Ok(Pricing { m: self, p })
    }

    /// Connecting and disconnecting the tenant's accounts.
    pub fn connections(&self) -> Connections<'_> {
        Connections(self)
    }

    /// Commits held for a person's approval: read, listed, decided.
    pub fn approvals(&self) -> Approvals<'_> {
        Approvals(self)
    }

    /// The audit log of committed advertising writes.
    pub fn audit(&self) -> Audit<'_> {
        Audit(self)
    }

    /// The provider's reads for a warehouse sync, as the tenant's own connections (paced as
    /// recent days' background work until [`Feeds::in_turn`] says otherwise).
    pub fn feeds(&self) -> Feeds<'_> {
        Feeds(self, pp_store::pacing::Turn::Recent)
    }

    /// The account's write policy (the default when it never set one). A stored policy that no
    /// longer reads is a failure, never the default.
    async fn policy(&self, tenant: &TenantId) -> Result<crate::policy::Policy> {
        Ok(crate::policy::in_force(&self.store, tenant.as_str())
            .await?
            .0)
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

    /// The memory of connections, when the provider is configured (and remembered).
    fn memory(&self) -> Option<&connections::Memory> {
        self.live.as_ref().and_then(|l| l.client.memory())
    }

    /// The merchants `p` can act for: seller rows whose token has a selling-side grant.
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

    /// Queues `job` for `p`'s tenant and wakes the workers; its id.
    async fn enqueue(&self, p: &Principal, job: &impl BackgroundJob) -> Result<String> {
        let id = job.enqueue(&self.store, &p.tenant).await?;
        self.wake.notify_waiters();
        Ok(id)
    }

    /// The one merchant `sel` names (docs/concepts/identifiers.md).
    async fn resolve(&self, p: &Principal, sel: &Selector) -> Result<Merchant> {
        merchants::resolve(&self.merchant_rows(p).await?, sel)
    }
}
