//! The brand lifecycle (§3.1, §4.12): `retire` and `restore`, recorded as the credential,
//! each real change appending `structural.brand_retired` or `structural.brand_restored` to the
//! timeline. Nothing is deleted; a no-op answers `changed: false` and appends nothing.

use std::collections::HashMap;

use pp_core::Result;
use pp_store::{Store, db_err, now_rfc3339};
use rusqlite::{OptionalExtension, TransactionBehavior, params};
use serde_json::{Map, Value, json};

use crate::answers::{Lifecycle, LifecycleChange};
use crate::{BrandRef, BrandSlug, Writer, bad, find, one_line};

/// `reason_code` values.
pub const REASON_CODES: &[&str] = &["client_left", "duplicate", "superseded", "other"];
/// Fields naming who acts: ignored, because the change is recorded as the credential.
const ATTRIBUTION: &[&str] = &["actor", "changed_by"];

/// Every brand's lifecycle object that has ever changed, by slug.
pub fn all(store: &Store, tenant: &str) -> Result<HashMap<String, Lifecycle>> {
    store.with_conn(|c| {
        let mut st = c.prepare("SELECT brand, state, changed_at, changed_by, surface, reason_code FROM brand_lifecycle WHERE tenant_id = ?1").map_err(db_err)?;
        st.query_map([tenant], |r| {
            Ok((
                r.get::<_, String>(0)?,
                Lifecycle {
                    state: r.get(1)?,
                    changed_at: r.get(2)?,
                    changed_by: r.get(3)?,
                    surface: r.get(4)?,
                    reason_code: r.get(5)?,
                },
            ))
        })
        .map_err(db_err)?
        .collect::<rusqlite::Result<HashMap<_, _>>>()
        .map_err(db_err)
    })
}

/// A checked lifecycle request.
pub struct Change {
    pub slug: BrandSlug,
    pub retire: bool,
    pub reason_code: Option<String>,
    pub note: Option<String>,
    pub on_behalf_of: Option<String>,
}

/// Checks a request body (every format rule of §4.12, before the brand is looked up).
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
pub fn apply(
    store: &Store,
    tenant: &str,
    brands: &[BrandRef],
    w: &Writer<'_>,
    ch: &Change,
) -> Result<LifecycleChange> {
    find(brands, ch.slug.as_str())?;
    let target = if ch.retire { "retired" } else { "active" };
    store.with_conn(|c| {
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate).map_err(db_err)?;
        let current: Option<(String, String)> = tx
            .query_row("SELECT state, changed_at FROM brand_lifecycle WHERE tenant_id = ?1 AND brand = ?2", params![tenant, ch.slug.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()
            .map_err(db_err)?;
        let state = current.as_ref().map_or("active", |c| c.0.as_str());
        if state == target {
            let at = current.as_ref().map(|c| c.1.clone());
            return Ok(LifecycleChange {
                brand_slug: ch.slug.as_str().to_owned(),
                state: state.to_owned(),
                changed: false,
                at,
                event_id: None,
            });
        }
        let at = now_rfc3339();
        tx.execute(
            "INSERT INTO brand_lifecycle (tenant_id, brand, state, changed_at, changed_by, surface, reason_code) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
             ON CONFLICT (tenant_id, brand) DO UPDATE SET state = excluded.state, changed_at = excluded.changed_at, changed_by = excluded.changed_by, surface = excluded.surface, reason_code = excluded.reason_code",
            params![tenant, ch.slug.as_str(), target, at, w.actor, &w.surface, ch.reason_code],
        )
        .map_err(db_err)?;
        let kind = if ch.retire { "structural.brand_retired" } else { "structural.brand_restored" };
        let payload = json!({ "reason_code": ch.reason_code, "note": ch.note, "on_behalf_of": ch.on_behalf_of, "surface": &w.surface });
        let id = crate::timeline::insert_structural(&tx, tenant, kind, &at, ch, &payload, w)?;
        tx.commit().map_err(db_err)?;
        Ok(LifecycleChange {
            brand_slug: ch.slug.as_str().to_owned(),
            state: target.to_owned(),
            changed: true,
            at: Some(at),
            event_id: Some(id),
        })
    })
}
