//! The timeline's `ads_approval` family: the commits a tenant's write policy held for a
//! person, projected at read time from the approval requests (`pp_store::approvals`), one
//! event per step: `approval.proposed` (by the caller who asked), `approval.approved` or
//! `approval.rejected` (by the person who decided), `approval.sent` or `approval.failed` (the
//! send of an approved plan), `approval.withdrawn` (the requester's access ended first: by the
//! operator who ended it), and `approval.expired` (nobody decided in time). Nothing is
//! stored twice: the request is the record. The projection reads the tenant's latest
//! `RECENT` requests; held commits wait for people, so they are few.

use pp_core::cursor::Cursors;
use pp_core::{Result, TenantId};
use pp_store::Store;
use pp_store::approvals::{self, ApprovalRow};
use pp_store::jobs::now_ms;
use serde_json::{Value, json};

use crate::answers::{Event, Events};
use crate::timeline::Filter;

/// The requests the projection reads, newest first.
const RECENT: i64 = 5_000;

/// One step of a request: when, which, by whom.
fn steps(r: &ApprovalRow, now: i64) -> Vec<(i64, &'static str, String)> {
    let mut out = vec![(r.created_ms, "approval.proposed", r.actor.clone())];
    let by = r.decided_by.clone().unwrap_or_default();
    if let Some(at) = r.decided_ms {
        match r.stored_status.as_str() {
            approvals::REJECTED => out.push((at, "approval.rejected", by)),
            approvals::WITHDRAWN => out.push((at, "approval.withdrawn", by)),
            status => {
                out.push((at, "approval.approved", by.clone()));
                match status {
                    approvals::SENT => out.push((at + 1, "approval.sent", by)),
                    approvals::FAILED => out.push((at + 1, "approval.failed", by)),
                    _ => {}
                }
            }
        }
    } else if r.status(now) == approvals::EXPIRED {
        out.push((r.expires_ms, "approval.expired", String::new()));
    }
    out
}

fn event(r: &ApprovalRow, (ms, kind, actor): (i64, &'static str, String)) -> Event {
    let proposed = kind == "approval.proposed";
    let surface = if proposed {
        r.surface.clone()
    } else {
        "console".into()
    };
    let mut e = Event::read_time(
        ms,
        "ads_approval",
        kind.into(),
        (actor, surface, r.surface.clone()),
        json!({
            "approvalId": r.id, "operation": r.operation, "planId": r.plan_id,
            "planHash": r.plan_hash, "requestedBy": r.actor, "auditId": r.audit_id,
        }),
    );
    e.note = if proposed {
        Some(r.reason.clone())
    } else {
        r.note.clone()
    };
    e
}

/// A page of the projection, newest first; the cursor holds the last event's time, request
/// and kind.
pub async fn list(
    store: &Store,
    tenant: &TenantId,
    cursors: &Cursors,
    fp: &str,
    after: Option<Value>,
    f: &Filter,
) -> Result<Events> {
    if crate::ads_changes::native_only(f) {
        return Ok(Events {
            events: Vec::new(),
            next_cursor: None,
        });
    }
    let now = now_ms();
    let rows = store.approvals().recent(tenant, RECENT).await?;
    let mut all: Vec<(i64, String, &'static str, Event)> = rows
        .iter()
        .flat_map(|r| {
            steps(r, now)
                .into_iter()
                .map(move |s| (s.0, r.id.clone(), s.1, event(r, s)))
        })
        .filter(|(_, _, kind, e)| {
            f.kind.as_deref().is_none_or(|k| k == *kind)
                && f.start
                    .is_none_or(|d| e.occurred_on.as_str() >= d.to_string().as_str())
                && f.end
                    .is_none_or(|d| e.occurred_on.as_str() <= d.to_string().as_str())
        })
        .collect();
    all.sort_by(|a, b| (b.0, &b.1, b.2).cmp(&(a.0, &a.1, a.2)));
    let start = match after {
        Some(k) => {
            let key = (
                k[0].as_i64().unwrap_or_default(),
                k[1].as_str().unwrap_or_default().to_owned(),
                k[2].as_str().unwrap_or_default().to_owned(),
            );
            all.iter()
                .position(|(ms, id, kind, _)| (*ms, id.clone(), kind.to_string()) < key)
                .unwrap_or(all.len())
        }
        None => 0,
    };
    let page: Vec<_> = all
        .into_iter()
        .skip(start)
        .take(f.limit as usize + 1)
        .collect();
    let more = page.len() as i64 > f.limit;
    let page: Vec<_> = page.into_iter().take(f.limit as usize).collect();
    let next_cursor = more
        .then(|| page.last())
        .flatten()
        .map(|(ms, id, kind, _)| cursors.encode(fp, &json!([ms, id, kind])));
    Ok(Events {
        events: page.into_iter().map(|(_, _, _, e)| e).collect(),
        next_cursor,
    })
}
