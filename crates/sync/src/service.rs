//! [`WarehouseSync`]: what every front door calls. It makes a tenant's warehouse managed
//! (the schema created, the loader's locator recorded), adopts a connected account's
//! merchants and starts their datasets' jobs, answers the sync status a person reads, and
//! brings the jobs forward when someone asks to sync now. Every method of [`WarehouseSync`] is
//! here; the job step is `job.rs` (its own type), each dataset's reader is in `readers/`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::NaiveDate;
use pp_core::{Error, Principal, Result, Scope, TenantId};
use pp_marketplace::Marketplace;
use pp_marketplace::connections::{self, ConnectionStatus, GrantKind};
use pp_store::Store;
use pp_store::jobs::{BackgroundJob, handler};
use pp_store::sync::{DatasetRow, Wanted};
use pp_warehouse::Managed;
use pp_warehouse::Warehouses;
use pp_warehouse::directory;
use serde::{Deserialize, Serialize};

use crate::datasets::Datasets;
use crate::job::SyncDataset;
use crate::settings::{ScheduleInForce, StoredSchedule, SyncSettings};
use crate::{adopt, job};

/// Creates the tables of the managed warehouse at `loader` (its locator) where they are
/// missing; a locator that does not open or a database that refuses them is the caller's to
/// fix (`bad_params`).
pub async fn create_tables(loader: &str) -> Result<Managed> {
    let m = Managed::open(loader).map_err(|e| {
        Error::new(
            pp_core::Kind::BadParams,
            format!("the managed warehouse: {e}"),
        )
    })?;
    m.ensure_schema().await.map_err(|e| {
        Error::new(
            pp_core::Kind::BadParams,
            format!("creating the managed warehouse's tables: {e}"),
        )
    })?;
    Ok(m)
}

/// Makes an existing tenant's warehouse managed, written through `loader`: its tables, then
/// the state store's record. Repeating it changes nothing.
pub async fn manage(store: &Store, tenant: &TenantId, loader: &str) -> Result<()> {
    create_tables(loader).await?;
    store.sync().manage(tenant, loader).await?;
    Ok(())
}

/// The sync service: cheap to clone.
#[derive(Clone)]
pub struct WarehouseSync {
    pub(crate) store: Store,
    pub(crate) market: Marketplace,
    pub(crate) warehouses: Warehouses,
    pub(crate) settings: SyncSettings,
    pub(crate) datasets: Datasets,
    loaders: Arc<Mutex<HashMap<String, Managed>>>,
    /// When a start last looked for newly connected merchants, per tenant (this instance's),
    /// and the tenant's connections as they stood then.
    looked: Arc<Mutex<HashMap<String, (std::time::Instant, String)>>>,
    /// The gateway's stream queues, when it has them (`crate::stream`).
    pub(crate) stream: crate::stream::Stream,
}

/// How often a start looks for newly connected merchants (each look reads the provider's
/// participations and profiles): starts within it collapse into the first, unless a
/// connection changed since. Connecting an account takes its merchants in at once anyway.
const LOOK_EVERY: std::time::Duration = std::time::Duration::from_secs(60);

/// A merchant as the status names it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MerchantRef {
    pub legacy_seller_id: i64,
    pub seller_id: String,
    /// The marketplace's country code (one login sells in several).
    pub marketplace: Option<String>,
}

/// One dataset of one merchant.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DatasetStatus {
    pub merchant: MerchantRef,
    pub dataset: String,
    pub source: &'static str,
    /// `backfilling`, `syncing`, `synced`, `paused`, `failing`, `unavailable`.
    pub state: String,
    pub covered_from: Option<String>,
    pub data_through: Option<String>,
    pub last_success: Option<String>,
    pub rows_last_load: Option<i64>,
    pub next_run: Option<String>,
    /// The last failure, in the `/api` envelope with the provider's words.
    pub last_error: Option<serde_json::Value>,
    pub lookback_days: i64,
    pub restatement_days: i64,
    /// What the provider cannot give.
    pub limits: &'static str,
    /// Why this merchant's dataset cannot be read now (no advertising profile there, …).
    pub note: Option<String>,
    /// The days its last finished run read: the new days, and the days read again because
    /// the provider was still restating them at the run before, however long ago.
    pub last_run: Option<DaysRead>,
    /// How far the backfill has come while older days are still to fetch (none once the
    /// warehouse holds every day the provider lets it read).
    pub backfill: Option<Backfill>,
}

/// A backfill's progress: the newest days come first, then older ones back to `reachesFrom`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Backfill {
    /// The oldest day the provider lets the dataset read: where the backfill ends.
    pub reaches_from: String,
    /// The days held (coveredFrom through dataThrough) of the days within reach.
    pub days_held: i64,
    pub days_in_reach: i64,
    /// When it should reach `reachesFrom` at the pace it has kept since its first load; none
    /// until it has a pace.
    pub estimated_end: Option<String>,
}

impl Backfill {
    /// The backfill of a dataset's row: `None` before its first load and once it is whole.
    fn of(r: &DatasetRow, now_ms: i64) -> Option<Self> {
        let day = |d: &Option<String>| d.as_deref().and_then(|d| d.parse::<NaiveDate>().ok());
        let reach = day(&r.reach_from)?;
        let (covered, through) = (day(&r.covered_from)?, day(&r.data_through)?);
        if covered <= reach {
            return None;
        }
        let held = (through - covered).num_days() + 1;
        let in_reach = (through - reach).num_days() + 1;
        // the pace since the first load (the first slice's days come with it)
        let estimated_end = match (r.first_load_ms, r.last_success_ms) {
            (Some(first), Some(last)) if held > 1 && last > first => {
                let per_day = (last - first) as f64 / (held - 1) as f64;
                let left = (in_reach - held).max(0) as f64;
                time(Some(now_ms.max(last) + (left * per_day) as i64))
            }
            _ => None,
        };
        Some(Self {
            reaches_from: reach.to_string(),
            days_held: held,
            days_in_reach: in_reach,
            estimated_end,
        })
    }
}

/// Days read, `from` through `through`.
#[derive(Debug, Clone, Serialize)]
pub struct DaysRead {
    pub from: String,
    pub through: String,
}

/// A tenant's sync.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncStatus {
    /// `managed` (the gateway fills it) or `external` (someone else does).
    pub warehouse: &'static str,
    /// The schedule and restatement windows in force (a managed warehouse's).
    pub schedule: Option<ScheduleInForce>,
    pub datasets: Vec<DatasetStatus>,
    /// Merchants connected for the selling side whose datasets the sync has not taken in yet
    /// (a start takes them in): their provider tokens.
    pub not_taken_in: Vec<String>,
}

/// Every tenant's sync in numbers, for `/health`: no tenant is named.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    pub managed_warehouses: i64,
    /// Datasets by state.
    pub datasets: std::collections::BTreeMap<String, i64>,
}

/// A call to sync now.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunRequest {
    /// Only this merchant's datasets (its `legacySellerId`).
    pub legacy_seller_id: Option<i64>,
}

fn time(ms: Option<i64>) -> Option<String> {
    ms.and_then(chrono::DateTime::from_timestamp_millis)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

impl WarehouseSync {
    pub fn new(
        store: Store,
        market: Marketplace,
        warehouses: Warehouses,
        settings: SyncSettings,
    ) -> Self {
        Self {
            store,
            market,
            warehouses,
            settings,
            datasets: Datasets::default(),
            loaders: Arc::default(),
            looked: Arc::default(),
            stream: None,
        }
    }

    /// Consumes Marketing Stream from the gateway's queues as `stream` says.
    pub fn with_stream(mut self, stream: crate::stream::Stream) -> Self {
        self.stream = stream;
        self
    }

    /// The Marketing Stream half of this sync (`crate::stream`).
    pub fn streams(&self) -> crate::stream::Streams {
        crate::stream::Streams::new(self.clone())
    }

    /// Fills `datasets` (the built-in ones and any given besides) instead of the built-in ones.
    pub fn with_datasets(mut self, datasets: Datasets) -> Self {
        self.datasets = datasets;
        self
    }

    /// The job kinds this service owns, for the worker pool's registry.
    pub fn job_handlers(&self) -> Vec<Arc<dyn pp_store::jobs::Handler>> {
        vec![
            handler(job::DatasetSteps(self.clone())),
            handler(job::AdoptSteps(self.clone())),
        ]
    }

    /// The managed warehouse's loader, or `None` for an external warehouse.
    pub(crate) async fn loader(&self, tenant: &TenantId) -> Result<Option<Managed>> {
        let Some(locator) = self.store.sync().loader(tenant).await? else {
            return Ok(None);
        };
        let mut map = self.loaders.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = map.get(&locator) {
            return Ok(Some(m.clone()));
        }
        let m = Managed::open(&locator)
            .map_err(|e| Error::internal(format!("opening the managed warehouse: {e}")))?;
        map.insert(locator, m.clone());
        Ok(Some(m))
    }

    /// After a connection changed: a managed tenant's new merchants become `seller` rows,
    /// each merchant with an active grant gets its datasets' jobs, and paused ones are woken.
    /// An external warehouse is left alone. The ids of the seller rows added.
    pub async fn adopt(&self, tenant: &TenantId) -> Result<Vec<i64>> {
        let added = self.take_in(tenant).await?;
        self.store.sync().wake(tenant, None).await?;
        self.market.wake().notify_waiters();
        Ok(added)
    }

    /// A managed tenant's new merchants become `seller` rows and each merchant with an active
    /// grant gets its datasets' jobs (a new one runs at once); nothing waiting is woken. The
    /// ids of the seller rows added.
    async fn take_in(&self, tenant: &TenantId) -> Result<Vec<i64>> {
        let Some(loader) = self.loader(tenant).await? else {
            return Ok(Vec::new());
        };
        loader.ensure_schema().await.map_err(|e| {
            Error::internal(format!("creating the managed warehouse's tables: {e}"))
        })?;
        let conns = connections::list(&self.store, tenant).await?;
        let have = self.sellers(tenant).await?;
        let feeds = self.market.feeds();
        let added = adopt::sellers(&feeds, tenant, &conns, &have, &loader).await?;
        let sellers = self.sellers(tenant).await?;
        let has = |kind: GrantKind, token: &str| {
            conns.iter().any(|c| {
                c.kind == kind && c.status == ConnectionStatus::Active && c.merchant == token
            })
        };
        let mut wanted = Vec::new();
        for s in &sellers {
            let (selling, advertising) = (
                has(GrantKind::Seller, &s.token),
                has(GrantKind::Ads, &s.token),
            );
            for d in self
                .datasets
                .for_account(&s.account_type, selling, advertising)
            {
                let job = SyncDataset {
                    seller_id: s.id,
                    dataset: d.name.to_owned(),
                    merchant: Some(s.token.clone()),
                };
                wanted.push(Wanted {
                    seller_id: s.id,
                    dataset: d.name.to_owned(),
                    merchant: s.token.clone(),
                    job: job.new_job()?,
                });
            }
        }
        self.store.sync().ensure(tenant, wanted).await?;
        Ok(added)
    }

    /// The warehouse's merchant rows (none while it has no `seller` table).
    pub(crate) async fn sellers(&self, tenant: &TenantId) -> Result<Vec<directory::Seller>> {
        let engine = self.warehouses.of_tenant(tenant).await?;
        directory::sellers(engine.as_ref(), &self.warehouses.limits).await
    }

    /// Every tenant's sync in numbers (the public `/health` shows it: counts only).
    pub async fn overview(&self) -> Result<Overview> {
        let (managed, states) = self.store.sync().overview().await?;
        Ok(Overview {
            managed_warehouses: managed,
            datasets: states.into_iter().collect(),
        })
    }

    /// The tenant's sync, dataset by dataset (`account:read`).
    pub async fn status(&self, p: &Principal) -> Result<SyncStatus> {
        p.require(&[Scope::AccountRead])?;
        let managed = self.store.sync().loader(&p.tenant).await?.is_some();
        let schedule = if managed {
            let own = StoredSchedule::of(&self.store, &p.tenant).await?;
            Some(ScheduleInForce::new(&self.settings, own))
        } else {
            None
        };
        let settings = schedule.as_ref().map_or_else(
            || self.settings.clone(),
            |s| self.settings.with(&s.tenant_set.schedule),
        );
        let rows = self.store.sync().list(&p.tenant).await?;
        let sellers = if rows.is_empty() {
            Vec::new()
        } else {
            self.sellers(&p.tenant).await?
        };
        let country = |id: i64| {
            sellers
                .iter()
                .find(|s| s.id == id)
                .map(|s| s.marketplace.clone())
        };
        let not_taken_in = match managed {
            true => connections::list(&self.store, &p.tenant)
                .await?
                .into_iter()
                .filter(|c| c.kind == GrantKind::Seller && c.status == ConnectionStatus::Active)
                .map(|c| c.merchant)
                .filter(|m| !rows.iter().any(|r| &r.merchant == m))
                .collect(),
            false => Vec::new(),
        };
        Ok(SyncStatus {
            not_taken_in,
            warehouse: if managed { "managed" } else { "external" },
            datasets: rows
                .into_iter()
                .map(|r| {
                    let marketplace = country(r.seller_id);
                    self.dataset_status(&settings, r, marketplace)
                })
                .collect(),
            schedule,
        })
    }

    /// The settings a tenant's syncs run by: the service's, with the tenant's own schedule
    /// over them.
    pub(crate) async fn settings_for(&self, tenant: &TenantId) -> Result<SyncSettings> {
        let own = StoredSchedule::of(&self.store, tenant).await?;
        Ok(self.settings.with(&own.schedule))
    }

    /// When the tenant's next daily run starts (its own hour, or the service's).
    pub(crate) async fn next_daily_run(&self, tenant: &TenantId) -> Result<i64> {
        Ok(job::next_daily(self.settings_for(tenant).await?.daily_hour))
    }

    fn dataset_status(
        &self,
        settings: &SyncSettings,
        r: DatasetRow,
        marketplace: Option<String>,
    ) -> DatasetStatus {
        let d = self.datasets.find(&r.dataset);
        let backfill = Backfill::of(&r, pp_store::jobs::now_ms());
        DatasetStatus {
            merchant: MerchantRef {
                legacy_seller_id: r.seller_id,
                seller_id: r.merchant,
                marketplace,
            },
            source: d.map_or("", |d| d.reader.label()),
            lookback_days: d.map_or(0, |d| settings.reach_days(d.lookback_days)),
            restatement_days: d.map_or(0, |d| settings.restate(d.side)),
            limits: d.map_or("", |d| d.limits),
            dataset: r.dataset,
            state: r.state,
            covered_from: r.covered_from,
            data_through: r.data_through,
            last_success: time(r.last_success_ms),
            rows_last_load: r.last_rows,
            next_run: time(r.next_run_ms),
            last_error: r.last_error,
            note: r.note,
            backfill,
            last_run: r.last_run.map(|(from, through)| DaysRead { from, through }),
        }
    }

    /// Whether a start should look for new merchants now: the first in [`LOOK_EVERY`] does, and
    /// one after a connection changed (connected again, lapsed, added); recorded when it does.
    async fn look_now(&self, tenant: &TenantId) -> Result<bool> {
        let conns = connections::list(&self.store, tenant).await?;
        let standing: String = conns
            .iter()
            .map(|c| {
                format!(
                    "{}/{}/{}/{};",
                    c.kind.as_str(),
                    c.merchant,
                    c.status.as_str(),
                    c.updated_at
                )
            })
            .collect();
        let mut looked = self.looked.lock().unwrap_or_else(|p| p.into_inner());
        let now = std::time::Instant::now();
        let fresh = looked
            .get(tenant.as_str())
            .is_some_and(|(at, was)| now.duration_since(*at) < LOOK_EVERY && *was == standing);
        if !fresh {
            looked.insert(tenant.as_str().to_owned(), (now, standing));
        }
        Ok(!fresh)
    }

    /// Adopts merchants connected since the last look, then brings the tenant's datasets (one
    /// merchant's, when named) that are between runs forward to run now (`sync:write` with
    /// `account:read`: it spends the provider's quota, so it is an admin's); the status after.
    /// A dataset mid-run keeps its pace and one already due is not moved again, so repeated
    /// starts collapse into one.
    pub async fn run(&self, p: &Principal, req: RunRequest) -> Result<SyncStatus> {
        p.require(&[Scope::SyncWrite, Scope::AccountRead])?;
        if self.store.sync().loader(&p.tenant).await?.is_none() {
            return Err(Error::new(
                pp_core::Kind::BadParams,
                "this tenant's warehouse is external: the gateway does not fill it",
            )
            .with_fix(
                "A tenant created without a warehouse is managed; see docs/warehouse-sync.md.",
            ));
        }
        // merchants connected since the last look join first (their datasets run at once);
        // what waits is woken below only if it is between runs
        if self.look_now(&p.tenant).await? {
            match self.take_in(&p.tenant).await {
                Ok(_) => {}
                // the provider's plan has no slot for the look now: the start goes on, and
                // the next one (or the connection's own adoption) takes them in
                Err(e) if pp_marketplace::triage::held_back(&e).is_some() => {
                    tracing::info!(
                        tenant = p.tenant.as_str(),
                        "a sync start's look for new merchants waits for its usage plan"
                    );
                }
                Err(e) => return Err(e),
            }
        }
        if let Some(id) = req.legacy_seller_id
            && !self
                .store
                .sync()
                .list(&p.tenant)
                .await?
                .iter()
                .any(|r| r.seller_id == id)
        {
            return Err(Error::not_found(format!(
                "merchant {id} has no synced datasets"
            )));
        }
        self.store
            .sync()
            .wake_idle(&p.tenant, req.legacy_seller_id)
            .await?;
        self.market.wake().notify_waiters();
        self.status(p).await
    }
}
