//! The route table: which path goes to which handler, behind which middleware.

mod health;
mod me;
mod oauth;
mod warehouse;

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};

use crate::http::{auth, error, request_log};
use crate::state::SharedState;

pub fn router(state: SharedState) -> Router {
    let public = Router::new()
        .route("/health", get(health::health))
        .route("/oauth/token", post(oauth::token))
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::metadata),
        );
    let authed = Router::new()
        .route("/v1/me", get(me::me))
        .route("/api/query", post(warehouse::query))
        .route("/api/tables", get(warehouse::tables))
        .route("/api/table/{name}", get(warehouse::describe))
        .route_layer(from_fn_with_state(state.clone(), auth::require));
    Router::new()
        .merge(public)
        .merge(authed)
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(from_fn(request_log::layer))
        .with_state(state)
}
