//! Our own tool registry, in front of any transport or SDK: each tool's name, description (with
//! the catalog's traps), input and output schemas, annotations, the scopes a call needs, and
//! the function that runs it over the same services the REST routes use. A missing scope and a
//! failed call are tool results with `isError: true` carrying the `/api` failure envelope.

mod args;
mod context;
mod long_work;
mod marketplace;
mod timeline;
mod warehouse;

use std::future::Future;
use std::pin::Pin;
use std::sync::LazyLock;

use pp_core::{Error, Principal, Scope};
use serde_json::{Map, Value, json};

use super::jsonrpc::{INVALID_PARAMS, RpcError};
use crate::state::SharedState;

pub use args::Args;

/// What a running tool can reach.
pub struct Ctx {
    pub app: SharedState,
    pub principal: Principal,
}

/// A tool's future.
pub type Fut<'a> = Pin<Box<dyn Future<Output = Result<Value, Error>> + Send + 'a>>;

/// Behaviour hints shown to clients (`annotations`).
#[derive(Clone, Copy)]
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

/// One tool.
pub struct Tool {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    /// Every scope a call needs (checked on each call).
    pub needs: &'static [Scope],
    pub input: fn() -> Value,
    /// The structured result's schema, when the result is structured.
    pub output: Option<fn() -> Value>,
    pub hints: Hints,
    pub run: for<'a> fn(&'a Ctx, Args) -> Fut<'a>,
}

static TOOLS: LazyLock<Vec<Tool>> = LazyLock::new(|| {
    let mut v = warehouse::tools();
    v.extend(marketplace::tools());
    v.extend(long_work::tools());
    v.extend(context::tools());
    v.extend(timeline::tools());
    v
});

/// Every tool, in listing order.
pub fn all() -> &'static [Tool] {
    &TOOLS
}

/// Whether `p` holds the scopes of at least one tool (the connect rule).
pub fn can_connect(p: &Principal) -> bool {
    all().iter().any(|t| p.scopes.missing(t.needs).is_empty())
}

/// The distinct scope sets that let a credential connect, smallest first, as text.
pub fn connect_options() -> Vec<String> {
    let mut sets: Vec<&'static [Scope]> = Vec::new();
    for t in all() {
        // a set that contains a smaller listed set adds nothing
        if !sets.iter().any(|s| s.iter().all(|x| t.needs.contains(x))) {
            sets.retain(|s| !t.needs.iter().all(|x| s.contains(x)));
            sets.push(t.needs);
        }
    }
    sets.sort_by_key(|s| s.len());
    sets.iter()
        .map(|s| s.iter().map(|x| x.as_str()).collect::<Vec<_>>().join(" "))
        .collect()
}

fn scopes_text(needs: &[Scope]) -> String {
    needs
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Whether a revision knows `outputSchema`, `structuredContent` and `title` (2025-06-18 on).
fn structured(version: &str) -> bool {
    version >= "2025-06-18"
}

/// The `tools/list` entries for a client speaking `version`.
pub fn descriptors(version: &str) -> Vec<Value> {
    all()
        .iter()
        .map(|t| {
            let mut d = json!({
                "name": t.name,
                "description": format!("{}\n\nScopes: {}.", t.description, scopes_text(t.needs)),
                "inputSchema": (t.input)(),
                "annotations": {
                    "title": t.title,
                    "readOnlyHint": t.hints.read_only,
                    "destructiveHint": t.hints.destructive,
                    "idempotentHint": t.hints.idempotent,
                    "openWorldHint": t.hints.open_world,
                },
            });
            if structured(version) {
                d["title"] = t.title.into();
                if let Some(out) = t.output {
                    d["outputSchema"] = out();
                }
            }
            d
        })
        .collect()
}

/// A failed call: the `/api` failure envelope (plus `error: <kind>`) as the result text.
pub fn failure(e: &Error) -> Value {
    if let Some(cause) = e.cause() {
        tracing::error!(kind = e.kind.code(), cause, "mcp tool failed");
    }
    let mut envelope = e.api_envelope(None);
    envelope["error"] = e.kind.code().into();
    json!({
        "content": [{ "type": "text", "text": envelope.to_string() }],
        "isError": true,
    })
}

fn success(value: Value, tool: &Tool, version: &str) -> Value {
    let mut r = json!({
        "content": [{ "type": "text", "text": value.to_string() }],
        "isError": false,
    });
    if tool.output.is_some() && structured(version) {
        r["structuredContent"] = value;
    }
    r
}

/// `tools/call`: an unknown tool is a protocol error; everything else is a tool result.
pub async fn call(
    ctx: &Ctx,
    version: &str,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let tool = all()
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| RpcError::new(INVALID_PARAMS, format!("Unknown tool: '{name}'")))?;
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => {
            let e = Error::invalid_request("arguments must be an object");
            return Ok(failure(&e));
        }
    };
    if let Err(e) = ctx.principal.require(tool.needs) {
        return Ok(failure(&e));
    }
    Ok(match (tool.run)(ctx, Args::new(args)).await {
        Ok(v) => success(v, tool, version),
        Err(e) => failure(&e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_well_formed_and_named_once() {
        let mut names = std::collections::HashSet::new();
        for t in all() {
            assert!(names.insert(t.name), "{} twice", t.name);
            let input = (t.input)();
            assert_eq!(input["type"], "object", "{}", t.name);
            assert!(!t.needs.is_empty(), "{} checks no scope", t.name);
            if let Some(out) = t.output {
                assert_eq!(out()["type"], "object", "{}", t.name);
            }
            assert!(
                t.description.len() > 40,
                "{} needs a real description",
                t.name
            );
        }
    }

    #[test]
    fn connect_options_are_the_minimal_scope_sets() {
        let opts = connect_options();
        assert!(opts.contains(&"timeline:read".to_owned()), "{opts:?}");
        assert!(opts.contains(&"context:read".to_owned()), "{opts:?}");
        assert!(
            !opts.iter().any(|o| o.contains("timeline:write")),
            "{opts:?}"
        );
    }
}
