//! `/__sandbox/…`: the control surface no provider has. Tests and people switch fault rules
//! on and off, read how many calls each operation received, revoke a merchant's grants, let
//! an authorization lapse, and turn usage plans off. Every control call carries the LWA app's
//! client secret as a bearer token, except reading the world's day (`GET /__sandbox/world`),
//! which a gateway asks to date its sync.

use std::sync::Arc;

use axum::Json;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::SimError;
use crate::faults::Rule;
use crate::sim::Sim;

fn bad(message: impl Into<String>) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(json!({ "error": message.into() })),
    )
        .into_response()
}

/// Requires `Authorization: Bearer <app client secret>`.
pub async fn guard(State(sim): State<Arc<Sim>>, req: Request, next: Next) -> Response {
    // the world's day is no secret: a gateway asks it to date its sync, in any mode
    if req.method() == axum::http::Method::GET && req.uri().path() == "/__sandbox/world" {
        return next.run(req).await;
    }
    let ok = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|s| sim.is_app_secret(s));
    if !ok {
        return (
            StatusCode::UNAUTHORIZED,
            Json(json!({ "error": "send Authorization: Bearer <the sandbox app's client_secret> (sandbox-credentials.json)" })),
        )
            .into_response();
    }
    next.run(req).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AddRules {
    rules: Vec<Rule>,
}

/// `GET /__sandbox/faults`.
pub async fn list_faults(State(sim): State<Arc<Sim>>) -> Json<Value> {
    Json(json!({ "rules": sim.faults.list() }))
}

/// `POST /__sandbox/faults` `{ rules: [...] }`: adds rules.
pub async fn add_faults(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let add: AddRules = match serde_json::from_slice(&body) {
        Ok(a) => a,
        Err(e) => return bad(format!("body: {e}")),
    };
    match sim.faults.add(add.rules) {
        Ok(()) => Json(json!({ "rules": sim.faults.list() })).into_response(),
        Err(e) => bad(e),
    }
}

/// `DELETE /__sandbox/faults`: removes every rule.
pub async fn clear_faults(State(sim): State<Arc<Sim>>) -> StatusCode {
    sim.faults.clear(None);
    StatusCode::NO_CONTENT
}

/// `GET /__sandbox/calls`: calls received per operation, and (`throttled`) those its usage
/// plan answered with a 429.
pub async fn calls(State(sim): State<Arc<Sim>>) -> Json<Value> {
    Json(json!({ "calls": sim.calls.snapshot(), "throttled": sim.calls.throttled() }))
}

/// `GET /__sandbox/reports`: how many reports the provider holds, by family (`spapi`,
/// `ads_v3`, `ads_v1` …), so a test or a person can see whether a retry made a second one.
pub async fn reports(State(sim): State<Arc<Sim>>) -> Response {
    match sim.report_counts() {
        Ok(counts) => {
            let by_family: serde_json::Map<String, Value> =
                counts.into_iter().map(|(f, n)| (f, n.into())).collect();
            Json(json!({ "reports": by_family })).into_response()
        }
        Err(e) => e.into_response(),
    }
}

/// `DELETE /__sandbox/calls`.
pub async fn reset_calls(State(sim): State<Arc<Sim>>) -> StatusCode {
    sim.calls.reset();
    StatusCode::NO_CONTENT
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Subject {
    merchant: String,
    #[serde(default = "yes")]
    on: bool,
}

fn yes() -> bool {
    true
}

/// `POST /__sandbox/grants/revoke` `{ merchant, on? }`: revokes (or, with `on: false`,
/// restores) the merchant's refresh tokens; its access tokens stop at once.
pub async fn revoke(State(sim): State<Arc<Sim>>, Json(s): Json<Subject>) -> Response {
    match sim.set_revoked(&s.merchant, s.on) {
        Ok(0) => (
            StatusCode::NOT_FOUND,
            Json(json!({ "error": "no grants for that merchant" })),
        )
            .into_response(),
        Ok(n) => {
            Json(json!({ "merchant": s.merchant, "revoked": s.on, "grants": n })).into_response()
        }
        Err(e) => e.into_response(),
    }
}

/// `POST /__sandbox/merchants/lapse` `{ merchant, on? }`: the merchant's authorization lapses
/// (every call answers 403) or comes back.
pub async fn lapse(State(sim): State<Arc<Sim>>, Json(s): Json<Subject>) -> Response {
    match sim.set_lapsed(&s.merchant, s.on) {
        Ok(()) => Json(json!({ "merchant": s.merchant, "lapsed": s.on })).into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsSwitch {
    enabled: bool,
    /// Callers' rates as a share of the published ones (default 1).
    #[serde(default, rename = "rateScale")]
    rate_scale: Option<f64>,
}

/// `PUT /__sandbox/limits` `{ enabled, rateScale? }`: usage plans on or off, and callers'
/// plans tightened to a share of the published rates (stated in `x-amzn-RateLimit-Limit`).
pub async fn limits(State(sim): State<Arc<Sim>>, Json(l): Json<LimitsSwitch>) -> Response {
    let scale = l.rate_scale.unwrap_or(1.0);
    if !(scale > 0.0 && scale <= 1.0) {
        let e = SimError::new(
            400,
            "InvalidInput",
            "rateScale must be above 0 and at most 1",
        );
        return e.into_response();
    }
    sim.limits.set_scale(scale);
    sim.limits.set_enabled(l.enabled);
    Json(json!({ "enabled": l.enabled, "rateScale": scale })).into_response()
}

/// `POST /__sandbox/product-types/bump`: moves the `PRODUCT` schema to a new version.
pub async fn bump_product_type(State(sim): State<Arc<Sim>>) -> Response {
    match sim.bump_product_type() {
        Ok(v) => Json(json!({ "productType": "PRODUCT", "productTypeVersion": v })).into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Advance {
    days: i64,
}

/// `GET /__sandbox/world`: the world served now (first and last data days, today).
pub async fn world(State(sim): State<Arc<Sim>>) -> Json<Value> {
    Json(crate::advance::describe(&sim.world()))
}

/// `POST /__sandbox/world` `{ days: N }`: moves the world N days forward (1 to 366); the
/// world served now.
pub async fn advance(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let a: Advance = match serde_json::from_slice(&body) {
        Ok(a) => a,
        Err(e) => return bad(format!("body: {e}")),
    };
    let before = sim.world();
    let mover = sim.clone();
    let moved = tokio::task::spawn_blocking(move || crate::advance::advance(&mover, a.days)).await;
    match moved {
        Ok(Ok(v)) => {
            // the streams' restated deltas and new days, in the background
            let sim = sim.clone();
            tokio::spawn(async move {
                if let Err(e) = crate::stream::after_advance(&sim, &before).await {
                    tracing::warn!(error = %e.message, "stream delivery after the move stopped");
                }
                if let Err(e) = crate::spapi::notifications::after_advance(&sim, &before).await {
                    tracing::warn!(error = %e.message, "notifications after the move stopped");
                }
            });
            Json(v).into_response()
        }
        Ok(Err(e)) => e.into_response(),
        Err(e) => bad(format!("moving the world failed: {e}")),
    }
}

/// `GET /__sandbox/streams`: every stream subscription, the days sent and whether it is paused.
pub async fn list_streams(State(sim): State<Arc<Sim>>) -> Response {
    match crate::stream::list(&sim, None) {
        Ok(subs) => Json(json!({
            "paused": sim.streams_paused.load(std::sync::atomic::Ordering::SeqCst),
            "subscriptions": subs.iter().map(|s| json!({
                "subscription": s.wire(),
                "profileId": s.profile,
                "deliveredFrom": s.delivered_from,
                "deliveredThrough": s.delivered_through,
                "paused": s.paused,
            })).collect::<Vec<_>>(),
        }))
        .into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct StreamFault {
    /// One subscription, or every one.
    subscription_id: Option<String>,
    /// Stop (true) or resume (false) deliveries.
    paused: bool,
}

/// `POST /__sandbox/streams {"paused": true, "subscriptionId"?}`: a queue that stops
/// receiving (nothing is sent until it resumes; then everything it missed is).
pub async fn streams(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let f: StreamFault = match serde_json::from_slice(&body) {
        Ok(f) => f,
        Err(e) => return bad(format!("body: {e}")),
    };
    match crate::stream::set_paused(&sim, f.subscription_id.as_deref(), f.paused) {
        Ok(n) => {
            if !f.paused {
                crate::stream::spawn_pump(sim.clone());
            }
            Json(json!({ "subscriptions": n, "paused": f.paused })).into_response()
        }
        Err(e) => e.into_response(),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Inject {
    subscription_id: String,
    body: String,
}

/// `POST /__sandbox/streams/inject {"subscriptionId", "body"}`: a message the subscription's
/// queue gets as it is (one that does not parse, say).
pub async fn inject(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let i: Inject = match serde_json::from_slice(&body) {
        Ok(i) => i,
        Err(e) => return bad(format!("body: {e}")),
    };
    match crate::stream::inject(&sim, &i.subscription_id, &i.body).await {
        Ok(()) => Json(json!({ "injected": true })).into_response(),
        Err(e) => e.into_response(),
    }
}

/// `GET /sns?Action=ConfirmSubscription&TopicArn=…&Token=…`: what a stream subscription's
/// `SubscribeURL` points at.
pub async fn sns(
    State(sim): State<Arc<Sim>>,
    axum::extract::Query(q): axum::extract::Query<std::collections::BTreeMap<String, String>>,
) -> Response {
    if q.get("Action").map(String::as_str) != Some("ConfirmSubscription") {
        return bad("Action must be ConfirmSubscription".to_owned());
    }
    let (Some(topic), Some(token)) = (q.get("TopicArn"), q.get("Token")) else {
        return bad("TopicArn and Token are required".to_owned());
    };
    match crate::stream::confirm(&sim, topic, token).await {
        Ok(xml) => ([(axum::http::header::CONTENT_TYPE, "text/xml")], xml).into_response(),
        Err(e) => e.into_response(),
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Replay {
    from: chrono::NaiveDate,
    through: chrono::NaiveDate,
    types: Option<Vec<String>>,
}

/// `POST /__sandbox/notifications/replay {"from", "through", "types"?}`: the world's
/// notifications of those days sent again to every subscription (a history it missed).
pub async fn replay(State(sim): State<Arc<Sim>>, body: axum::body::Bytes) -> Response {
    let r: Replay = match serde_json::from_slice(&body) {
        Ok(r) => r,
        Err(e) => return bad(format!("body: {e}")),
    };
    match crate::spapi::notifications::replay(&sim, r.from, r.through, r.types.as_deref()).await {
        Ok(sent) => Json(json!({ "sent": sent })).into_response(),
        Err(e) => e.into_response(),
    }
}
