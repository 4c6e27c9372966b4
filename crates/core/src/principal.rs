//! The principal: who is calling, for which tenant, with which scopes. Auth builds it from the
//! bearer token; every service call takes it; nothing reads an actor from a request body.

use crate::ids::TenantId;
use crate::scope::{Scope, ScopeSet};

/// Which front door the call came through (recorded on audit rows and timeline events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Surface {
    /// REST `/api` or `/v1` with a service credential or partner token.
    Api,
    /// The MCP server.
    Mcp,
    /// A partner application, by client id.
    Partner(String),
}

impl Surface {
    /// The spec's wire value (`api`, `mcp`, `partner:<id>`).
    pub fn as_wire(&self) -> String {
        match self {
            Surface::Api => "api".into(),
            Surface::Mcp => "mcp".into(),
            Surface::Partner(id) => format!("partner:{id}"),
        }
    }
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Principal {
    /// The tenant whose data every query sees.
    pub tenant: TenantId,
    /// The name on the sign-in: a work email, an `svc:` label or a client id.
    pub actor: String,
    /// What the token may do.
    pub scopes: ScopeSet,
    /// The credential the token was minted from.
    pub credential_id: String,
    /// Where the call came in.
    pub surface: Surface,
}

impl Principal {
    /// Fails with `insufficient_scope` unless the token holds every scope in `required`.
    pub fn require(&self, required: &[Scope]) -> crate::Result<()> {
        crate::scope::require(&self.scopes, required)
    }
}
