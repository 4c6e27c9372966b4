//! Listing-content change sets (§3.2, §4.7, §7.3) through the guarded listing write. A preview
//! (1 to 10 existing SKUs) refuses attributes outside the editable set, reads each listing
//! (product type, the touched attributes, its issues), has the provider validate each patch
//! (`VALIDATION_PREVIEW`, nothing applied) and records the product types' schema versions;
//! when every SKU is valid it stores a change set (a plan: the exact requests, under a hash,
//! for `CHANGE_SET_LIFETIME`). A commit names the change set and its hash and replays exactly
//! those requests: it refuses a moved schema (`schema_drift`), a set whose every listing moved
//! (`stale_approval`), and otherwise leaves out the SKUs that moved (they fail closed), writes
//! the audit row before sending, sends each SKU once, and starts the image check for SKUs
//! that set image slots. Writes need the merchant enabled and the global switches on.

use std::collections::BTreeMap;

use pp_core::{Error, Kind, Principal, Result, Scope};
use pp_store::ads_writes::{self, AuditRow, Begin, PlanRow};
use pp_store::jobs::now_ms;
use serde_json::{Map, Value, json};

use super::answers::{
    Acting, ChangeSetRef, ChangeSetView, ListingCommit, ListingCommitInfo, ListingPreview,
    SkuPreview, SpapiAnswer,
};
use super::requests::{ChangeSetId, IdempotencyKey, SpapiCall};
use super::{Api, Marketplace};
use crate::calls::build;
use crate::catalog::{self, Operation};
use crate::connections::GrantKind;
use crate::merchants::Merchant;
use crate::upstream::Provider;
use crate::writes::listings::{
    CHANGE_SET_LIFETIME, ChangeSetBody, ListingEdit, OPERATION, SkuChange, change_set_hash,
    is_media, read_edits, refuse_outside_editable, values_of,
};
use crate::writes::{PlannedRequest, call_hash};

/// The stored switch that turns listing text writes off for every instance.
pub const TEXT_SWITCH: &str = "listings_text";
/// The stored switch that turns listing image writes off for every instance.
pub const MEDIA_SWITCH: &str = "listings_media";

/// A listing as the provider has it now.
pub(super) struct Listing {
    pub product_type: Option<String>,
    pub attributes: Value,
    pub issues: Vec<Value>,
}

/// One catalogued selling-side read for merchant `m`.
async fn seller_read(
    up: &Provider<'_>,
    tenant: &pp_core::TenantId,
    m: &Merchant,
    op_id: &str,
    args: Value,
) -> Result<crate::upstream::Reply> {
    let op = catalog::find(catalog::spapi(), op_id)
        .ok_or_else(|| Error::internal(format!("{op_id} is missing from the catalog")))?;
    let args = args.as_object().cloned().unwrap_or_default();
    let req = build(op, &args, tenant, GrantKind::Seller, &m.seller_id, Some(m))?;
    up.client.send(up.store, up.sealer, &req).await
}

/// The product type's schema version now.
async fn type_version(
    up: &Provider<'_>,
    tenant: &pp_core::TenantId,
    m: &Merchant,
    product_type: &str,
) -> Result<String> {
    let args = json!({ "productType": product_type });
    let r = seller_read(
        up,
        tenant,
        m,
        "product_types.get_definitions_product_type",
        args,
    )
    .await?;
    r.body["productTypeVersion"]["version"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| {
            Error::new(
                Kind::UpstreamUnavailable,
                format!("the definition of {product_type} carries no productTypeVersion"),
            )
        })
}

fn issue_codes(issues: &[Value]) -> Vec<String> {
    issues
        .iter()
        .filter_map(|i| i["code"].as_str().map(str::to_owned))
        .collect()
}

/// Reads one listing (`None`: the provider has no such SKU).
pub(super) async fn read_listing(
    up: &Provider<'_>,
    tenant: &pp_core::TenantId,
    m: &Merchant,
    sku: &str,
) -> Result<Option<Listing>> {
    let args = json!({ "sku": sku, "includedData": ["summaries", "attributes", "issues"] });
    match seller_read(up, tenant, m, "listings.get_listings_item", args).await {
        Ok(r) => Ok(Some(Listing {
            product_type: r.body["summaries"][0]["productType"]
                .as_str()
                .map(str::to_owned),
            attributes: r.body["attributes"].clone(),
            issues: r.body["issues"].as_array().cloned().unwrap_or_default(),
        })),
        Err(e) if e.field("status").and_then(Value::as_u64) == Some(404) => Ok(None),
        Err(e) => Err(e),
    }
}

impl Marketplace {
    /// The guarded listing write: a preview (the default) or the commit of a change set.
    pub(super) async fn listing_write(
        &self,
        p: &Principal,
        op: &'static Operation,
        req: SpapiCall,
        key: Option<IdempotencyKey>,
    ) -> Result<SpapiAnswer> {
        p.require(&[Scope::RetailRead, Scope::ListingsWrite])?;
        self.provider(Api::Spapi)?;
        let merchant = self.resolve(p, &req.selector()?).await?;
        match (req.dry_run, &req.change_set_id, &req.change_set_hash) {
            (Some(false), Some(id), Some(h)) => {
                let restated = req.query.clone();
                self.listing_commit(p, op, &merchant, (id, h), restated, key)
                    .await
            }
            (Some(false), _, _) => Err(Error::invalid_request(
                "a commit (dryRun: false) names its change set: send changeSetId and changeSetHash from the preview",
            )),
            (_, None, None) => {
                self.listing_preview(p, op, &merchant, req.query.unwrap_or_default())
                    .await
            }
            _ => Err(Error::invalid_request(
                "changeSetId and changeSetHash commit a change set: send them with dryRun: false (without it the call is a preview)",
            )),
        }
    }

    /// Whether listing writes may run for `m`: enabled for the merchant, and the global
    /// switches on for what the change touches (text, images).
    async fn listing_gate(
        &self,
        p: &Principal,
        m: &Merchant,
        text: bool,
        media: bool,
    ) -> Result<()> {
        let store = self.store.listing_writes();
        if !store.enabled(&p.tenant, &m.seller_id).await? {
            return Err(Error::new(
                Kind::ListingsWriteNotEnabled,
                format!("listing writes are not enabled for merchant {}", m.seller_id),
            )
            .with_fix("An administrator enables them: partner-platform admin listings enable --tenant <tenant> --merchant <sellerId>."));
        }
        let cfg = &self.settings.listings;
        for (wanted, configured, name, kind, what) in [
            (
                text,
                cfg.text_writes,
                TEXT_SWITCH,
                Kind::ListingsWriteDisabled,
                "listing text writes",
            ),
            (
                media,
                cfg.media_writes,
                MEDIA_SWITCH,
                Kind::ListingsMediaWriteDisabled,
                "listing image writes",
            ),
        ] {
            if !wanted {
                continue;
            }
            let stored = store.switch(name).await?.filter(|s| s.off);
            if !configured || stored.is_some() {
                let why = match stored.and_then(|s| s.reason) {
                    Some(r) => format!(" ({r})"),
                    None if !configured => " (in this service's configuration)".to_owned(),
                    None => String::new(),
                };
                return Err(Error::new(
                    kind,
                    format!("{what} are switched off for the whole service{why}; nothing was sent"),
                ));
            }
        }
        Ok(())
    }

    /// One SKU of a preview: its finding, and its change when the provider found it valid.
    async fn preview_sku(
        &self,
        up: &Provider<'_>,
        (p, write, m): (&Principal, &'static Operation, &Merchant),
        e: &ListingEdit,
        types: &mut BTreeMap<String, String>,
    ) -> Result<(SkuPreview, Option<SkuChange>)> {
        let names = e.attributes();
        let mut finding = SkuPreview {
            sku: e.sku.clone(),
            status: "NOT_FOUND".into(),
            product_type: None,
            issues: Vec::new(),
            current: Map::new(),
            patches: e.patches.clone(),
            media: names.iter().any(|n| is_media(n)),
        };
        let Some(listing) = read_listing(up, &p.tenant, m, &e.sku).await? else {
            finding.issues.push(json!({ "code": "sku_not_found", "message": format!("merchant {} has no listing {} in this marketplace: listing writes edit existing SKUs only", m.seller_id, e.sku) }));
            return Ok((finding, None));
        };
        let product_type = listing.product_type.clone().unwrap_or_default();
        finding.product_type = Some(product_type.clone());
        finding.current = values_of(&listing.attributes, &names);
        if let Some(given) = e.product_type.as_ref().filter(|g| **g != product_type) {
            finding.status = "MISMATCH".into();
            finding.issues.push(json!({ "code": "product_type_mismatch", "message": format!("the listing's product type is {product_type}, not {given}") }));
            return Ok((finding, None));
        }
        if !types.contains_key(&product_type) {
            let v = type_version(up, &p.tenant, m, &product_type).await?;
            types.insert(product_type.clone(), v);
        }
        let args =
            json!({ "sku": e.sku, "body": { "productType": product_type, "patches": e.patches } });
        let built = build(
            write,
            args.as_object().expect("an object"),
            &p.tenant,
            GrantKind::Seller,
            &m.seller_id,
            Some(m),
        )?;
        let request = PlannedRequest::of(&built);
        // the provider validates against the product type; nothing is applied
        let mut check = request.upstream(write, &p.tenant, GrantKind::Seller, &m.seller_id);
        check
            .query
            .push(("mode".into(), "VALIDATION_PREVIEW".into()));
        let reply = up.client.send(up.store, up.sealer, &check).await?;
        finding.status = reply.body["status"]
            .as_str()
            .unwrap_or("INVALID")
            .to_owned();
        finding.issues = reply.body["issues"].as_array().cloned().unwrap_or_default();
        let change = (finding.status == "VALID").then(|| SkuChange {
            sku: e.sku.clone(),
            product_type,
            patches: e.patches.clone(),
            before: finding.current.clone(),
            issues_before: issue_codes(&listing.issues),
            request,
        });
        Ok((finding, change))
    }

    /// The preview: every SKU validated at the provider, nothing applied; a change set when
    /// all are valid.
    async fn listing_preview(
        &self,
        p: &Principal,
        write: &'static Operation,
        m: &Merchant,
        query: Map<String, Value>,
    ) -> Result<SpapiAnswer> {
        let edits = read_edits(&query)?;
        refuse_outside_editable(&edits)?;
        let touched: Vec<String> = edits.iter().flat_map(ListingEdit::attributes).collect();
        let text = touched.iter().any(|a| !is_media(a));
        let media = touched.iter().any(|a| is_media(a));
        self.listing_gate(p, m, text, media).await?;
        let up = self.provider(Api::Spapi)?;
        let mut types = BTreeMap::new();
        let (mut items, mut changes) = (Vec::new(), Vec::new());
        for e in &edits {
            let (finding, change) = self.preview_sku(&up, (p, write, m), e, &mut types).await?;
            items.push(finding);
            changes.extend(change);
        }
        let valid = changes.len() == edits.len();
        let mut answer = ListingPreview {
            operation: OPERATION.into(),
            merchant: Acting::Merchant(m.clone()),
            dry_run: true,
            valid,
            items,
            change_set: None,
        };
        if !valid {
            return Ok(SpapiAnswer::ListingPreview(answer));
        }
        let hash = change_set_hash(&changes);
        let requests = changes.iter().map(|c| c.request.clone()).collect();
        let body = ChangeSetBody {
            seller_id: m.seller_id.clone(),
            marketplace_id: m.marketplace_id.clone(),
            product_types: types.clone(),
            skus: changes,
        };
        let created = now_ms();
        let row = PlanRow {
            id: pp_store::random_id("cs_", 16)?,
            tenant: p.tenant.clone(),
            credential_id: p.credential_id.clone(),
            actor: p.actor.as_str().to_owned(),
            operation: OPERATION.into(),
            call_hash: restated_hash(m, &query),
            plan_hash: hash,
            body: serde_json::to_value(&body).map_err(Error::internal)?,
            created_ms: created,
            expires_ms: created + CHANGE_SET_LIFETIME.as_millis() as i64,
        };
        self.store.ads_writes().put_plan(&row).await?;
        answer.change_set = Some(ChangeSetRef {
            change_set_id: row.id,
            change_set_hash: row.plan_hash,
            expires_at: pp_store::rfc3339_ms(row.expires_ms),
            product_types: types,
            requests,
        });
        Ok(SpapiAnswer::ListingPreview(answer))
    }

    /// A change set of the tenant's, or `change_set_not_found` (also for another tenant's id).
    async fn change_set(
        &self,
        p: &Principal,
        id: &ChangeSetId,
    ) -> Result<(PlanRow, ChangeSetBody)> {
        let plan = self
            .store
            .ads_writes()
            .plan(&p.tenant, id.as_str())
            .await?
            .filter(|pl| pl.operation == OPERATION)
            .ok_or_else(|| {
                Error::new(
                    Kind::ChangeSetNotFound,
                    format!("no listing change set {} in this account", id.as_str()),
                )
                .with_fix("Preview the change again: the answer carries changeSet.changeSetId.")
            })?;
        let body = serde_json::from_value(plan.body.clone()).map_err(Error::internal)?;
        Ok((plan, body))
    }

    /// The commit: checks the approval, the schema and the listings, then replays each SKU
    /// that did not move, once.
    async fn listing_commit(
        &self,
        p: &Principal,
        write: &'static Operation,
        m: &Merchant,
        (id, given_hash): (&ChangeSetId, &str),
        restated: Option<Map<String, Value>>,
        key: Option<IdempotencyKey>,
    ) -> Result<SpapiAnswer> {
        let store = self.store.ads_writes();
        let (plan, body) = self.change_set(p, id).await?;
        let mismatch = |why: String| {
            Error::new(Kind::ApprovalMismatch, format!("{why}: nothing was applied"))
                .with_fix("Commit the change set exactly as previewed and approved, or preview the new change.")
        };
        if body.seller_id != m.seller_id || body.marketplace_id != m.marketplace_id {
            return Err(mismatch(format!(
                "change set {} is for merchant {} in {}, not this merchant",
                plan.id, body.seller_id, body.marketplace_id
            )));
        }
        if plan.plan_hash != given_hash {
            return Err(mismatch(
                "changeSetHash is not the hash of that change set".into(),
            ));
        }
        if restated.is_some_and(|q| restated_hash(m, &q) != plan.call_hash) {
            return Err(mismatch(
                "the restated query differs from the one previewed".into(),
            ));
        }
        if let Some(k) = &key
            && let Some(first) = store.by_key(&p.tenant, k.as_str()).await?
        {
            return listing_replay(m, first, &plan.id);
        }
        // `begin` decides this atomically below; asking first lets a committed set that has
        // since aged out say "already committed" rather than "expired"
        if let Some(first) = store.by_plan(&p.tenant, &plan.id).await? {
            return Err(already_committed(&plan.id, first.id));
        }
        if plan.expires_ms <= now_ms() {
            return Err(Error::new(
                Kind::ChangeSetExpired,
                format!(
                    "change set {} expired at {}: nothing was applied",
                    plan.id,
                    pp_store::rfc3339_ms(plan.expires_ms)
                ),
            )
            .with_fix("Propose the change again: change sets live 60 minutes."));
        }
        let text = body.skus.iter().any(SkuChange::touches_text);
        let media = body.skus.iter().any(|s| !s.media().is_empty());
        self.listing_gate(p, m, text, media).await?;
        let up = self.provider(Api::Spapi)?;
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
        // the listings again: a SKU whose touched attributes moved fails closed
        let mut now = Vec::new();
        for s in &body.skus {
            let names: Vec<String> = s.before.keys().cloned().collect();
            now.push(
                read_listing(&up, &p.tenant, m, &s.sku)
                    .await?
                    .map(|l| values_of(&l.attributes, &names)),
            );
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
                format!("every listing in change set {} moved since the preview ({}): nothing was applied", plan.id, skus.join(", ")),
            )
            .with_field("skus", skus)
            .with_fix("Re-read the listings, propose the change again and approve the new change set."));
        }
        let snapshot: Vec<Value> = body
            .skus
            .iter()
            .zip(&now)
            .map(|(s, n)| json!({ "sku": s.sku, "atPreview": s.before, "atCommit": n }))
            .collect();
        let row = super::writes::sending_row(
            p,
            &plan,
            (&m.seller_id, None),
            key.as_ref(),
            Value::Array(snapshot),
        )?;
        let audit_id = row.id.clone();
        match store.begin(row).await? {
            Begin::Started => {}
            Begin::Replay(first) => return listing_replay(m, first, &plan.id),
            Begin::KeyTaken(_) => return Err(super::writes::key_taken()),
            Begin::AlreadyCommitted(first) => return Err(already_committed(&plan.id, first.id)),
        }
        let mut items = Vec::new();
        let mut sent = Vec::new();
        let mut changes = Vec::new();
        let mut verify = Vec::new();
        for (i, s) in body.skus.iter().enumerate() {
            if moved[i] {
                items.push(json!({ "sku": s.sku, "outcome": "drifted", "before": s.before, "now": now[i] }));
                continue;
            }
            sent.push(json!(s.request));
            let req = s
                .request
                .upstream(write, &p.tenant, GrantKind::Seller, &m.seller_id);
            let item = match up.client.send(up.store, up.sealer, &req).await {
                Ok(r) if r.body["status"] == "ACCEPTED" => {
                    let after = s.after();
                    changes.push(
                        json!({ "index": i, "sku": s.sku, "before": s.before, "after": after }),
                    );
                    let mut it = json!({ "sku": s.sku, "outcome": "succeeded", "submissionId": r.body["submissionId"] });
                    if !s.media().is_empty() {
                        it["media"] = "verifying".into();
                        verify.push(s);
                    }
                    it
                }
                Ok(r) => {
                    json!({ "sku": s.sku, "outcome": "failed", "status": r.body["status"], "issues": r.body["issues"] })
                }
                Err(e) => {
                    let unknown =
                        e.field("requestOutcome").and_then(Value::as_str) == Some("unknown");
                    json!({ "sku": s.sku, "outcome": if unknown { "unknown" } else { "failed" }, "error": e.api_envelope(None) })
                }
            };
            items.push(item);
        }
        let outcome = if items.iter().any(|i| i["outcome"] == "unknown") {
            ads_writes::UNKNOWN
        } else {
            ads_writes::ANSWERED
        };
        let media_check = match verify.is_empty() {
            true => None,
            false => Some(self.start_media_check(p, m, &plan.id, &verify).await?),
        };
        let info = ListingCommitInfo {
            audit_id: audit_id.clone(),
            change_set_id: plan.id.clone(),
            change_set_hash: plan.plan_hash.clone(),
            outcome: outcome.into(),
            media_check,
            replayed: false,
        };
        let items = Value::Array(items);
        let answer = json!({ "commit": &info, "items": &items, "changes": changes });
        store
            .settle(&audit_id, outcome, Some(&Value::Array(sent)), &answer)
            .await?;
        Ok(SpapiAnswer::ListingCommit(ListingCommit {
            operation: OPERATION.into(),
            merchant: Acting::Merchant(m.clone()),
            dry_run: false,
            commit: info,
            items,
        }))
    }

    /// A change set as it stands (`retail:read`): proposed, expired or committed, with the
    /// commit's per-SKU results and the image check's outcome.
    pub async fn listing_change_set(
        &self,
        p: &Principal,
        id: &ChangeSetId,
    ) -> Result<ChangeSetView> {
        p.require(&[Scope::RetailRead])?;
        let (plan, body) = self.change_set(p, id).await?;
        let first = self.store.ads_writes().by_plan(&p.tenant, &plan.id).await?;
        let status = match (&first, plan.expires_ms <= now_ms()) {
            (Some(_), _) => "committed",
            (None, true) => "expired",
            (None, false) => "proposed",
        };
        let mut media = None;
        let commit = match first {
            None => None,
            Some(a) => {
                let check = a
                    .answer
                    .as_ref()
                    .and_then(|x| x["commit"]["mediaCheck"].as_str());
                if let Some(job) = check {
                    media = Some(self.media_outcome(p, job).await?);
                }
                Some(json!({
                    "auditId": a.id, "at": pp_store::rfc3339_ms(a.created_ms), "actor": a.actor,
                    "surface": a.surface, "outcome": a.status,
                    "items": a.answer.as_ref().map(|x| x["items"].clone()),
                }))
            }
        };
        Ok(ChangeSetView {
            change_set_id: plan.id,
            status: status.into(),
            change_set_hash: plan.plan_hash,
            proposed_at: pp_store::rfc3339_ms(plan.created_ms),
            expires_at: pp_store::rfc3339_ms(plan.expires_ms),
            proposed_by: plan.actor,
            seller_id: body.seller_id,
            marketplace_id: body.marketplace_id,
            product_types: body.product_types,
            items: body
                .skus
                .iter()
                .map(|s| json!({ "sku": s.sku, "productType": s.product_type, "patches": s.patches, "before": s.before }))
                .collect(),
            commit,
            media,
        })
    }
}

/// The hash a commit's restated query must match.
fn restated_hash(m: &Merchant, query: &Map<String, Value>) -> String {
    call_hash(
        OPERATION,
        &m.seller_id,
        Some(&m.marketplace_id),
        &Value::Object(query.clone()),
        false,
    )
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
    let answer = super::writes::first_answer(
        first,
        id,
        "Read the listings to see whether the change applied before proposing again.",
    )?;
    let mut info: ListingCommitInfo =
        serde_json::from_value(answer["commit"].clone()).map_err(Error::internal)?;
    info.replayed = true;
    Ok(SpapiAnswer::ListingCommit(ListingCommit {
        operation: OPERATION.into(),
        merchant: Acting::Merchant(m.clone()),
        dry_run: false,
        commit: info,
        items: answer["items"].clone(),
    }))
}
