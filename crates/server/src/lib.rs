//! The front doors over HTTP: one axum router serving `/health`, the OAuth endpoints, `/v1`,
//! `/api` and MCP, generated from one declaration per operation (`operations`), with request
//! ids, one JSON log line per request, bearer authentication and the error envelopes.
//! Handlers and tools stay thin: they read their wire format into a typed request, call a
//! service from a capability crate with the principal, and render the typed answer.

mod bounds;
pub mod http;
pub mod jobs;
pub mod mcp;
pub mod openapi;
pub mod operations;
mod pages;
mod routes;
mod serve;
mod state;

use axum::Router;

pub use bounds::Bounds;
pub use jobs::{JobsConfig, Workers};
/// Where the provider's consent pages send a browser back to (register `<public URL>` + this).
pub use pages::console::connections::CALLBACK as CONNECT_CALLBACK;
pub use serve::serve;
pub use state::{AppState, SharedState};

/// The whole router over `state`.
pub fn router(state: SharedState) -> Router {
    routes::router(state)
}
