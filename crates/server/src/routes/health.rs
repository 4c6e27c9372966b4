//! Public documents: `GET /health` (liveness with the build, engine and evidence versions
//! serving, and where the provider's APIs are — never the app secret) and `GET /openapi.json`.

use axum::Json;
use axum::extract::State;

use crate::state::SharedState;
use serde_json::{Value, json};

pub async fn health(State(app): State<SharedState>) -> Json<Value> {
    let upstream = app.market.upstream().map(|u| {
        json!({ "kind": u.kind, "spapi_url": u.spapi_url, "ads_url": u.ads_url, "token_url": u.token_url })
    });
    Json(json!({
        "status": "ok",
        "version": pp_core::BUILD_VERSION,
        "engine_version": pp_core::ENGINE_VERSION,
        "evidence_version": pp_core::EVIDENCE_VERSION,
        "upstream": upstream,
    }))
}

pub async fn openapi(State(app): State<SharedState>) -> Json<Value> {
    Json(crate::openapi::document(&app.public_url))
}
