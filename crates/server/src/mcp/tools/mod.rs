//! The tool registry, a view over the operation declarations (`crate::operations`): each
//! declared tool's name, description (with its scopes), input and output schemas and
//! annotations, and the call that runs it. A missing scope and a failed call are tool results
//! with `isError: true` carrying the `/api` failure envelope.

use std::sync::LazyLock;

use pp_core::{Error, Principal, ScopeSet};
use serde_json::{Map, Value, json};

use super::jsonrpc::{self, Answer, INVALID_PARAMS, RpcError};
use crate::http::tool_text::ToolText;
use crate::operations::{self, Needs, Tool};

pub use crate::operations::Ctx;

/// Whether `p` holds the scopes of at least one tool (the connect rule).
pub fn can_connect(p: &Principal) -> bool {
    connect_sets()
        .iter()
        .any(|needs| p.scopes.is_superset(needs))
}

/// Every scope some tool needs: what an MCP client asks for when it connects (the resource
/// metadata's `scopes_supported` and the scope of the challenge to a request with no token).
/// The token endpoint grants the ones a credential holds; worked out once.
pub fn tool_scopes() -> ScopeSet {
    static ALL: LazyLock<ScopeSet> = LazyLock::new(|| {
        operations::tools().fold(ScopeSet::default(), |all, (_, needs)| {
            all.union(&ScopeSet::from_scopes(needs.scopes()))
        })
    });
    *ALL
}

/// The distinct scope sets that let a credential connect, smallest first, as text.
pub fn connect_options() -> Vec<String> {
    connect_sets()
        .iter()
        .map(ScopeSet::to_oauth_string)
        .collect()
}

/// The smallest scope sets among the tools' (a tool whose set contains another's adds
/// nothing to the connect rule), smallest first; worked out once.
fn connect_sets() -> &'static [ScopeSet] {
    static SETS: LazyLock<Vec<ScopeSet>> = LazyLock::new(|| {
        let mut sets: Vec<ScopeSet> = Vec::new();
        // a tool that takes any one of its scopes connects with each of them alone
        let each = operations::tools().flat_map(|(_, needs)| match needs {
            Needs::Any(list) => list.iter().map(|s| ScopeSet::from_scopes(&[*s])).collect(),
            other => vec![ScopeSet::from_scopes(other.scopes())],
        });
        for needs in each {
            if !sets.iter().any(|s| needs.is_superset(s)) {
                sets.retain(|s| !s.is_superset(&needs));
                sets.push(needs);
            }
        }
        sets.sort_by_key(|s| s.iter().count());
        sets
    });
    &SETS
}

fn scopes_text(needs: Needs) -> String {
    let names = needs
        .scopes()
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    match needs {
        Needs::Any(_) => format!("any one of {names}"),
        _ => names,
    }
}

/// Whether a revision knows `outputSchema`, `structuredContent` and `title` (2025-06-18 on).
fn structured(version: &str) -> bool {
    version >= "2025-06-18"
}

/// The `tools/list` entries for a client speaking `version`.
pub fn descriptors(version: &str) -> Vec<Value> {
    operations::tools()
        .map(|(t, needs)| {
            let mut d = json!({
                "name": t.name,
                "description": format!("{}\n\nScopes: {}.", t.description, scopes_text(needs)),
                "inputSchema": t.input,
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
                if let Some(out) = &t.output {
                    d["outputSchema"] = out.clone();
                }
            }
            d
        })
        .collect()
}

/// A failed call: the `/api` failure envelope (plus `error: <kind>`) as the result text.
pub fn failure(e: &Error) -> Result<Answer, RpcError> {
    if e.cause().is_some() {
        tracing::error!(kind = e.kind.code(), cause = %e.chain(), "mcp tool failed");
    }
    let mut envelope = e.api_envelope(None);
    envelope["error"] = e.kind.code().into();
    jsonrpc::answer(&json!({
        "content": [{ "type": "text", "text": envelope.to_string() }],
        "isError": true,
    }))
}

/// A successful call, its answer written once by the tool: the text is that writing, and the
/// structured copy (where the revision has it) is the same text placed as it is.
fn success(text: &ToolText, tool: &Tool, version: &str) -> Result<Answer, RpcError> {
    jsonrpc::tool_success(text, tool.output.is_some() && structured(version))
}

/// `tools/call` of the tool `name` with `arguments`: an unknown tool is a protocol error;
/// everything else is a tool result.
pub async fn call(
    ctx: &Ctx,
    version: &str,
    name: Option<String>,
    arguments: Option<Value>,
) -> Result<Answer, RpcError> {
    let name = name.as_deref().unwrap_or("");
    let (tool, needs) = operations::tool(name)
        .ok_or_else(|| RpcError::new(INVALID_PARAMS, format!("Unknown tool: '{name}'")))?;
    let args = match arguments {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a,
        Some(_) => {
            return failure(&Error::invalid_request("arguments must be an object"));
        }
    };
    if let Err(e) = needs.check(&ctx.principal) {
        return failure(&e);
    }
    match (tool.run)(ctx, args).await {
        Ok(text) => success(&text, tool, version),
        Err(e) => failure(&e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_is_well_formed_and_named_once() {
        let mut names = std::collections::HashSet::new();
        for (t, needs) in operations::tools() {
            assert!(names.insert(t.name), "{} twice", t.name);
            assert_eq!(t.input["type"], "object", "{}", t.name);
            assert!(!needs.scopes().is_empty(), "{} checks no scope", t.name);
            let out = t
                .output
                .as_ref()
                .unwrap_or_else(|| panic!("{} has no outputSchema", t.name));
            assert_eq!(out["type"], "object", "{}", t.name);
            for schema in [&t.input, out] {
                assert!(
                    !type_arrays(schema),
                    "{}: use anyOf, not a type array",
                    t.name
                );
            }
            assert!(
                t.description.len() > 40,
                "{} needs a real description",
                t.name
            );
        }
        assert_eq!(names.len(), 37);
    }

    /// Whether a schema anywhere says `"type": [ … ]` (strict validators refuse it).
    fn type_arrays(v: &Value) -> bool {
        match v {
            Value::Object(o) => o
                .iter()
                .any(|(k, x)| (k == "type" && x.is_array()) || type_arrays(x)),
            Value::Array(a) => a.iter().any(type_arrays),
            _ => false,
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

    #[test]
    fn the_mcp_page_states_every_connect_option() {
        let page =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/mcp.md"))
                .unwrap();
        let rule = page
            .split("- **Connect rule.**")
            .nth(1)
            .and_then(|r| r.split("\n- **").next())
            .expect("docs/mcp.md has a Connect rule bullet");
        let rule = rule.split_whitespace().collect::<Vec<_>>().join(" ");
        let missing: Vec<String> = connect_options()
            .into_iter()
            .filter(|o| !rule.contains(&format!("`{o}`")))
            .collect();
        assert!(
            missing.is_empty(),
            "docs/mcp.md's connect rule does not name {missing:?}: {rule}"
        );
    }
}
