//! The brand lifecycle (docs/brand-memory.md): `retire` and `restore`, recorded as the credential,
//! each real change appending `structural.brand_retired` or `structural.brand_restored` to the
//! timeline. Nothing is deleted; a no-op answers `changed: false` and appends nothing.

use std::collections::HashMap;

use pp_core::Result;
use pp_store::Store;
use pp_store::brand::{LifecycleSet, NewEvent};
use serde_json::{Map, Value, json};

use crate::answers::{Lifecycle, LifecycleChange};
use crate::{BrandRef, BrandSlug, Writer, bad, find, one_line};

/// `reason_code` values.
pub const REASON_CODES: &[&str] = &["client_left", "duplicate", "superseded", "other"];
/// Fields naming who acts: ignored, because the change is recorded as the credential.
const ATTRIBUTION: &[&str] = &["actor", "changed_by"];

/// Every brand's lifecycle object that has ever changed, by slug.
pub async fn all(store: &Store, tenant: &str) -> Result<HashMap<String, Lifecycle>> {
    Ok(store
        .brand()
        .lifecycles(tenant)
        .await?
        .into_iter()
        .map(|r| {
            (
                r.brand,
                Lifecycle {
                    state: r.state,
                    changed_at: Some(r.changed_at),
                    changed_by: Some(r.changed_by),
                    surface: Some(r.surface),
                    reason_code: r.reason_code,
                },
            )
        })
        .collect())
}

/// A checked lifecycle request.
pub struct Change {
    pub slug: BrandSlug,
    pub retire: bool,
    pub reason_code: Option<String>,
    pub note: Option<String>,
    pub on_behalf_of: Option<String>,
}

/// Checks a request body (every format rule of docs/brand-memory.md, before the brand is looked up).
pub fn parse(body: &Map<String, Value>) -> Result<Change> {
    if let Some(k) = body.keys().find(|k| {
        ![
            "brand_slug",
            "action",
            "reason_code",
            "note",
            "on_behalf_of",
        ]
        .contains(&k.as_str())
            && !ATTRIBUTION.contains(&k.as_str())
    }) {
        return Err(bad(format!("'{k}' is not a field of a lifecycle change")));
    }
    let slug = body
        .get("brand_slug")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("brand_slug is required"))?;
    let slug = BrandSlug::parse(slug)?;
    let retire = match body.get("action").and_then(Value::as_str) {
        Some("retire") => true,
        Some("restore") => false,
        _ => return Err(bad("action must be retire or restore")),
    };
    let reason_code = one_line("reason_code", body.get("reason_code"), 32)?;
    if let Some(r) = &reason_code
        && !REASON_CODES.contains(&r.as_str())
    {
        return Err(bad(format!(
            "reason_code must be one of {}",
            REASON_CODES.join(", ")
        )));
    }
    Ok(Change {
        slug,
        retire,
        reason_code,
        note: one_line("note", body.get("note"), 280)?,
        on_behalf_of: one_line("on_behalf_of", body.get("on_behalf_of"), 254)?,
    })
}

/// Applies a change as `w`.
pub async fn apply(
    store: &Store,
    tenant: &str,
    brands: &[BrandRef],
    w: &Writer<'_>,
    ch: &Change,
) -> Result<LifecycleChange> {
    find(brands, ch.slug.as_str())?;
    let target = if ch.retire { "retired" } else { "active" };
    let kind = if ch.retire {
        "structural.brand_retired"
    } else {
        "structural.brand_restored"
    };
    let payload = json!({ "reason_code": ch.reason_code, "note": ch.note, "on_behalf_of": ch.on_behalf_of, "surface": &w.surface });
    let event = NewEvent {
        brand: ch.slug.as_str().to_owned(),
        kind: kind.to_owned(),
        source: "lifecycle".into(),
        note: ch.note.clone(),
        reason_code: ch.reason_code.clone(),
        on_behalf_of: ch.on_behalf_of.clone(),
        payload,
        ..NewEvent::default()
    };
    let set = store
        .brand()
        .set_lifecycle(
            tenant,
            ch.slug.as_str(),
            target,
            ch.reason_code.clone(),
            event,
            w.author(),
        )
        .await?;
    Ok(match set {
        LifecycleSet::Unchanged { at } => LifecycleChange {
            brand_slug: ch.slug.as_str().to_owned(),
            state: target.to_owned(),
            changed: false,
            at,
            event_id: None,
        },
        LifecycleSet::Changed { at, event_id } => LifecycleChange {
            brand_slug: ch.slug.as_str().to_owned(),
            state: target.to_owned(),
            changed: true,
            at: Some(at),
            event_id: Some(event_id),
        },
    })
}
