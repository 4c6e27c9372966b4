//! A request's JSON read so that a struct takes only an object. serde lets a derived struct
//! also be read from an array, member by member in declaration order, so
//! `["replace", "/attributes/item_name", …]` would pass for a patch's `op`, `path` and
//! `value`; the schemas we publish say object, and a client that sent an array meant
//! something we cannot know. [`Objects`] reads a [`Value`] as serde_json's own reader does,
//! except that a struct read from anything but an object is refused, at every depth.

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    Unexpected, Visitor,
};
use serde_json::{Error, Map, Value};

/// A value whose structs must be objects.
pub struct Objects(pub Value);

/// What a refused struct was sent as.
fn sent_as(v: &Value) -> Unexpected<'_> {
    match v {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(_) => Unexpected::Other("number"),
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// The scalar readers, answered by serde_json's own reader of the value.
macro_rules! as_value_reads {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            self.0.$method(visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for Objects {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(map) => visit_object(map, visitor),
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(de::Error::invalid_type(sent_as(&other), &"an object")),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(de::Error::invalid_type(sent_as(&other), &visitor)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => Err(de::Error::invalid_type(sent_as(&other), &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            v => visitor.visit_some(Objects(v)),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(variant) => visitor.visit_enum(variant.into_deserializer()),
            Value::Object(map) if map.len() == 1 => {
                let (variant, content) = map.into_iter().next().expect("one member");
                visitor.visit_enum(Variant { variant, content })
            }
            other => Err(de::Error::invalid_type(
                sent_as(&other),
                &"a string or an object of one member",
            )),
        }
    }

    as_value_reads! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_bytes deserialize_byte_buf deserialize_unit
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }
}

fn visit_array<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = Items(items.into_iter());
    let out = visitor.visit_seq(&mut seq)?;
    if seq.0.len() == 0 {
        Ok(out)
    } else {
        Err(de::Error::invalid_length(
            len,
            &"fewer elements in the array",
        ))
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    map: Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = map.len();
    let mut members = Members {
        iter: map.into_iter(),
        value: None,
    };
    let out = visitor.visit_map(&mut members)?;
    if members.iter.len() == 0 {
        Ok(out)
    } else {
        Err(de::Error::invalid_length(len, &"fewer elements in the map"))
    }
}

/// An array's elements, each read as [`Objects`].
struct Items(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(Objects(v)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An object's members: each key read as serde_json reads one, each value as [`Objects`].
struct Members {
    iter: <Map<String, Value> as IntoIterator>::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Members {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.iter.next() else {
            return Ok(None);
        };
        self.value = Some(value);
        seed.deserialize(Key(key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let value = self
            .value
            .take()
            .ok_or_else(|| de::Error::custom("a value asked for before its key"))?;
        seed.deserialize(Objects(value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// An object's key, read as serde_json reads one: as text, or as the number or boolean it
/// spells for a map keyed by one.
struct Key(String);

macro_rules! key_parses {
    ($($method:ident => $visit:ident : $t:ty)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
            match self.0.parse::<$t>() {
                Ok(v) => visitor.$visit(v),
                Err(_) => Err(de::Error::invalid_value(Unexpected::Str(&self.0), &visitor)),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for Key {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(self.0.into_deserializer())
    }

    key_parses! {
        deserialize_bool => visit_bool: bool
        deserialize_i8 => visit_i8: i8
        deserialize_i16 => visit_i16: i16
        deserialize_i32 => visit_i32: i32
        deserialize_i64 => visit_i64: i64
        deserialize_u8 => visit_u8: u8
        deserialize_u16 => visit_u16: u16
        deserialize_u32 => visit_u32: u32
        deserialize_u64 => visit_u64: u64
        deserialize_f32 => visit_f32: f32
        deserialize_f64 => visit_f64: f64
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        struct identifier ignored_any
    }
}

/// An externally tagged enum's variant and what it carries.
struct Variant {
    variant: String,
    content: Value,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Objects;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Objects), Error> {
        let name = seed.deserialize(self.variant.into_deserializer())?;
        Ok((name, Objects(self.content)))
    }
}

impl<'de> de::VariantAccess<'de> for Objects {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            Value::Null => Ok(()),
            other => Err(de::Error::invalid_type(sent_as(&other), &"unit variant")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_struct("", fields, visitor)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::{Value, json};

    use super::Objects;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Patch {
        op: String,
        path: String,
        #[serde(default)]
        value: Option<Value>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    enum Mode {
        Preview,
        Commit { key: String },
        Limit(u8),
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Edit {
        sku: String,
        patches: Vec<Patch>,
        #[serde(default)]
        first: Option<Patch>,
        #[serde(default)]
        mode: Option<Mode>,
        #[serde(default)]
        counts: BTreeMap<u32, String>,
        #[serde(default)]
        pair: Option<(u8, bool)>,
        #[serde(flatten)]
        rest: serde_json::Map<String, Value>,
    }

    fn read<T: for<'de> Deserialize<'de>>(v: Value) -> Result<T, String> {
        T::deserialize(Objects(v)).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_what_serde_json_reads_from_objects() {
        let sent = json!({
            "sku": "S1",
            "patches": [{"op": "replace", "path": "/attributes/a", "value": [1, {"b": null}]}],
            "first": null,
            "mode": {"commit": {"key": "k1"}},
            "counts": {"7": "seven"},
            "pair": [3, true],
            "note": {"kept": ["as", "sent"]},
        });
        let ours: Edit = read(sent.clone()).unwrap();
        let theirs: Edit = serde_json::from_value(sent).unwrap();
        assert_eq!(ours, theirs);
        assert_eq!(ours.counts[&7], "seven");
        assert_eq!(ours.rest["note"], json!({"kept": ["as", "sent"]}));
        for mode in [json!("preview"), json!({"limit": 5})] {
            let m: Mode = read(mode.clone()).unwrap();
            assert_eq!(m, serde_json::from_value::<Mode>(mode).unwrap());
        }
        let any = json!([1, "a", {"b": [true, null, 2.5]}]);
        assert_eq!(read::<Value>(any.clone()).unwrap(), any);
    }

    #[test]
    fn a_struct_sent_as_an_array_is_refused_at_any_depth() {
        let patch = json!(["replace", "/attributes/a", 1]);
        assert!(
            serde_json::from_value::<Patch>(patch.clone()).is_ok(),
            "serde's leniency"
        );
        let e = read::<Patch>(patch.clone()).unwrap_err();
        assert!(
            e.contains("invalid type: sequence, expected an object"),
            "{e}"
        );
        let nested = json!({"sku": "S1", "patches": [patch.clone()]});
        assert!(serde_json::from_value::<Edit>(nested.clone()).is_ok());
        assert!(read::<Edit>(nested).is_err());
        let first = json!({"sku": "S1", "patches": [], "first": patch});
        assert!(read::<Edit>(first).is_err());
        let variant = json!({"sku": "S1", "patches": [], "mode": {"commit": ["k1"]}});
        assert!(read::<Edit>(variant).is_err());
        // the wrong shape the other way round is refused as before
        assert!(read::<Edit>(json!({"sku": "S1", "patches": {"op": "x"}})).is_err());
        assert!(read::<Edit>(json!({"sku": "S1", "patches": [], "counts": {"x": "y"}})).is_err());
        assert!(read::<Mode>(json!({"limit": 300})).is_err());
    }
}
