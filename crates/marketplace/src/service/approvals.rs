//! Commits the tenant's write policy held for a person (holding one is `held`): reading one
//! (the requester polls), listing the ones waiting with what each changes (the console), and
//! deciding. An approval binds to the plan's hash:
//! approving sends exactly that plan, through the same commit as any other (the entities read
//! again and moved items left out, the policy checked again), with the approver on the audit
//! record; a rejected or expired request is never sent. A request whose requester can no
//! longer act (a credential or an application revoked, a person disabled) is withdrawn
//! ([`withdraw`], called as the access ends, and again when a person decides): never sent, with
//! an audit entry saying so. Unless the policy allows it, nobody approves their own request.

use pp_core::events::payloads::{ApprovalDecided, ApprovalDecidedData, DecidedSubject};
use pp_core::{Error, Kind, Principal, Result, Scope, TenantId};
use pp_store::Store;
use pp_store::ads_writes;
use pp_store::approvals::{self, ApprovalRow, Decided, Whose};
use pp_store::jobs::now_ms;
use serde_json::{Value, json};

use super::Marketplace;
use super::answers::{AdsAnswer, ApprovalInfo, HeldItem, HeldWrite};
use super::held::info;
use super::record::sending_row;
use super::requests::{IdempotencyKey, PlanId};
use super::target::{self, Target};
use crate::catalog::{self, Operation};
use crate::writes::PlanBody;
use crate::writes::items::at;

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

/// The held commits of the marketplace service (`Marketplace::approvals`).
pub struct Approvals<'a>(pub(super) &'a Marketplace);

impl Approvals<'_> {
    /// A held commit, for its tenant's callers (`ads:read`): how it stands.
    pub async fn get(&self, p: &Principal, id: &str) -> Result<ApprovalInfo> {
        p.require(&[Scope::AdsRead])?;
        let row = self
            .0
            .store
            .approvals()
            .get(&p.tenant, id)
            .await?
            .ok_or_else(|| not_found(id))?;
        Ok(info(&row))
    }

    /// The tenant's held commits still waiting, oldest first, each with what it changes.
    pub async fn held(&self, tenant: &TenantId) -> Result<Vec<HeldWrite>> {
        let mut out = Vec::new();
        for row in self.0.store.approvals().pending(tenant, 100).await? {
            let plan = self.0.store.ads_writes().plan(tenant, &row.plan_id).await?;
            let items = match plan {
                Some(plan) => {
                    let body: PlanBody =
                        serde_json::from_value(plan.body).map_err(Error::internal_from)?;
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

    /// Tells the feed a person decided request `row` (and, approved, what its commit did).
    async fn told(
        &self,
        tenant: &TenantId,
        row: &ApprovalRow,
        decision: &str,
        failure: Option<&Error>,
    ) -> Result<()> {
        let e = pp_store::events::NewEvent::of(&ApprovalDecided {
            subject: DecidedSubject {
                approval_id: row.id.clone(),
                plan_id: row.plan_id.clone(),
                operation: row.operation.clone(),
                audit_id: row.audit_id.clone(),
            },
            data: ApprovalDecidedData {
                decision: decision.to_owned(),
                decided_by: row.decided_by.clone(),
                note: row.note.clone(),
                status: row.status(now_ms()).to_owned(),
                error: failure.map(|e| e.api_envelope(None)),
            },
        })
        .once(format!("approval:{}:decided", row.id));
        self.0.store.events().append(tenant, e).await.map(drop)
    }

    /// A person (`by`, whose role the console checked) approves or rejects held commit `id`.
    /// Approving sends exactly the approved plan, for the caller who asked, with `by` on its
    /// audit record; the request then reads `sent` (or `failed`, with why, when the plan or
    /// the policy no longer allows it: nothing is sent then).
    pub async fn decide(
        &self,
        tenant: &TenantId,
        id: &str,
        approve: bool,
        by: &str,
        note: Option<&str>,
    ) -> Result<ApprovalInfo> {
        let store = self.0.store.approvals();
        if approve {
            self.may_approve(tenant, id, by).await?;
        }
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
            self.told(tenant, &row, "rejected", None).await?;
            return Ok(info(&row));
        }
        // the requester's access may have ended while the decision was being made
        if !store.requester_live(&row).await? {
            store.settle(tenant, id, approvals::WITHDRAWN, None).await?;
            audit_withdrawn(&self.0.store, &row, by, REQUESTER_GONE).await?;
            return Err(requester_gone(id));
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
        self.told(tenant, &row, "approved", failure.as_ref())
            .await?;
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

    /// Refuses `by`'s approval of request `id` when `by` asked for it (four eyes, unless the
    /// policy allows it) or when its requester can no longer act (the request is withdrawn).
    async fn may_approve(&self, tenant: &TenantId, id: &str, by: &str) -> Result<()> {
        let store = self.0.store.approvals();
        let Some(row) = store.get(tenant, id).await? else {
            return Err(not_found(id));
        };
        if row.status(now_ms()) != approvals::PENDING {
            return Ok(()); // deciding says what it is
        }
        if !store.requester_live(&row).await? {
            if store.withdraw_one(tenant, id, by, REQUESTER_GONE).await? {
                audit_withdrawn(&self.0.store, &row, by, REQUESTER_GONE).await?;
            }
            return Err(requester_gone(id));
        }
        let rules = self.0.policy(tenant).await?;
        if !rules.approval.self_approval && row.actor.eq_ignore_ascii_case(by) {
            return Err(Error::new(
                Kind::Conflict,
                format!("{by} requested approval request {id}: the account's policy has another person approve it (four eyes); nothing changed"),
            )
            .with_fix("Ask another approver, or have an admin set approval.selfApproval in the write policy."));
        }
        Ok(())
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
            .0
            .store
            .ads_writes()
            .plan(&row.tenant, &row.plan_id)
            .await?
            .ok_or_else(|| {
                Error::new(Kind::PlanNotFound, format!("plan {} is gone", row.plan_id))
            })?;
        let body: PlanBody =
            serde_json::from_value(plan.body.clone()).map_err(Error::internal_from)?;
        let requester = target::requester(row)?;
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
        self.0
            .ads_writes(&requester)?
            .commit(
                (op, w),
                &target,
                (&id, &row.plan_hash, &plan.call_hash),
                key,
                Some(row),
            )
            .await
    }
}

/// Why a request is withdrawn when a person decides it after its requester's access ended.
const REQUESTER_GONE: &str =
    "its requester can no longer act (credential or application revoked, or person disabled)";

fn requester_gone(id: &str) -> Error {
    Error::new(
        Kind::Conflict,
        format!("approval request {id} is withdrawn: {REQUESTER_GONE}; nothing was sent"),
    )
}

/// Withdraws the pending requests of `whose` as its access ends, as `by` (the operator who
/// ended it), `why` saying what ended: each reads `withdrawn` and is never sent, the timeline
/// shows `approval.withdrawn`, and the audit log gets an entry for its plan (status
/// `withdrawn`, nothing sent). The requests withdrawn.
pub async fn withdraw(
    store: &Store,
    whose: &Whose<'_>,
    by: &str,
    why: &str,
) -> Result<Vec<ApprovalInfo>> {
    let rows = store.approvals().withdraw(whose, by, why).await?;
    for row in &rows {
        audit_withdrawn(store, row, by, why).await?;
    }
    Ok(rows.iter().map(info).collect())
}

/// The audit entry of a withdrawn request: its plan, by its requester, nothing sent, with who
/// withdrew it and why. Kept without the request's idempotency key, so that committing the
/// plan again answers the withdrawn request.
async fn audit_withdrawn(store: &Store, row: &ApprovalRow, by: &str, why: &str) -> Result<()> {
    let Some(plan) = store.ads_writes().plan(&row.tenant, &row.plan_id).await? else {
        tracing::warn!(approval = %row.id, plan = %row.plan_id, "a withdrawn approval's plan is gone: no audit entry");
        return Ok(());
    };
    let body: PlanBody = serde_json::from_value(plan.body.clone()).map_err(Error::internal_from)?;
    let snapshot = body
        .snapshot
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            s.as_ref()
                .map(|s| json!({ "index": i, "entityId": body.entity_ids[i], "atPreview": s }))
        })
        .collect();
    // the record a commit by the requester would have begun, settled at once: nothing sent
    let requester = target::requester(row)?;
    let mut record = sending_row(
        &requester,
        &plan,
        (&body.login, body.profile_id.as_deref()),
        None,
        Value::Array(snapshot),
    )?;
    record.status = ads_writes::WITHDRAWN.into();
    record.answer = Some(json!({ "withdrawn": { "approvalId": row.id, "by": by, "reason": why } }));
    record.finished_ms = Some(record.created_ms);
    store.ads_writes().record_unsent(&record).await?;
    Ok(())
}
