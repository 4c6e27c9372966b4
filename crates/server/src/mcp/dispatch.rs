//! Answers one MCP request, whatever transport carried it: the handshake result, discovery,
//! the tool list and tool calls. Transports add what their revision puts around a result.

use pp_core::Principal;
use serde_json::{Value, json};

use super::jsonrpc::{self, Answer, METHOD_NOT_FOUND, RpcError};
use super::message::Params;
use super::tools::{self, Ctx};
use super::versions::{self, INSTRUCTIONS};
use crate::state::SharedState;

fn capabilities() -> Value {
    json!({ "tools": { "listChanged": false } })
}

/// The `initialize` result for the negotiated `version`.
pub fn initialize_result(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities(),
        "serverInfo": versions::server_info(),
        "instructions": INSTRUCTIONS,
    })
}

/// Whether the client's answer is cacheable per 2026-07-28 (`ttlMs`, `cacheScope`).
fn cache_hints(mut v: Value, modern: bool) -> Value {
    if modern {
        v["ttlMs"] = 0.into();
        v["cacheScope"] = "private".into();
    }
    v
}

/// Answers `method` for `principal` speaking `version` (the principal moves into a tool
/// call's context, uncopied).
pub async fn request(
    app: &SharedState,
    principal: Principal,
    version: &str,
    method: &str,
    params: Box<Params>,
) -> Result<Answer, RpcError> {
    let modern = versions::MODERN.contains(&version);
    let answer = match method {
        // only what the server declares: it has no logging capability, so logging/setLevel
        // is refused like every other undeclared method
        "ping" => json!({}),
        "tools/list" => cache_hints(json!({ "tools": tools::descriptors(version) }), modern),
        "tools/call" => {
            let ctx = Ctx {
                app: app.clone(),
                principal,
            };
            // a tool's result is written once, straight to text
            return tools::call(&ctx, version, params.name, params.arguments).await;
        }
        "server/discover" if modern => cache_hints(
            json!({
                "supportedVersions": versions::MODERN,
                "capabilities": capabilities(),
                "instructions": INSTRUCTIONS,
            }),
            modern,
        ),
        "initialize" => {
            return Err(RpcError::new(
                super::jsonrpc::INVALID_REQUEST,
                "initialize opens a session: send it without Mcp-Session-Id, once",
            ));
        }
        _ => {
            return Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("Method not found: {method} (this server offers tools only)"),
            ));
        }
    };
    jsonrpc::answer(&answer)
}
