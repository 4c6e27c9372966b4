//! Jobs as rows: long provider work (pricing runs, report polling) is a row with a status that
//! reaches a terminal value, a JSON input, a checkpoint (`state`) and progress. Work runs in
//! steps: a worker claims a ready job under a lease, runs one step, and writes the step's
//! outcome (and any item results) in one transaction. Claiming is a single `UPDATE … RETURNING`,
//! so two workers, in one process or several on one store, never hold the same job; a job
//! whose worker died is claimed again once its lease runs out, so a restart loses nothing.
//!
//! Statuses: `queued` (waiting for `run_after`; between steps too), `running` (a worker holds
//! it), and the terminal `succeeded`, `failed`, `cancelled` (by its tenant).

use pp_core::{Result, TenantId};
use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use crate::{Store, db_err, now_rfc3339};

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

fn row(r: &rusqlite::Row) -> rusqlite::Result<Job> {
    // a stored value that no longer parses is a failure to read, never a default
    let broken = |i: usize, what: String| {
        rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, what.into())
    };
    let json = |i: usize| -> rusqlite::Result<Value> {
        let s: String = r.get(i)?;
        serde_json::from_str(&s).map_err(|e| broken(i, format!("job JSON column {i}: {e}")))
    };
    let status: String = r.get(4)?;
    Ok(Job {
        id: r.get(0)?,
        tenant: r.get(1)?,
        kind: r.get(2)?,
        merchant: r.get(3)?,
        status: JobStatus::parse(&status).map_err(|e| broken(4, e.message().to_owned()))?,
        done: r.get(5)?,
        total: r.get(6)?,
        attempts: r.get(7)?,
        input: json(8)?,
        state: json(9)?,
        error: match r.get::<_, Option<String>>(10)? {
            None => None,
            Some(_) => Some(json(10)?),
        },
        run_after: r.get(11)?,
        created_at: r.get(12)?,
        updated_at: r.get(13)?,
        finished_at: r.get(14)?,
    })
}

impl Store {
    /// Adds a queued job, ready now, and returns its id.
    pub fn enqueue_job(
        &self,
        tenant: &TenantId,
        kind: &str,
        merchant: Option<&str>,
        total: i64,
        input: &Value,
    ) -> Result<String> {
        let id = crate::random_id("job_", 12)?;
        let now = now_rfc3339();
        self.with_conn(|c| {
            c.execute(
                "INSERT INTO jobs (id, tenant_id, kind, merchant, status, progress_done, progress_total, attempts, input, state, run_after, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, 'queued', 0, ?5, 0, ?6, '{}', ?7, ?8, ?8)",
                params![id, tenant.as_str(), kind, merchant, total, input.to_string(), now_ms(), now],
            )
            .map_err(db_err)?;
            Ok(())
        })?;
        Ok(id)
    }

    /// Claims a ready job (or one whose lease ran out) for `owner` until `lease_ms` from now,
    /// fairly: never one of a tenant already running `per_tenant` jobs, and among the rest the
    /// tenant, then the merchant, with the fewest running, then the one that has waited longest.
    pub fn claim_job(&self, owner: &str, lease_ms: i64, per_tenant: i64) -> Result<Option<Job>> {
        let now = now_ms();
        const READY: &str =
            "(status = 'queued' AND run_after <= ?1) OR (status = 'running' AND lease_until < ?1)";
        self.with_conn(|c| {
            // an idle poll stays a read: only a ready job is worth the write lock
            let ready: Option<i64> = c
                .query_row(&format!("SELECT 1 FROM jobs WHERE {READY} LIMIT 1"), params![now], |r| r.get(0))
                .optional()
                .map_err(db_err)?;
            if ready.is_none() {
                return Ok(None);
            }
            // each ready job with how many of its tenant's (and merchant's) jobs run now
            const RUNNING: &str = "SELECT count(*) FROM jobs r WHERE r.status = 'running' AND r.lease_until >= ?4 AND r.tenant_id = j.tenant_id";
            c.query_row(
                &format!(
                    "UPDATE jobs SET status = 'running', lease_owner = ?1, lease_until = ?2, attempts = attempts + 1, updated_at = ?3
                     WHERE id = (SELECT id FROM (
                                   SELECT j.id, j.run_after, ({RUNNING}) AS tenant_running,
                                          ({RUNNING} AND r.merchant IS j.merchant) AS merchant_running
                                   FROM jobs j
                                   WHERE (j.status = 'queued' AND j.run_after <= ?4) OR (j.status = 'running' AND j.lease_until < ?4))
                                 WHERE tenant_running < ?5
                                 ORDER BY tenant_running, merchant_running, run_after LIMIT 1)
                     RETURNING {COLUMNS}"
                ),
                params![owner, now + lease_ms, now_rfc3339(), now, per_tenant],
                row,
            )
            .optional()
            .map_err(db_err)
        })
    }

    /// Extends `owner`'s lease; false when the job is no longer its own.
    pub fn renew_job(&self, id: &str, owner: &str, lease_ms: i64) -> Result<bool> {
        self.with_conn(|c| {
            let n = c
                .execute(
                    "UPDATE jobs SET lease_until = ?3 WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                    params![id, owner, now_ms() + lease_ms],
                )
                .map_err(db_err)?;
            Ok(n == 1)
        })
    }

    /// Records a step's outcome and items in one transaction, if `owner` still holds the job;
    /// false (and nothing written) when it does not.
    pub fn finish_step(
        &self,
        id: &str,
        owner: &str,
        outcome: &Outcome,
        items: &[Item],
    ) -> Result<bool> {
        let now = now_rfc3339();
        self.with_conn(|c| {
            let tx = c.transaction().map_err(db_err)?;
            let n = match outcome {
                Outcome::Continue { state, done, run_after } => tx.execute(
                    "UPDATE jobs SET status = 'queued', state = ?3, progress_done = ?4, run_after = ?5, lease_owner = NULL, lease_until = NULL, updated_at = ?6
                     WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                    params![id, owner, state.to_string(), done, run_after, now],
                ),
                Outcome::Succeeded { state, done } => tx.execute(
                    "UPDATE jobs SET status = 'succeeded', state = ?3, progress_done = ?4, lease_owner = NULL, lease_until = NULL, updated_at = ?5, finished_at = ?5
                     WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                    params![id, owner, state.to_string(), done, now],
                ),
                Outcome::Failed { state, error } => tx.execute(
                    "UPDATE jobs SET status = 'failed', state = ?3, error = ?4, lease_owner = NULL, lease_until = NULL, updated_at = ?5, finished_at = ?5
                     WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                    params![id, owner, state.to_string(), error.to_string(), now],
                ),
            }
            .map_err(db_err)?;
            if n != 1 {
                return Ok(false);
            }
            for it in items {
                tx.execute(
                    "INSERT OR IGNORE INTO job_items (job_id, seq, key, value) VALUES (?1, ?2, ?3, ?4)",
                    params![id, it.seq, it.key, it.value.to_string()],
                )
                .map_err(db_err)?;
            }
            tx.commit().map_err(db_err)?;
            Ok(true)
        })
    }

    /// Hands a running job back to the queue (a worker stopping between steps).
    pub fn release_job(&self, id: &str, owner: &str) -> Result<()> {
        self.with_conn(|c| {
            c.execute(
                "UPDATE jobs SET status = 'queued', lease_owner = NULL, lease_until = NULL WHERE id = ?1 AND lease_owner = ?2 AND status = 'running'",
                params![id, owner],
            )
            .map_err(db_err)?;
            Ok(())
        })
    }

    /// Cancels one of the tenant's unfinished jobs: false when it is finished or not the
    /// tenant's. A step in flight finishes but is not recorded.
    pub fn cancel_job(&self, tenant: &TenantId, id: &str) -> Result<bool> {
        let now = now_rfc3339();
        self.with_conn(|c| {
            let n = c
                .execute(
                    "UPDATE jobs SET status = 'cancelled', lease_owner = NULL, lease_until = NULL, updated_at = ?3, finished_at = ?3
                     WHERE id = ?1 AND tenant_id = ?2 AND status IN ('queued', 'running')",
                    params![id, tenant.as_str(), now],
                )
                .map_err(db_err)?;
            Ok(n == 1)
        })
    }

    /// One of the tenant's jobs (another tenant's is `None`).
    pub fn job(&self, tenant: &TenantId, id: &str) -> Result<Option<Job>> {
        self.with_conn(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM jobs WHERE id = ?1 AND tenant_id = ?2"),
                params![id, tenant.as_str()],
                row,
            )
            .optional()
            .map_err(db_err)
        })
    }

    /// A job's recorded items, in `seq` order.
    pub fn job_items(&self, id: &str) -> Result<Vec<(String, Value)>> {
        self.with_conn(|c| {
            let mut st = c
                .prepare("SELECT key, value FROM job_items WHERE job_id = ?1 ORDER BY seq")
                .map_err(db_err)?;
            let rows = st
                .query_map(params![id], |r| {
                    let v: String = r.get(1)?;
                    Ok((r.get(0)?, serde_json::from_str(&v).unwrap_or(Value::Null)))
                })
                .map_err(db_err)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_err)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// One tenant's backlog cannot take every worker: past its cap the next claim goes to
    /// another tenant, and the least busy tenant (then merchant) goes first.
    #[test]
    fn claims_are_fair_between_tenants_and_merchants() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (a, b) = (TenantId::parse("a").unwrap(), TenantId::parse("b").unwrap());
        store.create_tenant(&a, "A", "a.sqlite").unwrap();
        store.create_tenant(&b, "B", "b.sqlite").unwrap();
        for m in ["m1", "m1", "m1", "m2"] {
            store
                .enqueue_job(&a, "test", Some(m), 1, &json!({}))
                .unwrap();
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
        let later = store
            .enqueue_job(&b, "test", Some("m9"), 1, &json!({}))
            .unwrap();
        let first = store.claim_job("w1", 60_000, 2).unwrap().unwrap();
        assert_eq!(
            (first.tenant.as_str(), first.merchant.as_deref()),
            ("a", Some("m1"))
        );
        // b has nothing running, so its later job goes before a's older ones
        assert_eq!(store.claim_job("w2", 60_000, 2).unwrap().unwrap().id, later);
        // a's next is its other merchant, which has nothing running
        let third = store.claim_job("w3", 60_000, 2).unwrap().unwrap();
        assert_eq!(third.merchant.as_deref(), Some("m2"));
        // a is at its cap of 2: its remaining jobs wait though a worker is free
        assert!(store.claim_job("w4", 60_000, 2).unwrap().is_none());
    }

    #[test]
    fn a_job_is_claimed_once_stepped_and_reclaimed_after_its_lease() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let t = TenantId::parse("acme").unwrap();
        store.create_tenant(&t, "Acme", "acme.sqlite").unwrap();
        let id = store
            .enqueue_job(&t, "test", None, 2, &json!({"n": 2}))
            .unwrap();
        let a = store.claim_job("a", 60_000, 10).unwrap().unwrap();
        assert_eq!((a.id.as_str(), a.attempts), (id.as_str(), 1));
        assert!(
            store.claim_job("b", 60_000, 10).unwrap().is_none(),
            "held by a"
        );
        let step = Outcome::Continue {
            state: json!({"next": 1}),
            done: 1,
            run_after: now_ms(),
        };
        let item = |seq| Item {
            seq,
            key: format!("k{seq}"),
            value: json!(seq),
        };
        assert!(
            !store.finish_step(&id, "b", &step, &[item(0)]).unwrap(),
            "not b's"
        );
        assert!(store.finish_step(&id, "a", &step, &[item(0)]).unwrap());
        // a worker that dies mid-step: its lease runs out and another takes the job
        let b = store.claim_job("b", -1, 10).unwrap().unwrap();
        assert_eq!(b.state, json!({"next": 1}));
        let c = store.claim_job("c", 60_000, 10).unwrap().unwrap();
        assert_eq!(c.attempts, 3);
        assert!(!store.renew_job(&id, "b", 60_000).unwrap());
        let done = Outcome::Succeeded {
            state: json!({}),
            done: 2,
        };
        assert!(
            store
                .finish_step(&id, "c", &done, &[item(0), item(1)])
                .unwrap()
        );
        assert_eq!(store.job_items(&id).unwrap().len(), 2, "seq 0 once");
        let j = store.job(&t, &id).unwrap().unwrap();
        assert_eq!((j.status, j.done), (JobStatus::Succeeded, 2));
        assert!(store.claim_job("d", 60_000, 10).unwrap().is_none());
        assert!(
            !store.cancel_job(&t, &id).unwrap(),
            "finished jobs stay as they are"
        );
        let other = store.enqueue_job(&t, "test", None, 1, &json!({})).unwrap();
        store.claim_job("e", 60_000, 10).unwrap().unwrap();
        assert!(
            !store
                .cancel_job(&TenantId::parse("zeta").unwrap(), &other)
                .unwrap()
        );
        assert!(store.cancel_job(&t, &other).unwrap());
        assert!(
            !store.finish_step(&other, "e", &done, &[]).unwrap(),
            "a cancelled step is dropped"
        );
        assert_eq!(
            store.job(&t, &other).unwrap().unwrap().status,
            JobStatus::Cancelled
        );
        assert!(
            store
                .job(&TenantId::parse("other").unwrap(), &id)
                .unwrap()
                .is_none()
        );
    }
}
