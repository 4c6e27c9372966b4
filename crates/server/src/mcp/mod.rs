//! The MCP server (§4.8): the same tools for every MCP client, over Streamable HTTP on `/mcp`
//! (session-era revisions 2025-03-26 … 2025-11-25 and the stateless 2026-07-28) and the legacy
//! HTTP+SSE transport on `/mcp/sse` (2024-11-05). The tools are the MCP faces of the declared
//! operations (`crate::operations`): `tools` lists and calls them, and each calls the same
//! service method as its REST twin. See `docs/mcp.md`.

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

use axum::routing::{MethodRouter, delete, get, post};

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

/// `/mcp`: Streamable HTTP (each request authenticates its own caller).
pub fn streamable_get() -> MethodRouter<SharedState> {
    get(streamable::get)
}

pub fn streamable_post() -> MethodRouter<SharedState> {
    post(streamable::post)
}

pub fn streamable_delete() -> MethodRouter<SharedState> {
    delete(streamable::delete)
}

/// `/mcp/sse`: the legacy HTTP+SSE transport.
pub fn sse_open() -> MethodRouter<SharedState> {
    get(legacy_sse::open)
}

pub fn sse_message() -> MethodRouter<SharedState> {
    post(legacy_sse::message)
}

/// The RFC 9728 documents, for the service and for the MCP endpoint.
pub fn resource_metadata() -> MethodRouter<SharedState> {
    get(metadata::for_root)
}

pub fn mcp_resource_metadata() -> MethodRouter<SharedState> {
    get(metadata::for_mcp)
}
