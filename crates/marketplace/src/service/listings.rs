//! Listing-content change sets (docs/writes.md, docs/errors.md) through the guarded listing write. A preview
//! (1 to 10 existing SKUs) refuses attributes outside the editable set, reads each listing
//! (product type, the touched attributes, its issues), has the provider validate each patch
//! (`VALIDATION_PREVIEW`, nothing applied) and records the product types' schema versions;
//! when every SKU is valid it stores a change set (a plan: the exact requests, under a hash,
//! for `CHANGE_SET_LIFETIME`). The commit is `listing_writes`; a change set's read is here.
//! Writes need the merchant enabled and the global switches on (`Listings::gate`).

use std::collections::BTreeMap;

use pp_core::{Error, Kind, Principal, Result, Scope};
use pp_store::ads_writes::PlanRow;
use pp_store::jobs::now_ms;
use serde_json::{Map, Value, json};

use super::answers::{
    Acting, ChangeSetRef, ChangeSetView, ListingPreview, SkuPreview, SpapiAnswer,
};
use super::listing_reads::{issue_codes, read_listing, type_version};
use super::requests::ChangeSetId;
use super::{Api, Marketplace, media};
use crate::calls::build;
use crate::catalog::Operation;
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

/// Listing change sets of the marketplace service (`Marketplace::listings`): a change set's
/// read, and the preview, gate and reads the write handle (`listing_writes`) builds on.
pub struct Listings<'a>(pub(super) &'a Marketplace);

impl Listings<'_> {
    /// Whether listing writes may run for `m`: enabled for the merchant, and the global
    /// switches on for what the change touches (text, images).
    pub(super) async fn gate(
        &self,
        p: &Principal,
        m: &Merchant,
        text: bool,
        media: bool,
    ) -> Result<()> {
        let store = self.0.store.listing_writes();
        if !store.enabled(&p.tenant, &m.seller_id).await? {
            return Err(Error::new(
                Kind::ListingsWriteNotEnabled,
                format!("listing writes are not enabled for merchant {}", m.seller_id),
            )
            .with_fix("An administrator enables them: partner-platform admin listings enable --tenant <tenant> --merchant <sellerId>."));
        }
        let cfg = &self.0.settings.listings;
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
    pub(super) async fn preview(
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
        self.gate(p, m, text, media).await?;
        let up = self.0.provider(Api::Spapi)?;
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
            body: serde_json::to_value(&body).map_err(Error::internal_from)?,
            created_ms: created,
            expires_ms: created + CHANGE_SET_LIFETIME.as_millis() as i64,
        };
        self.0.store.ads_writes().put_plan(&row).await?;
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
    pub(super) async fn stored(
        &self,
        p: &Principal,
        id: &ChangeSetId,
    ) -> Result<(PlanRow, ChangeSetBody)> {
        let plan = self
            .0
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
        let body = serde_json::from_value(plan.body.clone()).map_err(Error::internal_from)?;
        Ok((plan, body))
    }

    /// A change set as it stands (`retail:read`): proposed, expired or committed, with the
    /// commit's per-SKU results and the image check's outcome.
    pub async fn change_set(&self, p: &Principal, id: &ChangeSetId) -> Result<ChangeSetView> {
        p.require(&[Scope::RetailRead])?;
        let (plan, body) = self.stored(p, id).await?;
        let first = self
            .0
            .store
            .ads_writes()
            .by_plan(&p.tenant, &plan.id)
            .await?;
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
                    media = Some(media::outcome(self.0, p, job).await?);
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
pub(super) fn restated_hash(m: &Merchant, query: &Map<String, Value>) -> String {
    call_hash(
        OPERATION,
        &m.seller_id,
        Some(&m.marketplace_id),
        &Value::Object(query.clone()),
        false,
    )
}
