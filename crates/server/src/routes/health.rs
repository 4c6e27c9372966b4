//! `GET /health`: public liveness with the build, engine and evidence versions serving.

use axum::Json;
use serde_json::{Value, json};

pub async fn health() -> Json<Value> {
    Json(json!({
        "status": "ok",
        "version": pp_core::BUILD_VERSION,
        "engine_version": pp_core::ENGINE_VERSION,
        "evidence_version": pp_core::EVIDENCE_VERSION,
    }))
}
