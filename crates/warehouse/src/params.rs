//! Bound parameters: a positional array for `?` placeholders or a named object for `:name`,
//! `@name` and `$name`. Only scalars are accepted.

use pp_core::{Error, Result};
use serde_json::{Map, Value};

/// A scalar parameter value.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// SQL NULL.
    Null,
    /// An integer (booleans bind as 0/1).
    Int(i64),
    /// A floating-point number.
    Real(f64),
    /// Text.
    Text(String),
}

/// The parameters of one query.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Params {
    /// No parameters.
    #[default]
    None,
    /// `?` placeholders, in order.
    Positional(Vec<Scalar>),
    /// Named placeholders, keyed without their sigil.
    Named(Vec<(String, Scalar)>),
}

fn scalar(v: &Value, at: &str) -> Result<Scalar> {
    Ok(match v {
        Value::Null => Scalar::Null,
        Value::Bool(b) => Scalar::Int(i64::from(*b)),
        Value::Number(n) => match n.as_i64() {
            Some(i) => Scalar::Int(i),
            None => Scalar::Real(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Scalar::Text(s.clone()),
        Value::Array(_) | Value::Object(_) => {
            return Err(Error::invalid_request(format!(
                "{at} is {}; a parameter must be a string, number, boolean or null",
                if v.is_array() {
                    "an array"
                } else {
                    "an object"
                }
            )));
        }
    })
}

impl Params {
    /// Reads the request's `params` field (absent or null means none).
    pub fn from_json(v: Option<&Value>) -> Result<Self> {
        match v {
            None | Some(Value::Null) => Ok(Params::None),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| scalar(v, &format!("params[{i}]")))
                .collect::<Result<_>>()
                .map(Params::Positional),
            Some(Value::Object(map)) => named(map),
            Some(_) => Err(Error::invalid_request(
                "params must be an array (for ? placeholders) or an object (for :name placeholders)",
            )),
        }
    }
}

fn named(map: &Map<String, Value>) -> Result<Params> {
    let mut out = Vec::with_capacity(map.len());
    for (k, v) in map {
        let key = k.trim_start_matches([':', '@', '$']);
        if key.is_empty() {
            return Err(Error::invalid_request("params has an empty name"));
        }
        out.push((key.to_owned(), scalar(v, &format!("params.{k}"))?));
    }
    Ok(Params::Named(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_positional_and_named() {
        assert_eq!(
            Params::from_json(Some(&json!([1, "a", null, true, 1.5]))).unwrap(),
            Params::Positional(vec![
                Scalar::Int(1),
                Scalar::Text("a".into()),
                Scalar::Null,
                Scalar::Int(1),
                Scalar::Real(1.5)
            ])
        );
        assert_eq!(
            Params::from_json(Some(&json!({":id": 3}))).unwrap(),
            Params::Named(vec![("id".into(), Scalar::Int(3))])
        );
    }

    #[test]
    fn refuses_non_scalars() {
        for bad in [json!([[1]]), json!({"a": {}}), json!("x"), json!(3)] {
            let e = Params::from_json(Some(&bad)).unwrap_err();
            assert_eq!(e.kind, pp_core::Kind::InvalidRequest, "{bad}");
        }
    }
}
