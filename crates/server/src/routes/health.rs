//! Public documents: `GET /health` (liveness with the build, engine and evidence versions
//! serving) and `GET /openapi.json`.

use axum::Json;
use axum::extract::State;

use crate::state::SharedState;
use serde_json::{Value, json};

pub async fn health() -> Json<Value> {
    Json(json!({
        "status": "ok",
        "version": pp_core::BUILD_VERSION,
        "engine_version": pp_core::ENGINE_VERSION,
        "evidence_version": pp_core::EVIDENCE_VERSION,
    }))
}

pub async fn openapi(State(app): State<SharedState>) -> Json<Value> {
    Json(crate::openapi::document(&app.public_url))
}
