//! Audited advertising writes: the plans a dry run issues and the audit log their commits
//! write. A plan is what a commit may send (its exact requests, under a hash) and lives until
//! it expires. An audit row is written before anything is sent — who, through which surface,
//! which plan, the snapshot of what it replaces — and settled once with what was sent and the
//! provider's answer per item; it is never changed after. [`AdsWrites::begin`] is the
//! exactly-once rule, taken atomically: a plan commits once, and an `Idempotency-Key` answers
//! its first commit again (also after a restart, also on another instance).

use pp_core::{Error, Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Db, Row, Tx};
use crate::jobs::now_ms;

/// A dry run's plan.
#[derive(Debug, Clone)]
pub struct PlanRow {
    pub id: String,
    pub tenant: TenantId,
    /// The credential that previewed it.
    pub credential_id: String,
    pub actor: String,
    pub operation: String,
    /// The hash of the call that made it (a commit must restate the same call).
    pub call_hash: String,
    /// The hash over the exact requests a commit sends.
    pub plan_hash: String,
    /// What the service needs to commit it: requests, snapshot, items.
    pub body: Value,
    pub created_ms: i64,
    pub expires_ms: i64,
}

/// An audit row is being sent.
pub const SENDING: &str = "sending";
/// The provider answered (its per-item results are in `answer`).
pub const ANSWERED: &str = "answered";
/// The provider refused the whole request (nothing applied).
pub const REFUSED: &str = "refused";
/// Nothing was sent: every item had moved since the preview.
pub const NOT_SENT: &str = "not_sent";
/// The request may or may not have applied (the answer was lost).
pub const UNKNOWN: &str = "unknown";
/// Nothing was sent: the commit waited for a person, and its requester's access ended first
/// (the approval was withdrawn).
pub const WITHDRAWN: &str = "withdrawn";

/// One audit log record.
#[derive(Debug, Clone)]
pub struct AuditRow {
    pub id: String,
    pub tenant: TenantId,
    pub plan_id: String,
    pub credential_id: String,
    pub actor: String,
    pub surface: String,
    pub operation: String,
    /// The advertising login (merchant token) the write acted as.
    pub merchant: String,
    pub profile_id: Option<String>,
    pub plan_hash: String,
    pub idempotency_key: Option<String>,
    /// The entities' values before the write, read at preview and again at commit.
    pub snapshot: Value,
    /// The request as sent (items that moved left out); `None` until settled.
    pub sent: Option<Value>,
    /// The commit's answer: per-item results and the provider's status.
    pub answer: Option<Value>,
    pub status: String,
    pub created_ms: i64,
    pub finished_ms: Option<i64>,
    /// The person who approved the commit, when the tenant's policy held it for approval.
    pub approved_by: Option<String>,
    /// Who previewed the plan (its actor and credential), beside who committed it.
    pub previewed_by: Option<String>,
    pub previewed_credential_id: Option<String>,
}

/// What `begin` decided.
#[derive(Debug)]
pub enum Begin {
    /// The row is written with status `sending`: send now.
    Started,
    /// This key already committed this plan: its row (answer the first answer again).
    Replay(AuditRow),
    /// This key was used for another plan.
    KeyTaken(AuditRow),
    /// The plan was already committed (under no key, or another one).
    AlreadyCommitted(AuditRow),
}

/// Filters of the audit log read.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub merchant: Option<String>,
    pub profile_id: Option<String>,
    pub operation: Option<String>,
    pub actor: Option<String>,
    /// Inclusive lower bound, epoch milliseconds.
    pub since_ms: Option<i64>,
    /// Exclusive upper bound, epoch milliseconds.
    pub until_ms: Option<i64>,
    /// Newest first: only rows before this `(created_ms, id)`.
    pub before: Option<(i64, String)>,
    pub limit: i64,
}

const PLAN_COLS: &str = "id, tenant_id, credential_id, actor, operation, call_hash, plan_hash, body, created_ms, expires_ms";
const AUDIT_COLS: &str = "id, tenant_id, plan_id, credential_id, actor, surface, operation, merchant, profile_id, plan_hash, idempotency_key, snapshot, sent, answer, status, created_ms, finished_ms, approved_by, previewed_by, previewed_credential_id";

/// Expired plans are kept this long after expiry (so a late commit hears "expired", not "not
/// found"), then deleted.
const KEEP_EXPIRED_MS: i64 = 24 * 3600 * 1000;

fn tenant(r: &Row, i: usize) -> Result<TenantId> {
    TenantId::parse(&r.text(i)?).map_err(|_| Error::internal("a stored tenant id does not parse"))
}

fn plan(r: &Row) -> Result<PlanRow> {
    Ok(PlanRow {
        id: r.text(0)?,
        tenant: tenant(r, 1)?,
        credential_id: r.text(2)?,
        actor: r.text(3)?,
        operation: r.text(4)?,
        call_hash: r.text(5)?,
        plan_hash: r.text(6)?,
        body: r.json(7)?,
        created_ms: r.i64(8)?,
        expires_ms: r.i64(9)?,
    })
}

fn audit(r: &Row) -> Result<AuditRow> {
    Ok(AuditRow {
        id: r.text(0)?,
        tenant: tenant(r, 1)?,
        plan_id: r.text(2)?,
        credential_id: r.text(3)?,
        actor: r.text(4)?,
        surface: r.text(5)?,
        operation: r.text(6)?,
        merchant: r.text(7)?,
        profile_id: r.opt_text(8)?,
        plan_hash: r.text(9)?,
        idempotency_key: r.opt_text(10)?,
        snapshot: r.json(11)?,
        sent: r.opt_json(12)?,
        answer: r.opt_json(13)?,
        status: r.text(14)?,
        created_ms: r.i64(15)?,
        finished_ms: r.opt_i64(16)?,
        approved_by: r.opt_text(17)?,
        previewed_by: r.opt_text(18)?,
        previewed_credential_id: r.opt_text(19)?,
    })
}

/// The audited-writes aggregate.
pub struct AdsWrites<'a>(pub(crate) &'a Db);

async fn audit_where(
    tx: &mut Tx,
    clause: &str,
    a: Vec<crate::db::Arg>,
) -> Result<Option<AuditRow>> {
    tx.one(
        format!("SELECT {AUDIT_COLS} FROM ads_audit WHERE {clause}"),
        a,
    )
    .await?
    .as_ref()
    .map(audit)
    .transpose()
}

async fn begin_in(tx: &mut Tx, row: AuditRow) -> Result<Begin> {
    let t = row.tenant.as_str().to_owned();
    // the key first, then the plan: one order, so two committers never wait on each other
    if let Some(k) = &row.idempotency_key {
        tx.advisory_lock(&format!("ads-audit-key|{t}|{k}")).await?;
        if let Some(first) = audit_where(
            tx,
            "tenant_id = ?1 AND idempotency_key = ?2",
            args![t.as_str(), k.as_str()],
        )
        .await?
        {
            return Ok(if first.plan_id == row.plan_id {
                Begin::Replay(first)
            } else {
                Begin::KeyTaken(first)
            });
        }
    }
    tx.advisory_lock(&format!("ads-audit-plan|{t}|{}", row.plan_id))
        .await?;
    if let Some(first) = audit_where(
        tx,
        "tenant_id = ?1 AND plan_id = ?2",
        args![t.as_str(), row.plan_id.as_str()],
    )
    .await?
    {
        return Ok(Begin::AlreadyCommitted(first));
    }
    tx.exec(
        format!("INSERT INTO ads_audit ({AUDIT_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, NULL, NULL, 'sending', ?13, NULL, ?14, ?15, ?16)"),
        args![
            row.id.as_str(), t.as_str(), row.plan_id.as_str(), row.credential_id.as_str(), row.actor.as_str(),
            row.surface.as_str(), row.operation.as_str(), row.merchant.as_str(), row.profile_id.clone(),
            row.plan_hash.as_str(), row.idempotency_key.clone(), row.snapshot.to_string(), row.created_ms,
            row.approved_by.clone(), row.previewed_by.clone(), row.previewed_credential_id.clone()
        ],
    )
    .await?;
    Ok(Begin::Started)
}

impl AdsWrites<'_> {
    /// Stores a plan (and forgets plans long expired, but not one a held commit still waits
    /// on: a person may approve it for up to a week).
    pub async fn put_plan(&self, p: &PlanRow) -> Result<()> {
        self.0
            .exec(
                "DELETE FROM ads_plans WHERE expires_ms < ?1
                   AND NOT EXISTS (SELECT 1 FROM ads_approvals a
                                   WHERE a.tenant_id = ads_plans.tenant_id AND a.plan_id = ads_plans.id
                                     AND a.status IN ('pending', 'approved'))",
                args![now_ms() - KEEP_EXPIRED_MS],
            )
            .await?;
        self.0
            .exec(
                format!("INSERT INTO ads_plans ({PLAN_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"),
                args![
                    p.id.as_str(), p.tenant.as_str(), p.credential_id.as_str(), p.actor.as_str(), p.operation.as_str(),
                    p.call_hash.as_str(), p.plan_hash.as_str(), p.body.to_string(), p.created_ms, p.expires_ms
                ],
            )
            .await?;
        Ok(())
    }

    /// The tenant's plan `id`.
    pub async fn plan(&self, tenant: &TenantId, id: &str) -> Result<Option<PlanRow>> {
        self.0
            .one(
                format!("SELECT {PLAN_COLS} FROM ads_plans WHERE tenant_id = ?1 AND id = ?2"),
                args![tenant.as_str(), id],
            )
            .await?
            .as_ref()
            .map(plan)
            .transpose()
    }

    /// Decides, atomically, whether a commit sends: writes `row` as `sending` when it does.
    pub async fn begin(&self, row: AuditRow) -> Result<Begin> {
        self.0.tx(move |tx| Box::pin(begin_in(tx, row))).await
    }

    /// Records, settled at once, a commit that ended before anything was sent (a withdrawn
    /// approval's plan); false when the plan already has a row, which stays as it was.
    pub async fn record_unsent(&self, row: &AuditRow) -> Result<bool> {
        let n = self
            .0
            .exec(
                format!("INSERT INTO ads_audit ({AUDIT_COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, NULL, ?13, ?14, ?15, ?16, ?17, ?18, ?19)
                 ON CONFLICT DO NOTHING"),
                args![
                    row.id.as_str(), row.tenant.as_str(), row.plan_id.as_str(), row.credential_id.as_str(), row.actor.as_str(),
                    row.surface.as_str(), row.operation.as_str(), row.merchant.as_str(), row.profile_id.clone(),
                    row.plan_hash.as_str(), row.idempotency_key.clone(), row.snapshot.to_string(),
                    row.answer.as_ref().map(Value::to_string), row.status.as_str(), row.created_ms,
                    row.finished_ms, row.approved_by.clone(), row.previewed_by.clone(), row.previewed_credential_id.clone()
                ],
            )
            .await?;
        Ok(n == 1)
    }

    /// Settles a `sending` row once: its status, what was sent and the answer. A settled row
    /// is never changed again.
    pub async fn settle(
        &self,
        id: &str,
        status: &str,
        sent: Option<&Value>,
        answer: &Value,
    ) -> Result<()> {
        self.settle_and_tell(id, status, sent, answer, None).await
    }

    /// As [`AdsWrites::settle`], with the event the commit is (`told`: the tenant and the
    /// event), appended in the same transaction.
    pub async fn settle_and_tell(
        &self,
        id: &str,
        status: &str,
        sent: Option<&Value>,
        answer: &Value,
        told: Option<(&TenantId, crate::events::NewEvent)>,
    ) -> Result<()> {
        let a = args![
            id,
            status,
            sent.map(Value::to_string),
            answer.to_string(),
            now_ms()
        ];
        let id = id.to_owned();
        let told = told.map(|(t, e)| (t.as_str().to_owned(), e));
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let n = tx
                        .exec(
                            "UPDATE ads_audit SET status = ?2, sent = ?3, answer = ?4, finished_ms = ?5 WHERE id = ?1 AND status = 'sending'",
                            a,
                        )
                        .await?;
                    if n != 1 {
                        return Err(Error::internal(format!(
                            "audit row {id} was already settled"
                        )));
                    }
                    if let Some((tenant, e)) = told {
                        crate::events::append_in(tx, &tenant, &e).await?;
                    }
                    Ok(())
                })
            })
            .await
    }

    /// The tenant's audit row committed under `key`.
    pub async fn by_key(&self, tenant: &TenantId, key: &str) -> Result<Option<AuditRow>> {
        self.0
            .one(
                format!("SELECT {AUDIT_COLS} FROM ads_audit WHERE tenant_id = ?1 AND idempotency_key = ?2"),
                args![tenant.as_str(), key],
            )
            .await?
            .as_ref()
            .map(audit)
            .transpose()
    }

    /// The tenant's audit row that committed plan `plan_id`, if it was committed.
    pub async fn by_plan(&self, tenant: &TenantId, plan_id: &str) -> Result<Option<AuditRow>> {
        self.0
            .one(
                format!("SELECT {AUDIT_COLS} FROM ads_audit WHERE tenant_id = ?1 AND plan_id = ?2"),
                args![tenant.as_str(), plan_id],
            )
            .await?
            .as_ref()
            .map(audit)
            .transpose()
    }

    /// The tenant's audit row `id`.
    pub async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<AuditRow>> {
        self.0
            .one(
                format!("SELECT {AUDIT_COLS} FROM ads_audit WHERE tenant_id = ?1 AND id = ?2"),
                args![tenant.as_str(), id],
            )
            .await?
            .as_ref()
            .map(audit)
            .transpose()
    }

    /// The tenant's audit rows, newest first, filtered.
    pub async fn list(&self, tenant: &TenantId, f: &AuditFilter) -> Result<Vec<AuditRow>> {
        let mut sql = format!("SELECT {AUDIT_COLS} FROM ads_audit WHERE tenant_id = ?1");
        let mut a = args![tenant.as_str()];
        let mut add = |clause: &str, v: crate::db::Arg, a: &mut Vec<crate::db::Arg>| {
            a.push(v);
            sql.push_str(&format!(" AND {clause} ?{}", a.len()));
        };
        if let Some(v) = &f.merchant {
            add("merchant =", v.as_str().into(), &mut a);
        }
        if let Some(v) = &f.profile_id {
            add("profile_id =", v.as_str().into(), &mut a);
        }
        if let Some(v) = &f.operation {
            add("operation =", v.as_str().into(), &mut a);
        }
        if let Some(v) = &f.actor {
            add("actor =", v.as_str().into(), &mut a);
        }
        if let Some(v) = f.since_ms {
            add("created_ms >=", v.into(), &mut a);
        }
        if let Some(v) = f.until_ms {
            add("created_ms <", v.into(), &mut a);
        }
        if let Some((ms, id)) = &f.before {
            a.push((*ms).into());
            a.push(id.as_str().into());
            let (m, i) = (a.len() - 1, a.len());
            sql.push_str(&format!(
                " AND (created_ms < ?{m} OR (created_ms = ?{m} AND id < ?{i}))"
            ));
        }
        a.push(f.limit.into());
        sql.push_str(&format!(
            " ORDER BY created_ms DESC, id DESC LIMIT ?{}",
            a.len()
        ));
        self.0.all(sql, a).await?.iter().map(audit).collect()
    }
}
