//! JSON-RPC 2.0 as MCP uses it: reading one message, and writing results and errors.
//! The error codes are JSON-RPC's own plus the MCP ones the transports need.

use std::fmt::Write as _;

use pp_core::strict_json::Strict;
use serde::Serialize;
use serde::de::{self, Deserializer as _, MapAccess, SeqAccess, Visitor};

use crate::http::render::JsonText;
use serde_json::{Map, Value, json};

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
/// `structuredContent` is the same JSON, placed as it is. The text is quoted straight into
/// the result.
pub fn tool_success(text: &JsonText, structured: bool) -> Result<Answer, RpcError> {
    let mut out = String::with_capacity(2 * text.as_str().len() + 64);
    out.push_str(r#"{"content":[{"type":"text","text":"#);
    text.write_quoted(&mut out).map_err(|_| unwritable())?;
    out.push_str(r#"}],"isError":false"#);
    if structured {
        out.push_str(r#","structuredContent":"#);
        out.push_str(text.as_str());
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

/// One incoming message.
#[derive(Debug)]
pub enum Message {
    /// A request: answer it.
    Request {
        id: Value,
        method: String,
        params: Map<String, Value>,
    },
    /// A notification: nothing to answer (the server acts on none).
    Notification,
    /// A response to a request the server sent (it sends none) or anything else without a method.
    Response,
}

impl Message {
    /// The request's `params`, empty for anything else.
    pub fn params(&self) -> Option<&Map<String, Value>> {
        match self {
            Message::Request { params, .. } => Some(params),
            _ => None,
        }
    }
}

/// The members of a message's top level that JSON-RPC reads, each read strictly; any other
/// member is read (so a key named twice anywhere is still refused) and dropped.
#[derive(Default)]
struct Top {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Value>,
}

/// Reads the top level of a message in one pass (no map of its members is built): `None`
/// when the JSON is not an object.
struct TopReader;

impl<'de> Visitor<'de> for TopReader {
    type Value = Option<Top>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut top = Top::default();
        let mut others: Vec<String> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "jsonrpc" => &mut top.jsonrpc,
                "id" => &mut top.id,
                "method" => &mut top.method,
                "params" => &mut top.params,
                _ if others.contains(&key) => return Err(twice(&key)),
                _ => {
                    map.next_value_seed(Strict)?;
                    others.push(key);
                    continue;
                }
            };
            if slot.is_some() {
                return Err(twice(&key));
            }
            *slot = Some(map.next_value_seed(Strict)?);
        }
        Ok(Some(top))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element_seed(Strict)?.is_some() {}
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

fn twice<E: de::Error>(key: &str) -> E {
    E::custom(format!("the key \"{key}\" appears twice"))
}

fn read_top(body: &[u8]) -> Result<Option<Top>, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let top = de.deserialize_any(TopReader)?;
    de.end()?;
    Ok(top)
}

/// Reads one JSON-RPC message. Batches (arrays) are refused: no revision we serve needs them
/// from a client, and 2025-06-18 removed them.
pub fn parse(body: &[u8]) -> Result<Message, RpcError> {
    let top = read_top(body)
        .map_err(|e| RpcError::new(PARSE_ERROR, format!("the body is not JSON: {e}")))?;
    let Some(top) = top else {
        return Err(RpcError::new(
            INVALID_REQUEST,
            "send one JSON-RPC message as a JSON object (batches are not accepted)",
        ));
    };
    if top.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
        return Err(RpcError::new(INVALID_REQUEST, "jsonrpc must be \"2.0\""));
    }
    let method = match top.method {
        Some(Value::String(m)) => m,
        Some(_) => return Err(RpcError::new(INVALID_REQUEST, "method must be a string")),
        None => return Ok(Message::Response),
    };
    let params = match top.params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(p)) => p,
        Some(_) => return Err(RpcError::new(INVALID_PARAMS, "params must be an object")),
    };
    match top.id {
        None => Ok(Message::Notification),
        Some(id @ (Value::String(_) | Value::Number(_))) => {
            Ok(Message::Request { id, method, params })
        }
        Some(_) => Err(RpcError::new(
            INVALID_REQUEST,
            "id must be a string or a number",
        )),
    }
}

/// The `id` of a message that could not be read as a whole, when it can be read at all (a
/// string or a number at the top of a JSON object), so the error answers the right request;
/// `null` otherwise, as JSON-RPC says.
pub fn id_of(body: &[u8]) -> Value {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(o)) => match o.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
            _ => Value::Null,
        },
        _ => Value::Null,
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
    fn reads_requests_notifications_and_refuses_the_rest() {
        let m = parse(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#).unwrap();
        assert!(matches!(m, Message::Request { ref method, .. } if method == "tools/list"));
        let n = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(n, Message::Notification));
        assert_eq!(parse(b"{").unwrap_err().code, PARSE_ERROR);
        assert_eq!(parse(b"[]").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(parse(b"[{},1]").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(parse(b"7").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(parse(b"[1,").unwrap_err().code, PARSE_ERROR);
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":1} x"#).unwrap_err().code,
            PARSE_ERROR
        );
        // a key named twice is refused wherever it is, not read as its last value
        for twice in [
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":1,"x":2}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","x":{"a":1,"a":2}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","name":"b"}}"#,
        ] {
            let e = parse(twice.as_bytes()).unwrap_err();
            assert_eq!(e.code, PARSE_ERROR, "{twice}");
            assert!(
                e.message.contains("appears twice"),
                "{twice}: {}",
                e.message
            );
        }
        assert_eq!(
            parse(br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#)
                .unwrap_err()
                .code,
            INVALID_REQUEST
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":{},"method":"x"}"#)
                .unwrap_err()
                .code,
            INVALID_REQUEST
        );
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":[1]}"#)
                .unwrap_err()
                .code,
            INVALID_PARAMS
        );
    }

    #[test]
    fn a_result_is_written_around_the_answer_with_what_the_revision_adds() {
        let text = JsonText::of(&json!({"a": "x\"y"})).unwrap();
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

    #[test]
    fn an_unreadable_message_keeps_its_id_when_it_has_one() {
        assert_eq!(id_of(br#"{"jsonrpc":"1.0","id":7,"method":"x"}"#), json!(7));
        assert_eq!(id_of(br#"{"id":"a","params":[1]}"#), json!("a"));
        assert_eq!(id_of(br#"{"id":{}}"#), Value::Null);
        assert_eq!(id_of(b"{"), Value::Null);
    }
}
