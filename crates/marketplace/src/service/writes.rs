//! The audited advertising write flow (docs/writes.md): a dry run checks every item and, when all
//! pass, reads the entities an update or delete names and issues a plan — the exact request a
//! commit sends, under a hash, for `PLAN_LIFETIME`. A commit names the plan and restates the
//! call; it reads the entities again and leaves out any item whose entity moved, writes the
//! audit row before sending (exactly once: a plan commits once, a repeated `Idempotency-Key`
//! answers the first commit again), sends once, and settles the row with each item's result.

use pp_core::{Error, Kind, Principal, Result};
use pp_store::ads_writes::{self, AuditRow, Begin, PlanRow};
use pp_store::approvals::ApprovalRow;
use pp_store::jobs::now_ms;
use serde_json::{Map, Value, json};

use super::answers::{AdsAnswer, Commit, CommitInfo, Plan, PolicyVerdict, Preview};
use super::requests::{AdsCall, IdempotencyKey, PlanId};
use super::target::{Target, acting, built};
use super::{Api, Marketplace, audiences, held};
use crate::catalog::{self, ItemsIn, Operation, ReadBy, WriteAction, WriteSpec};
use crate::connections::GrantKind;
use crate::policy::{self, PolicyFinding};
use crate::writes::items::{self, id_text};
use crate::writes::results::{self, ItemResult, Outcome};
use crate::writes::rules::{self, Finding, Problem};
use crate::writes::{
    PLAN_LIFETIME, PlanBody, PlannedRequest, call_hash, compared_values, merge, plan_hash,
};

/// Pages a current-values read follows at most (100 entities a page).
const READ_PAGES: usize = 10;

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
                self.commit(op, w, &target, (&id, &h, &hash), key, None)
                    .await
            }
            (Some(false), _, _) => Err(Error::invalid_request(
                "a commit (dryRun: false) names its plan: send planId and planHash from the dry run",
            )),
            (_, None, None) => self.preview(op, w, &target, &query, req.merge, hash).await,
            _ => Err(Error::invalid_request(
                "planId and planHash commit a plan: send them with dryRun: false (without it the call is a dry run)",
            )),
        }
    }

    /// The dry run: per-item findings, and a stored plan when every item passes.
    #[allow(clippy::too_many_arguments)]
    async fn preview(
        &self,
        op: &'static Operation,
        w: &WriteSpec,
        t: &Target,
        query: &Map<String, Value>,
        merging: bool,
        call: String,
    ) -> Result<AdsAnswer> {
        let p = self.p;
        let built = built(p, op, query, t)?;
        let mut items = items::read(op, w, query)?;
        let mut findings: Vec<Finding> = items
            .iter_mut()
            .enumerate()
            .map(|(i, item)| rules::check(op, w, i, item))
            .collect();
        let mut snapshot = vec![None; items.len()];
        let mut compared = vec![Vec::new(); items.len()];
        let ids: Vec<Option<String>> = items.iter().map(|i| id_text(&i[&w.entity_id])).collect();
        let valid = |f: &[Finding]| f.iter().all(|f| f.problems.is_empty());
        if valid(&findings) && w.action != WriteAction::Create && w.current.is_some() {
            let now = self.current(w, t, &items).await?;
            for (i, f) in findings.iter_mut().enumerate() {
                f.entity_id = ids[i].clone();
                let Some(entity) = ids[i].as_ref().and_then(|id| now.get(id)) else {
                    f.problems.push(Problem {
                        field: w.entity_id.clone(),
                        rule: "entity_not_found",
                        message: format!(
                            "the provider has no {} {} in this profile",
                            w.entity_id,
                            ids[i].as_deref().unwrap_or("(none)")
                        ),
                    });
                    continue;
                };
                if let Some(m) = w.modifier {
                    f.notes.extend(match merging {
                        true => merge::merge(m, &mut items[i], entity),
                        false => merge::removals(m, &items[i], entity),
                    });
                }
                compared[i] = match w.action {
                    WriteAction::Delete => vec!["state".to_owned()],
                    _ => rules::compared_fields(w, &items[i]),
                };
                if let Some(need) = &w.require_state {
                    compared[i].push(need.field.clone());
                    if let Some(problem) = rules::required_state(need, entity) {
                        f.problems.push(problem);
                    }
                }
                f.current = Some(entity.clone());
                snapshot[i] = Some(entity.clone());
            }
        }
        if w.audience_query && valid(&findings) {
            for (i, f) in findings.iter_mut().enumerate() {
                let instance = items[i]["instanceId"]
                    .as_str()
                    .or_else(|| snapshot[i].as_ref()?["instanceId"].as_str())
                    .map(str::to_owned);
                f.problems.extend(
                    audiences::paid_dataset_problems(self.m, p, t, instance, &items[i]).await?,
                );
            }
        }
        let merchant = acting(t);
        if !valid(&findings) {
            return Ok(AdsAnswer::Preview(Preview {
                operation: op.id.clone(),
                merchant,
                dry_run: true,
                valid: false,
                items: findings,
                policy: None,
                plan: None,
            }));
        }
        // the account's write policy: every finding is reported; a plan is still issued, and
        // its commit is refused while any finding stands
        let rules = self.m.policy(&p.tenant).await?;
        let currency = t.currency.clone();
        let mut plan_wide = Vec::new();
        for f in policy::findings(&rules, op, &items, &snapshot, currency.as_deref()) {
            match f.index {
                Some(i) => findings[i].policy.push(f),
                None => plan_wide.push(f),
            }
        }
        let verdict = PolicyVerdict {
            allowed: plan_wide.is_empty() && findings.iter().all(|f| f.policy.is_empty()),
            findings: plan_wide,
        };
        let path_params: Vec<String> = op
            .params
            .iter()
            .filter(|p| p.location == "path")
            .map(|p| p.name.clone())
            .collect();
        let request = PlannedRequest {
            body: items::body(op, w, query.get("body"), &items, &path_params),
            ..PlannedRequest::of(&built)
        };
        let serves: Vec<usize> = findings
            .iter()
            .filter(|f| f.serves)
            .map(|f| f.index)
            .collect();
        let body = PlanBody {
            login: t.login.clone(),
            profile_id: t.profile.clone(),
            request: request.clone(),
            call_body: query.get("body").cloned(),
            items,
            entity_ids: ids,
            snapshot,
            compared,
            currency,
            previewed_on: Some(p.surface.as_wire()),
            previewed_app: p.app.clone(),
        };
        let created = now_ms();
        let row = PlanRow {
            id: pp_store::random_id("pl_", 16)?,
            tenant: p.tenant.clone(),
            credential_id: p.credential_id.clone(),
            actor: p.actor.as_str().to_owned(),
            operation: op.id.clone(),
            call_hash: call,
            plan_hash: plan_hash(&request),
            body: serde_json::to_value(&body).map_err(Error::internal_from)?,
            created_ms: created,
            expires_ms: created + PLAN_LIFETIME.as_millis() as i64,
        };
        self.m.store.ads_writes().put_plan(&row).await?;
        let billing = match serves.len() {
            0 => "nothing in this plan serves or bills until someone enables it".to_owned(),
            n => format!(
                "{n} item(s) are ENABLED: they serve and bill as soon as the commit lands, where their ad group and campaign are enabled"
            ),
        };
        Ok(AdsAnswer::Preview(Preview {
            operation: op.id.clone(),
            merchant,
            dry_run: true,
            valid: true,
            items: findings,
            policy: Some(verdict),
            plan: Some(Plan {
                plan_id: row.id,
                plan_hash: row.plan_hash,
                expires_at: pp_store::rfc3339_ms(row.expires_ms),
                requests: vec![request],
                serves,
                billing,
            }),
        }))
    }

    /// The entities the items name, as the provider has them now, by id.
    async fn current(
        &self,
        w: &WriteSpec,
        t: &Target,
        items: &[Value],
    ) -> Result<std::collections::HashMap<String, Value>> {
        let p = self.p;
        let mut out = std::collections::HashMap::new();
        let Some(read) = &w.current else {
            return Ok(out);
        };
        let op = catalog::find(catalog::ads(), &read.operation)
            .ok_or_else(|| Error::internal(format!("{} is not in the catalog", read.operation)))?;
        let up = self.m.provider(Api::Ads)?;
        let distinct = |field: &str| -> Vec<String> {
            let mut v: Vec<String> = items.iter().filter_map(|i| id_text(&i[field])).collect();
            v.sort();
            v.dedup();
            v
        };
        if read.by == ReadBy::Path {
            for id in distinct(&w.entity_id) {
                let args = json!({ (w.entity_id.clone()): id });
                let req = built(p, op, args.as_object().expect("an object"), t)?;
                match up.client.send(up.store, up.sealer, &req).await {
                    Ok(reply) => {
                        out.insert(id, reply.body);
                    }
                    // the provider has no such entity: the item says entity_not_found
                    Err(e) if e.field("status").and_then(Value::as_u64) == Some(404) => {}
                    Err(e) => return Err(e),
                }
            }
            return Ok(out);
        }
        let mut next: Option<String> = None;
        for _ in 0..READ_PAGES {
            let args: Map<String, Value> = match read.by {
                ReadBy::Ids => {
                    let mut b = json!({ (format!("{}Filter", w.entity_id)): { "include": distinct(&w.entity_id) }, "maxResults": 100 });
                    if let Some(n) = &next {
                        b["nextToken"] = n.clone().into();
                    }
                    json!({ "body": b })
                }
                ReadBy::AdGroupQuery => {
                    json!({ "adGroupIdFilter": distinct("adGroupId").join(","), "count": 5000 })
                }
                ReadBy::Path => unreachable!("answered above"),
                ReadBy::AdGroupFilter => {
                    let mut b = json!({ "filters": [{ "filterType": "AD_GROUP_ID", "values": distinct("adGroupId") }], "maxResults": 5000 });
                    if let Some(n) = &next {
                        b["nextToken"] = n.clone().into();
                    }
                    json!({ "body": b })
                }
            }
            .as_object()
            .cloned()
            .unwrap_or_default();
            let req = built(p, op, &args, t)?;
            let reply = up.client.send(up.store, up.sealer, &req).await?;
            let list = match &read.key {
                Some(k) => &reply.body[k.as_str()],
                None => &reply.body,
            };
            for e in list.as_array().into_iter().flatten() {
                if let Some(id) = id_text(&e[&w.entity_id]) {
                    out.insert(id, e.clone());
                }
            }
            next = reply.body["nextToken"].as_str().map(str::to_owned);
            if next.is_none() || read.by == ReadBy::AdGroupQuery {
                break;
            }
        }
        Ok(out)
    }

    /// The commit of a plan: by its caller, or (`approved`) by the person who approved the
    /// commit the tenant's policy held, for the caller who asked.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn commit(
        &self,
        op: &'static Operation,
        w: &WriteSpec,
        t: &Target,
        (id, given_hash, call): (&PlanId, &str, &str),
        key: Option<IdempotencyKey>,
        approved: Option<&ApprovalRow>,
    ) -> Result<AdsAnswer> {
        let p = self.p;
        let store = self.m.store.ads_writes();
        let plan = store.plan(&p.tenant, id.as_str()).await?.ok_or_else(|| {
            Error::new(
                Kind::PlanNotFound,
                format!("no plan {} in this account", id.as_str()),
            )
        })?;
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
        if let Some(k) = &key
            && let Some(first) = store.by_key(&p.tenant, k.as_str()).await?
        {
            return replay(op, t, first, &plan.id);
        }
        // a held plan waits for its person (the approval's own time bounds that wait), and its
        // commit repeated answers the request as it stands
        let held = match approved {
            Some(_) => None,
            None => {
                self.m
                    .store
                    .approvals()
                    .of_plan(&p.tenant, &plan.id)
                    .await?
            }
        };
        if let Some(row) = held {
            return Ok(held::answer(op, t, &row));
        }
        if approved.is_none() && plan.expires_ms <= now_ms() {
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
        let body: PlanBody =
            serde_json::from_value(plan.body.clone()).map_err(Error::internal_from)?;
        // what would be sent must still be what was hashed (and, held, what a person approved)
        if plan_hash(&body.request) != plan.plan_hash {
            return Err(Error::new(
                Kind::PlanMismatch,
                "the stored plan no longer matches its hash: nothing was sent",
            )
            .with_fix("Preview again."));
        }
        // the entities again: an item whose entity moved is not sent
        let now = if body.snapshot.iter().any(Option::is_some) {
            self.current(w, t, &body.items).await?
        } else {
            Default::default()
        };
        let mut drifted = Vec::new();
        let mut audit_snapshot = Vec::new();
        for (i, before) in body.snapshot.iter().enumerate() {
            let Some(before) = before else { continue };
            let fields = &body.compared[i];
            let after = body.entity_ids[i].as_ref().and_then(|id| now.get(id));
            let (b, a) = (
                compared_values(before, fields),
                after.map(|e| compared_values(e, fields)),
            );
            audit_snapshot.push(json!({ "index": i, "entityId": body.entity_ids[i], "atPreview": before, "atCommit": after }));
            if a.as_ref() != Some(&b) {
                let mut r = ItemResult::new(i, Outcome::Drifted);
                r.entity_id = body.entity_ids[i].clone();
                r.before = Some(b);
                r.now = Some(a.unwrap_or(Value::Null));
                drifted.push(r);
            }
        }
        // the account's policy as it is now, on the values as they are now: any finding
        // refuses the whole commit, before anything is recorded or sent
        let current: Vec<Option<Value>> = body
            .entity_ids
            .iter()
            .zip(&body.snapshot)
            .map(|(id, before)| {
                id.as_ref()
                    .and_then(|id| now.get(id).cloned())
                    .or_else(|| before.clone())
            })
            .collect();
        let rules = self.m.policy(&p.tenant).await?;
        let broken = policy::findings(&rules, op, &body.items, &current, body.currency.as_deref());
        if !broken.is_empty() {
            return Err(policy_violation(broken));
        }
        if approved.is_none()
            && let Some(reason) = held_for(&rules.approval, op, (&plan, &body), p)
        {
            return held::hold(
                self.m,
                p,
                op,
                t,
                &plan,
                key.as_ref(),
                reason,
                rules.approval.hours,
            )
            .await;
        }
        let mut row = sending_row(
            p,
            &plan,
            (&t.login, t.profile.as_deref()),
            key.as_ref(),
            Value::Array(audit_snapshot),
        )?;
        row.approved_by = approved.and_then(|a| a.decided_by.clone());
        let audit_id = row.id.clone();
        match store.begin(row).await? {
            Begin::Started => {}
            Begin::Replay(first) => return replay(op, t, first, &plan.id),
            Begin::KeyTaken(_) => return Err(key_taken()),
            Begin::AlreadyCommitted(first) => {
                return Err(Error::new(Kind::PlanAlreadyCommitted, format!(
                    "plan {} was committed before (audit {})", plan.id, first.id
                ))
                .with_field("auditId", first.id)
                .with_fix("Read GET /api/marketplace/audit for its result; preview again to make another change."));
            }
        }
        let sent: Vec<usize> = (0..body.items.len())
            .filter(|i| !drifted.iter().any(|d| d.index == *i))
            .collect();
        let mut info = CommitInfo {
            audit_id: audit_id.clone(),
            plan_id: plan.id.clone(),
            plan_hash: plan.plan_hash.clone(),
            outcome: ads_writes::NOT_SENT.into(),
            status: None,
            error: None,
            replayed: false,
        };
        let mut results = drifted;
        let mut request = body.request.clone();
        if sent.is_empty() {
            request.body = None;
        } else {
            if sent.len() < body.items.len() && w.items != ItemsIn::Single {
                let subset: Vec<Value> = sent.iter().map(|i| body.items[*i].clone()).collect();
                request.body = items::body(op, w, body.call_body.as_ref(), &subset, &[]);
            }
            let up = self.m.provider(Api::Ads)?;
            let upstream = request.upstream(op, &p.tenant, GrantKind::Ads, &t.login);
            match up.client.send(up.store, up.sealer, &upstream).await {
                Ok(reply) => {
                    info.outcome = ads_writes::ANSWERED.into();
                    info.status = Some(reply.status);
                    results.extend(results::map(op, w, reply.status, &reply.body, &sent));
                }
                Err(e) => {
                    let unknown =
                        e.field("requestOutcome").and_then(Value::as_str) == Some("unknown");
                    info.outcome = if unknown {
                        ads_writes::UNKNOWN
                    } else {
                        ads_writes::REFUSED
                    }
                    .into();
                    info.status = e.field("status").and_then(Value::as_u64).map(|s| s as u16);
                    let envelope = e.api_envelope(None);
                    for i in &sent {
                        let mut r = ItemResult::new(
                            *i,
                            if unknown {
                                Outcome::Unknown
                            } else {
                                Outcome::Failed
                            },
                        );
                        r.entity_id = body.entity_ids[*i].clone();
                        r.error = Some(envelope.clone());
                        results.push(r);
                    }
                    info.error = Some(envelope);
                }
            }
        }
        results.sort_by_key(|r| r.index);
        let changes = applied(w, &body, &now, &results);
        let items = serde_json::to_value(&results).map_err(Error::internal_from)?;
        // `changes` is the record's (the timeline projects it); a replay answers the rest
        let answer = json!({ "commit": &info, "items": &items, "changes": changes });
        let sent_json = (!sent.is_empty()).then(|| json!(request));
        let told = committed(op, t, &info, &results, p);
        store
            .settle_and_tell(
                &audit_id,
                &info.outcome,
                sent_json.as_ref(),
                &answer,
                Some((&p.tenant, told)),
            )
            .await?;
        Ok(AdsAnswer::Commit(Commit {
            operation: op.id.clone(),
            merchant: acting(t),
            dry_run: false,
            commit: info,
            items,
        }))
    }
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
    let kind = match info.outcome.as_str() {
        ads_writes::ANSWERED => &pp_core::events::ADS_WRITE_COMMITTED,
        _ => &pp_core::events::ADS_WRITE_FAILED,
    };
    pp_store::events::NewEvent::new(
        kind,
        json!({ "auditId": info.audit_id, "planId": info.plan_id, "operation": op.id, "login": t.login, "profileId": t.profile }),
        json!({ "outcome": info.outcome, "status": info.status, "items": counts, "error": info.error, "actor": p.actor.as_str() }),
    )
    .once(format!("audit:{}", info.audit_id))
}

/// What each applied item changed: the entity's values before (as read at commit, for the
/// fields the item sets) and the item as sent. A create has no before; a delete archives.
fn applied(
    w: &WriteSpec,
    body: &PlanBody,
    now: &std::collections::HashMap<String, Value>,
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

/// The audit row a commit of `plan` writes before it sends (status `sending`), attributed to
/// `p` and acting as `merchant` (and profile).
pub(super) fn sending_row(
    p: &Principal,
    plan: &PlanRow,
    (merchant, profile): (&str, Option<&str>),
    key: Option<&IdempotencyKey>,
    snapshot: Value,
) -> Result<AuditRow> {
    Ok(AuditRow {
        id: pp_store::random_id("au_", 12)?,
        tenant: p.tenant.clone(),
        plan_id: plan.id.clone(),
        credential_id: p.credential_id.clone(),
        actor: p.actor.as_str().to_owned(),
        surface: p.surface.as_wire(),
        operation: plan.operation.clone(),
        merchant: merchant.to_owned(),
        profile_id: profile.map(str::to_owned),
        plan_hash: plan.plan_hash.clone(),
        idempotency_key: key.map(|k| k.as_str().to_owned()),
        snapshot,
        sent: None,
        answer: None,
        status: ads_writes::SENDING.into(),
        created_ms: now_ms(),
        finished_ms: None,
        approved_by: None,
        previewed_by: Some(plan.actor.clone()),
        previewed_credential_id: Some(plan.credential_id.clone()),
    })
}

pub(super) fn key_taken() -> Error {
    Error::invalid_request("this Idempotency-Key was used for another commit")
        .with_fix("Use a new key for a new commit; resend the original commit to read its answer.")
}

/// The recorded answer of the first commit under a repeated key: refused when the key
/// committed another plan, or when that commit has no answer yet (`check` says what to
/// read before trying again).
pub(super) fn first_answer(first: AuditRow, plan_id: &str, check: &str) -> Result<Value> {
    if first.plan_id != plan_id {
        return Err(key_taken());
    }
    first.answer.ok_or_else(|| {
        Error::new(Kind::Conflict, format!(
            "the first commit under this key (audit {}) has no recorded answer: it is in flight, or its process stopped while sending",
            first.id
        ))
        .with_field("auditId", first.id)
        .with_field("requestOutcome", "unknown")
        .with_fix(check.to_owned())
    })
}

/// The first commit's answer, for a repeated key.
fn replay(op: &Operation, t: &Target, first: AuditRow, plan_id: &str) -> Result<AdsAnswer> {
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

/// Why the account's policy holds this commit for a person, if it does: by what it writes, by
/// who commits it, or by who previewed it and through which door — a plan an AI client
/// previewed over MCP waits for a person even when it is committed over REST, and a plan a
/// held credential previewed waits even when another commits it.
fn held_for(
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
