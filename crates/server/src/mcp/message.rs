//! Reading one incoming JSON-RPC message. The members JSON-RPC and MCP define (the top
//! level's `jsonrpc`, `id`, `method` and `params`; in `params`, `_meta`, `name`, `arguments`
//! and `protocolVersion`; in `_meta`, the 2026-07-28 envelope's version and capabilities)
//! are read straight into fields, so no map is built or searched for them. Every value is
//! still read strictly: a key named twice anywhere is refused, and members nobody reads are
//! read and dropped.

use std::marker::PhantomData;

use pp_core::strict_json::{self, Strict, twice};
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::jsonrpc::{INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, RpcError};
use super::versions;

/// One incoming message.
#[derive(Debug)]
pub enum Message {
    /// A request: answer it.
    Request {
        id: Value,
        method: String,
        params: Box<Params>,
    },
    /// A notification: nothing to answer (the server acts on none).
    Notification,
    /// A response to a request the server sent (it sends none) or anything else without a method.
    Response,
}

impl Message {
    /// The request's `params`, `None` for anything else.
    pub fn params(&self) -> Option<&Params> {
        match self {
            Message::Request { params, .. } => Some(params),
            _ => None,
        }
    }
}

/// What a request's `params` holds that the server reads (absent members are `None`).
#[derive(Debug, Default)]
pub struct Params {
    /// `_meta`, when it is an object.
    pub meta: Option<Meta>,
    /// `name` (`tools/call`), when it is text.
    pub name: Option<String>,
    /// `arguments` (`tools/call`), as sent.
    pub arguments: Option<Value>,
    /// `protocolVersion` (`initialize`), when it is text.
    pub protocol_version: Option<String>,
}

/// What a request's `_meta` holds that the server reads: the 2026-07-28 envelope.
#[derive(Debug, Default)]
pub struct Meta {
    /// Whether the requested protocol revision is there, whatever its type (a wrong type is
    /// refused later, in the revision's order of checks).
    pub has_version: bool,
    /// The requested protocol revision, when it is text.
    pub version: Option<String>,
    /// Whether the client's capabilities are there.
    pub has_capabilities: bool,
}

/// Reads one JSON-RPC message. Batches (arrays) are refused: no revision we serve needs them
/// from a client, and 2025-06-18 removed them.
pub fn parse(body: &[u8]) -> Result<Message, RpcError> {
    let top = strict_json::read_with(body, ObjectOr::<Top>::new())
        .map_err(|e| RpcError::new(PARSE_ERROR, format!("the body is not JSON: {e}")))?;
    let Shape::Object(top) = top else {
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
        None | Some(Shape::Null) => Box::default(),
        Some(Shape::Object(p)) => Box::new(p),
        Some(Shape::Other) => {
            return Err(RpcError::new(INVALID_PARAMS, "params must be an object"));
        }
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
/// string or a number at the top of a JSON object, even one with a byte elsewhere that is not
/// UTF-8), so the error answers the right request; `null` otherwise, as JSON-RPC says.
pub fn id_of(body: &[u8]) -> Value {
    match serde_json::from_str::<Value>(&String::from_utf8_lossy(body)) {
        Ok(Value::Object(o)) => match o.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
            _ => Value::Null,
        },
        _ => Value::Null,
    }
}

/// The top level's members JSON-RPC reads.
#[derive(Default)]
struct Top {
    jsonrpc: Option<Value>,
    id: Option<Value>,
    method: Option<Value>,
    params: Option<Shape<Params>>,
}

impl Members for Top {
    const NAMES: &'static [&'static str] = &["jsonrpc", "id", "method", "params"];

    fn read<'de, A: MapAccess<'de>>(&mut self, member: usize, map: &mut A) -> Result<(), A::Error> {
        match member {
            0 => self.jsonrpc = Some(map.next_value_seed(Strict)?),
            1 => self.id = Some(map.next_value_seed(Strict)?),
            2 => self.method = Some(map.next_value_seed(Strict)?),
            _ => self.params = Some(map.next_value_seed(ObjectOr::new())?),
        }
        Ok(())
    }
}

impl Members for Params {
    const NAMES: &'static [&'static str] = &["_meta", "name", "arguments", "protocolVersion"];

    fn read<'de, A: MapAccess<'de>>(&mut self, member: usize, map: &mut A) -> Result<(), A::Error> {
        match member {
            0 => self.meta = map.next_value_seed(ObjectOr::<Meta>::new())?.object(),
            1 => self.name = text(map.next_value_seed(Strict)?),
            2 => self.arguments = Some(map.next_value_seed(Strict)?),
            _ => self.protocol_version = text(map.next_value_seed(Strict)?),
        }
        Ok(())
    }
}

impl Members for Meta {
    const NAMES: &'static [&'static str] = &[versions::META_VERSION, versions::META_CAPABILITIES];

    fn read<'de, A: MapAccess<'de>>(&mut self, member: usize, map: &mut A) -> Result<(), A::Error> {
        let value = map.next_value_seed(Strict)?;
        match member {
            0 => (self.has_version, self.version) = (true, text(value)),
            _ => self.has_capabilities = true,
        }
        Ok(())
    }
}

fn text(v: Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// An object whose members named in `NAMES` are read by `read` (given the name's index, each
/// at most once); any other member is read strictly and dropped.
trait Members: Default {
    const NAMES: &'static [&'static str];
    fn read<'de, A: MapAccess<'de>>(&mut self, member: usize, map: &mut A) -> Result<(), A::Error>;
}

/// A value read as an object of `T`'s members, or anything else read strictly.
enum Shape<T> {
    Object(T),
    Null,
    /// Not an object (an array, text, a number or a boolean).
    Other,
}

impl<T> Shape<T> {
    fn object(self) -> Option<T> {
        match self {
            Shape::Object(t) => Some(t),
            _ => None,
        }
    }
}

/// Reads a [`Shape`] of `T`.
struct ObjectOr<T>(PhantomData<T>);

impl<T> ObjectOr<T> {
    fn new() -> Self {
        Self(PhantomData)
    }
}

impl<'de, T: Members> DeserializeSeed<'de> for ObjectOr<T> {
    type Value = Shape<T>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Shape<T>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Members> Visitor<'de> for ObjectOr<T> {
    type Value = Shape<T>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape<T>, A::Error> {
        let mut out = T::default();
        // which of NAMES were seen (there are at most four), and the other keys, kept only to
        // refuse one named twice
        let mut seen = 0u8;
        let mut others: Vec<String> = Vec::new();
        while let Some(key) = map.next_key_seed(Key(T::NAMES))? {
            match key {
                Ok(i) => {
                    if seen & (1 << i) != 0 {
                        return Err(twice(T::NAMES[i]));
                    }
                    seen |= 1 << i;
                    out.read(i, &mut map)?;
                }
                Err(other) => {
                    if others.contains(&other) {
                        return Err(twice(&other));
                    }
                    map.next_value_seed(Strict)?;
                    others.push(other);
                }
            }
        }
        Ok(Shape::Object(out))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape<T>, A::Error> {
        while seq.next_element_seed(Strict)?.is_some() {}
        Ok(Shape::Other)
    }
    fn visit_unit<E>(self) -> Result<Shape<T>, E> {
        Ok(Shape::Null)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Shape<T>, E> {
        Ok(Shape::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Shape<T>, E> {
        Ok(Shape::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Shape<T>, E> {
        Ok(Shape::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Shape<T>, E> {
        Ok(Shape::Other)
    }
    fn visit_str<E>(self, _: &str) -> Result<Shape<T>, E> {
        Ok(Shape::Other)
    }
}

/// An object key: the index of one of the names given, or any other key as written (only
/// those are copied).
struct Key(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Result<usize, String>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Result<usize, String>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E>(self, key: &str) -> Result<Self::Value, E> {
        Ok(self
            .0
            .iter()
            .position(|name| *name == key)
            .ok_or_else(|| key.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_requests_notifications_and_refuses_the_rest() {
        let m = parse(br#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#).unwrap();
        assert!(matches!(m, Message::Request { ref method, .. } if method == "tools/list"));
        let n = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap();
        assert!(matches!(n, Message::Notification));
        let r = parse(br#"{"jsonrpc":"2.0","id":7,"result":{}}"#).unwrap();
        assert!(matches!(r, Message::Response));
        assert_eq!(parse(b"{").unwrap_err().code, PARSE_ERROR);
        assert_eq!(parse(b"[]").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(parse(b"[{},1]").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(parse(b"7").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(parse(b"null").unwrap_err().code, INVALID_REQUEST);
        assert_eq!(parse(b"[1,").unwrap_err().code, PARSE_ERROR);
        assert_eq!(
            parse(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3\"}")
                .unwrap_err()
                .code,
            PARSE_ERROR
        );
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
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"cursor":"a","cursor":"b"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"arguments":{"sql":1,"sql":2}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":[{"a":1,"a":2}]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"k":1,"k":2}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b"}}}"#,
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
        for params in ["[1]", "1", "\"x\"", "true"] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"x","params":{params}}}"#);
            assert_eq!(
                parse(body.as_bytes()).unwrap_err().code,
                INVALID_PARAMS,
                "{params}"
            );
        }
    }

    fn params_of(body: Value) -> Params {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "m", "params": body });
        match parse(body.to_string().as_bytes()).unwrap() {
            Message::Request { params, .. } => *params,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_members_mcp_defines_are_read_and_the_rest_dropped() {
        let p = params_of(json!({
            "name": "legacy_query",
            "arguments": { "sql": "SELECT 1" },
            "protocolVersion": "2025-11-25",
            "cursor": "c",
            "_meta": {
                versions::META_VERSION: "2026-07-28",
                versions::META_CAPABILITIES: {},
                "progressToken": 3,
            },
        }));
        assert_eq!(p.name.as_deref(), Some("legacy_query"));
        assert_eq!(p.arguments, Some(json!({ "sql": "SELECT 1" })));
        assert_eq!(p.protocol_version.as_deref(), Some("2025-11-25"));
        let meta = p.meta.unwrap();
        assert!(meta.has_version && meta.has_capabilities);
        assert_eq!(meta.version.as_deref(), Some("2026-07-28"));

        // what is not text is no name, and a _meta that is no object holds nothing
        let p = params_of(json!({ "name": 5, "protocolVersion": [], "_meta": "x" }));
        assert!(p.name.is_none() && p.protocol_version.is_none() && p.meta.is_none());
        let p = params_of(json!({ "_meta": { versions::META_VERSION: 7 } }));
        let meta = p.meta.unwrap();
        assert!(meta.has_version && meta.version.is_none() && !meta.has_capabilities);
        let p = params_of(Value::Null);
        assert!(p.meta.is_none() && p.name.is_none() && p.arguments.is_none());
    }

    #[test]
    fn an_unreadable_message_keeps_its_id_when_it_has_one() {
        assert_eq!(id_of(br#"{"jsonrpc":"1.0","id":7,"method":"x"}"#), json!(7));
        assert_eq!(id_of(br#"{"id":"a","params":[1]}"#), json!("a"));
        assert_eq!(id_of(br#"{"id":{}}"#), Value::Null);
        assert_eq!(id_of(b"{\"id\":5,\"x\":\"\xc3\"}"), json!(5));
        assert_eq!(id_of(b"{"), Value::Null);
    }
}
