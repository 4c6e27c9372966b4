//! Holding a commit for a person: the tenant's write policy says a commit waits for approval,
//! so the request is recorded (once per plan) and nothing is sent; the caller hears where to
//! look ([`info`], [`answer`]). Deciding is `approvals`; the send after approval is the same
//! commit as any other (`writes`).

use pp_core::events::payloads::{ApprovalRequested, ApprovalRequestedData, ApprovalSubject};
use pp_core::{Principal, Result};
use pp_store::ads_writes::PlanRow;
use pp_store::approvals::{self, ApprovalRow};
use pp_store::jobs::now_ms;

use super::Marketplace;
use super::answers::{AdsAnswer, ApprovalInfo, Pending};
use super::requests::IdempotencyKey;
use super::target::{Target, acting};
use crate::catalog::Operation;

/// Where a person decides held commits.
pub const CONSOLE: &str = "/console/approvals";

/// A held commit as the wire shows it, with its status as of now.
pub fn info(row: &ApprovalRow) -> ApprovalInfo {
    let status = row.status(now_ms()).to_owned();
    let message = match status.as_str() {
        approvals::PENDING => format!(
            "Held for a person's approval: {}. Nothing was sent. A person with the approver role decides in the console ({CONSOLE}); poll this approval for the outcome.",
            row.reason
        ),
        approvals::APPROVED => "Approved; the plan is being sent.".into(),
        approvals::SENT => "Approved and sent: the audit record has each item's result.".into(),
        approvals::FAILED => {
            "Approved, but not sent: the plan or the policy no longer allowed it.".into()
        }
        approvals::REJECTED => "Rejected: nothing was sent.".into(),
        approvals::WITHDRAWN => format!(
            "Withdrawn: {}. Nothing was sent.",
            row.note
                .as_deref()
                .unwrap_or("its requester's access ended before anyone decided")
        ),
        _ => "Expired before anyone decided: nothing was sent. Preview and commit again.".into(),
    };
    ApprovalInfo {
        approval_id: row.id.clone(),
        status,
        reason: row.reason.clone(),
        operation: row.operation.clone(),
        plan_id: row.plan_id.clone(),
        plan_hash: row.plan_hash.clone(),
        requested_by: row.actor.clone(),
        surface: row.surface.clone(),
        requested_at: pp_store::rfc3339_ms(row.created_ms),
        expires_at: pp_store::rfc3339_ms(row.expires_ms),
        decided_by: row.decided_by.clone(),
        decided_at: row.decided_ms.map(pp_store::rfc3339_ms),
        note: row.note.clone(),
        audit_id: row.audit_id.clone(),
        poll: format!("/api/marketplace/approvals/{}", row.id),
        console: CONSOLE.into(),
        message,
    }
}

/// A held commit's answer to its caller: the request as it stands now.
pub(super) fn answer(op: &Operation, t: &Target, row: &ApprovalRow) -> AdsAnswer {
    AdsAnswer::Pending(Pending {
        operation: op.id.clone(),
        merchant: acting(t),
        dry_run: false,
        outcome: match row.status(now_ms()) {
            approvals::PENDING | approvals::APPROVED => "pending_approval".to_owned(),
            decided => decided.to_owned(),
        },
        approval: info(row),
    })
}

/// Holds a commit for a person's approval: the request is recorded (once per plan), and
/// nothing is sent.
#[allow(clippy::too_many_arguments)]
pub(super) async fn hold(
    m: &Marketplace,
    p: &Principal,
    op: &Operation,
    t: &Target,
    plan: &PlanRow,
    key: Option<&IdempotencyKey>,
    reason: String,
    hours: u32,
) -> Result<AdsAnswer> {
    let now = now_ms();
    let row = ApprovalRow {
        id: pp_store::random_id("ap_", 12)?,
        tenant: p.tenant.clone(),
        plan_id: plan.id.clone(),
        plan_hash: plan.plan_hash.clone(),
        operation: op.id.clone(),
        credential_id: p.credential_id.clone(),
        actor: p.actor.as_str().to_owned(),
        surface: p.surface.as_wire(),
        idempotency_key: key.map(|k| k.as_str().to_owned()),
        reason,
        stored_status: approvals::PENDING.into(),
        decided_by: None,
        decided_ms: None,
        note: None,
        audit_id: None,
        created_ms: now,
        expires_ms: now + i64::from(hours) * 3_600_000,
    };
    let row = m.store.approvals().request(&row).await?;
    let told = pp_store::events::NewEvent::of(&ApprovalRequested {
        subject: ApprovalSubject {
            approval_id: row.id.clone(),
            plan_id: row.plan_id.clone(),
            operation: row.operation.clone(),
        },
        data: ApprovalRequestedData {
            reason: row.reason.clone(),
            requested_by: row.actor.clone(),
            expires_at: pp_store::rfc3339_ms(row.expires_ms),
        },
    })
    .once(format!("approval:{}:requested", row.id));
    m.store.events().append(&p.tenant, told).await?;
    Ok(answer(op, t, &row))
}
