//! Jobs as rows: long provider work (pricing runs, report polling) is a row with a status that
//! reaches a terminal value, a JSON input, a checkpoint (`state`) and progress. Work runs in
//! steps: a worker claims a ready job under a lease, runs one step, and writes the step's
//! outcome (and any item results) in one transaction. Claiming is a single `UPDATE … RETURNING`
//! (on PostgreSQL over `FOR UPDATE SKIP LOCKED`), so two workers, in one process or in several
//! instances on one store, never hold the same job; a job
//! whose worker died is claimed again once its lease runs out, so a restart loses nothing.
//!
//! Statuses: `queued` (waiting for `run_after`; between steps too), `running` (a worker holds
//! it), and the terminal `succeeded`, `failed`, `cancelled` (by its tenant).

mod kind;
pub mod registry;

pub use kind::{BackgroundJob, Lane, NewJob, Steps, handler};
pub use registry::{Handler, Registry, StepFuture, Stepped};

use pp_core::{Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Db, Dialect, Row};
use crate::now_rfc3339;

/// Jobs of one kind and status that have not ended ([`Jobs::queue`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueRow {
    pub kind: String,
    pub status: JobStatus,
    pub count: i64,
    /// RFC 3339: when the oldest of them was created.
    pub oldest_created_at: String,
}

/// How many of the ready jobs that come first a claim weighs fairness over (see
/// [`Jobs::claim`]).
pub const WINDOW: usize = 256;

/// A job's status, as stored and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Queued,
    Running,
    Succeeded,
    Failed,
    Cancelled,
}

pp_core::spelled!(JobStatus, "job status", Queued => "queued", Running => "running",
    Succeeded => "succeeded", Failed => "failed", Cancelled => "cancelled");

impl JobStatus {
    /// Whether the job has ended.
    pub fn terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed | Self::Cancelled)
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A job as stored.
#[derive(Debug, Clone)]
pub struct Job {
    pub id: String,
    pub tenant: String,
    pub kind: String,
    pub merchant: Option<String>,
    pub status: JobStatus,
    pub done: i64,
    pub total: i64,
    pub attempts: i64,
    pub input: Value,
    pub state: Value,
    pub error: Option<Value>,
    pub run_after: i64,
    pub created_at: String,
    pub updated_at: String,
    pub finished_at: Option<String>,
}

/// What a step decided.
#[derive(Debug)]
pub enum Outcome {
    /// More to do at `run_after` (unix ms), with the new checkpoint and progress.
    Continue {
        state: Value,
        done: i64,
        run_after: i64,
    },
    /// Finished; `state` is the final checkpoint.
    Succeeded { state: Value, done: i64 },
    /// Finished with an error envelope.
    Failed { state: Value, error: Value },
}

/// One item result a step records (`seq` orders them; a repeated `seq` is ignored).
#[derive(Debug)]
pub struct Item {
    pub seq: i64,
    pub key: String,
    pub value: Value,
}

const COLUMNS: &str = "id, tenant_id, kind, merchant, status, progress_done, progress_total, attempts, input, state, error, run_after, created_at, updated_at, finished_at";

fn row(r: &Row) -> Result<Job> {
    // a stored value that no longer parses is a failure to read, never a default
    Ok(Job {
        id: r.text(0)?,
        tenant: r.text(1)?,
        kind: r.text(2)?,
        merchant: r.opt_text(3)?,
        status: JobStatus::parse(&r.text(4)?)?,
        done: r.i64(5)?,
        total: r.i64(6)?,
        attempts: r.i64(7)?,
        input: r.json(8)?,
        state: r.json(9)?,
        error: r.opt_json(10)?,
        run_after: r.i64(11)?,
        created_at: r.text(12)?,
        updated_at: r.text(13)?,
        finished_at: r.opt_text(14)?,
    })
}

/// The jobs aggregate.
pub struct Jobs<'a>(pub(crate) &'a Db);

impl Jobs<'_> {
    /// Queues `job` for `tenant`; its id.
    pub async fn enqueue<J: BackgroundJob>(&self, tenant: &TenantId, job: &J) -> Result<String> {
        let (id, sql, values) = job.new_job()?.statement(tenant.as_str())?;
        self.0.exec(sql, values).await?;
        Ok(id)
    }

    /// Queues `job` for `tenant` unless one of its kind is already waiting (not yet started)
    /// for the same merchant; whether it queued one. Two instances asking at once queue one.
    pub async fn enqueue_once<J: BackgroundJob>(&self, tenant: &TenantId, job: &J) -> Result<bool> {
        let new = job.new_job()?;
        let (tenant, merchant) = (tenant.as_str().to_owned(), job.merchant());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("jobs/{tenant}/{}", J::KIND)).await?;
                    let waiting = tx
                        .one(
                            "SELECT 1 FROM jobs WHERE tenant_id = ?1 AND kind = ?2 AND merchant IS NOT DISTINCT FROM ?3 AND status = 'queued'",
                            args![&tenant, J::KIND, merchant],
                        )
                        .await?;
                    if waiting.is_some() {
                        return Ok(false);
                    }
                    new.insert_in(tx, &tenant).await?;
                    Ok(true)
                })
            })
            .await
    }

    /// Claims the fairest ready job for `owner` under a lease of `lease_ms`: a queued job
    /// whose time has come, or a running one whose lease ran out. A tenant already running
    /// `per_tenant` jobs waits; among the [`WINDOW`] ready jobs of the others that come first
    /// (a job someone waits for, [`Lane::Waited`], before the background's, then the oldest),
    /// a job someone waits for goes first, then the tenant (then the merchant) with the fewest
    /// running, then the oldest.
    pub async fn claim(&self, owner: &str, lease_ms: i64, per_tenant: i64) -> Result<Option<Job>> {
        let now = now_ms();
        // an idle poll stays a read: only a ready job is worth the write
        let ready = self
            .0
            .one(
                "SELECT 1 FROM jobs WHERE (status = 'queued' AND run_after <= ?1) OR (status = 'running' AND lease_until < ?1) LIMIT 1",
                args![now],
            )
            .await?;
        if ready.is_none() {
            return Ok(None);
        }
        // fairness is a property of a (tenant, merchant) group, not of a row, and it is
        // weighed over a window of the ready jobs that come first, not over all of them: a
        // claim that grouped every ready job cost in proportion to the queue (129 ms with
        // 17,000 ready at 500 tenants, and sixteen workers claiming took the state database's
        // CPU). The window leaves out the tenants at their cap, so a tenant with thousands of
        // old jobs cannot fill it and hide the others'; it is read in the index's order
        // (`jobs_claim`: status, lane, run_after), so it costs the window, not the queue.
        let lock = match self.0.dialect() {
            Dialect::Sqlite => "",
            // PostgreSQL: another instance's claim in flight holds its row; skip it, never wait
            Dialect::Postgres => " FOR UPDATE OF j SKIP LOCKED",
        };
        const READY: &str = "((j.status = 'queued' AND j.run_after <= ?4) OR (j.status = 'running' AND j.lease_until < ?4))";
        let rows = self
            .0
            .all(
                format!(
                    "UPDATE jobs SET status = 'running', lease_owner = ?1, lease_until = ?2, attempts = attempts + 1, updated_at = ?3
                     WHERE id = (
                       WITH running AS (SELECT tenant_id, merchant, count(*) AS n FROM jobs
                                        WHERE status = 'running' AND lease_until >= ?4
                                        GROUP BY tenant_id, merchant),
                            by_tenant AS (SELECT tenant_id, sum(n) AS n FROM running GROUP BY tenant_id),
                            capped AS (SELECT tenant_id FROM by_tenant WHERE n >= ?5),
                            queued AS (SELECT * FROM (
                                         SELECT id, tenant_id, merchant, lane, run_after FROM jobs
                                         WHERE status = 'queued' AND run_after <= ?4
                                           AND tenant_id NOT IN (SELECT tenant_id FROM capped)
                                         ORDER BY lane, run_after LIMIT {WINDOW}) q),
                            lapsed AS (SELECT * FROM (
                                         SELECT id, tenant_id, merchant, lane, run_after FROM jobs
                                         WHERE status = 'running' AND lease_until < ?4
                                           AND tenant_id NOT IN (SELECT tenant_id FROM capped)
                                         ORDER BY lease_until LIMIT {WINDOW}) l),
                            win AS (SELECT * FROM queued UNION ALL SELECT * FROM lapsed),
                            ready AS (SELECT tenant_id, merchant, MIN(lane) AS lane, MIN(run_after) AS first
                                      FROM win GROUP BY tenant_id, merchant),
                            pick AS (SELECT g.tenant_id AS t, g.merchant AS m FROM ready g
                                     LEFT JOIN by_tenant bt ON bt.tenant_id = g.tenant_id
                                     LEFT JOIN running bm ON bm.tenant_id = g.tenant_id
                                                         AND bm.merchant IS NOT DISTINCT FROM g.merchant
                                     ORDER BY g.lane, COALESCE(bt.n, 0), COALESCE(bm.n, 0), g.first
                                     LIMIT 1)
                       SELECT j.id FROM jobs j, win w, pick
                       WHERE j.id = w.id AND {READY} AND w.tenant_id = pick.t AND w.merchant IS NOT DISTINCT FROM pick.m
                       ORDER BY w.lane, w.run_after
                       LIMIT 1{lock})
                     RETURNING {COLUMNS}"
                ),
                args![owner, now + lease_ms, now_rfc3339(), now, per_tenant],
            )
            .await?;
        rows.first().map(row).transpose()
    }

    /// Extends `owner`'s lease; false if the job is no longer its own.
    pub async fn renew(&self, id: &str, owner: &str, lease_ms: i64) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "UPDATE jobs SET lease_until = ?3 WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                args![id, owner, now_ms() + lease_ms],
            )
            .await?
            == 1)
    }

    /// Writes a step's outcome and item results in one transaction, if `owner` still holds
    /// the job (a cancelled or reclaimed job drops the step); an item already recorded stays.
    /// `ended`, the event a finished job is (its handler's [`Handler::ended`]), is appended in
    /// the same transaction, so a job's end is told once and never lost.
    pub async fn finish_step(
        &self,
        id: &str,
        owner: &str,
        outcome: &Outcome,
        items: &[Item],
        ended: Option<crate::events::NewEvent>,
    ) -> Result<bool> {
        let now = now_rfc3339();
        let (status, state, done, run_after, error) = match outcome {
            Outcome::Continue {
                state,
                done,
                run_after,
            } => ("queued", state, Some(*done), Some(*run_after), None),
            Outcome::Succeeded { state, done } => ("succeeded", state, Some(*done), None, None),
            Outcome::Failed { state, error } => {
                ("failed", state, None, None, Some(error.to_string()))
            }
        };
        let finished = (status != "queued").then(|| now.clone());
        let terminal = finished.is_some();
        let step = args![
            id,
            owner,
            status,
            state.to_string(),
            done,
            run_after,
            error,
            now,
            finished
        ];
        let items: Vec<_> = items
            .iter()
            .map(|it| args![id, it.seq, it.key.as_str(), it.value.to_string()])
            .collect();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let held = tx
                        .one(
                            "UPDATE jobs SET status = ?3, state = ?4,
                                    progress_done = coalesce(?5, progress_done), run_after = coalesce(?6, run_after),
                                    error = coalesce(?7, error), lease_owner = NULL, lease_until = NULL,
                                    updated_at = ?8, finished_at = ?9
                             WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'
                             RETURNING tenant_id",
                            step,
                        )
                        .await?;
                    let Some(held) = held else {
                        return Ok(false);
                    };
                    if let Some(e) = ended.filter(|_| terminal) {
                        crate::events::append_in(tx, &held.text(0)?, &e).await?;
                    }
                    for item in items {
                        tx.exec(
                            "INSERT INTO job_items (job_id, seq, key, value) VALUES (?1, ?2, ?3, ?4)
                             ON CONFLICT (job_id, seq) DO NOTHING",
                            item,
                        )
                        .await?;
                    }
                    Ok(true)
                })
            })
            .await
    }

    /// Gives a held job back to the queue (its worker is stopping).
    pub async fn release(&self, id: &str, owner: &str) -> Result<()> {
        self.0
            .exec(
                "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                args![id, owner],
            )
            .await?;
        Ok(())
    }

    /// Cancels a tenant's unfinished job; false if it is finished, unknown or another's.
    pub async fn cancel(&self, tenant: &TenantId, id: &str) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "UPDATE jobs SET status = 'cancelled', lease_owner = NULL, lease_until = NULL, updated_at = ?3, finished_at = ?3
                 WHERE id = ?1 AND tenant_id = ?2 AND status IN ('queued', 'running')",
                args![id, tenant.as_str(), now_rfc3339()],
            )
            .await?
            == 1)
    }

    /// A tenant's job.
    pub async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<Job>> {
        self.0
            .one(
                format!("SELECT {COLUMNS} FROM jobs WHERE id = ?1 AND tenant_id = ?2"),
                args![id, tenant.as_str()],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// Jobs waiting or running, by kind and status, with the oldest one's creation time.
    pub async fn queue(&self) -> Result<Vec<QueueRow>> {
        let rows = self
            .0
            .all(
                "SELECT kind, status, COUNT(*), MIN(created_at) FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind, status ORDER BY kind, status",
                args![],
            )
            .await?;
        rows.iter()
            .map(|r| {
                Ok(QueueRow {
                    kind: r.text(0)?,
                    status: JobStatus::parse(&r.text(1)?)?,
                    count: r.i64(2)?,
                    oldest_created_at: r.text(3)?,
                })
            })
            .collect()
    }

    /// A job's item results, in order.
    pub async fn items(&self, id: &str) -> Result<Vec<(String, Value)>> {
        self.0
            .all(
                "SELECT key, value FROM job_items WHERE job_id = ?1 ORDER BY seq",
                args![id],
            )
            .await?
            .iter()
            .map(|r| Ok((r.text(0)?, r.json(1)?)))
            .collect()
    }
}
