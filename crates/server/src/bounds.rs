//! The limits that keep one client from exhausting the gateway, in one place: connections,
//! the token endpoint's attempt rates, each credential's request rate, MCP sessions and
//! warehouse queries. The config file's
//! `[limits]` table overrides any of them (`docs/security.md` says what each protects).

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Every abuse bound the gateway enforces.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Bounds {
    /// Open client connections at once; past it, new connections wait in the kernel's queue.
    pub max_connections: usize,
    /// A connection waiting for a request head (new, or idle between requests) is closed after
    /// this long.
    pub header_timeout_ms: u64,
    /// A connection on which no byte moves either way for this long is closed, even mid-request
    /// (a trickled body, a client that stopped reading). Longer than the longest query.
    pub idle_timeout_ms: u64,
    /// Token requests one source address may make in a burst, and per minute after it.
    pub token_burst_per_address: u32,
    pub token_per_minute_per_address: u32,
    /// Token requests naming one client id, in a burst and per minute after it.
    pub token_burst_per_client: u32,
    pub token_per_minute_per_client: u32,
    /// Requests one credential may make through the token routes in a burst, and per minute
    /// after it (answers carry `RateLimit-*`; past it `/v1` answers `rate_limited`, `/api`
    /// `throttled`).
    pub credential_burst: u32,
    pub credential_per_minute: u32,
    /// Open MCP sessions per credential (its oldest idle one makes room for a new one), per
    /// tenant, and in all.
    pub mcp_sessions_per_credential: usize,
    pub mcp_sessions_per_tenant: usize,
    pub mcp_sessions: usize,
    /// Warehouse queries running at once across all tenants.
    pub query_slots: usize,
    /// Longest string or blob a query may build or read, bytes.
    pub query_value_bytes: usize,
    /// Temporary files one query may hold, bytes.
    pub query_temp_bytes: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        let q = pp_warehouse::Limits::default();
        Self {
            max_connections: 1024,
            header_timeout_ms: 10_000,
            idle_timeout_ms: 150_000,
            token_burst_per_address: 30,
            token_per_minute_per_address: 60,
            token_burst_per_client: 10,
            token_per_minute_per_client: 30,
            credential_burst: 1_000,
            credential_per_minute: 6_000,
            mcp_sessions_per_credential: 32,
            mcp_sessions_per_tenant: 256,
            mcp_sessions: 20_000,
            query_slots: q.max_running,
            query_value_bytes: q.max_value_bytes,
            query_temp_bytes: q.max_temp_bytes,
        }
    }
}

impl Bounds {
    /// The warehouse limits these bounds imply.
    pub fn query_limits(&self) -> pp_warehouse::Limits {
        pp_warehouse::Limits {
            max_running: self.query_slots.max(1),
            max_value_bytes: self.query_value_bytes,
            max_temp_bytes: self.query_temp_bytes,
            ..Default::default()
        }
    }

    pub fn header_timeout(&self) -> Duration {
        Duration::from_millis(self.header_timeout_ms)
    }

    pub fn idle_timeout(&self) -> Duration {
        Duration::from_millis(self.idle_timeout_ms)
    }
}
