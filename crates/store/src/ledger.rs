//! The report ledger's rows: every report create's intent, written before it is sent, under a
//! hash of the request (and the caller's `Idempotency-Key`). [`Ledger::decide`] is the
//! exactly-once rule, taken atomically: SQLite holds its write lock for the decision, and
//! PostgreSQL takes advisory locks on the key and on the request, so two instances deciding the
//! same create at once decide one after the other. The hashing and the reconcile live with the
//! marketplace (`pp_marketplace::ledger`, `reports`).

use pp_core::{Error, Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Db, Row, Tx};
use crate::jobs::now_ms;
use crate::now_rfc3339;

/// A ledger row.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: String,
    pub status: String,
    pub hash: String,
    pub provider_id: Option<String>,
    /// When the first create of this request was sent (a reconcile searches from here).
    pub sent_at: i64,
    pub lease_until: i64,
    /// Why the watched report ended without data (`provider_fatal`, `cancelled` …).
    pub reason: Option<String>,
}

pub const SENDING: &str = "sending";
pub const CREATED: &str = "created";
pub const UNKNOWN: &str = "unknown";
pub const FAILED: &str = "failed";

/// How long a created report is handed to identical requests.
const REUSE_MS: i64 = 24 * 3600 * 1000;

/// Reasons a watched report ended that make it no answer to a new identical request: its own
/// error says to create it again.
const ENDED_WITHOUT_DATA: &str =
    "'provider_fatal', 'bad_window', 'retention_exceeded', 'cancelled'";

/// What the ledger says to do with a create.
#[derive(Debug)]
pub enum Decision {
    /// Send it; the row is ours until `lease_until`.
    Send(Entry),
    /// An identical (or same-key) create already has this report.
    Reuse(Entry),
    /// Another caller is sending it right now: wait for its row.
    Wait(Entry),
    /// An earlier try's outcome is unknown: reconcile, then send only if nothing was made.
    Reconcile(Entry),
}

/// A create to decide on.
#[derive(Debug, Clone)]
pub struct Intent {
    pub tenant: TenantId,
    /// `spapi`, `ads_v3` or `ads_v1`.
    pub family: &'static str,
    pub account: String,
    pub hash: String,
    pub key: Option<String>,
    pub lease_ms: i64,
    /// Reuse only a create sent after this time (unix ms): a caller that must read the
    /// provider afresh (a sync re-reading days the provider restates) gives its run's start.
    pub fresh_since: Option<i64>,
}

fn entry(r: &Row) -> Result<Entry> {
    Ok(Entry {
        id: r.text(0)?,
        status: r.text(1)?,
        hash: r.text(2)?,
        provider_id: r.opt_text(3)?,
        sent_at: r.i64(4)?,
        lease_until: r.i64(5)?,
        reason: r.opt_text(6)?,
    })
}

const COLS: &str = "id, status, request_hash, provider_report_id, sent_at, lease_until, reason";

/// The ledger aggregate.
pub struct Ledger<'a>(pub(crate) &'a Db);

async fn find(tx: &mut Tx, i: &Intent, now: i64) -> Result<Option<Entry>> {
    let tenant = i.tenant.as_str();
    if let Some(k) = &i.key
        && let Some(e) = tx
            .one(
                format!(
                    "SELECT {COLS} FROM report_ledger WHERE tenant_id = ?1 AND idempotency_key = ?2"
                ),
                args![tenant, k.as_str()],
            )
            .await?
    {
        let e = entry(&e)?;
        if e.hash != i.hash {
            return Err(Error::invalid_request(
                "this Idempotency-Key was used for a different report request",
            )
            .with_fix("Use a new key for a new request; resend the original body to retry it."));
        }
        return Ok(Some(e));
    }
    tx.one(
        format!(
            "SELECT {COLS} FROM report_ledger WHERE tenant_id = ?1 AND family = ?2 AND account = ?3 AND request_hash = ?4
             AND status != 'failed' AND sent_at > ?5
             AND (reason IS NULL OR reason NOT IN ({ENDED_WITHOUT_DATA}))
             ORDER BY sent_at DESC LIMIT 1"
        ),
        args![tenant, i.family, i.account.as_str(), i.hash.as_str(), (now - REUSE_MS).max(i.fresh_since.unwrap_or(0))],
    )
    .await?
    .as_ref()
    .map(entry)
    .transpose()
}

/// Takes the row for this try; `fresh` (the earlier create was refused, so nothing exists)
/// moves the window's start to now.
async fn claim(tx: &mut Tx, id: &str, now: i64, lease_ms: i64, fresh: bool) -> Result<()> {
    tx.exec(
        "UPDATE report_ledger SET status = 'sending', lease_until = ?2,
                sent_at = CASE WHEN ?5 = 1 THEN ?3 ELSE sent_at END, updated_at = ?4 WHERE id = ?1",
        args![id, now + lease_ms, now, now_rfc3339(), fresh],
    )
    .await?;
    Ok(())
}

async fn decide_in(tx: &mut Tx, i: Intent) -> Result<Decision> {
    let now = now_ms();
    // the key first, then the request: one order, so two deciders never wait on each other
    if let Some(k) = &i.key {
        tx.advisory_lock(&format!("ledger-key|{}|{k}", i.tenant))
            .await?;
    }
    let request = format!("ledger|{}|{}|{}|{}", i.tenant, i.family, i.account, i.hash);
    tx.advisory_lock(&request).await?;
    let lease = now + i.lease_ms;
    Ok(match find(tx, &i, now).await? {
        Some(e) if e.status == CREATED => Decision::Reuse(e),
        Some(e) if e.status == SENDING && e.lease_until > now => Decision::Wait(e),
        Some(e) if e.status == FAILED => {
            // a refused create under this key: this try starts afresh, and a later
            // reconcile searches from this send
            claim(tx, &e.id, now, i.lease_ms, true).await?;
            Decision::Send(Entry {
                status: SENDING.into(),
                lease_until: lease,
                sent_at: now,
                ..e
            })
        }
        Some(e) => {
            // an uncertain create (or a dead sender): its first send stays the window's start
            claim(tx, &e.id, now, i.lease_ms, false).await?;
            Decision::Reconcile(Entry {
                status: SENDING.into(),
                lease_until: lease,
                ..e
            })
        }
        None => {
            let id = crate::random_id("rl_", 10)?;
            tx.exec(
                "INSERT INTO report_ledger (id, tenant_id, family, account, request_hash, idempotency_key, status, sent_at, lease_until, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'sending', ?7, ?8, ?9, ?9)",
                args![id.as_str(), i.tenant.as_str(), i.family, i.account.as_str(), i.hash.as_str(), i.key.clone(), now, lease, now_rfc3339()],
            )
            .await?;
            Decision::Send(Entry {
                id,
                status: SENDING.into(),
                hash: i.hash,
                provider_id: None,
                sent_at: now,
                lease_until: lease,
                reason: None,
            })
        }
    })
}

impl Ledger<'_> {
    /// Decides, atomically, what a create does.
    pub async fn decide(&self, intent: Intent) -> Result<Decision> {
        self.0.tx(move |tx| Box::pin(decide_in(tx, intent))).await
    }

    /// Puts a claimed row back to `unknown` without sending (the reconcile could not prove
    /// the first create failed), keeping its window and error.
    pub async fn release_unknown(&self, id: &str) -> Result<()> {
        self.0
            .exec(
                "UPDATE report_ledger SET status = 'unknown', lease_until = 0, updated_at = ?2 WHERE id = ?1",
                args![id, now_rfc3339()],
            )
            .await?;
        Ok(())
    }

    /// Records what became of a row: `created` with the provider's id, `unknown` or `failed`.
    pub async fn settle(
        &self,
        id: &str,
        status: &str,
        provider_id: Option<&str>,
        error: Option<&Value>,
    ) -> Result<()> {
        self.0
            .exec(
                "UPDATE report_ledger SET status = ?2, provider_report_id = COALESCE(?3, provider_report_id), error = ?4, lease_until = 0, updated_at = ?5 WHERE id = ?1",
                args![id, status, provider_id, error.map(Value::to_string), now_rfc3339()],
            )
            .await?;
        Ok(())
    }

    /// A row as it is now, with its error.
    pub async fn get(&self, id: &str) -> Result<Option<(Entry, Option<Value>)>> {
        let Some(r) = self
            .0
            .one(
                format!("SELECT {COLS}, error FROM report_ledger WHERE id = ?1"),
                args![id],
            )
            .await?
        else {
            return Ok(None);
        };
        Ok(Some((entry(&r)?, r.opt_json(7)?)))
    }

    /// The merchant token (or profile) a tenant's report was created for, by the provider's id.
    pub async fn account_of(
        &self,
        tenant: &TenantId,
        family: &str,
        provider_id: &str,
    ) -> Result<Option<String>> {
        self.0
            .one(
                "SELECT account FROM report_ledger WHERE tenant_id = ?1 AND family = ?2 AND provider_report_id = ?3",
                args![tenant.as_str(), family, provider_id],
            )
            .await?
            .map(|r| r.text(0))
            .transpose()
    }

    /// What the report watch saw: the provider's report and our reason for a terminal or
    /// stuck one.
    pub async fn record_watch(&self, id: &str, report: &Value, reason: Option<&str>) -> Result<()> {
        self.0
            .exec(
                "UPDATE report_ledger SET provider_report = ?2, reason = ?3, checked_at = ?4 WHERE id = ?1",
                args![id, report.to_string(), reason, now_ms()],
            )
            .await?;
        Ok(())
    }

    /// The watch's last view of a tenant's report: `(provider report, reason, checked at ms)`.
    pub async fn watched(
        &self,
        tenant: &TenantId,
        provider_id: &str,
    ) -> Result<Option<(Value, Option<String>, i64)>> {
        let Some(r) = self
            .0
            .one(
                "SELECT provider_report, reason, checked_at FROM report_ledger
                 WHERE tenant_id = ?1 AND provider_report_id = ?2 AND provider_report IS NOT NULL",
                args![tenant.as_str(), provider_id],
            )
            .await?
        else {
            return Ok(None);
        };
        // a stored report that no longer parses is a failure to read, not "nothing"
        Ok(Some((r.json(0)?, r.opt_text(1)?, r.i64(2)?)))
    }

    /// Whether a row already holds this provider id (so a listing match is not adopted twice).
    pub async fn adopted(&self, tenant: &TenantId, provider_id: &str) -> Result<bool> {
        Ok(self
            .0
            .one(
                "SELECT 1 FROM report_ledger WHERE tenant_id = ?1 AND provider_report_id = ?2",
                args![tenant.as_str(), provider_id],
            )
            .await?
            .is_some())
    }
}
