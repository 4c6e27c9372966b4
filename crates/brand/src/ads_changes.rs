//! The timeline's `ads_change` family (docs/brand-memory.md): advertising writes committed through the
//! service, projected at read time from the audit log (`pp_store::ads_writes`). One event per
//! commit that the provider answered with at least one applied item: its operation as `kind`,
//! the commit's actor and surface, and the `changes` the commit recorded in its answer (per
//! applied item the entity's values before, as read at commit, and after, as sent), and where
//! its outcome is read (`INS-CHANGE-OUTCOME-01`) and from when. Nothing is stored twice: the
//! audit row is the record.

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

fn event(r: AuditRow) -> Option<Event> {
    // the commit recorded what each applied item changed
    let items = r.answer.as_ref()?["changes"].as_array()?.clone();
    if items.is_empty() {
        return None;
    }
    let outcome = pp_core::outcome::link(&r.id, r.created_ms, pp_store::jobs::now_ms());
    let payload = json!({
        "auditId": r.id, "merchant": r.merchant, "profileId": r.profile_id,
        "planId": r.plan_id, "changes": items, "outcome": outcome,
    });
    let source = r.surface.clone();
    Some(Event::read_time(
        r.created_ms,
        "ads_change",
        r.operation,
        (r.actor, r.surface, source),
        payload,
    ))
}

/// Whether the filter asks for something only native events have (a brand, stake fields).
pub(crate) fn native_only(f: &Filter) -> bool {
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
