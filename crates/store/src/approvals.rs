//! Approvals of advertising write plans: a commit the tenant's policy holds for a person's
//! approval is recorded here, bound to the plan's id and hash, until a person approves or
//! rejects it or it expires. Deciding is one conditional update, so two people (or two
//! instances) deciding at once decide it once; an approved request is settled once with the
//! audit row its send wrote. A pending request whose time has passed reads `expired` and can no
//! longer be decided.

use pp_core::{Result, TenantId};

use crate::args;
use crate::db::{Db, Row};
use crate::jobs::now_ms;

/// Waiting for a person.
pub const PENDING: &str = "pending";
/// Approved: its plan is being (or has been) sent.
pub const APPROVED: &str = "approved";
/// Rejected: never sent.
pub const REJECTED: &str = "rejected";
/// Its time passed before anyone decided: never sent.
pub const EXPIRED: &str = "expired";
/// Approved, and its send settled (the audit row says how it went).
pub const SENT: &str = "sent";
/// Approved, but the send was refused before anything left (the plan changed, the policy no
/// longer allows it …).
pub const FAILED: &str = "failed";
/// Its requester's access ended before anyone decided (a credential or an application
/// revoked, a person disabled): never sent.
pub const WITHDRAWN: &str = "withdrawn";

/// Whose pending requests a withdrawal takes back.
#[derive(Debug, Clone)]
pub enum Whose<'a> {
    /// A service credential's (`cred_…`), revoked.
    Credential(&'a str),
    /// A person's (every request made under their email in their tenant), disabled.
    Person { tenant: &'a str, email: &'a str },
    /// Those of every person who signed in through an application (client id), revoked.
    Application(&'a str),
}

/// One approval request.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRow {
    pub id: String,
    pub tenant: TenantId,
    pub plan_id: String,
    /// The plan hash a person approves: only a plan with this hash is ever sent for it.
    pub plan_hash: String,
    pub operation: String,
    /// Who asked: the credential, the name on the sign-in and the surface of the commit.
    pub credential_id: String,
    pub actor: String,
    pub surface: String,
    pub idempotency_key: Option<String>,
    /// Why the policy holds it (`mcp`, `items`, `operation`), in words.
    pub reason: String,
    /// As stored; `status()` is what a reader sees.
    pub stored_status: String,
    pub decided_by: Option<String>,
    pub decided_ms: Option<i64>,
    pub note: Option<String>,
    pub audit_id: Option<String>,
    pub created_ms: i64,
    pub expires_ms: i64,
}

impl ApprovalRow {
    /// The status a reader sees: a pending request past its time is `expired`.
    pub fn status(&self, now_ms: i64) -> &str {
        if self.stored_status == PENDING && self.expires_ms <= now_ms {
            EXPIRED
        } else {
            &self.stored_status
        }
    }
}

/// What deciding found.
#[derive(Debug, Clone, PartialEq)]
pub enum Decided {
    /// Decided now, by this call.
    Now(ApprovalRow),
    /// Decided before, expired, or settled: the row as it is.
    Already(ApprovalRow),
    NotFound,
}

const COLS: &str = "id, tenant_id, plan_id, plan_hash, operation, credential_id, actor, surface, idempotency_key, reason, status, decided_by, decided_ms, note, audit_id, created_ms, expires_ms";

fn approval(r: &Row) -> Result<ApprovalRow> {
    Ok(ApprovalRow {
        id: r.text(0)?,
        tenant: TenantId::parse(&r.text(1)?)?,
        plan_id: r.text(2)?,
        plan_hash: r.text(3)?,
        operation: r.text(4)?,
        credential_id: r.text(5)?,
        actor: r.text(6)?,
        surface: r.text(7)?,
        idempotency_key: r.opt_text(8)?,
        reason: r.text(9)?,
        stored_status: r.text(10)?,
        decided_by: r.opt_text(11)?,
        decided_ms: r.opt_i64(12)?,
        note: r.opt_text(13)?,
        audit_id: r.opt_text(14)?,
        created_ms: r.i64(15)?,
        expires_ms: r.i64(16)?,
    })
}

/// The approvals aggregate.
pub struct Approvals<'a>(pub(crate) &'a Db);

/// Whether the requester of `credential_id` can still act: a live service credential (its
/// person, if any, enabled), a live grant (its person enabled, its application not revoked), or
/// an enabled person (a console request).
const REQUESTER_LIVE: &str = "SELECT 1 WHERE EXISTS (
        SELECT 1 FROM credentials c LEFT JOIN people p ON p.id = c.person_id
        WHERE c.id = ?1 AND c.revoked_at IS NULL AND (c.person_id IS NULL OR p.disabled_at IS NULL))
    OR EXISTS (
        SELECT 1 FROM oauth_grants g JOIN people p ON p.id = g.person_id
        LEFT JOIN oauth_clients oc ON oc.client_id = g.client_id
        WHERE g.id = ?1 AND g.revoked_at IS NULL AND p.disabled_at IS NULL
          AND (g.client_id IS NULL OR oc.revoked_at IS NULL))
    OR EXISTS (SELECT 1 FROM people p WHERE p.id = ?1 AND p.disabled_at IS NULL)";

impl Approvals<'_> {
    /// Records a request for `row.plan_id`; a plan already waiting (or decided) keeps its
    /// first request, which is returned.
    pub async fn request(&self, row: &ApprovalRow) -> Result<ApprovalRow> {
        self.0
            .exec(
                format!("INSERT INTO ads_approvals ({COLS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
                 ON CONFLICT (tenant_id, plan_id) DO NOTHING"),
                args![
                    row.id.as_str(), row.tenant.as_str(), row.plan_id.as_str(), row.plan_hash.as_str(),
                    row.operation.as_str(), row.credential_id.as_str(), row.actor.as_str(), row.surface.as_str(),
                    row.idempotency_key.as_deref(), row.reason.as_str(), PENDING, None::<String>, None::<i64>,
                    None::<String>, None::<String>, row.created_ms, row.expires_ms
                ],
            )
            .await?;
        self.of_plan(&row.tenant, &row.plan_id)
            .await?
            .ok_or_else(|| pp_core::Error::internal("an approval request vanished as it was made"))
    }

    /// The request made for the tenant's plan `plan_id`, if its commit was held.
    pub async fn of_plan(&self, tenant: &TenantId, plan_id: &str) -> Result<Option<ApprovalRow>> {
        self.0
            .one(
                format!("SELECT {COLS} FROM ads_approvals WHERE tenant_id = ?1 AND plan_id = ?2"),
                args![tenant.as_str(), plan_id],
            )
            .await?
            .as_ref()
            .map(approval)
            .transpose()
    }

    /// The tenant's request `id`.
    pub async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<ApprovalRow>> {
        self.0
            .one(
                format!("SELECT {COLS} FROM ads_approvals WHERE tenant_id = ?1 AND id = ?2"),
                args![tenant.as_str(), id],
            )
            .await?
            .as_ref()
            .map(approval)
            .transpose()
    }

    /// The tenant's requests still waiting for a person, oldest first, at most `limit`.
    pub async fn pending(&self, tenant: &TenantId, limit: i64) -> Result<Vec<ApprovalRow>> {
        self.0
            .all(
                format!("SELECT {COLS} FROM ads_approvals WHERE tenant_id = ?1 AND status = ?2 AND expires_ms > ?3 ORDER BY created_ms, id LIMIT ?4"),
                args![tenant.as_str(), PENDING, now_ms(), limit],
            )
            .await?
            .iter()
            .map(approval)
            .collect()
    }

    /// The tenant's most recent requests (newest first), at most `limit`, any status: what the
    /// timeline projects.
    pub async fn recent(&self, tenant: &TenantId, limit: i64) -> Result<Vec<ApprovalRow>> {
        self.0
            .all(
                format!("SELECT {COLS} FROM ads_approvals WHERE tenant_id = ?1 ORDER BY created_ms DESC, id DESC LIMIT ?2"),
                args![tenant.as_str(), limit],
            )
            .await?
            .iter()
            .map(approval)
            .collect()
    }

    /// Approves (`approve`) or rejects request `id` as `by`, if it is still pending and in
    /// time; otherwise says what it is.
    pub async fn decide(
        &self,
        tenant: &TenantId,
        id: &str,
        approve: bool,
        by: &str,
        note: Option<&str>,
    ) -> Result<Decided> {
        let now = now_ms();
        let n = self
            .0
            .exec(
                "UPDATE ads_approvals SET status = ?3, decided_by = ?4, decided_ms = ?5, note = ?6
                 WHERE tenant_id = ?1 AND id = ?2 AND status = 'pending' AND expires_ms > ?5",
                args![
                    tenant.as_str(),
                    id,
                    if approve { APPROVED } else { REJECTED },
                    by,
                    now,
                    note
                ],
            )
            .await?;
        Ok(match (n, self.get(tenant, id).await?) {
            (_, None) => Decided::NotFound,
            (1, Some(row)) => Decided::Now(row),
            (_, Some(row)) => Decided::Already(row),
        })
    }

    /// Withdraws every request of `whose` still waiting (pending and in time), as `by`, with
    /// `note` saying why; the requests this call withdrew.
    pub async fn withdraw(
        &self,
        whose: &Whose<'_>,
        by: &str,
        note: &str,
    ) -> Result<Vec<ApprovalRow>> {
        let (clause, key, tenant) = match whose {
            Whose::Credential(id) => ("credential_id = ?5", *id, None),
            Whose::Person { tenant, email } => ("actor = ?5", *email, Some(*tenant)),
            Whose::Application(client) => (
                "credential_id IN (SELECT id FROM oauth_grants WHERE client_id = ?5)",
                *client,
                None,
            ),
        };
        self.0
            .all(
                format!(
                    "UPDATE ads_approvals SET status = ?1, decided_by = ?2, decided_ms = ?3, note = ?4
                     WHERE status = 'pending' AND expires_ms > ?3 AND {clause}
                       AND (?6 IS NULL OR tenant_id = ?6)
                     RETURNING {COLS}"
                ),
                args![WITHDRAWN, by, now_ms(), note, key, tenant],
            )
            .await?
            .iter()
            .map(approval)
            .collect()
    }

    /// Whether the caller who made request `row` can still act (see [`REQUESTER_LIVE`]).
    pub async fn requester_live(&self, row: &ApprovalRow) -> Result<bool> {
        Ok(self
            .0
            .one(REQUESTER_LIVE, args![row.credential_id.as_str()])
            .await?
            .is_some())
    }

    /// Withdraws request `id` alone (its requester's access ended before a person decided),
    /// if it is still waiting; whether this call withdrew it.
    pub async fn withdraw_one(
        &self,
        tenant: &TenantId,
        id: &str,
        by: &str,
        note: &str,
    ) -> Result<bool> {
        let now = now_ms();
        Ok(self
            .0
            .exec(
                "UPDATE ads_approvals SET status = ?3, decided_by = ?4, decided_ms = ?5, note = ?6
                 WHERE tenant_id = ?1 AND id = ?2 AND status = 'pending' AND expires_ms > ?5",
                args![tenant.as_str(), id, WITHDRAWN, by, now, note],
            )
            .await?
            == 1)
    }

    /// Settles an approved request once: `SENT` with the audit row its send wrote, or
    /// `FAILED`. Returns whether this call settled it.
    pub async fn settle(
        &self,
        tenant: &TenantId,
        id: &str,
        status: &str,
        audit_id: Option<&str>,
    ) -> Result<bool> {
        let n = self
            .0
            .exec(
                "UPDATE ads_approvals SET status = ?3, audit_id = ?4 WHERE tenant_id = ?1 AND id = ?2 AND status = 'approved'",
                args![tenant.as_str(), id, status, audit_id],
            )
            .await?;
        Ok(n == 1)
    }
}
