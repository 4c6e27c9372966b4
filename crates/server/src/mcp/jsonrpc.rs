//! JSON-RPC 2.0 as MCP uses it: writing results and errors (`super::message` reads).
//! The error codes are JSON-RPC's own plus the MCP ones the transports need.

use std::fmt::Write as _;

use serde::Serialize;

use crate::http::render::JsonText;
use crate::http::tool_text::ToolText;
use serde_json::{Value, json};

/// A result, already serialized: JSON text, written once by [`answer`] (or built from such
/// texts), never copied into a tree.
pub type Answer = JsonText;

/// `v` as an [`Answer`].
pub fn answer(v: &impl Serialize) -> Result<Answer, RpcError> {
    JsonText::of(v).map_err(|e| {
        tracing::error!(error = %e.chain(), "an MCP result could not be serialized");
        unwritable()
    })
}

fn unwritable() -> RpcError {
    RpcError::new(INTERNAL_ERROR, "the result could not be written")
}

/// A tool result whose text is `text` (a tool's written answer) and, when `structured`, whose
/// `structuredContent` is the same JSON, each placed as it is.
pub fn tool_success(text: &ToolText, structured: bool) -> Result<Answer, RpcError> {
    let json = text.json().as_str();
    let mut out = String::with_capacity(text.quoted().len() + json.len() + 64);
    out.push_str(r#"{"content":[{"type":"text","text":"#);
    out.push_str(text.quoted());
    out.push_str(r#"}],"isError":false"#);
    if structured {
        out.push_str(r#","structuredContent":"#);
        out.push_str(json);
    }
    out.push('}');
    Ok(JsonText::assembled(out))
}

/// Invalid JSON.
pub const PARSE_ERROR: i64 = -32700;
/// Not a JSON-RPC message, or a message the transport does not take here.
pub const INVALID_REQUEST: i64 = -32600;
/// No such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Bad parameters (unknown tool, missing `_meta` envelope keys …).
pub const INVALID_PARAMS: i64 = -32602;
/// The request's routing headers disagree with its body (2026-07-28).
pub const HEADER_MISMATCH: i64 = -32020;
/// The requested protocol revision is not served (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// The server failed to write its answer.
pub const INTERNAL_ERROR: i64 = -32603;
/// Ours: the caller may not use the MCP server (bad token, no tool scope, refused origin).
pub const NOT_AUTHORIZED: i64 = -32003;

/// A JSON-RPC error object.
#[derive(Debug, Clone)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// The HTTP status a 2026-07-28 response carrying this error uses (the session era
    /// answers a request's error with 200: the error is the JSON-RPC answer).
    pub fn http_status(&self) -> u16 {
        match self.code {
            PARSE_ERROR
            | INVALID_REQUEST
            | INVALID_PARAMS
            | HEADER_MISMATCH
            | UNSUPPORTED_PROTOCOL_VERSION => 400,
            METHOD_NOT_FOUND => 404,
            _ => 200,
        }
    }

    fn to_value(&self) -> Value {
        let mut e = json!({ "code": self.code, "message": self.message });
        if let Some(d) = &self.data {
            e["data"] = d.clone();
        }
        e
    }
}

/// `{ jsonrpc, id, result }`, as text, written in one pass; with `more` (an object), its
/// fields are added after the result's own (what a revision puts in every result).
pub fn result(id: &Value, result: &Answer, more: Option<&JsonText>) -> Result<String, RpcError> {
    let extra = more.map_or(0, |m| m.as_str().len());
    let mut out = String::with_capacity(result.as_str().len() + extra + 48);
    out.push_str(r#"{"jsonrpc":"2.0","id":"#);
    // an id is a string or a number, whose JSON text is always written
    write!(out, "{id}").map_err(|_| unwritable())?;
    out.push_str(r#","result":"#);
    match more {
        None => out.push_str(result.as_str()),
        Some(more) => result.write_merged(more, &mut out).map_err(|e| {
            tracing::error!(error = %e.chain(), "an MCP result could not be extended");
            unwritable()
        })?,
    }
    out.push('}');
    Ok(out)
}

/// `{ jsonrpc, id, error }`.
pub fn error_value(id: &Value, e: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": e.to_value() })
}

/// `{ jsonrpc, id, error }`, as text.
pub fn error(id: &Value, e: &RpcError) -> String {
    error_value(id, e).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_written_around_the_answer_with_what_the_revision_adds() {
        let text = ToolText::of(&json!({"a": "x\"y"})).unwrap();
        let answer = tool_success(&text, true).unwrap();
        let more = JsonText::of(&json!({"resultType": "complete"})).unwrap();
        let written = result(&json!("r-1"), &answer, Some(&more)).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&written).unwrap(),
            json!({"jsonrpc": "2.0", "id": "r-1", "result": {
                "content": [{"type": "text", "text": r#"{"a":"x\"y"}"#}],
                "isError": false,
                "structuredContent": {"a": "x\"y"},
                "resultType": "complete",
            }})
        );
        let plain = result(&json!(7), &tool_success(&text, false).unwrap(), None).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&plain).unwrap(),
            json!({"jsonrpc": "2.0", "id": 7, "result": {
                "content": [{"type": "text", "text": r#"{"a":"x\"y"}"#}],
                "isError": false,
            }})
        );
        // only an object takes the revision's fields
        let list = JsonText::of(&json!([1])).unwrap();
        let e = result(&json!(1), &list, Some(&more)).unwrap_err();
        assert_eq!(e.code, INTERNAL_ERROR);
    }
}
