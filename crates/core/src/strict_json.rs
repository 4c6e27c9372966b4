//! JSON read strictly: an object that names a key twice is refused instead of keeping the
//! last value, so `{"sql": "DELETE …", "sql": "SELECT 1"}` cannot mean one thing to a proxy or
//! log reader and another to the gateway.

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::map::Entry;
use serde_json::{Map, Value};

/// Parses `bytes` as JSON, refusing duplicate object keys (the message names the key).
pub fn parse(bytes: &[u8]) -> Result<Value, serde_json::Error> {
    read_with(bytes, Strict)
}

/// Reads the one JSON document in `bytes` with `seed` (a reader that walks the document
/// itself, reading the values it keeps with [`Strict`]); text after it is refused. The bytes
/// are checked as UTF-8 once, which JSON text must be (RFC 8259, docs/security.md), so the reader need not
/// check each string it meets (which costs more, string by string).
pub fn read_with<'a, S: de::DeserializeSeed<'a>>(
    bytes: &'a [u8],
    seed: S,
) -> Result<S::Value, serde_json::Error> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| de::Error::custom(format!("the JSON text is not UTF-8: {e}")))?;
    let mut de = serde_json::Deserializer::from_str(text);
    let v = seed.deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// The error for an object that names `key` twice.
pub fn twice<E: de::Error>(key: &str) -> E {
    E::custom(format!("the key \"{key}\" appears twice"))
}

/// The strict reading as a seed, for a reader that walks part of a document itself.
pub struct Strict;

impl<'de> de::DeserializeSeed<'de> for Strict {
    type Value = Value;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(Strict)
    }
}

impl<'de> Visitor<'de> for Strict {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(Strict)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(k) = map.next_key::<String>()? {
            // one lookup: the key is hashed once whether it is new or repeated
            match out.entry(k) {
                Entry::Occupied(o) => return Err(twice(o.key())),
                Entry::Vacant(slot) => {
                    slot.insert(map.next_value_seed(Strict)?);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn a_repeated_key_is_refused_at_any_depth() {
        assert!(parse(br#"{"a": [1, {"b": 2.5, "c": null}], "d": "x"}"#).is_ok());
        let e = parse(br#"{"sql":"DELETE","sql":"SELECT 1"}"#).unwrap_err();
        assert!(e.to_string().contains("\"sql\" appears twice"), "{e}");
        assert!(parse(br#"{"a": {"b": 1, "b": 2}}"#).is_err());
        assert!(parse(b"{} x").is_err(), "trailing text");
        let e = parse(b"{\"a\": \"\xff\"}").unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
    }
}
