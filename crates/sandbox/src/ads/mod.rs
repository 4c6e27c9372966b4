//! The advertising API over the world: profiles, Sponsored Products v3 entities and reporting
//! v3. Calls carry `Authorization: Bearer`, `Amazon-Advertising-API-ClientId` and, on profile
//! surfaces, `Amazon-Advertising-API-Scope`; entity calls use the versioned vendor media types.

mod accounts;
mod amc;
mod assets;
mod bulk;
mod dsp;
mod entities;
mod exports;
mod profiles;
mod recommendations;
mod reporting;
mod rules;
mod sb;
mod sb3;
mod sb3_targets;
mod sd;
mod sp;
mod streams;
mod v1;

use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use crate::error::{Family, SimError};
use crate::lwa::Caller;
use crate::sim::Sim;

/// Every advertising route.
pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .merge(profiles::routes(sim))
        .merge(sp::routes(sim))
        .merge(sb::routes(sim))
        .merge(sb3::routes(sim))
        .merge(sd::routes(sim))
        .merge(assets::routes(sim))
        .merge(accounts::routes(sim))
        .merge(v1::routes(sim))
        .merge(dsp::routes(sim))
        .merge(amc::routes(sim))
        .merge(exports::routes(sim))
        .merge(recommendations::routes(sim))
        .merge(reporting::routes(sim))
        .merge(streams::routes(sim))
        .merge(rules::routes(sim))
}

fn ads_err(status: u16, code: &str, details: impl Into<String>) -> SimError {
    SimError::new(status, code, details).for_family(Family::Ads)
}

/// The profile named by `Amazon-Advertising-API-Scope`, which must be one of the caller's.
pub fn profile(sim: &Sim, caller: &Caller, headers: &HeaderMap) -> Result<i64, SimError> {
    let scope = headers
        .get("amazon-advertising-api-scope")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| {
            ads_err(
                400,
                "400",
                "Amazon-Advertising-API-Scope header is required",
            )
        })?;
    let id: i64 = scope.parse().map_err(|_| {
        ads_err(
            401,
            "UNAUTHORIZED",
            format!("Not authorized to access scope {scope}"),
        )
    })?;
    let mine = sim.world().rows(
        "SELECT ProfileID FROM ads_profile WHERE ProfileID = ?1 AND MarketplaceSellerID = ?2",
        &[&id, &caller.subject],
    )?;
    if mine.is_empty() {
        return Err(ads_err(
            401,
            "UNAUTHORIZED",
            format!("Not authorized to access scope {scope}"),
        ));
    }
    Ok(id)
}

/// Checks the request's `Content-Type` is the operation's vendor media type.
pub fn media(headers: &HeaderMap, expected: &str) -> Result<(), SimError> {
    media_of(headers, &[expected]).map(drop)
}

/// The request's `Content-Type`, which must be one of `allowed` (an operation that takes
/// several versions); which one it is.
pub fn media_of<'a>(headers: &HeaderMap, allowed: &[&'a str]) -> Result<&'a str, SimError> {
    let got = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let sent = got.split(';').next().unwrap_or("").trim();
    allowed
        .iter()
        .find(|m| m.eq_ignore_ascii_case(sent))
        .copied()
        .ok_or_else(|| {
            ads_err(
                415,
                "UNSUPPORTED_MEDIA_TYPE",
                format!("Content-Type must be {}, not '{got}'", allowed.join(" or ")),
            )
        })
}

/// A JSON answer with a vendor media type.
pub fn answer(status: u16, media_type: &'static str, body: &Value) -> Response {
    let mut r = (
        StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
        body.to_string(),
    )
        .into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(media_type));
    r
}

/// The JSON body of a request, or a 400.
pub fn body(bytes: &[u8]) -> Result<Value, SimError> {
    serde_json::from_slice(bytes)
        .map_err(|e| ads_err(400, "400", format!("Malformed request body: {e}")))
}
