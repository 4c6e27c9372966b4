//! RFC 9728 protected-resource metadata: tells an MCP client which authorization server issues
//! tokens for `/mcp` and which scopes to ask for: every scope some tool needs (standard MCP
//! clients request exactly `scopes_supported`). The authorization server grants the ones the
//! client may hold: a service credential its own, a client that registered itself those of an
//! interactive sign-in. Public, like the RFC 8414 document it points to, which lists every
//! scope.

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};

use crate::state::SharedState;

fn document(app: &SharedState, resource: String) -> Json<Value> {
    Json(json!({
        "resource": resource,
        "authorization_servers": [app.public_url],
        "scopes_supported": super::tools::tool_scopes().to_strings(),
        "bearer_methods_supported": ["header"],
        "resource_name": "Partner Platform MCP server",
        "resource_documentation": format!("{}/openapi.json", app.public_url),
    }))
}

/// `GET /.well-known/oauth-protected-resource/mcp`: the MCP endpoint as a resource.
pub async fn for_mcp(State(app): State<SharedState>) -> Json<Value> {
    let resource = format!("{}/mcp", app.public_url);
    document(&app, resource)
}

/// `GET /.well-known/oauth-protected-resource`: the whole service as a resource.
pub async fn for_root(State(app): State<SharedState>) -> Json<Value> {
    let resource = app.public_url.clone();
    document(&app, resource)
}
