//! The MCP server (§4.8): the same tools for every MCP client, over Streamable HTTP on `/mcp`
//! (session-era revisions 2025-03-26 … 2025-11-25 and the stateless 2026-07-28) and the legacy
//! HTTP+SSE transport on `/mcp/sse` (2024-11-05). Our own tool registry sits behind the
//! transports; each tool calls the services the REST routes use. See `docs/mcp.md`.

mod caller;
mod dispatch;
mod jsonrpc;
mod legacy_sse;
mod metadata;
mod modern;
mod sessions;
mod streamable;
pub mod tools;
mod versions;

use std::sync::Arc;

use axum::Router;
use axum::routing::get;

pub use caller::Guard;
pub use sessions::Sessions;

use crate::state::SharedState;

/// The MCP server's own state: open sessions and the Host/Origin guard.
pub struct McpState {
    pub sessions: Arc<Sessions>,
    pub guard: Guard,
}

impl McpState {
    /// Sessions in memory; the guard accepts `public_url`'s host and origin and loopback.
    pub fn new(public_url: &str) -> Self {
        Self {
            sessions: Arc::new(Sessions::default()),
            guard: Guard::new(public_url, &[], &[]),
        }
    }
}

/// The MCP routes (each authenticates its own caller) and the RFC 9728 documents.
pub fn routes() -> Router<SharedState> {
    Router::new()
        .route(
            "/mcp",
            get(streamable::get)
                .post(streamable::post)
                .delete(streamable::delete),
        )
        .route("/mcp/sse", get(legacy_sse::open).post(legacy_sse::message))
        .route(
            "/.well-known/oauth-protected-resource",
            get(metadata::for_root),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(metadata::for_mcp),
        )
}
