//! What every answer carries, whatever produced it: `X-Content-Type-Options: nosniff`,
//! `Cache-Control: no-store` when the request was authenticated, CORS for the browser
//! origins the operator allows (on MCP, OAuth and discovery paths: preflights answered, the
//! origin echoed, `Mcp-Session-Id` exposed), and the family's error envelope in place of any
//! plain-text refusal a framework extractor produced (a body over the limit, a path
//! parameter that is not UTF-8), so no error ever reaches a client as bare text. A refusal of
//! a request that carried a body says `Connection: close`: the handler may have refused it
//! without reading the body, and the server then drops the connection, so a client that
//! reused it for its next request would see it vanish (the MCP SDK's OAuth client did, after
//! the 401 that starts its discovery).

use axum::extract::Request;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pp_core::{Error, Kind};

use crate::state::SharedState;

/// Longest plain-text refusal read back to re-render it.
const PLAIN_LIMIT: usize = 8 * 1024;

/// Paths a browser-based MCP client calls.
fn cors_path(path: &str) -> bool {
    path == "/mcp"
        || path.starts_with("/mcp/")
        || path.starts_with("/oauth/")
        || path.starts_with("/.well-known/")
}

/// What the answer's headers depend on, read from the request before it runs.
pub struct Plan {
    path: String,
    authenticated: bool,
    carries_body: bool,
    allowed: Option<HeaderValue>,
}

/// Reads the request's [`Plan`]; a CORS preflight is answered here (the answer beside the
/// plan) and runs nothing.
pub fn plan(app: &SharedState, req: &Request) -> (Plan, Option<Response>) {
    let path = req.uri().path().to_owned();
    let authenticated = req.headers().contains_key(header::AUTHORIZATION);
    let carries_body = req.headers().contains_key(header::TRANSFER_ENCODING)
        || req
            .headers()
            .get(header::CONTENT_LENGTH)
            .is_some_and(|v| v.as_bytes() != b"0");
    let origin = req
        .headers()
        .get(header::ORIGIN)
        .filter(|_| cors_path(&path))
        .cloned();
    let allowed = origin.filter(|o| o.to_str().is_ok_and(|o| app.mcp.guard.allows_origin(o)));
    let preflight = req.method() == Method::OPTIONS
        && req
            .headers()
            .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD);
    let plan = Plan {
        path,
        authenticated,
        carries_body,
        allowed,
    };
    if !(preflight && cors_path(&plan.path)) {
        return (plan, None);
    }
    let answer = match &plan.allowed {
        Some(_) => preflight_answer(),
        None => crate::http::error::for_path(
            &plan.path,
            Error::new(
                Kind::OriginNotAllowed,
                "this Origin may not call this server",
            )
            .with_fix("Ask the operator to add it to mcp_allowed_origins."),
        ),
    };
    (plan, Some(answer))
}

/// The answer with what every answer carries, in the family's envelope when it was a
/// framework's plain-text refusal.
pub async fn finish(plan: Plan, res: Response) -> Response {
    let mut res = enveloped(&plan.path, res).await;
    let refused = res.status().as_u16() >= 400;
    let h = res.headers_mut();
    if plan.carries_body && refused {
        h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    if plan.authenticated {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    if let Some(origin) = plan.allowed {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin);
        h.append(header::VARY, HeaderValue::from_static("Origin"));
        h.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(
                "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, Retry-After, X-Request-Id",
            ),
        );
    }
    res
}

fn preflight_answer() -> Response {
    let mut r = StatusCode::NO_CONTENT.into_response();
    let h = r.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_HEADERS,
        HeaderValue::from_static(
            "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID",
        ),
    );
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    r
}

/// `res`, or the family's envelope in its place when it is a plain-text refusal.
async fn enveloped(path: &str, res: Response) -> Response {
    let plain = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/plain"));
    if !(res.status().is_client_error() || res.status().is_server_error()) || !plain {
        return res;
    }
    let status = res.status();
    let text = axum::body::to_bytes(res.into_body(), PLAIN_LIMIT)
        .await
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let kind = match status {
        StatusCode::PAYLOAD_TOO_LARGE => Kind::TooLarge,
        StatusCode::NOT_FOUND => Kind::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => Kind::MethodNotAllowed,
        StatusCode::UNAUTHORIZED => Kind::InvalidToken,
        s if s.is_server_error() => Kind::Unknown,
        _ => Kind::InvalidRequest,
    };
    let message = if text.trim().is_empty() {
        kind.friendly().to_owned()
    } else {
        text
    };
    if path == "/mcp" || path.starts_with("/mcp/") {
        return crate::mcp::refusal(status, &message);
    }
    if path.starts_with("/oauth/") {
        return crate::routes::oauth::oauth_error(
            pp_auth::OAuthError::InvalidRequest(message),
            false,
        );
    }
    crate::http::error::for_path(path, Error::new(kind, message))
}
