//! The front doors over HTTP: one axum router serving `/health`, the OAuth endpoints, `/v1`,
//! `/api` and MCP, generated from one declaration per operation (`operations`), with request
//! ids, one JSON log line per request, bearer authentication and the error envelopes.
//! Handlers and tools stay thin: they read their wire format into a typed request, call a
//! service from a capability crate with the principal, and render the typed answer.

pub mod http;
pub mod jobs;
pub mod mcp;
pub mod openapi;
pub mod operations;
mod routes;
mod state;

use std::future::Future;

use axum::Router;
use tokio::net::TcpListener;

pub use jobs::{JobsConfig, Workers};
pub use state::{AppState, SharedState};

/// The whole router over `state`.
pub fn router(state: SharedState) -> Router {
    routes::router(state)
}

/// Serves `router(state)` on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    state: SharedState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown)
        .await
}
