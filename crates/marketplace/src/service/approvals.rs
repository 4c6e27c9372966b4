//! Commits the tenant's write policy held for a person (holding one is `held`): reading one
//! (the requester polls), listing the ones waiting with what each changes (the console), and
//! deciding. An approval binds to the plan's hash:
//! approving sends exactly that plan, through the same commit as any other (the entities read
//! again and moved items left out, the policy checked again), with the approver on the audit
//! record; a rejected or expired request is never sent.

use pp_core::{Error, Kind, Principal, Result, Scope, TenantId};
use pp_store::approvals::{self, ApprovalRow, Decided};
use pp_store::jobs::now_ms;
use serde_json::Value;

use super::Marketplace;
use super::answers::{AdsAnswer, ApprovalInfo, HeldItem, HeldWrite};
use super::held::info;
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
