//! `GET /.well-known/oauth-authorization-server` (RFC 8414): exactly what is served.

use axum::Json;
use axum::extract::State;
use pp_core::Scope;
use serde_json::{Value, json};

use crate::state::SharedState;

pub async fn metadata(State(app): State<SharedState>) -> Json<Value> {
    let base = &app.public_url;
    Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/oauth/authorize"),
        "token_endpoint": format!("{base}/oauth/token"),
        "revocation_endpoint": format!("{base}/oauth/revoke"),
        "registration_endpoint": format!("{base}/oauth/register"),
        "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "revocation_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
        "scopes_supported": Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
        "service_documentation": format!("{base}/openapi.json"),
    }))
}
