//! Every provider outcome as the one error type (docs/errors.md): the kind, status, `source` and
//! `retryable` of the triage table, the provider's own words under `amazon`, its error code as
//! `marketplace_error_code`, its HTTP status and its payload. A create whose outcome is
//! uncertain says `requestOutcome: unknown` and `automaticRetry: false`.

use pp_core::{Error, Kind};
use serde_json::{Value, json};

use crate::catalog::Operation;

/// The provider's answer to one attempt.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub retry_after: Option<u64>,
    /// The requests per second the provider says this operation allows the caller
    /// (`x-amzn-RateLimit-Limit`), when it says so.
    pub rate_limit: Option<f64>,
    pub body: String,
}

/// What went wrong before an answer arrived.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// The connection could not be made (refused, DNS).
    Unreachable,
    /// The connection broke mid-answer.
    Reset,
    /// No answer within the timeout.
    Timeout,
}

/// The provider's (code, message) from either family's error shape.
pub fn provider_error(body: &Value) -> (String, String) {
    let e = body["errors"].get(0).unwrap_or(body);
    let code = e["code"]
        .as_str()
        .map(str::to_owned)
        .or_else(|| e["code"].as_i64().map(|c| c.to_string()))
        .unwrap_or_default();
    let msg = [&e["message"], &e["details"], &e["detail"]]
        .iter()
        .filter_map(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(": ");
    (code, msg)
}

fn uncertain(op: &Operation, e: Error) -> Error {
    if op.idempotent() {
        return e;
    }
    e.with_field("requestOutcome", "unknown").with_field("automaticRetry", false).with_fix(
        "The provider may have acted on this request. Do not resend blindly: look for the result first (list or poll), then create again only if nothing was made.",
    )
}

/// A failure before any answer.
pub fn failure(op: &Operation, f: Failure) -> Error {
    let e = match f {
        Failure::Unreachable => Error::new(
            Kind::HostUnreachable,
            format!("{} could not reach the marketplace", op.id),
        ),
        Failure::Reset => Error::new(
            Kind::UpstreamUnavailable,
            format!("the marketplace cut the connection during {}", op.id),
        ),
        Failure::Timeout => Error::new(
            Kind::UpstreamUnavailable,
            format!("the marketplace did not answer {} in time", op.id),
        ),
    };
    // An unreachable host never saw the request; the other two may have.
    if f == Failure::Unreachable {
        e
    } else {
        uncertain(op, e)
    }
}

/// Whether an auth refusal is about the access token itself (worth one fresh token).
pub fn stale_token(a: &Answer) -> bool {
    (a.status == 401 || a.status == 403) && a.body.contains("access token")
}

/// The error of a non-2xx answer, or of a 2xx whose body is not JSON.
pub fn triage(op: &Operation, a: &Answer) -> Error {
    let payload: Value = serde_json::from_str(&a.body)
        .unwrap_or_else(|_| Value::String(a.body.chars().take(2000).collect()));
    let (code, message) = provider_error(&payload);
    let lapsed =
        message.to_lowercase().contains("lapsed") || message.to_lowercase().contains("revoked");
    // A lapsed authorization is the connection's, on either API: it is tested before the
    // advertising 401 rule, which would otherwise call it a profile mapping gap.
    let kind = match a.status {
        200..=299 => Kind::UpstreamUnavailable,
        401 | 403 if lapsed => Kind::ReauthRequired,
        401 if op.api == "ads" => Kind::ProfileNotAuthorized,
        401 | 403 => {
            if op.api == "ads" {
                Kind::ProfileNotAuthorized
            } else {
                Kind::RestrictedReport
            }
        }
        429 => Kind::Throttled,
        400..=499 => Kind::BadRequest,
        _ => Kind::UpstreamUnavailable,
    };
    let text = match (a.status, kind) {
        (200..=299, _) => format!(
            "the marketplace answered {} with a body that is not JSON",
            op.id
        ),
        (_, Kind::BadRequest) => format!(
            "the marketplace rejected {}: {}",
            op.id,
            if message.is_empty() {
                code.clone()
            } else {
                message.clone()
            }
        ),
        (_, Kind::Throttled) => format!("the marketplace throttled {}", op.id),
        (_, Kind::ReauthRequired) => {
            "the merchant's authorization lapsed at the marketplace".to_owned()
        }
        _ => format!("the marketplace answered {} with HTTP {}", op.id, a.status),
    };
    let mut e = Error::new(kind, text)
        .with_field(
            "amazon",
            json!({ "status": a.status, "code": code, "message": message }),
        )
        .with_field("status", a.status)
        .with_field("responsePayload", payload);
    if kind == Kind::BadRequest {
        e = e.with_field("marketplace_error_code", code);
    }
    if kind == Kind::Throttled {
        e = throttled(op, e, a.retry_after);
    }
    if kind == Kind::ReauthRequired {
        e = e.with_fix("Connect the merchant again (admin connection add), then retry.");
    }
    if matches!(a.status, 200..=299) || a.status >= 500 {
        uncertain(op, e)
    } else {
        e
    }
}

/// Whether `e` is the provider's own 404 (the thing asked about is not there), as opposed to
/// a failure to reach it.
pub fn provider_not_found(e: &Error) -> bool {
    e.field("status").and_then(Value::as_u64) == Some(404)
}

/// A throttled answer's extras: the delay, and for creates the docs/reports-and-pricing.md refusal (never resent by
/// us); Reporting v1's create is a concurrency cap that waiting alone does not clear.
/// When a `throttled` error the gateway answered itself (its pacing had no slot for the call,
/// or the ledger is waiting on an identical request) says to try again; `None` for any other
/// error, a provider's 429 included (it carries the provider's answer, `amazon`). A
/// background caller waits that long instead of counting a failure.
pub fn held_back(e: &Error) -> Option<std::time::Duration> {
    if e.kind != Kind::Throttled || e.field("amazon").is_some() {
        return None;
    }
    let secs = e.field("retryAfter").and_then(Value::as_u64).unwrap_or(1);
    Some(std::time::Duration::from_secs(secs.max(1)))
}

fn throttled(op: &Operation, e: Error, retry_after: Option<u64>) -> Error {
    let e = e.with_field("retryAfter", retry_after.unwrap_or(1));
    if op.idempotent() {
        return e;
    }
    let e = e.with_field("automaticRetry", false);
    if op.capped() {
        return e.with_retryable(false).with_fix(
            "Reporting v1 allows only a few reports in flight per login: free a slot with reporting_v1.delete_report or wait until one reaches a terminal status, then create again.",
        );
    }
    e
}

/// Reporting v1 answers every call with HTTP 207 and `{ error: [], success: [] }`; a
/// non-empty `error` is the call's failure (docs/writes.md), triaged by the item's own code.
pub fn multi_status(op: &Operation, status: u16, body: &Value) -> Option<Error> {
    if !op.multi_status() {
        return None;
    }
    let item = body["error"].as_array()?.first()?;
    let (code, message) = provider_error(item);
    let kind = match code.as_str() {
        "UNAUTHORIZED" | "FORBIDDEN" | "ACCESS_DENIED" => Kind::ProfileNotAuthorized,
        "TOO_MANY_REQUESTS" | "THROTTLED" => Kind::Throttled,
        "INTERNAL_ERROR" | "INTERNAL_SERVER_ERROR" | "SERVICE_UNAVAILABLE" => {
            Kind::UpstreamUnavailable
        }
        _ => Kind::BadRequest,
    };
    let mut e = Error::new(
        kind,
        format!(
            "the marketplace refused {} inside its {status} answer: {}",
            op.id,
            if message.is_empty() { &code } else { &message }
        ),
    )
    .with_field(
        "amazon",
        json!({ "status": status, "code": code, "message": message }),
    )
    .with_field("status", status)
    .with_field("responsePayload", body.clone());
    if kind == Kind::BadRequest {
        e = e.with_field("marketplace_error_code", code);
    }
    if kind == Kind::Throttled {
        e = throttled(op, e, None);
    }
    Some(e)
}
