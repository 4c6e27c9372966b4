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
    if let Some(v) = retry_after(e) {
        res.headers_mut().insert(header::RETRY_AFTER, v);
    }
    res
}

/// `Retry-After` of a failure worth retrying later: a throttled call's own delay, or an
/// outage's (the state store or a warehouse server out of reach), a few seconds unless it
/// says otherwise.
fn retry_after(e: &Error) -> Option<HeaderValue> {
    match e.kind {
        Kind::Throttled => body_retry_after(e),
        Kind::Unavailable | Kind::WarehouseUnavailable => {
            body_retry_after(e).or_else(|| Some(HeaderValue::from_static("5")))
        }
        _ => None,
    }
}

/// `Retry-After` of a throttled failure, from its `retryAfter` field.
fn body_retry_after(e: &Error) -> Option<HeaderValue> {
    let secs = e.field("retryAfter")?.as_u64()?;
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

#[cfg(test)]
mod retry_tests {
    use super::*;

    /// Issue 52, finding 8: an outage (the state store or a warehouse server out of reach)
    /// answers `503` with `Retry-After`; a service switched off by its operator does not.
    #[test]
    fn an_outage_says_when_to_retry() {
        let store = Error::new(Kind::Unavailable, "the state store cannot be reached")
            .with_field("retryAfter", 7u64);
        let res = ApiError(store).into_response();
        assert_eq!(res.status(), 503);
        assert_eq!(res.headers()[header::RETRY_AFTER], "7");
        let warehouse = Error::new(Kind::WarehouseUnavailable, "down");
        let res = V1Error(warehouse).into_response();
        assert_eq!(res.headers()[header::RETRY_AFTER], "5");
        let switched_off = Error::new(Kind::ListingsWriteDisabled, "off");
        let res = ApiError(switched_off).into_response();
        assert_eq!(res.status(), 503);
        assert!(res.headers().get(header::RETRY_AFTER).is_none());
    }
}
