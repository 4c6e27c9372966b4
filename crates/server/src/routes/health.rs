//! Public documents: `GET /health` (liveness with the build, engine and evidence versions
//! serving, which kind of provider is configured — never its URLs or secrets, since anyone
//! may call it — and the warehouse sync in counts, no tenant named) and `GET /openapi.json`.

use axum::Json;
use axum::extract::State;

use crate::state::SharedState;
use serde_json::{Value, json};

pub async fn health(State(app): State<SharedState>) -> Json<Value> {
    let upstream = app.market.upstream().map(|u| json!({ "kind": u.kind }));
    // the warehouse sync in numbers (no tenant named); a store that cannot be read says so
    let sync = match app.sync.overview().await {
        Ok(o) => json!(o),
        Err(_) => json!({ "status": "unavailable" }),
    };
    Json(json!({
        "status": "ok",
        "version": pp_core::BUILD_VERSION,
        "engine_version": pp_intelligence::ENGINE_VERSION,
        "evidence_version": pp_intelligence::EVIDENCE_VERSION,
        "engines": pp_intelligence::registry::REQUESTS
            .iter()
            .map(|r| json!({ "id": r.id, "version": r.version, "contentRevision": r.content_revision, "service": r.service }))
            .collect::<Vec<_>>(),
        "services": pp_intelligence::registry::SERVICES,
        "upstream": upstream,
        "sync": sync,
    }))
}

pub async fn openapi(State(app): State<SharedState>) -> Json<Value> {
    Json(crate::openapi::document(&app.public_url))
}
