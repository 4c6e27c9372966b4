//! The principal: who is calling, for which tenant, with which scopes. Auth builds it from the
//! bearer token; every service call takes it; nothing reads an actor from a request body.

use std::sync::Arc;

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
    /// A person in the admin console.
    Console,
}

impl Surface {
    /// The spec's wire value (`api`, `mcp`, `partner:<id>`).
    pub fn as_wire(&self) -> String {
        match self {
            Surface::Api => "api".into(),
            Surface::Mcp => "mcp".into(),
            Surface::Partner(id) => format!("partner:{id}"),
            Surface::Console => "console".into(),
        }
    }

    /// Reads a wire value back (what `as_wire` wrote).
    pub fn from_wire(s: &str) -> Option<Self> {
        match s {
            "api" => Some(Surface::Api),
            "mcp" => Some(Surface::Mcp),
            "console" => Some(Surface::Console),
            _ => s
                .strip_prefix("partner:")
                .map(|id| Surface::Partner(id.to_owned())),
        }
    }
}

/// The name on the sign-in, as audit rows, timeline events and logs record it. For a
/// service credential it is `svc:<label>/<credential id>`: the label a person chose and the
/// credential it belongs to, so two credentials never read alike in a trail. Shared text, as
/// [`TenantId`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor(Arc<str>);

impl Actor {
    /// The actor of service credential `credential_id` labelled `label`.
    pub fn service(label: &str, credential_id: &str) -> Self {
        Self(format!("svc:{label}/{credential_id}").into())
    }

    /// The actor of a person's sign-in: their (lower-cased) email.
    pub fn person(email: &str) -> Self {
        Self(email.into())
    }

    /// An actor as a record holds it (a held commit acting later for whoever asked).
    pub fn recorded(name: &str) -> Self {
        Self(name.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Actor {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Actor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Principal {
    /// The tenant whose data every query sees.
    pub tenant: TenantId,
    /// The name on the sign-in: a work email, a service credential or a client id.
    pub actor: Actor,
    /// What the token may do.
    pub scopes: ScopeSet,
    /// The credential (or, for a person's token, the grant) the token was minted from.
    pub credential_id: String,
    /// Where the call came in.
    pub surface: Surface,
    /// The application a person signed in through, when the token is its grant's (kept when
    /// the MCP door records `surface: mcp`).
    pub app: Option<App>,
}

/// An application (OAuth client) a person signed in through.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct App {
    pub client_id: String,
    /// Registered by the client itself (RFC 7591), as AI clients connecting over MCP are,
    /// rather than by an operator or a tenant admin.
    pub self_registered: bool,
}

impl Principal {
    /// Fails with `insufficient_scope` unless the token holds every scope in `required`.
    pub fn require(&self, required: &[Scope]) -> crate::Result<()> {
        crate::scope::require(&self.scopes, required)
    }
}

#[cfg(test)]
mod tests {
    use super::Surface;

    #[test]
    fn a_surface_reads_back_what_it_wrote_and_nothing_else() {
        for s in [
            Surface::Api,
            Surface::Mcp,
            Surface::Console,
            Surface::Partner("ppc_1".into()),
        ] {
            assert_eq!(Surface::from_wire(&s.as_wire()), Some(s));
        }
        assert_eq!(Surface::from_wire("email"), None);
    }
}
