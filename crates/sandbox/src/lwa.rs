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

use crate::error::SimError;
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
type Granted = Option<(String, String, String)>;

impl Sim {
    /// The live grant a refresh token names.
    fn grant(&self, refresh: &str) -> Result<Granted, SimError> {
        let found = self.store.with(|c| {
            c.query_row(
                "SELECT kind, subject FROM grants WHERE token_hash = ?1 AND revoked = 0",
                [hash(refresh)],
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(e),
            })
        })?;
        Ok(found.map(|(k, s)| (k, s, refresh.to_owned())))
    }

    /// Spends an authorization code (once, unexpired, for the redirect URI it was made for)
    /// on a new grant: its kind, subject and new refresh token.
    fn redeem_code(&self, code: &str, redirect_uri: &str) -> Result<Granted, SimError> {
        let now = chrono::Utc::now().timestamp();
        let refresh = format!("Atzr|{}", random_hex(48));
        self.store.with(|c| {
            let tx = c.unchecked_transaction()?;
            let spent = tx
                .query_row(
                    "UPDATE codes SET used = 1 WHERE code_hash = ?1 AND used = 0 AND expires_at > ?2
                     RETURNING kind, subject, redirect_uri",
                    rusqlite::params![hash(code), now],
                    |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?)),
                )
                .map(Some)
                .or_else(|e| match e {
                    rusqlite::Error::QueryReturnedNoRows => Ok(None),
                    e => Err(e),
                })?;
            // a code is spent by its first exchange, whatever that exchange's fate
            let granted = match spent {
                Some((kind, subject, uri)) if uri == redirect_uri => {
                    tx.execute(
                        "INSERT INTO grants (token_hash, kind, subject) VALUES (?1, ?2, ?3)",
                        rusqlite::params![hash(&refresh), kind, subject],
                    )?;
                    Some((kind, subject, refresh))
                }
                _ => None,
            };
            tx.commit()?;
            Ok(granted)
        })
    }

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
