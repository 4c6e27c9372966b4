//! Login with Amazon, as the provider runs it: `POST /auth/o2/token` with
//! `grant_type=refresh_token` (form-encoded) exchanges a merchant's refresh token for an
//! access token that expires, and `grant_type=authorization_code` exchanges the one-time code
//! a consent page made (`consent.rs`) for a new refresh token. A revoked refresh token, or a
//! code used before, expired or sent with another redirect URI, answers `invalid_grant`.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::sim::Sim;
use crate::store::{hash, random_hex};

fn oauth_error(status: u16, error: &str, description: &str) -> Response {
    (
        StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
        Json(json!({ "error": error, "error_description": description })),
    )
        .into_response()
}

/// Who an access token speaks for.
#[derive(Clone, Debug)]
pub struct Caller {
    /// `seller` (selling-side authorization) or `ads` (advertising authorization).
    pub kind: String,
    /// The merchant token the grant belongs to.
    pub subject: String,
}

/// `POST /auth/o2/token`: `grant_type=refresh_token`, or `authorization_code` with a code a
/// consent page made (usable once, within five minutes, with the redirect URI it was made for).
pub async fn token(State(sim): State<Arc<Sim>>, body: Bytes) -> Response {
    let form: std::collections::HashMap<String, String> =
        form_urlencoded::parse(&body).into_owned().collect();
    let get = |k: &str| form.get(k).map(String::as_str).unwrap_or("");
    let grant_field = match get("grant_type") {
        "refresh_token" => "refresh_token",
        "authorization_code" => "code",
        _ => {
            return oauth_error(
                400,
                "unsupported_grant_type",
                "grant_type must be refresh_token or authorization_code",
            );
        }
    };
    for k in [grant_field, "client_id", "client_secret"] {
        if get(k).is_empty() {
            return oauth_error(400, "invalid_request", &format!("{k} is required"));
        }
    }
    match sim.app_matches(get("client_id"), get("client_secret")) {
        Ok(true) => {}
        Ok(false) => return oauth_error(401, "invalid_client", "Client authentication failed"),
        Err(e) => return e.into_response(),
    }
    let found = if grant_field == "code" {
        sim.redeem_code(get("code"), get("redirect_uri"))
    } else {
        sim.grant(get("refresh_token"))
    };
    let (kind, subject, refresh) = match found {
        Ok(Some(g)) => g,
        Ok(None) => {
            return oauth_error(
                400,
                "invalid_grant",
                &format!("The request has an invalid grant parameter : {grant_field}"),
            );
        }
        Err(e) => return e.into_response(),
    };
    let access = format!("Atza|{}", random_hex(32));
    let ttl = sim.config.access_token_ttl_secs;
    let expires = chrono::Utc::now().timestamp() + ttl as i64;
    let stored = sim.store.with(|c| {
        c.execute(
            "INSERT INTO access_tokens (token_hash, kind, subject, grant_hash, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            rusqlite::params![hash(&access), kind, subject, hash(&refresh), expires],
        )
    });
    if let Err(e) = stored {
        return e.into_response();
    }
    Json(json!({
        "access_token": access,
        "refresh_token": refresh,
        "token_type": "bearer",
        "expires_in": ttl,
    }))
    .into_response()
}

/// A grant as the token endpoint answers for it: kind, subject and refresh token.
pub(crate) type Granted = Option<(String, String, String)>;
