//! Renders the one error type: [`ApiError`] as the `/api` failure envelope, [`V1Error`] as
//! the `/v1` `{ error: { code, message } }` body. An internal error's cause chain is left on
//! the answer for the request's log line ([`Cause`]) and never sent.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use pp_core::{Error, Kind};

pub use super::request_log::Cause;

/// An error answered with the `/api` envelope.
#[derive(Debug)]
pub struct ApiError(pub Error);

/// An error answered with the `/v1` envelope.
#[derive(Debug)]
pub struct V1Error(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        Self(e)
    }
}

impl From<Error> for V1Error {
    fn from(e: Error) -> Self {
        Self(e)
    }
}

fn respond(e: &Error, body: serde_json::Value) -> Response {
    let status = StatusCode::from_u16(e.kind.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut res = (status, Json(body)).into_response();
    // the cause goes to the request's log line (`request_log::finish`), never into the answer
    if e.cause().is_some() {
        res.extensions_mut().insert(Cause(e.chain()));
    }
    let challenge = match e.kind {
        Kind::InvalidToken => Some(format!(
            "Bearer realm=\"partner-platform\", error=\"invalid_token\", error_description=\"{}\"",
            e.message().replace('"', "'")
        )),
        Kind::InsufficientScope => Some(format!(
            "Bearer realm=\"partner-platform\", error=\"insufficient_scope\", scope=\"{}\"",
            e.required_scopes().join(" ")
        )),
        _ => None,
    };
    if let Some(v) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    if e.kind == Kind::Throttled
        && let Some(v) = body_retry_after(e)
    {
        res.headers_mut().insert(header::RETRY_AFTER, v);
    }
    res
}

/// `Retry-After` of a throttled failure, from its `retryAfter` field.
fn body_retry_after(e: &Error) -> Option<HeaderValue> {
    let secs = e.api_envelope(None)["retryAfter"].as_u64()?;
    HeaderValue::from_str(&secs.to_string()).ok()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        respond(&self.0, self.0.api_envelope(None))
    }
}

impl IntoResponse for V1Error {
    fn into_response(self) -> Response {
        respond(&self.0, self.0.v1_envelope())
    }
}

/// Renders `e` in the envelope the path's family uses.
pub fn for_path(path: &str, e: Error) -> Response {
    if path.starts_with("/v1/") || path == "/v1" {
        V1Error(e).into_response()
    } else {
        ApiError(e).into_response()
    }
}

/// Answers paths that match no route.
pub async fn not_found(uri: Uri) -> Response {
    for_path(
        uri.path(),
        Error::not_found(format!("no route {}", uri.path()))
            .with_fix("The README lists the routes that exist."),
    )
}

/// Answers a known path called with the wrong method.
pub async fn method_not_allowed(uri: Uri) -> Response {
    for_path(
        uri.path(),
        Error::new(
            Kind::MethodNotAllowed,
            format!("{} does not take this method", uri.path()),
        ),
    )
}
