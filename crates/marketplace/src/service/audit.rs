//! The audit log of committed advertising writes (`ads:read`), newest first, filtered and
//! paged with signed cursors: who committed what, for which merchant, what was sent and what
//! each item answered.

use pp_core::{Error, Principal, Result, Scope};
use pp_store::ads_writes::AuditRow;
use serde_json::json;

use super::Marketplace;

/// The audit read's page size: default and most.
pub const AUDIT_PAGE: (i64, i64) = (50, 200);

/// The audit log of the marketplace service (`Marketplace::audit`).
pub struct Audit<'a>(pub(super) &'a Marketplace);

impl Audit<'_> {
    /// The audit log of committed ads writes (`ads:read`), newest first.
    pub async fn ads(
        &self,
        p: &Principal,
        q: super::requests::AuditQuery,
        cursors: &pp_core::cursor::Cursors,
    ) -> Result<super::answers::AuditPage> {
        p.require(&[Scope::AdsRead])?;
        let limit = pp_core::wire::int_in("limit", q.limit.as_deref(), 1, AUDIT_PAGE.1)?
            .unwrap_or(AUDIT_PAGE.0);
        let fp = pp_core::cursor::fingerprint(&[
            "ads_audit",
            p.tenant.as_str(),
            q.merchant.as_deref().unwrap_or(""),
            q.profile_id.as_deref().unwrap_or(""),
            q.operation.as_deref().unwrap_or(""),
            q.actor.as_deref().unwrap_or(""),
            q.since.as_deref().unwrap_or(""),
            q.until.as_deref().unwrap_or(""),
        ]);
        let before = q
            .cursor
            .as_deref()
            .map(|c| cursors.decode(&fp, c))
            .transpose()?
            .map(|k| {
                (
                    k[0].as_i64().unwrap_or_default(),
                    k[1].as_str().unwrap_or_default().to_owned(),
                )
            });
        let filter = pp_store::ads_writes::AuditFilter {
            merchant: q.merchant,
            profile_id: q.profile_id,
            operation: q.operation,
            actor: q.actor,
            since_ms: time_ms("since", q.since.as_deref())?,
            until_ms: time_ms("until", q.until.as_deref())?,
            before,
            limit: limit + 1,
        };
        let mut rows = self.0.store.ads_writes().list(&p.tenant, &filter).await?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = match (more, rows.last()) {
            (true, Some(r)) => Some(cursors.encode(&fp, &json!([r.created_ms, r.id]))),
            _ => None,
        };
        Ok(super::answers::AuditPage {
            records: rows.into_iter().map(record).collect(),
            next_cursor,
        })
    }
}

fn record(r: AuditRow) -> super::answers::AuditRecord {
    let applied = r
        .answer
        .as_ref()
        .is_some_and(|a| a["changes"].as_array().is_some_and(|c| !c.is_empty()));
    let outcome = (r.status == pp_store::ads_writes::ANSWERED && applied)
        .then(|| pp_core::outcome::link(&r.id, r.created_ms, pp_store::jobs::now_ms()));
    super::answers::AuditRecord {
        outcome,
        audit_id: r.id,
        at: pp_store::rfc3339_ms(r.created_ms),
        credential_id: r.credential_id,
        actor: r.actor,
        surface: r.surface,
        operation: r.operation,
        merchant: r.merchant,
        profile_id: r.profile_id,
        plan_id: r.plan_id,
        plan_hash: r.plan_hash,
        idempotency_key: r.idempotency_key,
        status: r.status,
        snapshot: r.snapshot,
        sent: r.sent,
        answer: r.answer,
        approved_by: r.approved_by,
        previewed_by: r.previewed_by,
        previewed_credential_id: r.previewed_credential_id,
    }
}

fn time_ms(name: &str, v: Option<&str>) -> Result<Option<i64>> {
    v.map(|t| {
        chrono::DateTime::parse_from_rfc3339(t)
            .map(|d| d.timestamp_millis())
            .map_err(|_| {
                Error::invalid_request(format!(
                    "{name} must be an RFC 3339 time (2026-11-24T09:00:00Z)"
                ))
            })
    })
    .transpose()
}
