//! Login with Amazon, as the provider runs it: `POST /auth/o2/token` with
//! `grant_type=refresh_token` (form-encoded) exchanges a merchant's refresh token for an
//! access token that expires. A revoked refresh token answers `invalid_grant`.

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

/// `POST /auth/o2/token`.
pub async fn token(State(sim): State<Arc<Sim>>, body: Bytes) -> Response {
    let form: std::collections::HashMap<String, String> =
        form_urlencoded::parse(&body).into_owned().collect();
    let get = |k: &str| form.get(k).map(String::as_str).unwrap_or("");
    if get("grant_type") != "refresh_token" {
        return oauth_error(
            400,
            "unsupported_grant_type",
            "grant_type must be refresh_token",
        );
    }
    for k in ["refresh_token", "client_id", "client_secret"] {
        if get(k).is_empty() {
            return oauth_error(400, "invalid_request", &format!("{k} is required"));
        }
    }
    match sim.app_matches(get("client_id"), get("client_secret")) {
        Ok(true) => {}
        Ok(false) => return oauth_error(401, "invalid_client", "Client authentication failed"),
        Err(e) => return e.into_response(),
    }
    let grant = hash(get("refresh_token"));
    let found = sim.store.with(|c| {
        c.query_row(
            "SELECT kind, subject, revoked FROM grants WHERE token_hash = ?1",
            [&grant],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            },
        )
        .map(Some)
        .or_else(|e| match e {
            rusqlite::Error::QueryReturnedNoRows => Ok(None),
            e => Err(e),
        })
    });
    let (kind, subject) = match found {
        Ok(Some((k, s, 0))) => (k, s),
        Ok(_) => {
            return oauth_error(
                400,
                "invalid_grant",
                "The request has an invalid grant parameter : refresh_token",
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
            rusqlite::params![hash(&access), kind, subject, grant, expires],
        )
    });
    if let Err(e) = stored {
        return e.into_response();
    }
    Json(json!({
        "access_token": access,
        "refresh_token": get("refresh_token"),
        "token_type": "bearer",
        "expires_in": ttl,
    }))
    .into_response()
}

impl Sim {
    /// The caller an unexpired access token of `kind` speaks for.
    pub fn caller(&self, token: &str) -> Option<Caller> {
        let now = chrono::Utc::now().timestamp();
        self.store
            .with(|c| {
                c.query_row(
                    "SELECT kind, subject FROM access_tokens WHERE token_hash = ?1 AND expires_at > ?2",
                    rusqlite::params![hash(token), now],
                    |r| Ok(Caller { kind: r.get(0)?, subject: r.get(1)? }),
                )
            })
            .ok()
    }
}
