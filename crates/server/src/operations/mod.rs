//! One declaration per public operation: its method and path, who may call it (public, a
//! bearer token, a counted bearer token) and with which scopes, its parameters, request and
//! response schemas, its HTTP handler and — where it has one — its MCP tool. The router
//! (`routes`), the OpenAPI document (`openapi`) and the MCP tool registry (`mcp::tools`) are
//! all generated from [`all`], so a route, its documentation and its tool cannot disagree.
//!
//! A handler and a tool only translate their wire format (path, query string, headers, body;
//! tool arguments) into the service's typed request, call the service with the principal, and
//! render the typed answer. Scopes are checked by the generated layer, from the declaration.
//!
//! Adding an operation: write the service method in its capability crate, then declare it in
//! the module of its surface here (`Endpoint::get(…)…`), with a tool if AI clients should
//! have it. The snapshot test of `/openapi.json` shows the change to the public surface.

mod brand;
mod costs;
mod events;
mod forecast;
mod intelligence;
mod listings;
mod marketplace;
mod pricing;
mod public;
mod reports;
pub mod schema;
mod sync;
mod v1;
mod warehouse;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;

use axum::handler::Handler;
use axum::routing::{MethodFilter, MethodRouter, on};
use pp_core::{Error, Principal, Scope};
use serde_json::{Map, Value};

use crate::http::tool_text::ToolText;
use crate::state::SharedState;

/// An HTTP method of a declared operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    /// The declared method a request's method reaches: a `GET` operation answers `HEAD` too.
    pub fn reached_by(m: &axum::http::Method) -> Option<Self> {
        use axum::http::Method as M;
        match *m {
            M::GET | M::HEAD => Some(Self::Get),
            M::POST => Some(Self::Post),
            M::PUT => Some(Self::Put),
            M::DELETE => Some(Self::Delete),
            _ => None,
        }
    }

    /// The router's filter for this method.
    fn filter(self) -> MethodFilter {
        match self {
            Self::Get => MethodFilter::GET,
            Self::Post => MethodFilter::POST,
            Self::Put => MethodFilter::PUT,
            Self::Delete => MethodFilter::DELETE,
        }
    }

    /// Lowercase, as OpenAPI spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Get => "get",
            Self::Post => "post",
            Self::Put => "put",
            Self::Delete => "delete",
        }
    }
}

/// Who may call an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// Anyone: discovery documents, the token endpoint, health.
    Public,
    /// A bearer token (checked by the auth layer) holding [`Endpoint::needs`].
    Token,
    /// As `Token`, and each call is recorded as API usage (forecast state).
    TokenCounted,
    /// The operation authenticates its own caller (the MCP transports).
    Own,
}

/// The scopes an operation needs.
#[derive(Debug, Clone, Copy)]
pub enum Needs {
    /// None (public operations, and those that check their own).
    Nothing,
    /// Every one of these.
    All(&'static [Scope]),
    /// At least one of these (the first is named when none is held).
    Any(&'static [Scope]),
    /// Each set in turn, so the first missing stage is the one named (a write that needs its
    /// read scope says so before it asks for the write scope); the last set holds them all.
    Staged(&'static [&'static [Scope]]),
}

impl Needs {
    /// Fails with `insufficient_scope` unless `p` holds what the operation needs.
    pub fn check(self, p: &Principal) -> pp_core::Result<()> {
        match self {
            Needs::Nothing => Ok(()),
            Needs::All(s) => p.require(s),
            Needs::Any(s) if s.iter().any(|x| p.scopes.contains(*x)) => Ok(()),
            Needs::Any(s) => p.require(&s[..1]),
            Needs::Staged(stages) => stages.iter().try_for_each(|s| p.require(s)),
        }
    }

    /// Every scope named, for the document.
    pub fn scopes(self) -> &'static [Scope] {
        match self {
            Needs::Nothing => &[],
            Needs::All(s) | Needs::Any(s) => s,
            Needs::Staged(stages) => stages.last().copied().unwrap_or(&[]),
        }
    }
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum In {
    Path,
    Query,
    Header,
}

/// A documented parameter.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: &'static str,
    pub location: In,
    pub required: bool,
    pub schema: Value,
    pub description: &'static str,
}

/// A request body's media type and schema.
#[derive(Debug, Clone)]
pub struct Body {
    pub media: &'static str,
    pub schema: Value,
}

/// What a running tool can reach.
pub struct Ctx {
    pub app: SharedState,
    pub principal: Principal,
}

/// A tool's future: its answer written once, as JSON text (the call's `structuredContent`)
/// and as that text quoted (its text content).
pub type Fut<'a> = Pin<Box<dyn Future<Output = Result<ToolText, Error>> + Send + 'a>>;

/// The future of a tool whose body answers a serializable value, written when it is ready.
pub fn written<'a, T: serde::Serialize>(
    body: impl Future<Output = Result<T, Error>> + Send + 'a,
) -> Fut<'a> {
    Box::pin(async move { ToolText::of(&body.await?) })
}

/// Behaviour hints shown to MCP clients (`annotations`).
#[derive(Debug, Clone, Copy)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: bool,
    /// The tool reaches outside the service (the marketplace provider).
    pub open_world: bool,
}

/// A read that changes nothing.
pub const READ: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// The MCP face of an operation.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input: Value,
    /// The structured result's schema, when clients get `structuredContent`.
    pub output: Option<Value>,
    pub hints: Hints,
    pub run: for<'a> fn(&'a Ctx, Map<String, Value>) -> Fut<'a>,
}

/// One declared operation.
pub struct Endpoint {
    pub method: Method,
    pub path: &'static str,
    pub gate: Gate,
    pub needs: Needs,
    pub summary: &'static str,
    pub params: Vec<Param>,
    pub body: Option<Body>,
    /// The success status.
    pub status: u16,
    /// The success body's schema (`None` for answers that are not JSON, such as streams).
    pub response: Option<Value>,
    /// The handler, routed for `method` only: the method is declared once.
    pub handler: MethodRouter<SharedState>,
    pub tool: Option<Tool>,
    /// The failure body's schema in `components/schemas`, when it is not the path family's
    /// envelope (the token endpoint answers RFC 6749 errors).
    pub failure: Option<&'static str>,
}

impl Endpoint {
    fn new<H, T>(method: Method, path: &'static str, summary: &'static str, handler: H) -> Self
    where
        H: Handler<T, SharedState>,
        T: 'static,
    {
        Self {
            method,
            path,
            gate: Gate::Token,
            needs: Needs::Nothing,
            summary,
            params: Vec::new(),
            body: None,
            status: 200,
            response: None,
            handler: on(method.filter(), handler),
            tool: None,
            failure: None,
        }
    }

    pub fn get<H: Handler<T, SharedState>, T: 'static>(
        path: &'static str,
        summary: &'static str,
        handler: H,
    ) -> Self {
        Self::new(Method::Get, path, summary, handler)
    }

    pub fn post<H: Handler<T, SharedState>, T: 'static>(
        path: &'static str,
        summary: &'static str,
        handler: H,
    ) -> Self {
        Self::new(Method::Post, path, summary, handler)
    }

    pub fn put<H: Handler<T, SharedState>, T: 'static>(
        path: &'static str,
        summary: &'static str,
        handler: H,
    ) -> Self {
        Self::new(Method::Put, path, summary, handler)
    }

    pub fn delete<H: Handler<T, SharedState>, T: 'static>(
        path: &'static str,
        summary: &'static str,
        handler: H,
    ) -> Self {
        Self::new(Method::Delete, path, summary, handler)
    }

    /// Who may call it.
    pub fn gate(mut self, gate: Gate) -> Self {
        self.gate = gate;
        self
    }

    /// Every scope in `scopes`.
    pub fn needs(mut self, scopes: &'static [Scope]) -> Self {
        self.needs = Needs::All(scopes);
        self
    }

    /// Each set of `stages` in turn (the last holds them all).
    pub fn needs_staged(mut self, stages: &'static [&'static [Scope]]) -> Self {
        self.needs = Needs::Staged(stages);
        self
    }

    /// One scope of `scopes`.
    pub fn needs_any(mut self, scopes: &'static [Scope]) -> Self {
        self.needs = Needs::Any(scopes);
        self
    }

    /// A parameter.
    pub fn param(
        mut self,
        name: &'static str,
        location: In,
        required: bool,
        schema: Value,
        description: &'static str,
    ) -> Self {
        self.params.push(Param {
            name,
            location,
            required,
            schema,
            description,
        });
        self
    }

    /// A query parameter.
    pub fn query(
        self,
        name: &'static str,
        required: bool,
        schema: Value,
        description: &'static str,
    ) -> Self {
        self.param(name, In::Query, required, schema, description)
    }

    /// A path parameter.
    pub fn path_param(self, name: &'static str, schema: Value, description: &'static str) -> Self {
        self.param(name, In::Path, true, schema, description)
    }

    /// A JSON request body.
    pub fn json_body(mut self, schema: Value) -> Self {
        self.body = Some(Body {
            media: "application/json",
            schema,
        });
        self
    }

    /// A form request body.
    pub fn form_body(mut self, schema: Value) -> Self {
        self.body = Some(Body {
            media: "application/x-www-form-urlencoded",
            schema,
        });
        self
    }

    /// The success status and body schema.
    pub fn answers(mut self, status: u16, schema: Value) -> Self {
        self.status = status;
        self.response = Some(schema);
        self
    }

    /// Failures in the component schema `name` rather than the family's envelope.
    pub fn fails_as(mut self, name: &'static str) -> Self {
        self.failure = Some(name);
        self
    }

    /// The MCP tool.
    pub fn tool(mut self, tool: Tool) -> Self {
        self.tool = Some(tool);
        self
    }

    /// A tool declared without its own output schema answers what its REST twin answers,
    /// less the `/api` envelope's `ok`: every tool gets `outputSchema` and
    /// `structuredContent` from the one declaration.
    fn derive_tool_output(&mut self) {
        let Some(tool) = &mut self.tool else { return };
        if tool.output.is_some() {
            return;
        }
        tool.output = self.response.clone().map(|mut schema| {
            if let Some(o) = schema.as_object_mut() {
                if let Some(Value::Object(props)) = o.get_mut("properties") {
                    props.shift_remove("ok");
                }
                if let Some(Value::Array(required)) = o.get_mut("required") {
                    required.retain(|r| r != "ok");
                }
            }
            schema
        });
    }
}

static ALL: LazyLock<Vec<Endpoint>> = LazyLock::new(|| {
    let mut v = public::endpoints();
    v.extend(v1::endpoints());
    v.extend(warehouse::endpoints());
    v.extend(marketplace::endpoints());
    v.extend(listings::endpoints());
    v.extend(reports::endpoints());
    v.extend(pricing::endpoints());
    v.extend(brand::endpoints());
    v.extend(forecast::endpoints());
    v.extend(intelligence::endpoints());
    v.extend(sync::endpoints());
    v.extend(events::endpoints());
    v.extend(costs::endpoints());
    for e in &mut v {
        e.derive_tool_output();
    }
    v
});

/// Every declared operation, in document order.
pub fn all() -> &'static [Endpoint] {
    &ALL
}

/// The token-gated operation a request reached by `method` on the route template `path`, if
/// any (`http::frame` runs its gate before the handler).
pub fn gated(path: &str, method: &axum::http::Method) -> Option<&'static Endpoint> {
    static BY_ROUTE: LazyLock<HashMap<(&'static str, Method), &'static Endpoint>> =
        LazyLock::new(|| {
            all()
                .iter()
                .filter(|e| matches!(e.gate, Gate::Token | Gate::TokenCounted))
                .map(|e| ((e.path, e.method), e))
                .collect()
        });
    BY_ROUTE.get(&(path, Method::reached_by(method)?)).copied()
}

/// Every declared tool with what its operation needs, in listing order.
pub fn tools() -> impl Iterator<Item = (&'static Tool, Needs)> {
    all()
        .iter()
        .filter_map(|e| e.tool.as_ref().map(|t| (t, e.needs)))
}

/// The declared tool named `name`, with what its operation needs.
pub fn tool(name: &str) -> Option<(&'static Tool, Needs)> {
    static BY_NAME: LazyLock<HashMap<&'static str, (&'static Tool, Needs)>> =
        LazyLock::new(|| tools().map(|(t, needs)| (t.name, (t, needs))).collect());
    BY_NAME.get(name).copied()
}

/// The arguments of a tool that takes none (anything else is refused).
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Reads a tool call's arguments as the typed request `T`.
pub fn args<T: serde::de::DeserializeOwned>(args: Map<String, Value>) -> pp_core::Result<T> {
    crate::http::json::typed(Value::Object(args))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v1_page_lists_every_v1_operation() {
        let page =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/v1.md"))
                .unwrap();
        for e in all().iter().filter(|e| e.path.starts_with("/v1/")) {
            let row = format!("`{} {}`", e.method.as_str().to_uppercase(), e.path);
            assert!(page.contains(&row), "docs/v1.md has no row for {row}");
        }
    }
}
