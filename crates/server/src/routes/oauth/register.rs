//! `POST /oauth/register` (RFC 7591): an MCP client registers itself as a public client. The
//! body is JSON client metadata; what is read is `client_name`, `redirect_uris` (https or
//! loopback), `scope` (at most the documented default set), `grant_types`, `response_types`
//! and `token_endpoint_auth_method` (`none`). Registrations are limited per source address,
//! and only so many may wait for a first consent.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use pp_auth::clients::{DynamicRequest, RegisterError, register_dynamic};
use serde::Deserialize;
use serde_json::json;

use super::{no_store, peer};
use crate::state::SharedState;

/// Largest registration read.
const MAX_BODY: usize = 16 * 1024;

#[derive(Deserialize)]
struct Metadata {
    client_name: Option<String>,
    #[serde(default)]
    redirect_uris: Vec<String>,
    scope: Option<String>,
    token_endpoint_auth_method: Option<String>,
    grant_types: Option<Vec<String>>,
    response_types: Option<Vec<String>>,
}

fn refused(status: StatusCode, code: &str, description: &str) -> Response {
    no_store(
        (
            status,
            Json(json!({ "error": code, "error_description": description })),
        )
            .into_response(),
    )
}

pub async fn register(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let from = peer(&parts).map(|ip| ip.to_string()).unwrap_or_default();
    if let Err(wait) = app.register_limit.take(&from) {
        let mut res = refused(
            StatusCode::TOO_MANY_REQUESTS,
            "temporarily_unavailable",
            "too many registrations from this address; retry later",
        );
        res.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from(wait.as_secs().max(1)),
        );
        return res;
    }
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
        return refused(
            StatusCode::BAD_REQUEST,
            "invalid_client_metadata",
            "the registration is larger than 16 KiB",
        );
    };
    // read as every body is: a key named twice refused, the metadata (and anything in it
    // declared as an object) taken only from an object
    let read = pp_core::strict_json::parse(&bytes).and_then(pp_core::wire::from_value);
    let m: Metadata = match read {
        Ok(m) => m,
        Err(e) => {
            return refused(
                StatusCode::BAD_REQUEST,
                "invalid_client_metadata",
                &format!("the registration is not client metadata JSON: {e}"),
            );
        }
    };
    let req = DynamicRequest {
        client_name: m.client_name.as_deref(),
        redirect_uris: &m.redirect_uris,
        scope: m.scope.as_deref(),
        token_endpoint_auth_method: m.token_endpoint_auth_method.as_deref(),
        grant_types: m.grant_types.as_deref(),
        response_types: m.response_types.as_deref(),
    };
    match register_dynamic(&app.store, &req, &format!("dcr:{from}")).await {
        Ok(c) => no_store(
            (
                StatusCode::CREATED,
                Json(json!({
                    "client_id": c.client_id,
                    "client_id_issued_at": c.created_at,
                    "client_name": c.name,
                    "redirect_uris": c.redirect_uris,
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                    "scope": c.scopes,
                })),
            )
                .into_response(),
        ),
        Err(RegisterError::Server(e)) => {
            tracing::error!(cause = %e.chain(), "client registration failed");
            refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the authorization server failed",
            )
        }
        Err(e @ RegisterError::Full) => {
            refused(StatusCode::TOO_MANY_REQUESTS, e.code(), &e.description())
        }
        Err(e) => refused(StatusCode::BAD_REQUEST, e.code(), &e.description()),
    }
}
