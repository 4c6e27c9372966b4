//! Warehouse sync: which tenants' warehouses the gateway fills (*managed*, with the locator
//! its loader writes through), and one row per (tenant, merchant, dataset) with the job that
//! syncs it and what a person asks of it: state, how far back and up to which day the
//! warehouse holds it, the last success, the rows of the last load, the next run and the last
//! error. The row and its job are made together, once: a second instance, or a connect
//! repeated, finds the job already there.

use pp_core::{Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Db, Row};
use crate::jobs::{BackgroundJob, NewJob, now_ms};

/// The job that takes a managed tenant's connections in (`pp-sync` steps it).
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct AdoptJob {}

impl BackgroundJob for AdoptJob {
    const KIND: &'static str = "warehouse_adopt";

    fn total(&self) -> i64 {
        0
    }
}

/// One dataset of one merchant, as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct DatasetRow {
    pub tenant: String,
    /// The warehouse's `seller.ID`.
    pub seller_id: i64,
    pub dataset: String,
    /// The provider's merchant token (or advertising profile's seller) it reads as.
    pub merchant: String,
    /// `backfilling`, `synced`, `paused`, `failing`, `unavailable`.
    pub state: String,
    pub job_id: String,
    /// The first and last day the warehouse holds (ISO dates).
    pub covered_from: Option<String>,
    pub data_through: Option<String>,
    pub last_success_ms: Option<i64>,
    pub last_rows: Option<i64>,
    pub next_run_ms: Option<i64>,
    /// The last failure's `/api` envelope (the provider's words inside).
    pub last_error: Option<Value>,
    /// Why part of it cannot be read (outside the provider's lookback, not offered).
    pub note: Option<String>,
    pub updated_ms: i64,
    /// The days the last finished run read (ISO dates).
    pub last_run: Option<(String, String)>,
    /// The oldest day the provider was still restating at the last finished run.
    pub restating_from: Option<String>,
    /// When the dataset first loaded rows.
    pub first_load_ms: Option<i64>,
    /// The oldest day the provider lets it read, as of its last run (ISO date).
    pub reach_from: Option<String>,
}

const COLUMNS: &str = "tenant_id, seller_id, dataset, merchant, state, job_id, covered_from, data_through, last_success_ms, last_rows, next_run_ms, last_error, note, updated_ms, last_run_from, last_run_to, restating_from, first_load_ms, reach_from";

fn dataset(r: &Row) -> Result<DatasetRow> {
    Ok(DatasetRow {
        tenant: r.text(0)?,
        seller_id: r.i64(1)?,
        dataset: r.text(2)?,
        merchant: r.text(3)?,
        state: r.text(4)?,
        job_id: r.text(5)?,
        covered_from: r.opt_text(6)?,
        data_through: r.opt_text(7)?,
        last_success_ms: r.opt_i64(8)?,
        last_rows: r.opt_i64(9)?,
        next_run_ms: r.opt_i64(10)?,
        last_error: r.opt_json(11)?,
        note: r.opt_text(12)?,
        updated_ms: r.i64(13)?,
        last_run: r.opt_text(14)?.zip(r.opt_text(15)?),
        restating_from: r.opt_text(16)?,
        first_load_ms: r.opt_i64(17)?,
        reach_from: r.opt_text(18)?,
    })
}

/// What a step learned about a dataset: each `Some` replaces the stored value.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    pub state: Option<String>,
    pub covered_from: Option<String>,
    pub data_through: Option<String>,
    /// A load succeeded now with this many rows.
    pub loaded: Option<i64>,
    pub next_run_ms: Option<i64>,
    /// `Some(None)` clears the last error.
    pub error: Option<Option<Value>>,
    pub note: Option<Option<String>>,
    /// A run finished, having read these days (ISO dates), when the provider was still
    /// restating the days from `restating_from`.
    pub last_run: Option<(String, String)>,
    pub restating_from: Option<String>,
    /// A run was planned when the provider reached back to this day.
    pub reach_from: Option<String>,
}

/// A dataset to make sure of ([`Sync::ensure`]).
#[derive(Debug, Clone)]
pub struct Wanted {
    pub seller_id: i64,
    pub dataset: String,
    pub merchant: String,
    /// The job that syncs it.
    pub job: NewJob,
}

/// The sync aggregate.
pub struct Sync<'a>(pub(crate) &'a Db);

impl Sync<'_> {
    /// Makes `tenant`'s warehouse managed, filled through `loader`; false if it already was.
    pub async fn manage(&self, tenant: &TenantId, loader: &str) -> Result<bool> {
        let n = self
            .0
            .exec(
                "INSERT INTO sync_warehouses (tenant_id, loader, created_ms) VALUES (?1, ?2, ?3)
                 ON CONFLICT (tenant_id) DO NOTHING",
                args![tenant.as_str(), loader, now_ms()],
            )
            .await?;
        Ok(n == 1)
    }

    /// Asks the workers to take a managed tenant's connections in (a connection added outside
    /// the server, by `admin connection add`): queues one [`AdoptJob`] unless one is
    /// already waiting, whichever process asks; `false` for an external warehouse.
    pub async fn request_adopt(&self, tenant: &TenantId) -> Result<bool> {
        let tenant = tenant.as_str().to_owned();
        let kind = AdoptJob::KIND;
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("sync:{tenant}")).await?;
                    let managed = tx
                        .one(
                            "SELECT 1 FROM sync_warehouses WHERE tenant_id = ?1",
                            args![tenant.as_str()],
                        )
                        .await?;
                    if managed.is_none() {
                        return Ok(false);
                    }
                    let waiting = tx
                        .one(
                            "SELECT 1 FROM jobs WHERE tenant_id = ?1 AND kind = ?2 AND status = 'queued'",
                            args![tenant.as_str(), kind],
                        )
                        .await?;
                    if waiting.is_none() {
                        AdoptJob {}.enqueue_in(tx, &tenant).await?;
                    }
                    Ok(true)
                })
            })
            .await
    }

    /// The locator a managed tenant's loader writes through; `None` for an external warehouse.
    pub async fn loader(&self, tenant: &TenantId) -> Result<Option<String>> {
        self.0
            .one(
                "SELECT loader FROM sync_warehouses WHERE tenant_id = ?1",
                args![tenant.as_str()],
            )
            .await?
            .map(|r| r.text(0))
            .transpose()
    }

    /// A managed tenant's own sync settings (what the sync service reads them as is its own
    /// business); `None` when it has none or the warehouse is external.
    pub async fn settings(&self, tenant: &TenantId) -> Result<Option<Value>> {
        self.0
            .one(
                "SELECT settings FROM sync_warehouses WHERE tenant_id = ?1",
                args![tenant.as_str()],
            )
            .await?
            .map(|r| r.opt_json(0))
            .transpose()
            .map(Option::flatten)
    }

    /// Replaces a managed tenant's own sync settings (`None` goes back to the service's);
    /// false when the tenant's warehouse is not managed.
    pub async fn set_settings(&self, tenant: &TenantId, settings: Option<&Value>) -> Result<bool> {
        let n = self
            .0
            .exec(
                "UPDATE sync_warehouses SET settings = ?2 WHERE tenant_id = ?1",
                args![tenant.as_str(), settings.map(Value::to_string)],
            )
            .await?;
        Ok(n == 1)
    }

    /// Makes sure each wanted dataset has its row and a live job (one that has not ended);
    /// the ids of the jobs it queued.
    pub async fn ensure(&self, tenant: &TenantId, wanted: Vec<Wanted>) -> Result<Vec<String>> {
        let tenant = tenant.as_str().to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("sync:{tenant}")).await?;
                    let mut queued = Vec::new();
                    let now = now_ms();
                    for w in wanted {
                        let live = tx
                            .one(
                                "SELECT 1 FROM sync_datasets d JOIN jobs j ON j.id = d.job_id
                                 WHERE d.tenant_id = ?1 AND d.seller_id = ?2 AND d.dataset = ?3
                                   AND j.status IN ('queued', 'running')",
                                args![tenant.as_str(), w.seller_id, w.dataset.as_str()],
                            )
                            .await?;
                        if live.is_some() {
                            continue;
                        }
                        let id = w.job.insert_in(tx, &tenant).await?;
                        tx.exec(
                            "INSERT INTO sync_datasets (tenant_id, seller_id, dataset, merchant, state, job_id, next_run_ms, updated_ms)
                             VALUES (?1, ?2, ?3, ?4, 'backfilling', ?5, ?6, ?6)
                             ON CONFLICT (tenant_id, seller_id, dataset) DO UPDATE SET job_id = ?5, merchant = ?4, next_run_ms = ?6, updated_ms = ?6",
                            args![tenant.as_str(), w.seller_id, w.dataset.as_str(), w.merchant.as_str(), &id, now],
                        )
                        .await?;
                        queued.push(id);
                    }
                    Ok(queued)
                })
            })
            .await
    }

    /// Every dataset row of `tenant`, by merchant then dataset.
    pub async fn list(&self, tenant: &TenantId) -> Result<Vec<DatasetRow>> {
        self.0
            .all(
                format!("SELECT {COLUMNS} FROM sync_datasets WHERE tenant_id = ?1 ORDER BY seller_id, dataset"),
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(dataset)
            .collect()
    }

    /// One dataset row.
    pub async fn get(
        &self,
        tenant: &TenantId,
        seller_id: i64,
        name: &str,
    ) -> Result<Option<DatasetRow>> {
        self.0
            .one(
                format!("SELECT {COLUMNS} FROM sync_datasets WHERE tenant_id = ?1 AND seller_id = ?2 AND dataset = ?3"),
                args![tenant.as_str(), seller_id, name],
            )
            .await?
            .as_ref()
            .map(dataset)
            .transpose()
    }

    /// Records what a step learned.
    pub async fn record(
        &self,
        tenant: &TenantId,
        seller_id: i64,
        name: &str,
        p: Progress,
    ) -> Result<()> {
        let now = now_ms();
        let (set_error, error) = match p.error {
            Some(e) => (1, e.map(|v| v.to_string())),
            None => (0, None),
        };
        let (set_note, note) = match p.note {
            Some(n) => (1, n),
            None => (0, None),
        };
        let (run_from, run_to) = p.last_run.unzip();
        self.0
            .exec(
                "UPDATE sync_datasets SET
                    state = COALESCE(?4, state),
                    covered_from = COALESCE(?5, covered_from),
                    data_through = COALESCE(?6, data_through),
                    last_rows = COALESCE(?7, last_rows),
                    last_success_ms = CASE WHEN ?7 IS NULL THEN last_success_ms ELSE ?12 END,
                    first_load_ms = CASE WHEN ?7 IS NULL THEN first_load_ms ELSE COALESCE(first_load_ms, ?12) END,
                    next_run_ms = COALESCE(?8, next_run_ms),
                    last_error = CASE WHEN ?9 = 1 THEN ?10 ELSE last_error END,
                    note = CASE WHEN ?11 = 1 THEN ?13 ELSE note END,
                    last_run_from = COALESCE(?14, last_run_from),
                    last_run_to = COALESCE(?15, last_run_to),
                    restating_from = COALESCE(?16, restating_from),
                    reach_from = COALESCE(?17, reach_from),
                    updated_ms = ?12
                 WHERE tenant_id = ?1 AND seller_id = ?2 AND dataset = ?3",
                args![
                    tenant.as_str(),
                    seller_id,
                    name,
                    p.state,
                    p.covered_from,
                    p.data_through,
                    p.loaded,
                    p.next_run_ms,
                    set_error,
                    error,
                    set_note,
                    now,
                    note,
                    run_from,
                    run_to,
                    p.restating_from,
                    p.reach_from
                ],
            )
            .await?;
        Ok(())
    }

    /// Across every tenant: how many warehouses are managed, and how many datasets are in
    /// each state (what `/health` shows; no tenant is named).
    pub async fn overview(&self) -> Result<(i64, Vec<(String, i64)>)> {
        let managed = self
            .0
            .one("SELECT count(*) FROM sync_warehouses", args![])
            .await?
            .map(|r| r.i64(0))
            .transpose()?
            .unwrap_or(0);
        let states = self
            .0
            .all(
                "SELECT state, count(*) FROM sync_datasets GROUP BY state ORDER BY state",
                args![],
            )
            .await?
            .iter()
            .map(|r| Ok((r.text(0)?, r.i64(1)?)))
            .collect::<Result<_>>()?;
        Ok((managed, states))
    }

    /// Brings the waiting jobs of `tenant`'s datasets (one seller's, when named) forward to
    /// now; how many moved.
    pub async fn wake(&self, tenant: &TenantId, seller_id: Option<i64>) -> Result<u64> {
        self.wake_where(tenant, seller_id, "").await
    }

    /// A person's "sync now": brings forward only the datasets between runs (`synced`,
    /// `failing` and waiting to try again, or `paused` until its connection works: a paused
    /// one only reads its connection's state, no provider call). One mid-run (backfilling, waiting for a report or
    /// its usage plan's next slot) is left to its own pace — waking it would only spend the
    /// provider's quota on an early poll — and one already due is not moved again, so
    /// repeated starts collapse into the first. How many moved.
    pub async fn wake_idle(&self, tenant: &TenantId, seller_id: Option<i64>) -> Result<u64> {
        self.wake_where(
            tenant,
            seller_id,
            "AND state IN ('synced', 'failing', 'paused')",
        )
        .await
    }

    async fn wake_where(
        &self,
        tenant: &TenantId,
        seller_id: Option<i64>,
        states: &str,
    ) -> Result<u64> {
        self.0
            .exec(
                format!(
                    "UPDATE jobs SET run_after = ?3 WHERE status = 'queued' AND run_after > ?3 AND id IN
                        (SELECT job_id FROM sync_datasets WHERE tenant_id = ?1 AND (?2 IS NULL OR seller_id = ?2) {states})"
                ),
                args![tenant.as_str(), seller_id, now_ms()],
            )
            .await
    }
}
