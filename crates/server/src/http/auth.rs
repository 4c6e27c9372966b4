//! Bearer authentication: turns `Authorization: Bearer <token>` into a [`Principal`] in the
//! request's extensions, or answers `401 invalid_token` in the path family's envelope.

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;
use pp_core::{Error, Kind, Principal};

use super::error::for_path;
use super::request_log::LogSlot;
use crate::state::SharedState;

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Requires a live bearer token; inserts the [`Principal`] for handlers.
pub async fn require(State(app): State<SharedState>, mut req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    let principal = match bearer_token(req.headers()) {
        None => Err(Error::new(
            Kind::InvalidToken,
            "send Authorization: Bearer <access token> (mint one at POST /oauth/token)",
        )),
        Some(token) => match pp_auth::verify_bearer(&app.store, token).await {
            Ok(Some(p)) => Ok(p),
            Ok(None) => Err(Error::new(
                Kind::InvalidToken,
                "the access token is invalid, expired or revoked",
            )),
            Err(e) => Err(e),
        },
    };
    match principal {
        Ok(p) => {
            if let Some(slot) = req.extensions().get::<LogSlot>() {
                slot.set(p.tenant.as_str(), &p.actor);
            }
            req.extensions_mut().insert::<Principal>(p);
            next.run(req).await
        }
        Err(e) => for_path(&path, e),
    }
}
