//! Errors in the provider's own shapes: the selling-side `{ errors: [ { code, message,
//! details } ] }`, and the advertising APIs' several (`{ code, details }`, reporting's
//! `{ code, detail }`, the entity APIs' and Ads API v1's `{ code, message }`, DSP reports'
//! `{ message, requestId }`). An error made in the generic advertising shape is answered in
//! its operation's own family (the gate re-renders it), so shared checks such as the profile
//! scope speak each API's dialect.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// Which API family answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// The selling-side API.
    Sp,
    /// The advertising API.
    Ads,
    /// Ads reporting v3 (`{ code, detail }`).
    AdsReporting,
    /// The advertising APIs whose documents say `{ code, message }` with a code named by the
    /// status (Sponsored Products v3, Sponsored Brands v4; exports, whose documents need only
    /// `message`).
    AdsEntity,
    /// Ads API v1 (`/adsApi/v1/…`): `{ code, message }` with its `ErrorCode` enum.
    AdsV1,
    /// DSP reports: `{ message, requestId }` as `application/vnd.dsperror.v1+json`.
    Dsp,
    /// The SQS JSON protocol (`crate::sqs`): `{ __type: "com.amazonaws.sqs#<code>", message }`.
    Sqs,
}

/// The `ErrorCode` Ads API v1's documents give each status.
fn v1_code(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 422 => "BAD_REQUEST",
        401 => "UNAUTHORIZED",
        403 => "FORBIDDEN",
        404 => "NOT_FOUND",
        409 => "CONFLICT",
        413 => "CONTENT_TOO_LARGE",
        429 => "TOO_MANY_REQUESTS",
        _ => "INTERNAL_ERROR",
    }
}

/// The code the entity APIs' documents give each status.
fn entity_code(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 422 => "INVALID_ARGUMENT",
        401 => "UNAUTHORIZED",
        403 => "ACCESS_DENIED",
        404 => "NOT_FOUND",
        406 => "NOT_ACCEPTABLE",
        415 => "UNSUPPORTED_MEDIA_TYPE",
        429 => "THROTTLED",
        _ => "INTERNAL_ERROR",
    }
}

/// A failure the sandbox answers.
#[derive(Clone, Debug)]
pub struct SimError {
    pub status: StatusCode,
    pub code: String,
    pub message: String,
    pub details: String,
    pub family: Family,
    /// The media type the error is answered as, when the operation's documents give its
    /// errors the operation's own media type (default: `application/json`).
    pub media: Option<&'static str>,
}

impl SimError {
    pub fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
            code: code.to_owned(),
            message: message.into(),
            details: String::new(),
            family: Family::Sp,
            media: None,
        }
    }

    /// Answers the failure as `media`.
    pub fn with_media(mut self, media: &'static str) -> Self {
        self.media = Some(media);
        self
    }

    /// Adds the selling side's `details`.
    pub fn with_details(mut self, details: &str) -> Self {
        self.details = details.to_owned();
        self
    }

    /// The same failure in `family`'s shape.
    pub fn for_family(mut self, family: Family) -> Self {
        self.family = family;
        self
    }

    /// A 400 `InvalidInput`.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(400, "InvalidInput", message)
    }

    /// A 404 `NotFound`.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(404, "NotFound", message)
    }

    /// A 500 whose cause goes to the log.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "sandbox internal error");
        Self::new(
            500,
            "InternalFailure",
            "We encountered an internal error. Please try again.",
        )
    }
}

impl IntoResponse for SimError {
    fn into_response(self) -> Response {
        let body = match self.family {
            Family::Sp => {
                json!({ "errors": [ { "code": self.code, "message": self.message, "details": self.details } ] })
            }
            Family::Ads => json!({ "code": self.code, "details": self.message }),
            Family::AdsReporting => {
                json!({ "code": self.status.as_u16().to_string(), "detail": self.message })
            }
            Family::AdsEntity => {
                json!({ "code": entity_code(self.status), "message": self.message })
            }
            Family::AdsV1 => json!({ "code": v1_code(self.status), "message": self.message }),
            Family::Dsp => {
                json!({ "message": self.message, "requestId": crate::store::random_hex(16) })
            }
            Family::Sqs => {
                json!({ "__type": format!("com.amazonaws.sqs#{}", self.code), "message": self.message })
            }
        };
        let media = match (self.media, self.family) {
            (Some(m), _) => Some(m),
            (None, Family::Dsp) => Some("application/vnd.dsperror.v1+json"),
            (None, Family::Sqs) => Some(pp_sqs::wire::CONTENT_TYPE),
            (None, _) => None,
        };
        let mut r = (self.status, Json(body)).into_response();
        r.extensions_mut().insert(self.clone());
        if let Some(m) = media {
            r.headers_mut().insert(
                axum::http::header::CONTENT_TYPE,
                axum::http::HeaderValue::from_static(m),
            );
        }
        r
    }
}
