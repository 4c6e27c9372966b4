//! Intelligence runs: one row per run, synchronous or asynchronous (the meter: runs and
//! compute time per request id), the computing slots that cap how many runs one account holds
//! at once — counted here, so every gateway instance on the store sees the same count — and
//! the accounts an administrator switched intelligence off for (on is the default, docs/concepts/scopes.md).
//!
//! A slot carries a lease: a process that dies mid-run frees its slots when the lease runs
//! out, so a crash never leaves an account `busy` for good.

use pp_core::{Error, Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Db, Row, Tx};
use crate::jobs::now_ms;

/// A run's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// Waiting for a worker (asynchronous runs).
    Queued,
    /// Holding its slots and computing.
    Computing,
    Succeeded,
    Failed,
}

pp_core::spelled!(RunStatus, "run status", Queued => "queued", Computing => "computing",
    Succeeded => "succeeded", Failed => "failed");

impl RunStatus {
    /// Whether the run has ended.
    pub fn terminal(self) -> bool {
        matches!(self, Self::Succeeded | Self::Failed)
    }
}

/// A run as stored.
#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: String,
    pub tenant: String,
    pub request_id: String,
    pub request_version: String,
    /// The accounts whose slots the run takes (`seller:<id>`).
    pub accounts: Vec<String>,
    pub params: Value,
    /// `sync` or `async`.
    pub mode: String,
    pub status: RunStatus,
    pub job_id: Option<String>,
    pub actor: String,
    pub credential_id: String,
    pub surface: String,
    pub result: Option<Value>,
    pub error: Option<Value>,
    pub created_ms: i64,
    pub started_ms: Option<i64>,
    pub finished_ms: Option<i64>,
    pub compute_ms: Option<i64>,
}

/// A run as it is first stored (`queued`; the rest of a [`RunRow`] fills in as it runs).
#[derive(Debug, Clone)]
pub struct NewRun {
    pub id: String,
    pub tenant: String,
    pub request_id: String,
    pub request_version: String,
    /// The accounts whose slots the run takes (`seller:<id>`).
    pub accounts: Vec<String>,
    pub params: Value,
    /// `sync` or `async`.
    pub mode: String,
    pub actor: String,
    pub credential_id: String,
    pub surface: String,
}

/// How many computing runs may hold slots at once.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    /// Per account (the spec's two).
    pub per_account: i64,
    /// Across the whole service.
    pub total: i64,
    /// How long a slot holds without its run finishing.
    pub lease_ms: i64,
}

/// Which cap a refused run met.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// This account already holds `per_account` computing runs.
    Account(String),
    /// The service holds `total` computing runs.
    Service,
}

/// One request id's use by a tenant.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Meter {
    pub request_id: String,
    pub runs: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub compute_ms: i64,
}

/// An account intelligence is switched off for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptOut {
    pub seller_id: i64,
    pub reason: Option<String>,
    pub changed_by: String,
    pub changed_ms: i64,
}

const COLS: &str = "id, tenant_id, request_id, request_version, accounts, params, mode, status, job_id, actor, credential_id, surface, result, error, created_ms, started_ms, finished_ms, compute_ms";

fn run(r: &Row) -> Result<RunRow> {
    let accounts = match r.json(4)? {
        Value::Array(a) => a
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Ok(s),
                other => Err(Error::internal(format!("run account {other} is not text"))),
            })
            .collect::<Result<_>>()?,
        other => {
            return Err(Error::internal(format!(
                "run accounts {other} is not a list"
            )));
        }
    };
    Ok(RunRow {
        id: r.text(0)?,
        tenant: r.text(1)?,
        request_id: r.text(2)?,
        request_version: r.text(3)?,
        accounts,
        params: r.json(5)?,
        mode: r.text(6)?,
        status: RunStatus::parse(&r.text(7)?)?,
        job_id: r.opt_text(8)?,
        actor: r.text(9)?,
        credential_id: r.text(10)?,
        surface: r.text(11)?,
        result: r.opt_json(12)?,
        error: r.opt_json(13)?,
        created_ms: r.i64(14)?,
        started_ms: r.opt_i64(15)?,
        finished_ms: r.opt_i64(16)?,
        compute_ms: r.opt_i64(17)?,
    })
}

/// Takes a slot on each of `accounts` for `run_id`, or none: the refusal names the cap met.
async fn take_in(
    tx: &mut Tx,
    tenant: &str,
    run_id: &str,
    accounts: &[String],
    caps: Caps,
) -> Result<Option<Refusal>> {
    let now = now_ms();
    tx.advisory_lock("intelligence-slots").await?;
    tx.exec(
        "DELETE FROM intelligence_slots WHERE lease_until_ms < ?1",
        args![now],
    )
    .await?;
    let total = tx
        .one(
            "SELECT COUNT(DISTINCT run_id) FROM intelligence_slots WHERE run_id <> ?1",
            args![run_id],
        )
        .await?
        .map(|r| r.i64(0))
        .transpose()?
        .unwrap_or(0);
    if total >= caps.total {
        return Ok(Some(Refusal::Service));
    }
    for a in accounts {
        let held = tx
            .one(
                "SELECT COUNT(*) FROM intelligence_slots WHERE tenant_id = ?1 AND account = ?2 AND run_id <> ?3",
                args![tenant, a.as_str(), run_id],
            )
            .await?
            .map(|r| r.i64(0))
            .transpose()?
            .unwrap_or(0);
        if held >= caps.per_account {
            return Ok(Some(Refusal::Account(a.clone())));
        }
    }
    for a in accounts {
        tx.exec(
            "INSERT INTO intelligence_slots (run_id, account, tenant_id, lease_until_ms) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (run_id, account) DO UPDATE SET lease_until_ms = excluded.lease_until_ms",
            args![run_id, a.as_str(), tenant, now + caps.lease_ms],
        )
        .await?;
    }
    tx.exec(
        "UPDATE intelligence_runs SET status = 'computing', started_ms = ?2 WHERE id = ?1 AND status IN ('queued', 'computing')",
        args![run_id, now],
    )
    .await?;
    Ok(None)
}

/// The intelligence aggregate.
pub struct Intelligence<'a>(pub(crate) &'a Db);

impl Intelligence<'_> {
    /// Stores a new run as `queued` (it takes its slots when it starts computing).
    pub async fn insert(&self, r: &NewRun) -> Result<()> {
        let accounts = serde_json::to_string(&r.accounts).map_err(Error::internal_from)?;
        self.0
            .exec(
                format!("INSERT INTO intelligence_runs ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'queued', NULL, ?8, ?9, ?10, NULL, NULL, ?11, NULL, NULL, NULL)"),
                args![
                    r.id.as_str(), r.tenant.as_str(), r.request_id.as_str(), r.request_version.as_str(),
                    accounts, r.params.to_string(), r.mode.as_str(),
                    r.actor.as_str(), r.credential_id.as_str(), r.surface.as_str(), now_ms()
                ],
            )
            .await?;
        Ok(())
    }

    /// Records the job an asynchronous run rides on.
    pub async fn set_job(&self, run_id: &str, job_id: &str) -> Result<()> {
        self.0
            .exec(
                "UPDATE intelligence_runs SET job_id = ?2 WHERE id = ?1",
                args![run_id, job_id],
            )
            .await?;
        Ok(())
    }

    /// Takes a computing slot on every one of the run's accounts, atomically across every
    /// instance on the store, and marks the run `computing`; `Some(refusal)` (and nothing
    /// taken) when an account, or the service, is at its cap.
    pub async fn start(
        &self,
        tenant: &TenantId,
        run_id: &str,
        accounts: &[String],
        caps: Caps,
    ) -> Result<Option<Refusal>> {
        let (tenant, run_id, accounts) = (
            tenant.as_str().to_owned(),
            run_id.to_owned(),
            accounts.to_vec(),
        );
        self.0
            .tx(move |tx| {
                Box::pin(async move { take_in(tx, &tenant, &run_id, &accounts, caps).await })
            })
            .await
    }

    /// Ends a run: its result or error, how long it computed; frees its slots. A run already
    /// ended stays as it was (false).
    pub async fn finish(
        &self,
        run_id: &str,
        outcome: std::result::Result<&Value, &Value>,
        compute_ms: i64,
    ) -> Result<bool> {
        let (status, result, error) = match outcome {
            Ok(v) => ("succeeded", Some(v.to_string()), None),
            Err(e) => ("failed", None, Some(e.to_string())),
        };
        let n = self
            .0
            .exec(
                "UPDATE intelligence_runs SET status = ?2, result = ?3, error = ?4, finished_ms = ?5, compute_ms = ?6
                 WHERE id = ?1 AND status IN ('queued', 'computing')",
                args![run_id, status, result, error, now_ms(), compute_ms],
            )
            .await?;
        self.release(run_id).await?;
        Ok(n == 1)
    }

    /// Frees a run's slots (a run refused or put back).
    pub async fn release(&self, run_id: &str) -> Result<()> {
        self.0
            .exec(
                "DELETE FROM intelligence_slots WHERE run_id = ?1",
                args![run_id],
            )
            .await?;
        Ok(())
    }

    /// Forgets a run that never computed (refused before it started).
    pub async fn discard(&self, run_id: &str) -> Result<()> {
        self.release(run_id).await?;
        self.0
            .exec(
                "DELETE FROM intelligence_runs WHERE id = ?1 AND status = 'queued'",
                args![run_id],
            )
            .await?;
        Ok(())
    }

    /// The tenant's run `id`.
    pub async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<RunRow>> {
        self.0
            .one(
                format!("SELECT {COLS} FROM intelligence_runs WHERE tenant_id = ?1 AND id = ?2"),
                args![tenant.as_str(), id],
            )
            .await?
            .as_ref()
            .map(run)
            .transpose()
    }

    /// Run `id`, whoever's it is (the job worker's read).
    pub async fn by_id(&self, id: &str) -> Result<Option<RunRow>> {
        self.0
            .one(
                format!("SELECT {COLS} FROM intelligence_runs WHERE id = ?1"),
                args![id],
            )
            .await?
            .as_ref()
            .map(run)
            .transpose()
    }

    /// Computing slots `account` of `tenant` holds now.
    pub async fn holding(&self, tenant: &TenantId, account: &str) -> Result<i64> {
        self.0
            .one(
                "SELECT COUNT(*) FROM intelligence_slots WHERE tenant_id = ?1 AND account = ?2 AND lease_until_ms >= ?3",
                args![tenant.as_str(), account, now_ms()],
            )
            .await?
            .map(|r| r.i64(0))
            .transpose()
            .map(|n| n.unwrap_or(0))
    }

    /// The tenant's runs since `since_ms`, by request id: how many, how they ended, and the
    /// compute time they took.
    pub async fn meter(&self, tenant: &TenantId, since_ms: i64) -> Result<Vec<Meter>> {
        self.0
            .all(
                "SELECT request_id, COUNT(*),
                        CAST(SUM(CASE WHEN status = 'succeeded' THEN 1 ELSE 0 END) AS BIGINT),
                        CAST(SUM(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS BIGINT),
                        CAST(COALESCE(SUM(compute_ms), 0) AS BIGINT)
                 FROM intelligence_runs WHERE tenant_id = ?1 AND created_ms >= ?2
                 GROUP BY request_id ORDER BY request_id",
                args![tenant.as_str(), since_ms],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(Meter {
                    request_id: r.text(0)?,
                    runs: r.i64(1)?,
                    succeeded: r.i64(2)?,
                    failed: r.i64(3)?,
                    compute_ms: r.i64(4)?,
                })
            })
            .collect()
    }

    /// Switches intelligence off (`on: false`, with a reason) or back on for a seller row;
    /// false when it already was so.
    pub async fn set_enrolled(
        &self,
        tenant: &TenantId,
        seller_id: i64,
        on: bool,
        reason: Option<&str>,
        by: &str,
    ) -> Result<bool> {
        let n = if on {
            self.0
                .exec(
                    "DELETE FROM intelligence_optouts WHERE tenant_id = ?1 AND seller_id = ?2",
                    args![tenant.as_str(), seller_id],
                )
                .await?
        } else {
            self.0
                .exec(
                    "INSERT INTO intelligence_optouts (tenant_id, seller_id, reason, changed_by, changed_ms) VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (tenant_id, seller_id) DO NOTHING",
                    args![tenant.as_str(), seller_id, reason, by, now_ms()],
                )
                .await?
        };
        Ok(n == 1)
    }

    /// The tenant's accounts intelligence is switched off for, by seller id.
    pub async fn opt_outs(&self, tenant: &TenantId) -> Result<Vec<OptOut>> {
        self.0
            .all(
                "SELECT seller_id, reason, changed_by, changed_ms FROM intelligence_optouts WHERE tenant_id = ?1 ORDER BY seller_id",
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(OptOut {
                    seller_id: r.i64(0)?,
                    reason: r.opt_text(1)?,
                    changed_by: r.text(2)?,
                    changed_ms: r.i64(3)?,
                })
            })
            .collect()
    }
}
