//! The timeline's `ads_change` family (§6.4): advertising writes committed through the
//! service, projected at read time from the audit log (`pp_store::ads_writes`). One event per
//! commit that the provider answered with at least one applied item: its operation as `kind`,
//! the commit's actor and surface, and per applied item the entity's values before (as read at
//! commit) and after (as sent). Nothing is stored twice: the audit row is the record.

use chrono::NaiveDate;
use pp_core::cursor::Cursors;
use pp_core::{Result, TenantId};
use pp_store::Store;
use pp_store::ads_writes::{ANSWERED, AuditFilter, AuditRow};
use serde_json::{Value, json};

use crate::answers::{Event, Events};
use crate::timeline::Filter;

fn day_ms(d: NaiveDate) -> i64 {
    d.and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis())
        .unwrap_or_default()
}

fn rfc3339(ms: i64) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// The applied items of a commit: entity, before and after.
fn changes(r: &AuditRow) -> Vec<Value> {
    let answer = r.answer.as_ref().map_or(&Value::Null, |a| &a["items"]);
    let sent_items = sent_items(r);
    let mut out = Vec::new();
    let mut sent_at = 0;
    for item in answer.as_array().into_iter().flatten() {
        let index = item["index"].as_u64().unwrap_or_default();
        if item["outcome"] == "drifted" {
            continue;
        }
        let after = sent_items.get(sent_at).cloned().unwrap_or(Value::Null);
        sent_at += 1;
        if item["outcome"] != "succeeded" {
            continue;
        }
        let before = r
            .snapshot
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["index"].as_u64() == Some(index))
            .map(|s| {
                let now = if s["atCommit"].is_null() {
                    &s["atPreview"]
                } else {
                    &s["atCommit"]
                };
                // only the fields the write set, beside state
                let mut b = serde_json::Map::new();
                for k in after.as_object().into_iter().flat_map(|o| o.keys()) {
                    b.insert(k.clone(), now.get(k).cloned().unwrap_or(Value::Null));
                }
                Value::Object(b)
            })
            .unwrap_or(Value::Null);
        out.push(json!({ "index": index, "entityId": item["entityId"], "before": before, "after": after }));
    }
    out
}

/// The items of the request as sent, in order.
fn sent_items(r: &AuditRow) -> Vec<Value> {
    let Some(body) = r.sent.as_ref().map(|s| &s["body"]) else {
        return Vec::new();
    };
    if let Some(a) = body.as_array() {
        return a.clone();
    }
    if let Some(o) = body.as_object() {
        for (k, v) in o {
            if k.ends_with("Filter") {
                let id = k.trim_end_matches("Filter");
                return v["include"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|i| json!({ (id): i, "state": "ARCHIVED" }))
                    .collect();
            }
            if let Some(a) = v.as_array() {
                return a.clone();
            }
        }
        return vec![body.clone()];
    }
    Vec::new()
}

fn event(r: AuditRow) -> Option<Event> {
    let items = changes(&r);
    if items.is_empty() {
        return None;
    }
    let at = rfc3339(r.created_ms);
    Some(Event {
        // a read-time event: its id orders it, it is not addressable
        id: r.created_ms,
        brand: String::new(),
        family: "ads_change".into(),
        kind: r.operation,
        occurred_on: at.date_naive().to_string(),
        category: None,
        window: None,
        interpretation: None,
        status: None,
        closes_on: None,
        source: r.surface.clone(),
        affects: Vec::new(),
        tags: Vec::new(),
        note: None,
        reason_code: None,
        on_behalf_of: None,
        parent_id: None,
        payload: json!({
            "auditId": r.id, "merchant": r.merchant, "profileId": r.profile_id,
            "planId": r.plan_id, "changes": items,
        }),
        actor: r.actor,
        surface: r.surface,
        created_at: at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
    })
}

/// Whether the filter asks for something only native events have (a brand, stake fields).
fn native_only(f: &Filter) -> bool {
    f.brand.is_some()
        || f.category.is_some()
        || f.status.is_some()
        || f.affects.is_some()
        || f.tag.is_some()
        || f.overlaps.is_some()
        || f.future
        || f.source.as_deref().is_some_and(|s| s == "native")
}

/// A page of the projection, newest first.
pub async fn list(
    store: &Store,
    tenant: &TenantId,
    cursors: &Cursors,
    fp: &str,
    after: Option<Value>,
    f: &Filter,
) -> Result<Events> {
    if native_only(f) {
        return Ok(Events {
            events: Vec::new(),
            next_cursor: None,
        });
    }
    let mut before = after.map(|k| {
        (
            k[0].as_i64().unwrap_or_default(),
            k[1].as_str().unwrap_or_default().to_owned(),
        )
    });
    let mut events = Vec::new();
    let mut next = None;
    // commits with nothing applied make no event: read on until the page is full
    loop {
        let q = AuditFilter {
            operation: f.kind.clone(),
            since_ms: f.start.map(day_ms),
            until_ms: f.end.and_then(|d| d.succ_opt()).map(day_ms),
            before: before.clone(),
            limit: f.limit + 1,
            ..AuditFilter::default()
        };
        let rows = store.ads_writes().list(tenant, &q).await?;
        let more = rows.len() as i64 > f.limit;
        for r in rows.into_iter().take(f.limit as usize) {
            before = Some((r.created_ms, r.id.clone()));
            if r.status != ANSWERED {
                continue;
            }
            if let Some(e) = event(r) {
                events.push(e);
            }
            if events.len() as i64 == f.limit {
                break;
            }
        }
        if events.len() as i64 == f.limit {
            next = before
                .as_ref()
                .map(|(ms, id)| cursors.encode(fp, &json!([ms, id])));
            break;
        }
        if !more {
            break;
        }
    }
    Ok(Events {
        events,
        next_cursor: next,
    })
}
