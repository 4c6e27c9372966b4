//! Bearer authentication: turns `Authorization: Bearer <token>` into a [`Principal`], or
//! `invalid_token` (answered 401 in the path family's envelope by the route's gate). Each
//! credential spends its request budget here: every answer says what is left
//! (`RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`), and a credential past it is
//! answered `429` (`rate_limited` on `/v1`, `throttled` on `/api`) with `Retry-After`.

use axum::http::header;
use pp_core::{Error, Kind, Principal};

use super::slot::Slot;
use crate::state::SharedState;

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Lets the authenticated `p` in on any door: names it for the request's log line, spends
/// one of its credential's request budget and leaves what is left for the `RateLimit-*`
/// headers; `throttled` (with `retryAfter`) once the budget is spent.
pub fn admit(app: &SharedState, ext: &axum::http::Extensions, p: &Principal) -> Result<(), Error> {
    let budget = app.credential_limit.take_budget(&p.credential_id);
    if let Some(slot) = ext.get::<Slot>() {
        slot.name(p.tenant.as_str(), &p.actor);
        slot.spend(budget);
    }
    match budget.retry_after {
        None => Ok(()),
        Some(wait) => {
            let secs = wait.as_secs() + 1;
            Err(Error::new(
                Kind::Throttled,
                format!("this credential passed its request rate; retry in {secs} s"),
            )
            .with_field("retryAfter", secs)
            .with_fix(
                "Spread the calls out, or ask the operator for a higher per-credential rate.",
            ))
        }
    }
}

/// The principal of the request's live bearer token, admitted ([`admit`]), or the refusal.
pub async fn principal(
    app: &SharedState,
    headers: &axum::http::HeaderMap,
    ext: &axum::http::Extensions,
) -> Result<Principal, Error> {
    let p = match bearer_token(headers) {
        None => Err(Error::new(
            Kind::InvalidToken,
            "send Authorization: Bearer <access token> (mint one at POST /oauth/token)",
        )),
        Some(token) => match app.verifier.verify(token).await? {
            Some(p) => Ok(p),
            None => Err(Error::new(
                Kind::InvalidToken,
                "the access token is invalid, expired or revoked",
            )),
        },
    }?;
    admit(app, ext, &p)?;
    Ok(p)
}
