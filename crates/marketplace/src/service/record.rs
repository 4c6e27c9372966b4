//! The audit record every commit writes, shared by advertising writes, listing change sets and
//! approvals: the row written before anything is sent (status `sending`, attributed to the
//! principal and to who previewed), the first commit under a repeated `Idempotency-Key`
//! (answered again, never sent twice), and the one place a commit's begin is decided.

use pp_core::{Error, Kind, Principal, Result};
use pp_store::Store;
use pp_store::ads_writes::{self, AuditRow, Begin, PlanRow};
use pp_store::jobs::now_ms;
use serde_json::Value;

use super::requests::IdempotencyKey;

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

/// A key already used for another commit.
pub(super) fn key_taken() -> Error {
    Error::invalid_request("this Idempotency-Key was used for another commit")
        .with_fix("Use a new key for a new commit; resend the original commit to read its answer.")
}

/// The first commit made under `key` in `p`'s tenant, if any.
pub(super) async fn under_key(
    store: &Store,
    p: &Principal,
    key: Option<&IdempotencyKey>,
) -> Result<Option<AuditRow>> {
    match key {
        Some(k) => store.ads_writes().by_key(&p.tenant, k.as_str()).await,
        None => Ok(None),
    }
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

/// How a commit's begin came out.
pub(super) enum Recorded {
    /// The row is written: the commit is this call's to send (its audit id).
    Started(String),
    /// The same key committed this plan before: answer it again.
    Replay(AuditRow),
    /// The plan was committed before, under another key or none.
    AlreadyCommitted(AuditRow),
}

/// Writes `row` before anything is sent, unless the plan or the key was committed before
/// (decided atomically, on any instance); a key used for another plan is refused.
pub(super) async fn begin(store: &Store, row: AuditRow) -> Result<Recorded> {
    let id = row.id.clone();
    Ok(match store.ads_writes().begin(row).await? {
        Begin::Started => Recorded::Started(id),
        Begin::Replay(first) => Recorded::Replay(first),
        Begin::KeyTaken(_) => return Err(key_taken()),
        Begin::AlreadyCommitted(first) => Recorded::AlreadyCommitted(first),
    })
}
