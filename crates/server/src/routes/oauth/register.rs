//! `POST /oauth/register` (RFC 7591): an MCP client registers itself as a public client. The
//! body is JSON client metadata; what is read is `client_name`, `redirect_uris` (https or
//! loopback), `scope` (at most the documented default set), `grant_types`, `response_types`
//! and `token_endpoint_auth_method` (`none`). Registrations are limited per source network
//! (an IPv4 address, an IPv6 /64: one machine's share), only so many may wait for a first
//! consent (the oldest unused one makes room), and the operator may require an initial access
//! token (RFC 7591, docs/auth.md, `registration_token`).

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

/// The network a registration is counted under: an IPv4 address as it is, an IPv6 address by
/// its /64 (the share one machine is handed; an IPv4 address mapped into IPv6 reads as IPv4).
fn network(ip: std::net::IpAddr) -> String {
    match ip {
        std::net::IpAddr::V4(v4) => v4.to_string(),
        std::net::IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// Whether the request carries the operator's initial access token, when one is required.
fn admitted(app: &SharedState, headers: &axum::http::HeaderMap) -> bool {
    let Some(want) = &app.registration_token else {
        return true;
    };
    let given = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or_default();
    pp_auth::sessions::constant_eq(given.as_bytes(), want.as_bytes())
}

pub async fn register(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let from = peer(&parts).map(|ip| ip.to_string()).unwrap_or_default();
    let net = peer(&parts).map(network).unwrap_or_default();
    if !admitted(&app, &parts.headers) {
        let mut res = refused(
            StatusCode::UNAUTHORIZED,
            "invalid_token",
            "registration here needs the operator's initial access token (Authorization: Bearer …)",
        );
        res.headers_mut().insert(
            axum::http::header::WWW_AUTHENTICATE,
            axum::http::HeaderValue::from_static("Bearer realm=\"partner-platform\""),
        );
        return res;
    }
    if let Err(wait) = app.register_limit.take(&net) {
        let mut res = refused(
            StatusCode::TOO_MANY_REQUESTS,
            "temporarily_unavailable",
            "too many registrations from this network; retry later",
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
    match register_dynamic(&app.store, &req, &format!("dcr:{from}"), &net).await {
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
        Err(RegisterError::Full) => {
            let mut res = refused(
                StatusCode::SERVICE_UNAVAILABLE,
                RegisterError::Full.code(),
                &RegisterError::Full.description(),
            );
            res.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("60"),
            );
            res
        }
        Err(RegisterError::Server(e)) => {
            tracing::error!(cause = %e.chain(), "client registration failed");
            refused(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the authorization server failed",
            )
        }
        Err(e) => refused(StatusCode::BAD_REQUEST, e.code(), &e.description()),
    }
}

#[cfg(test)]
mod tests {
    /// Issue 52, finding 5: registrations are counted per network, an IPv6 /64 as one.
    /// Reproduced on the old main: the limit counted each IPv6 address alone, and a host
    /// holds a whole /64 of them.
    #[test]
    fn one_ipv6_slash_64_is_one_network() {
        let n = |s: &str| super::network(s.parse().unwrap());
        assert_eq!(n("2001:db8:1:2::1"), n("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert_ne!(n("2001:db8:1:2::1"), n("2001:db8:1:3::1"));
        assert_eq!(n("198.51.100.7"), "198.51.100.7");
        assert_eq!(n("::ffff:198.51.100.7"), "198.51.100.7");
        assert_ne!(n("198.51.100.7"), n("198.51.100.8"));
    }
}
