//! The protocol revisions served and how one is chosen. Handshake-era revisions are agreed in
//! `initialize`; the 2026-07-28 revision is stateless and named on every request.

/// Revisions reached through the `initialize` handshake, oldest first.
pub const HANDSHAKE: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Revisions that carry the protocol version in every request's `_meta`.
pub const MODERN: &[&str] = &["2026-07-28"];

/// `_meta` key naming the request's protocol revision (2026-07-28).
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key carrying the client's capabilities (2026-07-28).
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key for the server's identity on results (2026-07-28).
pub const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// The revision answered to an `initialize` offering `requested`: the client's own when we
/// serve it, else the newest handshake revision we know (the client then decides).
pub fn negotiate(requested: Option<&str>) -> &'static str {
    requested
        .and_then(|r| HANDSHAKE.iter().find(|v| **v == r))
        .copied()
        .unwrap_or(HANDSHAKE[HANDSHAKE.len() - 1])
}

/// Whether `v` is a handshake-era revision.
pub fn is_handshake(v: &str) -> bool {
    HANDSHAKE.contains(&v)
}

/// Whether `v` is any revision this server speaks.
pub fn is_served(v: &str) -> bool {
    HANDSHAKE.contains(&v) || MODERN.contains(&v)
}

/// `serverInfo`.
pub fn server_info() -> serde_json::Value {
    serde_json::json!({
        "name": "partner-platform",
        "title": "Partner Platform",
        "version": env!("CARGO_PKG_VERSION"),
    })
}

/// What the server tells a client's model up front (tool descriptions carry the details).
pub const INSTRUCTIONS: &str = "Partner Platform: a tenant's analytics warehouse (read-only SQL), \
brand memory (context documents, brand lifecycle) and brand timeline. Each tool names the scopes \
it needs; a missing scope comes back as a tool result with error insufficient_scope and \
required_scopes. Results are capped: a capped result says so and says how to get the rest.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_clients_revision_or_our_newest() {
        assert_eq!(negotiate(Some("2025-03-26")), "2025-03-26");
        assert_eq!(negotiate(Some("2024-11-05")), "2024-11-05");
        assert_eq!(negotiate(Some("2099-01-01")), "2025-11-25");
        assert_eq!(negotiate(Some("2026-07-28")), "2025-11-25");
        assert_eq!(negotiate(None), "2025-11-25");
    }
}
