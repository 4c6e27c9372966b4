//! The audited advertising write flow (docs/writes.md) as a short sequence of named stages.
//! A dry run (`preview.rs`): check the items, read live state (the entities an update or
//! delete names), check a clean-room query's audiences, apply the account's policy, and issue
//! a plan — the exact request a commit sends, under a hash, for `PLAN_LIFETIME`. A commit
//! (`commit.rs`) names the plan and restates the call: the stored plan, a repeated key
//! answered again, a held plan waiting for its person, live state again (an item whose entity
//! moved is left out), the policy as it is now, the hold, the audit row written before
//! sending (`super::record`, shared with listing change sets: a plan commits once), the send,
//! and the settle with each item's result and the commit's event. `live.rs` reads entities.
//! `AdsWrites` strings the stages together and is the only type here.

mod commit;
mod live;
mod preview;

use pp_core::{Error, Principal, Result};
use pp_store::ads_writes;
use pp_store::approvals::ApprovalRow;
use serde_json::{Map, Value};

use super::answers::{AdsAnswer, CommitInfo};
use super::record::{self, Recorded};
use super::requests::{AdsCall, IdempotencyKey, PlanId};
use super::target::{Target, built};
use super::{Marketplace, held};
use crate::catalog::{Operation, WriteSpec};
use crate::writes::call_hash;

/// The call's fields that only a write takes, refused on anything else.
pub(super) fn refuse_write_fields(op: &Operation, req: &AdsCall) -> Result<()> {
    let given = [
        ("dryRun", req.dry_run.is_some()),
        ("planId", req.plan_id.is_some()),
        ("planHash", req.plan_hash.is_some()),
        ("merge", req.merge),
    ];
    match given.iter().find(|(_, set)| *set) {
        Some((name, _)) => Err(Error::invalid_request(format!(
            "{name} is for audited writes; {} is not one",
            op.id
        ))),
        None => Ok(()),
    }
}

/// Audited advertising writes for one principal holding `ads:write`
/// (`Marketplace::ads_writes`): the handle is only handed out to such a principal, so no
/// method here checks a scope.
pub struct AdsWrites<'a> {
    pub(super) m: &'a Marketplace,
    pub(super) p: &'a Principal,
}

impl AdsWrites<'_> {
    /// One advertising write: a dry run (the default) or the commit of its plan.
    pub(super) async fn write(
        &self,
        op: &'static Operation,
        req: AdsCall,
        key: Option<IdempotencyKey>,
        target: Target,
    ) -> Result<AdsAnswer> {
        let w = op
            .write
            .as_ref()
            .ok_or_else(|| Error::internal(format!("{} is a write without a write spec", op.id)))?;
        if req.merge && w.modifier.is_none() {
            return Err(Error::invalid_request(format!(
                "merge is for the bid-adjustment operations; {} is not one",
                op.id
            )));
        }
        let query = req.query.clone().unwrap_or_default();
        let hash = call_hash(
            &op.id,
            &target.login,
            target.profile.as_deref(),
            &Value::Object(query.clone()),
            req.merge,
        );
        match (req.dry_run, &req.plan_id, &req.plan_hash) {
            (Some(false), Some(id), Some(h)) => {
                let (id, h) = (id.clone(), h.clone());
                self.commit((op, w), &target, (&id, &h, &hash), key, None)
                    .await
            }
            (Some(false), _, _) => Err(Error::invalid_request(
                "a commit (dryRun: false) names its plan: send planId and planHash from the dry run",
            )),
            (_, None, None) => {
                self.preview((op, w), &target, &query, req.merge, hash)
                    .await
            }
            _ => Err(Error::invalid_request(
                "planId and planHash commit a plan: send them with dryRun: false (without it the call is a dry run)",
            )),
        }
    }

    /// The dry run, stage by stage (`preview.rs`): per-item findings, and a stored plan
    /// when every item passes.
    async fn preview(
        &self,
        (op, w): (&'static Operation, &WriteSpec),
        t: &Target,
        query: &Map<String, Value>,
        merging: bool,
        call: String,
    ) -> Result<AdsAnswer> {
        let at = (self.m, self.p);
        let built = built(self.p, op, query, t)?;
        let mut checked = preview::check_items(op, w, query)?;
        if checked.valid() {
            preview::read_live(at, w, t, merging, &mut checked).await?;
        }
        if w.audience_query && checked.valid() {
            preview::check_audiences(at, t, &mut checked).await?;
        }
        if !checked.valid() {
            return Ok(preview::answer(op, t, checked, None));
        }
        let verdict = preview::apply_policy(at, op, t, &mut checked).await?;
        let plan = preview::issue_plan(at, (op, w), t, (&built, query, call), &checked).await?;
        Ok(preview::answer(op, t, checked, Some((verdict, plan))))
    }

    /// The commit of a plan, stage by stage (`commit.rs`): by its caller, or (`approved`) by
    /// the person who approved the commit the tenant's policy held, for the caller who asked.
    pub(super) async fn commit(
        &self,
        (op, w): (&'static Operation, &WriteSpec),
        t: &Target,
        (id, given_hash, call): (&PlanId, &str, &str),
        key: Option<IdempotencyKey>,
        approved: Option<&ApprovalRow>,
    ) -> Result<AdsAnswer> {
        let (m, p) = (self.m, self.p);
        let plan = commit::stored_plan(m, p, op, (id.as_str(), given_hash, call)).await?;
        if let Some(first) = record::under_key(&m.store, p, key.as_ref()).await? {
            return commit::replay(op, t, first, &plan.id);
        }
        // a held plan waits for its person (the approval's own time bounds that wait), and its
        // commit repeated answers the request as it stands
        if approved.is_none()
            && let Some(row) = m.store.approvals().of_plan(&p.tenant, &plan.id).await?
        {
            return Ok(held::answer(op, t, &row));
        }
        let body = commit::live_body(&plan, approved.is_some())?;
        let mut live = commit::read_live((m, p), w, t, &body).await?;
        let rules = commit::policy_now((m, p), op, &body, &live).await?;
        if approved.is_none()
            && let Some(reason) = commit::held_for(&rules.approval, op, (&plan, &body), p)
        {
            let hours = rules.approval.hours;
            return held::hold(m, p, op, t, &plan, key.as_ref(), reason, hours).await;
        }
        let signer = (t.login.as_str(), t.profile.as_deref());
        let mut row = record::sending_row(p, &plan, signer, key.as_ref(), live.snapshot.clone())?;
        row.approved_by = approved.and_then(|a| a.decided_by.clone());
        let audit_id = match record::begin(&m.store, row).await? {
            Recorded::Started(id) => id,
            Recorded::Replay(first) => return commit::replay(op, t, first, &plan.id),
            Recorded::AlreadyCommitted(first) => {
                return Err(commit::already_committed(&plan.id, first));
            }
        };
        let info = CommitInfo {
            audit_id,
            plan_id: plan.id.clone(),
            plan_hash: plan.plan_hash.clone(),
            outcome: ads_writes::NOT_SENT.into(),
            status: None,
            error: None,
            replayed: false,
        };
        let drifted = std::mem::take(&mut live.drifted);
        let sent = commit::send((m, p), (op, w), t, &body, (info, drifted)).await?;
        commit::settle_and_tell((m, p), (op, w), t, (&body, &live), sent).await
    }
}
