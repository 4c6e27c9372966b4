//! Who an advertising write acts as, and for whom: the [`Target`] a call resolves (the
//! advertising login, and the profile with its currency for profile-scoped operations), the
//! upstream request built for it, and the principal an approved commit is sent as (the caller
//! who asked, never the person who approved).

use pp_core::{Actor, Error, Principal, Result, Scope, ScopeSet, Surface};
use pp_store::approvals::ApprovalRow;
use serde_json::{Map, Value};

use super::answers::Acting;
use crate::calls::build;
use crate::catalog::Operation;
use crate::connections::GrantKind;
use crate::upstream::Request;

/// Who a write acts as, resolved by the advertising call: the advertising login, and the
/// profile with its currency (from the tenant's warehouse) for profile-scoped operations.
pub(super) struct Target {
    pub login: String,
    pub profile: Option<String>,
    pub currency: Option<String>,
}

/// The acting merchant an answer names.
pub(super) fn acting(t: &Target) -> Acting {
    Acting::Login {
        seller_id: t.login.clone(),
        profile_id: t.profile.clone(),
    }
}

/// The upstream request of an advertising call for `t` (parameters checked, the profile scope
/// added).
pub(super) fn built<'a>(
    p: &'a Principal,
    op: &'a Operation,
    query: &Map<String, Value>,
    t: &'a Target,
) -> Result<Request<'a>> {
    let mut built = build(op, query, &p.tenant, GrantKind::Ads, &t.login, None)?;
    if let Some(pid) = &t.profile {
        built
            .headers
            .push(("Amazon-Advertising-API-Scope".into(), pid.clone()));
    }
    Ok(built)
}

/// The caller a held commit was requested by, as its approved commit is sent: their tenant,
/// actor, credential and surface, holding the advertising scopes the request was made under.
pub(super) fn requester(row: &ApprovalRow) -> Result<Principal> {
    Ok(Principal {
        tenant: row.tenant.clone(),
        actor: Actor::recorded(&row.actor),
        scopes: ScopeSet::from_scopes(&[Scope::AdsRead, Scope::AdsWrite]),
        credential_id: row.credential_id.clone(),
        surface: Surface::from_wire(&row.surface).ok_or_else(|| {
            Error::internal(format!(
                "approval {} records a surface that does not read: {}",
                row.id, row.surface
            ))
        })?,
        // an approved commit is never held again, so the application it came through is not
        // needed to send it (the audit row records the surface)
        app: None,
    })
}
