//! The guarded listing write (`ListingWrites`): a preview (`Listings::preview`) or the commit
//! of a change set (docs/writes.md): it checks the approval (the change set's id and
//! hash, the merchant, a restated query), then the product types' schema versions and the
//! listings themselves, and replays each SKU that did not move, once, under the audit row
//! written first. SKUs that set image slots start the image check (`media`).

use pp_core::events::payloads::{ListingCommitted, ListingCommittedData, ListingSubject};
use pp_core::{Error, Kind, Principal, Result};
use pp_store::ads_writes::{self, AuditRow, PlanRow};
use pp_store::jobs::now_ms;
use serde_json::{Map, Value, json};

use super::answers::{Acting, ListingCommit, ListingCommitInfo, SpapiAnswer};
use super::listing_reads::{read_listing, type_version};
use super::listings::restated_hash;
use super::record::{self, Recorded};
use super::requests::{ChangeSetId, IdempotencyKey, SpapiCall};
use super::{Api, Marketplace, media};
use crate::catalog::Operation;
use crate::connections::GrantKind;
use crate::merchants::Merchant;
use crate::writes::listings::{ChangeSetBody, OPERATION, SkuChange, values_of};

/// Guarded listing writes for one principal holding `retail:read` and `listings:write`
/// (`Marketplace::listing_writes`): the handle is only handed out to such a principal, so no
/// method here checks a scope.
pub struct ListingWrites<'a> {
    pub(super) m: &'a Marketplace,
    pub(super) p: &'a Principal,
}

impl ListingWrites<'_> {
    /// The guarded listing write: a preview (the default) or the commit of a change set.
    pub(super) async fn write(
        &self,
        op: &'static Operation,
        req: SpapiCall,
        key: Option<IdempotencyKey>,
    ) -> Result<SpapiAnswer> {
        let p = self.p;
        self.m.provider(Api::Spapi)?;
        let merchant = self.m.resolve(p, &req.selector()?).await?;
        match (req.dry_run, &req.change_set_id, &req.change_set_hash) {
            (Some(false), Some(id), Some(h)) => {
                let restated = req.query.clone();
                self.commit(op, &merchant, (id, h), restated, key).await
            }
            (Some(false), _, _) => Err(Error::invalid_request(
                "a commit (dryRun: false) names its change set: send changeSetId and changeSetHash from the preview",
            )),
            (_, None, None) => {
                self.m
                    .listings()
                    .preview(p, op, &merchant, req.query.unwrap_or_default())
                    .await
            }
            _ => Err(Error::invalid_request(
                "changeSetId and changeSetHash commit a change set: send them with dryRun: false (without it the call is a preview)",
            )),
        }
    }

    /// The commit, stage by stage: the change set as approved, a repeated key answered
    /// again, live state (the switches, the product types' schemas, the listings: a SKU that
    /// moved is left out), the audit row written before sending (shared with advertising
    /// writes), each standing SKU sent once, and the settle with the commit's event.
    async fn commit(
        &self,
        write: &'static Operation,
        m: &Merchant,
        (id, given_hash): (&ChangeSetId, &str),
        restated: Option<Map<String, Value>>,
        key: Option<IdempotencyKey>,
    ) -> Result<SpapiAnswer> {
        let (market, p) = (self.m, self.p);
        let (plan, body) = market.listings().stored(p, id).await?;
        as_approved(m, &plan, &body, given_hash, restated)?;
        if let Some(first) = record::under_key(&market.store, p, key.as_ref()).await? {
            return listing_replay(m, first, &plan.id);
        }
        // `begin` decides this atomically below; asking first lets a committed set that has
        // since aged out say "already committed" rather than "expired"
        if let Some(first) = market
            .store
            .ads_writes()
            .by_plan(&p.tenant, &plan.id)
            .await?
        {
            return Err(already_committed(&plan.id, first.id));
        }
        not_expired(&plan)?;
        let live = read_live((market, p), (m, &plan.id), &body).await?;
        let row = record::sending_row(
            p,
            &plan,
            (&m.seller_id, None),
            key.as_ref(),
            live.snapshot(&body),
        )?;
        let audit_id = match record::begin(&market.store, row).await? {
            Recorded::Started(id) => id,
            Recorded::Replay(first) => return listing_replay(m, first, &plan.id),
            Recorded::AlreadyCommitted(first) => return Err(already_committed(&plan.id, first.id)),
        };
        let sent = send((market, p), (write, m), &body, &live).await?;
        let media_check = match sent.verify.is_empty() {
            true => None,
            false => Some(media::start(market, p, m, &plan.id, &sent.verify).await?),
        };
        let info = ListingCommitInfo {
            audit_id,
            change_set_id: plan.id.clone(),
            change_set_hash: plan.plan_hash.clone(),
            outcome: sent.outcome().into(),
            media_check,
            replayed: false,
        };
        settle_and_tell((market, p), m, info, sent).await
    }
}

/// Stage "stored change set": refused unless it is this merchant's, `given_hash` is its hash,
/// and a restated query is the one previewed.
fn as_approved(
    m: &Merchant,
    plan: &PlanRow,
    body: &ChangeSetBody,
    given_hash: &str,
    restated: Option<Map<String, Value>>,
) -> Result<()> {
    let mismatch = |why: String| {
        Err(Error::new(
            Kind::ApprovalMismatch,
            format!("{why}: nothing was applied"),
        )
        .with_fix(
            "Commit the change set exactly as previewed and approved, or preview the new change.",
        ))
    };
    if body.seller_id != m.seller_id || body.marketplace_id != m.marketplace_id {
        return mismatch(format!(
            "change set {} is for merchant {} in {}, not this merchant",
            plan.id, body.seller_id, body.marketplace_id
        ));
    }
    if plan.plan_hash != given_hash {
        return mismatch("changeSetHash is not the hash of that change set".into());
    }
    if restated.is_some_and(|q| restated_hash(m, &q) != plan.call_hash) {
        return mismatch("the restated query differs from the one previewed".into());
    }
    Ok(())
}

/// A change set lives 60 minutes.
fn not_expired(plan: &PlanRow) -> Result<()> {
    if plan.expires_ms > now_ms() {
        return Ok(());
    }
    Err(Error::new(
        Kind::ChangeSetExpired,
        format!(
            "change set {} expired at {}: nothing was applied",
            plan.id,
            pp_store::rfc3339_ms(plan.expires_ms)
        ),
    )
    .with_fix("Propose the change again: change sets live 60 minutes."))
}

/// The listings as read at commit: each SKU's touched attributes now, and whether they moved.
struct Live {
    now: Vec<Option<Map<String, Value>>>,
    moved: Vec<bool>,
}

impl Live {
    /// Each SKU at preview and at commit, for the audit row.
    fn snapshot(&self, body: &ChangeSetBody) -> Value {
        let at = body.skus.iter().zip(&self.now);
        Value::Array(
            at.map(|(s, n)| json!({ "sku": s.sku, "atPreview": s.before, "atCommit": n }))
                .collect(),
        )
    }
}

/// Stage "read live state": the switches the change needs, each product type's schema
/// version (one that moved refuses the commit), and the listings again (a SKU whose touched
/// attributes moved is left out; all of them moved refuses the commit).
async fn read_live(
    (market, p): (&Marketplace, &Principal),
    (m, id): (&Merchant, &str),
    body: &ChangeSetBody,
) -> Result<Live> {
    let text = body.skus.iter().any(SkuChange::touches_text);
    let media = body.skus.iter().any(|s| !s.media().is_empty());
    market.listings().gate(p, m, text, media).await?;
    let up = market.provider(Api::Spapi)?;
    for (product_type, version) in &body.product_types {
        let now = type_version(&up, &p.tenant, m, product_type).await?;
        if &now != version {
            return Err(Error::new(
                Kind::SchemaDrift,
                format!("the schema of product type {product_type} moved from {version} to {now} since the preview: nothing was applied"),
            )
            .with_field("productType", product_type.clone())
            .with_field("previewedVersion", version.clone())
            .with_field("currentVersion", now)
            .with_fix("Read the new definition, rebuild the change and preview it again."));
        }
    }
    let mut now = Vec::new();
    for s in &body.skus {
        let names: Vec<String> = s.before.keys().cloned().collect();
        let listing = read_listing(&up, &p.tenant, m, &s.sku).await?;
        now.push(listing.map(|l| values_of(&l.attributes, &names)));
    }
    let moved: Vec<bool> = body
        .skus
        .iter()
        .zip(&now)
        .map(|(s, n)| n.as_ref() != Some(&s.before))
        .collect();
    if moved.iter().all(|m| *m) {
        let skus: Vec<&str> = body.skus.iter().map(|s| s.sku.as_str()).collect();
        return Err(Error::new(
            Kind::StaleApproval,
            format!("every listing in change set {id} moved since the preview ({}): nothing was applied", skus.join(", ")),
        )
        .with_field("skus", skus)
        .with_fix("Re-read the listings, propose the change again and approve the new change set."));
    }
    Ok(Live { now, moved })
}

/// What sending came to: each SKU's result, the requests sent, the changes made, and the
/// SKUs whose images the check follows.
struct Sent<'b> {
    items: Vec<Value>,
    requests: Vec<Value>,
    changes: Vec<Value>,
    verify: Vec<&'b SkuChange>,
}

impl Sent<'_> {
    /// The commit's outcome: unknown when any SKU's is.
    fn outcome(&self) -> &'static str {
        match self.items.iter().any(|i| i["outcome"] == "unknown") {
            true => ads_writes::UNKNOWN,
            false => ads_writes::ANSWERED,
        }
    }
}

/// Stage "send": each SKU that did not move, once, in order; its result from the provider's
/// answer or its failure.
async fn send<'b>(
    (market, p): (&Marketplace, &Principal),
    (write, m): (&'static Operation, &Merchant),
    body: &'b ChangeSetBody,
    live: &Live,
) -> Result<Sent<'b>> {
    let up = market.provider(Api::Spapi)?;
    let mut sent = Sent {
        items: Vec::new(),
        requests: Vec::new(),
        changes: Vec::new(),
        verify: Vec::new(),
    };
    for (i, s) in body.skus.iter().enumerate() {
        if live.moved[i] {
            let now = &live.now[i];
            sent.items.push(
                json!({ "sku": s.sku, "outcome": "drifted", "before": s.before, "now": now }),
            );
            continue;
        }
        sent.requests.push(json!(s.request));
        let req = s
            .request
            .upstream(write, &p.tenant, GrantKind::Seller, &m.seller_id);
        let item = match up.client.send(up.store, up.sealer, &req).await {
            Ok(r) if r.body["status"] == "ACCEPTED" => {
                let after = s.after();
                sent.changes
                    .push(json!({ "index": i, "sku": s.sku, "before": s.before, "after": after }));
                let mut it = json!({ "sku": s.sku, "outcome": "succeeded", "submissionId": r.body["submissionId"] });
                if !s.media().is_empty() {
                    it["media"] = "verifying".into();
                    sent.verify.push(s);
                }
                it
            }
            Ok(r) => {
                json!({ "sku": s.sku, "outcome": "failed", "status": r.body["status"], "issues": r.body["issues"] })
            }
            Err(e) => {
                let unknown = e.field("requestOutcome").and_then(Value::as_str) == Some("unknown");
                json!({ "sku": s.sku, "outcome": if unknown { "unknown" } else { "failed" }, "error": e.api_envelope(None) })
            }
        };
        sent.items.push(item);
    }
    Ok(sent)
}

/// Stage "settle and tell": the audit row settled with each SKU's result and the changes, with
/// the commit's event in the same transaction; the caller's answer.
async fn settle_and_tell(
    (market, p): (&Marketplace, &Principal),
    m: &Merchant,
    info: ListingCommitInfo,
    sent: Sent<'_>,
) -> Result<SpapiAnswer> {
    let items = Value::Array(sent.items);
    let answer = json!({ "commit": &info, "items": &items, "changes": sent.changes });
    let told = pp_store::events::NewEvent::of(&ListingCommitted {
        subject: ListingSubject {
            audit_id: info.audit_id.clone(),
            change_set_id: info.change_set_id.clone(),
            merchant: m.seller_id.clone(),
        },
        data: ListingCommittedData {
            outcome: info.outcome.clone(),
            items: items.clone(),
            image_check: info.media_check.clone(),
            actor: p.actor.as_str().to_owned(),
        },
    })
    .once(format!("audit:{}", info.audit_id));
    market
        .store
        .ads_writes()
        .settle_and_tell(
            &info.audit_id,
            &info.outcome,
            Some(&Value::Array(sent.requests)),
            &answer,
            Some((&p.tenant, told)),
        )
        .await?;
    Ok(SpapiAnswer::ListingCommit(ListingCommit {
        operation: OPERATION.into(),
        merchant: Acting::Merchant(m.clone()),
        dry_run: false,
        commit: info,
        items,
    }))
}

fn already_committed(id: &str, audit: String) -> Error {
    Error::new(
        Kind::ChangeSetAlreadyCommitted,
        format!("change set {id} was committed before (audit {audit})"),
    )
    .with_field("auditId", audit)
    .with_fix("Re-read the listings (GET /api/marketplace/listings/change-sets/{id} shows the result) before proposing another change.")
}

/// The first commit's answer, for a repeated key.
fn listing_replay(m: &Merchant, first: AuditRow, id: &str) -> Result<SpapiAnswer> {
    let answer = record::first_answer(
        first,
        id,
        "Read the listings to see whether the change applied before proposing again.",
    )?;
    let mut info: ListingCommitInfo =
        serde_json::from_value(answer["commit"].clone()).map_err(Error::internal_from)?;
    info.replayed = true;
    Ok(SpapiAnswer::ListingCommit(ListingCommit {
        operation: OPERATION.into(),
        merchant: Acting::Merchant(m.clone()),
        dry_run: false,
        commit: info,
        items: answer["items"].clone(),
    }))
}
