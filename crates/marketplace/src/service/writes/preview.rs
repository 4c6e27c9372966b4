//! The dry run's stages, in order: [`check_items`] (the items read from the call and checked
//! by the operation's rules), [`read_live`] (each entity an update or delete names, as the
//! provider has it now: missing, in the wrong state, merged), [`check_audiences`] (a
//! clean-room query's paid datasets), [`apply_policy`] (the account's write policy: reported,
//! and refusing the commit while it stands) and [`issue_plan`] (the exact request a commit
//! sends, stored under its hash). [`answer`] writes what the caller reads.

use pp_core::{Error, Principal, Result};
use pp_store::ads_writes::PlanRow;
use pp_store::jobs::now_ms;
use serde_json::{Map, Value};

use super::super::answers::{AdsAnswer, Plan, PolicyVerdict, Preview};
use super::super::target::{Target, acting};
use super::super::{Marketplace, audiences};
use super::live;
use crate::catalog::{Operation, WriteAction, WriteSpec};
use crate::policy;
use crate::upstream::Request;
use crate::writes::items::{self, id_text};
use crate::writes::rules::{self, Finding, Problem};
use crate::writes::{PLAN_LIFETIME, PlanBody, PlannedRequest, merge, plan_hash};

/// What a dry run found so far: the items, one finding each, and what was read of each
/// item's entity.
pub(super) struct Checked {
    pub(super) items: Vec<Value>,
    pub(super) findings: Vec<Finding>,
    /// Each item's entity as read now (an update or delete), kept in the plan.
    snapshot: Vec<Option<Value>>,
    /// The fields a commit compares again, per item.
    compared: Vec<Vec<String>>,
    ids: Vec<Option<String>>,
}

impl Checked {
    /// Whether every item passes so far.
    pub(super) fn valid(&self) -> bool {
        self.findings.iter().all(|f| f.problems.is_empty())
    }
}

/// Stage "check items": the call's items, each checked by the operation's rules.
pub(super) fn check_items(
    op: &Operation,
    w: &WriteSpec,
    query: &Map<String, Value>,
) -> Result<Checked> {
    let mut items = items::read(op, w, query)?;
    let findings = items
        .iter_mut()
        .enumerate()
        .map(|(i, item)| rules::check(op, w, i, item))
        .collect();
    let n = items.len();
    Ok(Checked {
        ids: items.iter().map(|i| id_text(&i[&w.entity_id])).collect(),
        items,
        findings,
        snapshot: vec![None; n],
        compared: vec![Vec::new(); n],
    })
}

/// Stage "read live state": each entity an update or delete names, as the provider has it
/// now; an item whose entity is missing or in the wrong state fails, a bid adjustment is
/// merged with (or shows its removals from) what is there.
pub(super) async fn read_live(
    (m, p): (&Marketplace, &Principal),
    w: &WriteSpec,
    t: &Target,
    merging: bool,
    c: &mut Checked,
) -> Result<()> {
    if w.action == WriteAction::Create || w.current.is_none() {
        return Ok(());
    }
    let now = live::current(m, p, w, t, &c.items).await?;
    for (i, f) in c.findings.iter_mut().enumerate() {
        f.entity_id = c.ids[i].clone();
        let Some(entity) = c.ids[i].as_ref().and_then(|id| now.get(id)) else {
            f.problems.push(Problem {
                field: w.entity_id.clone(),
                rule: "entity_not_found",
                message: format!(
                    "the provider has no {} {} in this profile",
                    w.entity_id,
                    c.ids[i].as_deref().unwrap_or("(none)")
                ),
            });
            continue;
        };
        if let Some(modifier) = w.modifier {
            f.notes.extend(match merging {
                true => merge::merge(modifier, &mut c.items[i], entity),
                false => merge::removals(modifier, &c.items[i], entity),
            });
        }
        c.compared[i] = match w.action {
            WriteAction::Delete => vec!["state".to_owned()],
            _ => rules::compared_fields(w, &c.items[i]),
        };
        if let Some(need) = &w.require_state {
            c.compared[i].push(need.field.clone());
            if let Some(problem) = rules::required_state(need, entity) {
                f.problems.push(problem);
            }
        }
        f.current = Some(entity.clone());
        c.snapshot[i] = Some(entity.clone());
    }
    Ok(())
}

/// Stage "check audiences": a clean-room query's paid datasets, each item's instance's.
pub(super) async fn check_audiences(
    (m, p): (&Marketplace, &Principal),
    t: &Target,
    c: &mut Checked,
) -> Result<()> {
    for (i, f) in c.findings.iter_mut().enumerate() {
        let instance = c.items[i]["instanceId"]
            .as_str()
            .or_else(|| c.snapshot[i].as_ref()?["instanceId"].as_str())
            .map(str::to_owned);
        f.problems
            .extend(audiences::paid_dataset_problems(m, p, t, instance, &c.items[i]).await?);
    }
    Ok(())
}

/// Stage "apply policy": every finding of the account's write policy, on its item or the
/// plan; a plan is still issued, and its commit is refused while any finding stands.
pub(super) async fn apply_policy(
    (m, p): (&Marketplace, &Principal),
    op: &Operation,
    t: &Target,
    c: &mut Checked,
) -> Result<PolicyVerdict> {
    let rules = m.policy(&p.tenant).await?;
    let mut plan_wide = Vec::new();
    for f in policy::findings(&rules, op, &c.items, &c.snapshot, t.currency.as_deref()) {
        match f.index {
            Some(i) => c.findings[i].policy.push(f),
            None => plan_wide.push(f),
        }
    }
    Ok(PolicyVerdict {
        allowed: plan_wide.is_empty() && c.findings.iter().all(|f| f.policy.is_empty()),
        findings: plan_wide,
    })
}

/// Stage "issue plan": the exact request a commit sends (`built`, with the checked items as
/// its body), stored with what was read under its hash for [`PLAN_LIFETIME`].
pub(super) async fn issue_plan(
    (m, p): (&Marketplace, &Principal),
    (op, w): (&Operation, &WriteSpec),
    t: &Target,
    (built, query, call): (&Request<'_>, &Map<String, Value>, String),
    c: &Checked,
) -> Result<Plan> {
    let path_params: Vec<String> = op
        .params
        .iter()
        .filter(|p| p.location == "path")
        .map(|p| p.name.clone())
        .collect();
    let request = PlannedRequest {
        body: items::body(op, w, query.get("body"), &c.items, &path_params),
        ..PlannedRequest::of(built)
    };
    let serves: Vec<usize> = c
        .findings
        .iter()
        .filter(|f| f.serves)
        .map(|f| f.index)
        .collect();
    let body = PlanBody {
        login: t.login.clone(),
        profile_id: t.profile.clone(),
        request: request.clone(),
        call_body: query.get("body").cloned(),
        items: c.items.clone(),
        entity_ids: c.ids.clone(),
        snapshot: c.snapshot.clone(),
        compared: c.compared.clone(),
        currency: t.currency.clone(),
        previewed_on: Some(p.surface.as_wire()),
        previewed_app: p.app.clone(),
    };
    let row = store_plan((m, p), op, call, &request, &body).await?;
    let billing = match serves.len() {
        0 => "nothing in this plan serves or bills until someone enables it".to_owned(),
        n => format!(
            "{n} item(s) are ENABLED: they serve and bill as soon as the commit lands, where their ad group and campaign are enabled"
        ),
    };
    Ok(Plan {
        plan_id: row.id,
        plan_hash: row.plan_hash,
        expires_at: pp_store::rfc3339_ms(row.expires_ms),
        requests: vec![request],
        serves,
        billing,
    })
}

/// The plan stored under its hash, for [`PLAN_LIFETIME`].
async fn store_plan(
    (m, p): (&Marketplace, &Principal),
    op: &Operation,
    call: String,
    request: &PlannedRequest,
    body: &PlanBody,
) -> Result<PlanRow> {
    let created = now_ms();
    let row = PlanRow {
        id: pp_store::random_id("pl_", 16)?,
        tenant: p.tenant.clone(),
        credential_id: p.credential_id.clone(),
        actor: p.actor.as_str().to_owned(),
        operation: op.id.clone(),
        call_hash: call,
        plan_hash: plan_hash(request),
        body: serde_json::to_value(body).map_err(Error::internal_from)?,
        created_ms: created,
        expires_ms: created + PLAN_LIFETIME.as_millis() as i64,
    };
    m.store.ads_writes().put_plan(&row).await?;
    Ok(row)
}

/// The dry run's answer: valid with the policy's verdict and the plan, or not, with neither.
pub(super) fn answer(
    op: &Operation,
    t: &Target,
    c: Checked,
    outcome: Option<(PolicyVerdict, Plan)>,
) -> AdsAnswer {
    let (policy, plan) = outcome.unzip();
    AdsAnswer::Preview(Preview {
        operation: op.id.clone(),
        merchant: acting(t),
        dry_run: true,
        valid: plan.is_some(),
        items: c.findings,
        policy,
        plan,
    })
}
