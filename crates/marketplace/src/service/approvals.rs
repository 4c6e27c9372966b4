//! Commits the tenant's write policy holds for a person: holding one (nothing is sent; the
//! requester hears where to look), reading it (the requester polls), listing the ones waiting
//! with what each changes (the console), and deciding. An approval binds to the plan's hash:
//! approving sends exactly that plan, through the same commit as any other (the entities read
//! again and moved items left out, the policy checked again), with the approver on the audit
//! record; a rejected or expired request is never sent.

use pp_core::{Actor, Error, Kind, Principal, Result, Scope, ScopeSet, Surface, TenantId};
use pp_store::ads_writes::PlanRow;
use pp_store::approvals::{self, ApprovalRow, Decided};
use pp_store::jobs::now_ms;
use serde_json::Value;

use super::Marketplace;
use super::answers::{AdsAnswer, ApprovalInfo, HeldItem, HeldWrite, Pending};
use super::requests::{IdempotencyKey, PlanId};
use super::writes::{Target, acting};
use crate::catalog::{self, Operation};
use crate::writes::PlanBody;
use crate::writes::items::at;

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

fn not_found(id: &str) -> Error {
    Error::not_found(format!("no approval request {id} in this account"))
}

fn compact(v: Option<&Value>) -> String {
    v.map_or_else(
        || "—".to_owned(),
        |v| match v {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        },
    )
}

/// Each item's fields, before (the entity at preview) and after (what the commit sets).
fn changes(body: &PlanBody, id_field: &str) -> Vec<HeldItem> {
    body.items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let before = body.snapshot.get(i).and_then(Option::as_ref);
            let mut fields: Vec<String> = Vec::new();
            for (k, v) in item.as_object().into_iter().flatten() {
                if k == id_field {
                    continue;
                }
                match v.as_object() {
                    Some(inner) => fields.extend(inner.keys().map(|ik| format!("{k}.{ik}"))),
                    None => fields.push(k.clone()),
                }
            }
            HeldItem {
                index: i,
                entity_id: body.entity_ids.get(i).cloned().flatten(),
                changes: fields
                    .into_iter()
                    .map(|f| {
                        let b = compact(before.and_then(|e| at(e, &f)));
                        let a = compact(at(item, &f));
                        (f, b, a)
                    })
                    .collect(),
            }
        })
        .collect()
}

impl Marketplace {
    /// Holds a commit for a person's approval: the request is recorded (once per plan), and
    /// nothing is sent.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn hold(
        &self,
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
        let row = self.store.approvals().request(&row).await?;
        Ok(answer(op, t, &row))
    }

    /// A held commit, for its tenant's callers (`ads:read`): how it stands.
    pub async fn ads_approval(&self, p: &Principal, id: &str) -> Result<ApprovalInfo> {
        p.require(&[Scope::AdsRead])?;
        let row = self
            .store
            .approvals()
            .get(&p.tenant, id)
            .await?
            .ok_or_else(|| not_found(id))?;
        Ok(info(&row))
    }

    /// The tenant's held commits still waiting, oldest first, each with what it changes.
    pub async fn held_writes(&self, tenant: &TenantId) -> Result<Vec<HeldWrite>> {
        let mut out = Vec::new();
        for row in self.store.approvals().pending(tenant, 100).await? {
            let plan = self.store.ads_writes().plan(tenant, &row.plan_id).await?;
            let items = match plan {
                Some(plan) => {
                    let body: PlanBody =
                        serde_json::from_value(plan.body).map_err(Error::internal)?;
                    let id_field = catalog::find(catalog::ads(), &row.operation)
                        .and_then(|o| o.write.as_ref())
                        .map(|w| w.entity_id.clone())
                        .unwrap_or_default();
                    changes(&body, &id_field)
                }
                None => Vec::new(),
            };
            out.push(HeldWrite {
                info: info(&row),
                items,
            });
        }
        Ok(out)
    }

    /// A person (`by`, whose role the console checked) approves or rejects held commit `id`.
    /// Approving sends exactly the approved plan, for the caller who asked, with `by` on its
    /// audit record; the request then reads `sent` (or `failed`, with why, when the plan or
    /// the policy no longer allows it: nothing is sent then).
    pub async fn decide_held_write(
        &self,
        tenant: &TenantId,
        id: &str,
        approve: bool,
        by: &str,
        note: Option<&str>,
    ) -> Result<ApprovalInfo> {
        let store = self.store.approvals();
        let row = match store.decide(tenant, id, approve, by, note).await? {
            Decided::NotFound => return Err(not_found(id)),
            Decided::Already(row) => {
                return Err(Error::new(
                    Kind::Conflict,
                    format!(
                        "approval request {id} is {} already: nothing changed",
                        row.status(now_ms())
                    ),
                ));
            }
            Decided::Now(row) => row,
        };
        if !approve {
            return Ok(info(&row));
        }
        let sent = self.send_approved(&row).await;
        let (status, audit, failure) = match &sent {
            Ok(AdsAnswer::Commit(c)) => (approvals::SENT, Some(c.commit.audit_id.clone()), None),
            Ok(_) => (
                approvals::FAILED,
                None,
                Some(Error::internal(
                    "an approved commit answered neither a commit nor a refusal",
                )),
            ),
            Err(e) => (approvals::FAILED, None, Some(e.clone())),
        };
        store.settle(tenant, id, status, audit.as_deref()).await?;
        let row = store.get(tenant, id).await?.ok_or_else(|| not_found(id))?;
        let mut answer = info(&row);
        if let Some(e) = failure {
            answer.message = format!(
                "Approved, but not sent: {} ({})",
                e.message(),
                e.kind.code()
            );
        }
        Ok(answer)
    }

    /// Sends an approved request's plan as its requester's commit.
    async fn send_approved(&self, row: &ApprovalRow) -> Result<AdsAnswer> {
        let op: &'static Operation = catalog::find(catalog::ads(), &row.operation)
            .ok_or_else(|| Error::internal(format!("{} left the catalog", row.operation)))?;
        let w = op
            .write
            .as_ref()
            .ok_or_else(|| Error::internal(format!("{} is not a write", op.id)))?;
        let plan = self
            .store
            .ads_writes()
            .plan(&row.tenant, &row.plan_id)
            .await?
            .ok_or_else(|| {
                Error::new(Kind::PlanNotFound, format!("plan {} is gone", row.plan_id))
            })?;
        let body: PlanBody = serde_json::from_value(plan.body.clone()).map_err(Error::internal)?;
        let requester = Principal {
            tenant: row.tenant.clone(),
            actor: Actor::recorded(&row.actor),
            scopes: ScopeSet::from_scopes(&[Scope::AdsRead, Scope::AdsWrite]),
            credential_id: row.credential_id.clone(),
            surface: Surface::from_wire(&row.surface).ok_or_else(|| {
                Error::internal(format!(
                    "approval {} records a surface that does not read: {}",
                    row.id, row.surface
                ))
            })?,
        };
        let target = Target {
            login: body.login.clone(),
            profile: body.profile_id.clone(),
            currency: body.currency.clone(),
        };
        let key = row
            .idempotency_key
            .as_deref()
            .map(IdempotencyKey::parse)
            .transpose()?;
        let id = PlanId::parse(&row.plan_id)?;
        // the approved hash, not the stored plan's: a plan that changed since is not sent
        self.commit(
            &requester,
            op,
            w,
            &target,
            (&id, &row.plan_hash, &plan.call_hash),
            key,
            Some(row),
        )
        .await
    }
}
