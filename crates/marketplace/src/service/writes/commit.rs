//! A commit's stages, in order: [`stored_plan`] (the plan the call names, its hash and the
//! call it was previewed for), then — after the shared checks of a repeated key and a held
//! plan — [`read_live`] (each entity again: an item whose entity moved is left out),
//! [`policy_now`] (the account's policy on the values as they are now; any finding refuses the
//! whole commit), [`held_for`] (the policy holds it for a person), the audit row written
//! before sending (`super::super::record`), [`send`] (once, the items still standing) and
//! [`settle_and_tell`] (each item's result recorded with the commit's event).

use std::collections::HashMap;

use pp_core::events::payloads::{AdsWriteTold, CommitData, CommitSubject};
use pp_core::{Error, Kind, Principal, Result};
use pp_store::ads_writes::{self, AuditRow, PlanRow};
use pp_store::jobs::now_ms;
use serde_json::{Value, json};

use super::super::answers::{AdsAnswer, Commit, CommitInfo};
use super::super::record::first_answer;
use super::super::target::{Target, acting};
use super::super::{Api, Marketplace};
use super::live;
use crate::catalog::{ItemsIn, Operation, WriteAction, WriteSpec};
use crate::connections::GrantKind;
use crate::policy::{self, PolicyFinding};
use crate::writes::results::{self, ItemResult, Outcome};
use crate::writes::{PlanBody, PlannedRequest, compared_values, items, plan_hash};

/// Stage "stored plan": the plan `id` names, refused unless `given_hash` is its hash and the
/// call is the one it was previewed for.
pub(super) async fn stored_plan(
    m: &Marketplace,
    p: &Principal,
    op: &Operation,
    (id, given_hash, call): (&str, &str, &str),
) -> Result<PlanRow> {
    let plan = m
        .store
        .ads_writes()
        .plan(&p.tenant, id)
        .await?
        .ok_or_else(|| Error::new(Kind::PlanNotFound, format!("no plan {id} in this account")))?;
    if plan.plan_hash != given_hash {
        return Err(Error::new(
            Kind::PlanMismatch,
            "planHash is not the hash of that plan: nothing was sent",
        )
        .with_fix("Send the planHash the dry run answered, or preview again."));
    }
    if plan.operation != op.id || plan.call_hash != call {
        return Err(Error::new(Kind::PlanMismatch, "this call differs from the one previewed (operation, profile, query or merge): nothing was sent")
            .with_fix("Commit exactly the call you previewed, or preview the new one."));
    }
    Ok(plan)
}

/// The plan's body, unless the plan expired (an approved plan's wait is the approval's own
/// time) or what would be sent is no longer what was hashed.
pub(super) fn live_body(plan: &PlanRow, approved: bool) -> Result<PlanBody> {
    if !approved && plan.expires_ms <= now_ms() {
        return Err(Error::new(
            Kind::PlanExpired,
            format!(
                "plan {} expired at {}: nothing was sent",
                plan.id,
                pp_store::rfc3339_ms(plan.expires_ms)
            ),
        )
        .with_fix("Preview again: plans live 15 minutes."));
    }
    let body: PlanBody = serde_json::from_value(plan.body.clone()).map_err(Error::internal_from)?;
    if plan_hash(&body.request) != plan.plan_hash {
        return Err(Error::new(
            Kind::PlanMismatch,
            "the stored plan no longer matches its hash: nothing was sent",
        )
        .with_fix("Preview again."));
    }
    Ok(body)
}

/// The entities as read at commit, and what moved since the preview.
pub(super) struct Live {
    pub(super) now: HashMap<String, Value>,
    /// An item whose entity moved: not sent.
    pub(super) drifted: Vec<ItemResult>,
    /// Each entity at preview and at commit, for the audit row.
    pub(super) snapshot: Value,
}

/// Stage "read live state": each entity again; an item whose compared fields moved drifted.
pub(super) async fn read_live(
    (m, p): (&Marketplace, &Principal),
    w: &WriteSpec,
    t: &Target,
    body: &PlanBody,
) -> Result<Live> {
    let now = match body.snapshot.iter().any(Option::is_some) {
        true => live::current(m, p, w, t, &body.items).await?,
        false => HashMap::new(),
    };
    let (mut drifted, mut snapshot) = (Vec::new(), Vec::new());
    for (i, before) in body.snapshot.iter().enumerate() {
        let Some(before) = before else { continue };
        let fields = &body.compared[i];
        let after = body.entity_ids[i].as_ref().and_then(|id| now.get(id));
        let (b, a) = (
            compared_values(before, fields),
            after.map(|e| compared_values(e, fields)),
        );
        snapshot.push(json!({ "index": i, "entityId": body.entity_ids[i], "atPreview": before, "atCommit": after }));
        if a.as_ref() != Some(&b) {
            let mut r = ItemResult::new(i, Outcome::Drifted);
            r.entity_id = body.entity_ids[i].clone();
            r.before = Some(b);
            r.now = Some(a.unwrap_or(Value::Null));
            drifted.push(r);
        }
    }
    Ok(Live {
        now,
        drifted,
        snapshot: Value::Array(snapshot),
    })
}

/// Stage "apply policy": the account's policy as it is now, on the values as they are now;
/// any finding refuses the whole commit before anything is recorded or sent. The rules, for
/// the hold that follows.
pub(super) async fn policy_now(
    (m, p): (&Marketplace, &Principal),
    op: &Operation,
    body: &PlanBody,
    live: &Live,
) -> Result<policy::Policy> {
    let current: Vec<Option<Value>> = body
        .entity_ids
        .iter()
        .zip(&body.snapshot)
        .map(|(id, before)| {
            id.as_ref()
                .and_then(|id| live.now.get(id).cloned())
                .or_else(|| before.clone())
        })
        .collect();
    let rules = m.policy(&p.tenant).await?;
    let broken = policy::findings(&rules, op, &body.items, &current, body.currency.as_deref());
    match broken.is_empty() {
        true => Ok(rules),
        false => Err(policy_violation(broken)),
    }
}

/// What sending came to: the commit's outcome, every item's result (drifted ones included),
/// and the request as sent (`None` when nothing was).
pub(super) struct Sent {
    pub(super) info: CommitInfo,
    pub(super) results: Vec<ItemResult>,
    pub(super) request: Option<PlannedRequest>,
}

/// Stage "send": the plan's request once, with the items that did not drift (a multi-item
/// body cut to them); each item's result from the provider's answer, or its failure.
pub(super) async fn send(
    (m, p): (&Marketplace, &Principal),
    (op, w): (&Operation, &WriteSpec),
    t: &Target,
    body: &PlanBody,
    (mut info, drifted): (CommitInfo, Vec<ItemResult>),
) -> Result<Sent> {
    let sent: Vec<usize> = (0..body.items.len())
        .filter(|i| !drifted.iter().any(|d| d.index == *i))
        .collect();
    let mut results = drifted;
    if sent.is_empty() {
        return Ok(Sent {
            info,
            results,
            request: None,
        });
    }
    let mut request = body.request.clone();
    if sent.len() < body.items.len() && w.items != ItemsIn::Single {
        let subset: Vec<Value> = sent.iter().map(|i| body.items[*i].clone()).collect();
        request.body = items::body(op, w, body.call_body.as_ref(), &subset, &[]);
    }
    let up = m.provider(Api::Ads)?;
    let upstream = request.upstream(op, &p.tenant, GrantKind::Ads, &t.login);
    match up.client.send(up.store, up.sealer, &upstream).await {
        Ok(reply) => {
            info.outcome = ads_writes::ANSWERED.into();
            info.status = Some(reply.status);
            results.extend(results::map(op, w, reply.status, &reply.body, &sent));
        }
        Err(e) => {
            let unknown = e.field("requestOutcome").and_then(Value::as_str) == Some("unknown");
            let (outcome, each) = match unknown {
                true => (ads_writes::UNKNOWN, Outcome::Unknown),
                false => (ads_writes::REFUSED, Outcome::Failed),
            };
            info.outcome = outcome.into();
            info.status = e.field("status").and_then(Value::as_u64).map(|s| s as u16);
            let envelope = e.api_envelope(None);
            for i in &sent {
                let mut r = ItemResult::new(*i, each);
                r.entity_id = body.entity_ids[*i].clone();
                r.error = Some(envelope.clone());
                results.push(r);
            }
            info.error = Some(envelope);
        }
    }
    Ok(Sent {
        info,
        results,
        request: Some(request),
    })
}

/// Stage "settle and tell": the audit row settled with each item's result and the changes
/// it made, with the commit's event in the same transaction; the caller's answer.
pub(super) async fn settle_and_tell(
    (m, p): (&Marketplace, &Principal),
    (op, w): (&Operation, &WriteSpec),
    t: &Target,
    (body, live): (&PlanBody, &Live),
    mut s: Sent,
) -> Result<AdsAnswer> {
    s.results.sort_by_key(|r| r.index);
    let changes = applied(w, body, &live.now, &s.results);
    let items = serde_json::to_value(&s.results).map_err(Error::internal_from)?;
    // `changes` is the record's (the timeline projects it); a replay answers the rest
    let answer = json!({ "commit": &s.info, "items": &items, "changes": changes });
    let sent = s.request.map(|r| json!(r));
    let told = committed(op, t, &s.info, &s.results, p);
    m.store
        .ads_writes()
        .settle_and_tell(
            &s.info.audit_id,
            &s.info.outcome,
            sent.as_ref(),
            &answer,
            Some((&p.tenant, told)),
        )
        .await?;
    Ok(AdsAnswer::Commit(Commit {
        operation: op.id.clone(),
        merchant: acting(t),
        dry_run: false,
        commit: s.info,
        items,
    }))
}

/// The event a commit is: committed when the provider answered (its items' outcomes counted),
/// failed when it refused the whole call or its outcome is unknown.
fn committed(
    op: &Operation,
    t: &Target,
    info: &CommitInfo,
    results: &[ItemResult],
    p: &Principal,
) -> pp_store::events::NewEvent {
    let mut counts = serde_json::Map::new();
    for r in results {
        let key = serde_json::to_value(r.outcome)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let n = counts.get(&key).and_then(Value::as_i64).unwrap_or(0);
        counts.insert(key, (n + 1).into());
    }
    pp_store::events::NewEvent::of(&AdsWriteTold {
        subject: CommitSubject {
            audit_id: info.audit_id.clone(),
            plan_id: info.plan_id.clone(),
            operation: op.id.clone(),
            login: t.login.clone(),
            profile_id: t.profile.clone(),
        },
        data: CommitData {
            outcome: info.outcome.clone(),
            status: info.status,
            items: counts,
            error: info.error.clone(),
            actor: p.actor.as_str().to_owned(),
        },
    })
    .once(format!("audit:{}", info.audit_id))
}

/// What each applied item changed: the entity's values before (as read at commit, for the
/// fields the item sets) and the item as sent. A create has no before; a delete archives.
fn applied(
    w: &WriteSpec,
    body: &PlanBody,
    now: &HashMap<String, Value>,
    results: &[ItemResult],
) -> Value {
    let changes = results
        .iter()
        .filter(|r| r.outcome == Outcome::Succeeded)
        .map(|r| {
            let mut after = body.items[r.index].clone();
            if w.action == WriteAction::Delete {
                after["state"] = "ARCHIVED".into();
            }
            let fields: Vec<String> = after
                .as_object()
                .map(|o| o.keys().cloned().collect())
                .unwrap_or_default();
            let before = body.entity_ids[r.index]
                .as_ref()
                .and_then(|id| now.get(id))
                .or(body.snapshot[r.index].as_ref())
                .map(|e| compared_values(e, &fields))
                .unwrap_or(Value::Null);
            json!({ "index": r.index, "entityId": r.entity_id, "before": before, "after": after })
        })
        .collect();
    Value::Array(changes)
}

/// The first commit's answer, for a repeated key.
pub(super) fn replay(
    op: &Operation,
    t: &Target,
    first: AuditRow,
    plan_id: &str,
) -> Result<AdsAnswer> {
    let answer = first_answer(
        first,
        plan_id,
        "List the entities to see whether the change applied before planning again.",
    )?;
    let mut info: CommitInfo =
        serde_json::from_value(answer["commit"].clone()).map_err(Error::internal_from)?;
    info.replayed = true;
    Ok(AdsAnswer::Commit(Commit {
        operation: op.id.clone(),
        merchant: acting(t),
        dry_run: false,
        commit: info,
        items: answer["items"].clone(),
    }))
}

/// The refusal of a plan committed before.
pub(super) fn already_committed(plan: &str, first: AuditRow) -> Error {
    Error::new(
        Kind::PlanAlreadyCommitted,
        format!("plan {plan} was committed before (audit {})", first.id),
    )
    .with_field("auditId", first.id)
    .with_fix(
        "Read GET /api/marketplace/audit for its result; preview again to make another change.",
    )
}

/// Why the account's policy holds this commit for a person, if it does: by what it writes, by
/// who commits it, or by who previewed it and through which door — a plan an AI client
/// previewed over MCP waits for a person even when it is committed over REST, and a plan a
/// held credential previewed waits even when another commits it.
pub(super) fn held_for(
    rules: &policy::ApprovalRules,
    op: &Operation,
    (plan, body): (&PlanRow, &PlanBody),
    p: &Principal,
) -> Option<String> {
    let door = body
        .previewed_on
        .as_deref()
        .and_then(pp_core::Surface::from_wire);
    let previewer = door.as_ref().map(|surface| policy::Hand {
        surface,
        credential_id: &plan.credential_id,
        app: body.previewed_app.as_ref(),
    });
    rules.required(&op.id, body.items.len(), policy::Hand::of(p), previewer)
}

/// The refusal of a commit the account's policy does not allow.
fn policy_violation(findings: Vec<PolicyFinding>) -> Error {
    let first = findings
        .first()
        .map(|f| f.message.clone())
        .unwrap_or_default();
    let n = findings.len();
    Error::new(
        Kind::PolicyViolation,
        format!(
            "the account's write policy does not allow this commit ({n} finding(s); first: {first}): nothing was sent"
        ),
    )
    .with_fix("Change the items to stay within the policy and preview again, or ask an admin to change the policy.")
    .with_field("findings", serde_json::to_value(findings).unwrap_or_default())
}
