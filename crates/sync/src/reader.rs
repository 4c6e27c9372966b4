//! What one dataset is to the sync's step: a [`Reader`] that asks the provider for a slice
//! (or reads it at once, when the provider lists rather than reports it) and turns the
//! slice's documents into the rows of the tables it replaces. The step (`job.rs`) owns
//! everything else: planning runs, the checkpoint, pauses, failures and the status. A reader
//! gets a [`Cx`]: the merchant, its warehouse seller, the run, and the calls every reader
//! needs (a report created through the ledger, keyed by slice and run; a selling-side
//! report's document once done).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result, TenantId};
use pp_marketplace::Merchant;
use pp_marketplace::ledger::Family;
use pp_marketplace::reports::{Noticed, normalize, noticed};
use pp_marketplace::service::{Account, Feeds, SliceCreate};
use pp_store::pacing::Turn;
use pp_warehouse::Managed;
use serde_json::{Value, json};

use crate::WarehouseSync;
use crate::checkpoint::{ReportCk, RunCk};
use crate::datasets::Dataset;

/// A reader's future.
pub type Fut<'a, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 'a>>;

/// A slice's first and last day.
pub type Days = (NaiveDate, NaiveDate);

/// A seller as its rows carry it.
#[derive(Debug, Clone)]
pub struct Seller {
    pub id: i64,
    pub token: String,
    pub currency: String,
}

pub use pp_warehouse::Load;

/// Which account a dataset reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadsAs {
    /// The merchant's selling-side grant.
    Seller,
    /// The advertising login, in the merchant's marketplace's profile (found once).
    AdsProfile,
    /// The advertising login itself (a request that names its accounts in the body).
    AdsLogin,
}

/// What asking for a slice came to.
pub enum Started {
    /// Reports were asked for: the step collects them once they are done.
    Asked(ReportCk),
    /// The slice's rows, read at once (the provider lists them: nothing to wait for).
    Rows(Vec<Load>),
    /// Nothing can be asked yet (`note` says why): the step looks again after `after`.
    Wait { note: String, after: Duration },
    /// The provider does not give the dataset to this merchant (`why`, in its words): the
    /// run ends and the dataset shows `unavailable` until the next daily run looks again.
    Unavailable(String),
}

/// One dataset's path from the provider to its tables.
pub trait Reader: Send + Sync {
    /// Where it comes from at the provider, as the status shows it.
    fn label(&self) -> &'static str;

    /// Which account it reads as.
    fn reads_as(&self) -> ReadsAs {
        ReadsAs::Seller
    }

    /// Finds what the dataset needs once per merchant before its first slice (kept in the
    /// checkpoint through `cx`); `Some(why)` when the merchant has none, and the dataset is
    /// unavailable.
    fn prepare<'a>(&'a self, cx: &'a mut Cx<'_>) -> Fut<'a, Option<String>> {
        let _ = cx;
        Box::pin(async { Ok(None) })
    }

    /// Asks the provider for the slice `days` of the run in `cx`.
    fn start<'a>(&'a self, cx: &'a Cx<'_>, days: Days) -> Fut<'a, Started>;

    /// The rows of the slice whose reports `r` names, once they are done (`None` while one is
    /// being made). A report the provider could not make is a [`Kind::ReportFatal`] error: the
    /// step drops it and asks again after a pause.
    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        let _ = (cx, r);
        Box::pin(async {
            Err(Error::internal(
                "this dataset is listed: it asks for no report",
            ))
        })
    }
}

/// What a reader works with: one merchant's dataset, in one step.
pub struct Cx<'s> {
    pub(crate) sync: &'s WarehouseSync,
    pub tenant: TenantId,
    pub dataset: &'static Dataset,
    pub merchant: Merchant,
    pub seller: Seller,
    /// The managed warehouse the slices load into.
    pub loader: Managed,
    /// The run in progress (set before a slice is asked for).
    pub run: Option<RunCk>,
    /// The advertising profile (`ReadsAs::AdsProfile`), once found.
    pub profile: Option<i64>,
    /// The DSP advertiser, once found.
    pub dsp: Option<crate::readers::dsp::Dsp>,
    profile_text: Option<String>,
    /// The slice being asked for is ahead of its turn (its creates go only while the usage
    /// plan has room to spare).
    pub(crate) ahead: bool,
}

impl<'s> Cx<'s> {
    pub(crate) fn new(
        sync: &'s WarehouseSync,
        tenant: TenantId,
        dataset: &'static Dataset,
        (merchant, seller): (Merchant, Seller),
        loader: Managed,
    ) -> Self {
        Self {
            sync,
            tenant,
            dataset,
            merchant,
            seller,
            loader,
            run: None,
            profile: None,
            dsp: None,
            profile_text: None,
            ahead: false,
        }
    }

    /// Records the advertising profile the dataset reads in.
    pub fn set_profile(&mut self, profile: Option<i64>) {
        self.profile = profile;
        self.profile_text = profile.map(|p| p.to_string());
    }

    /// The account the dataset reads as.
    pub fn account(&self) -> Account<'_> {
        let login = self.merchant.seller_id.as_str();
        match self.dataset.reader.reads_as() {
            ReadsAs::Seller => Account::Seller(&self.merchant),
            ReadsAs::AdsProfile => Account::Ads {
                login,
                profile: self.profile_text.as_deref(),
            },
            ReadsAs::AdsLogin => Account::Ads {
                login,
                profile: None,
            },
        }
    }

    /// The provider's reports and reads, paced in this step's turn.
    pub fn feeds(&self) -> Feeds<'_> {
        self.sync.market.feeds().in_turn(self.turn())
    }

    /// When this step's calls take a scarce usage plan's tokens: a slice asked for ahead of
    /// its turn only while the plan has room; a backfill's older days after every dataset's
    /// recent ones; a leading dataset's recent days (sales and traffic) before the others'.
    pub fn turn(&self) -> Turn {
        match &self.run {
            _ if self.ahead => Turn::Ahead,
            Some(run) if run.backfill => Turn::Older,
            _ if self.dataset.leads => Turn::Leading,
            _ => Turn::Recent,
        }
    }

    /// The warehouse engine of the tenant (to read what earlier loads wrote).
    pub async fn engine(&self) -> Result<std::sync::Arc<dyn pp_warehouse::Engine>> {
        self.sync.warehouses.of_tenant(&self.tenant).await
    }

    /// The query limits reads of the warehouse run under.
    pub fn limits(&self) -> &pp_warehouse::Limits {
        &self.sync.warehouses.limits
    }

    /// The run in progress.
    pub fn run(&self) -> Result<&RunCk> {
        self.run
            .as_ref()
            .ok_or_else(|| Error::internal("a slice without its run"))
    }

    /// Creates a report for the slice `days` through the ledger, keyed by the dataset, the
    /// slice, the run and `part` (a slice's second report names itself), so a step repeated
    /// after a crash gets the report its first try made; its id.
    pub async fn create(
        &self,
        family: Family,
        body: Value,
        days: Days,
        part: &str,
    ) -> Result<String> {
        let run = self.run()?;
        let (from, to) = days;
        let mut key = format!(
            "sync|{}|{}|{}|{from}|{to}",
            self.seller.id, self.dataset.name, run.started_ms
        );
        if !part.is_empty() {
            key = format!("{key}|{part}");
        }
        if run.asked_again > 0 {
            key = format!("{key}|again{}", run.asked_again);
        }
        self.feeds()
            .create_report(
                &self.tenant,
                &self.account(),
                family,
                body,
                SliceCreate {
                    key: &key,
                    fresh_since: run.asked_again_ms.unwrap_or(run.started_ms),
                },
            )
            .await
    }

    /// A selling-side report request for `report_type`, over `days` when it has a window.
    pub fn spapi_request(&self, report_type: &str, days: Option<Days>, options: Value) -> Value {
        let mut body = json!({
            "reportType": report_type,
            "marketplaceIds": [self.merchant.marketplace_id],
        });
        if let Some((from, to)) = days {
            body["dataStartTime"] = format!("{from}T00:00:00Z").into();
            body["dataEndTime"] = format!("{to}T23:59:59Z").into();
        }
        if !options.is_null() {
            body["reportOptions"] = options;
        }
        body
    }

    /// A selling-side report's document once it is done: `None` while it is being made,
    /// `Some(None)` when it ended without one (nothing for those days). A report the provider
    /// could not make is [`fatal`].
    /// With the seller subscribed to `REPORT_PROCESSING_FINISHED`, the provider's notice says
    /// when the report finished and the status is not asked for; only a report unheard of
    /// after `reports::NOTICE_LOOKS` looks (about two minutes at the default poll) is asked after, so a
    /// lost notification costs a delay, never the day.
    pub async fn spapi_done(&self, r: &ReportCk, id: &str) -> Result<Option<Option<String>>> {
        let feeds = self.feeds();
        let account = self.account();
        let (store, partner) = (&self.sync.store, &self.merchant.seller_id);
        let report = match noticed(store, &self.tenant, partner, id, r.looks.into()).await? {
            Noticed::Said(report) => report,
            Noticed::Wait => return Ok(None),
            Noticed::Ask => feeds.spapi_report(&self.tenant, &account, id).await?,
        };
        let (status, reason) = normalize(&report);
        match status {
            "queued" | "running" => Ok(None),
            "failed" | "cancelled" => Err(fatal(r, reason.unwrap_or("provider_fatal"), report)),
            _ => match report["reportDocumentId"].as_str() {
                Some(doc) => match feeds.spapi_document(&self.tenant, &account, doc).await {
                    Ok(text) => Ok(Some(Some(text))),
                    Err(e) if pp_marketplace::triage::provider_not_found(&e) => {
                        Err(document_gone(r, doc, e))
                    }
                    Err(e) => Err(e),
                },
                None => Ok(Some(None)),
            },
        }
    }

    /// How long after asking for reports the step first looks at them.
    /// How long a dataset that waits for another's rows (the catalog's ASINs) waits before it
    /// looks again: a minute at the default poll.
    pub fn look_again(&self) -> Duration {
        self.sync.settings.poll * 30
    }

    pub fn first_look(&self) -> Duration {
        self.sync.settings.poll / 4
    }

    /// When a report found still being made `looks` times is looked at again: the first
    /// look's interval doubled each time, up to eight polls (16 s at the default 2 s poll),
    /// so a report made in a moment is fetched in a moment and one the provider takes minutes
    /// over costs a few looks, not one every poll.
    pub fn look_after(&self, looks: u32) -> Duration {
        let first = self.first_look();
        (first * 2u32.saturating_pow(looks.min(16))).min(self.sync.settings.poll * 8)
    }
}

/// A report the provider could not make.
pub fn fatal(r: &ReportCk, reason: &str, report: Value) -> Error {
    Error::new(
        Kind::ReportFatal,
        format!(
            "the provider could not make report {} for {}..{} ({reason})",
            r.id, r.from, r.to
        ),
    )
    .with_field("provider", report)
}

/// A done report whose document the provider no longer has (documents expire; a report
/// reused from earlier in a run may outlive its own): the slice asks for its report again.
fn document_gone(r: &ReportCk, doc: &str, e: Error) -> Error {
    Error::new(
        Kind::ReportFatal,
        format!(
            "the provider no longer has document {doc} of report {} for {}..{}",
            r.id, r.from, r.to
        ),
    )
    .with_field("documentGone", true)
    .with_source(e)
}

/// Whether `e` is a done report's document the provider no longer has ([`document_gone`]).
pub fn is_document_gone(e: &Error) -> bool {
    e.field("documentGone") == Some(&Value::Bool(true))
}

/// A document that should be JSON.
pub fn json_doc(ds: &Dataset, text: &str) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| {
        Error::new(
            Kind::UpstreamUnavailable,
            format!("the provider's {} document does not read: {e}", ds.name),
        )
    })
}
