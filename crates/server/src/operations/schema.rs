//! Small builders for the JSON Schemas of requests, answers and tool arguments.

use serde_json::{Map, Value, json};

/// A string.
pub fn string() -> Value {
    json!({ "type": "string" })
}

/// A string with a description.
pub fn text(desc: &str) -> Value {
    json!({ "type": "string", "description": desc })
}

/// A calendar date.
pub fn date() -> Value {
    json!({ "type": "string", "format": "date" })
}

/// A whole number.
pub fn int() -> Value {
    json!({ "type": "integer" })
}

/// A number.
pub fn number() -> Value {
    json!({ "type": "number" })
}

/// A boolean.
pub fn boolean() -> Value {
    json!({ "type": "boolean" })
}

/// `acceptDuplicateRisk` on a report create.
pub fn accept_duplicate_risk() -> Value {
    json!({ "type": "boolean", "description": "Only for a report create whose earlier identical try has an unknown outcome: send it anyway, accepting that the provider may then hold two reports. Without it such a retry sends nothing." })
}

/// One of `values`.
pub fn one_of(values: &[&str]) -> Value {
    json!({ "type": "string", "enum": values })
}

/// Any JSON value.
pub fn any() -> Value {
    json!({})
}

/// An array of `items`.
pub fn array(items: Value) -> Value {
    json!({ "type": "array", "items": items })
}

/// `v` or null.
pub fn nullable(v: Value) -> Value {
    json!({ "anyOf": [v, { "type": "null" }] })
}

/// An object with `props`, of which `required` must be present; other fields allowed.
pub fn object(props: &[(&str, Value)], required: &[&str]) -> Value {
    let p: Map<String, Value> = props
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    json!({ "type": "object", "properties": p, "required": required })
}

/// As [`object`], with no other fields allowed (request bodies and tool arguments).
pub fn closed(props: &[(&str, Value)], required: &[&str]) -> Value {
    let mut o = object(props, required);
    o["additionalProperties"] = false.into();
    o
}

/// Any object.
pub fn any_object() -> Value {
    json!({ "type": "object" })
}

/// An `/api` success: `ok: true` beside the result's fields.
pub fn api(mut result: Value) -> Value {
    let Some(o) = result.as_object_mut() else {
        return result;
    };
    let props = o.entry("properties").or_insert_with(|| json!({}));
    if let Some(p) = props.as_object_mut() {
        p.shift_insert(0, "ok".into(), json!({ "const": true }));
    }
    let required = o.entry("required").or_insert_with(|| json!([]));
    if let Some(r) = required.as_array_mut() {
        r.insert(0, "ok".into());
    }
    result
}

/// Adds `props` to a tool's argument object (the merchant selector beside a call's fields).
pub fn with(mut base: Value, props: &[(&str, Value)]) -> Value {
    if let Some(p) = base.get_mut("properties").and_then(Value::as_object_mut) {
        for (k, v) in props {
            p.insert((*k).to_owned(), v.clone());
        }
    }
    base
}
