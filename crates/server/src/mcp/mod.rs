//! The MCP server (docs/mcp.md): the same tools for every MCP client, over Streamable HTTP on `/mcp`
//! (session-era revisions 2025-03-26 … 2025-11-25 and the stateless 2026-07-28) and the legacy
//! HTTP+SSE transport on `/mcp/sse` (2024-11-05). The tools are the MCP faces of the declared
//! operations (`crate::operations`): `tools` lists and calls them, and each calls the same
//! service method as its REST twin. See `docs/mcp.md`.

mod caller;
mod dispatch;
mod jsonrpc;
pub(crate) mod legacy_sse;
mod message;
pub(crate) mod metadata;
mod modern;
mod sessions;
pub(crate) mod streamable;
pub mod tools;
mod versions;

use std::sync::Arc;

pub use caller::Guard;
pub use sessions::Sessions;
pub use streamable::refusal;

/// The MCP server's own state: open sessions and the Host/Origin guard.
pub struct McpState {
    /// Legacy HTTP+SSE sessions (this process's event streams).
    pub sessions: Arc<Sessions>,
    /// Streamable HTTP sessions (in the state store, shared by every instance).
    pub shared: sessions::Shared,
    pub guard: Guard,
}

impl McpState {
    /// Sessions in `store` (and SSE ones in memory); the guard accepts `public_url`'s host
    /// and origin and loopback.
    pub fn new(
        store: pp_store::Store,
        public_url: &str,
        bounds: &crate::Bounds,
        verifier: pp_auth::Verifier,
    ) -> Self {
        let caps = sessions::Caps {
            per_credential: bounds.mcp_sessions_per_credential,
            per_tenant: bounds.mcp_sessions_per_tenant,
            total: bounds.mcp_sessions,
        };
        Self {
            sessions: Arc::new(Sessions::new(caps)),
            shared: sessions::Shared::new(
                store,
                caps,
                std::time::Duration::from_secs(3600),
                verifier,
            ),
            guard: Guard::new(public_url, &[], &[]),
        }
    }
}
