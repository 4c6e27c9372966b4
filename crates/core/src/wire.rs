//! Reading request values the same way on every surface. A query string carries text, an MCP
//! call carries JSON: request structs declare such fields with [`scalar_text`], so `limit=5`
//! and `"limit": 5` read alike, and the services parse the text with the helpers here, whose
//! refusals name the field and the rule in plain words.

use chrono::NaiveDate;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::error::{Error, Result};

mod objects;

/// A scalar sent as text, a number or a boolean, read as its text; `null` reads as absent.
pub fn scalar_text<'de, D: Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<String>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        Some(_) => Err(serde::de::Error::custom(
            "must be a string, number or boolean",
        )),
    }
}

/// A whole number from `lo` to `hi`.
pub fn int_in(name: &str, v: Option<&str>, lo: i64, hi: i64) -> Result<Option<i64>> {
    match v {
        None => Ok(None),
        Some(s) => match s.trim().parse::<i64>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
            _ => Err(Error::invalid_request(format!(
                "{name} must be a whole number from {lo} to {hi}; got '{s}'"
            ))),
        },
    }
}

/// A calendar day, `YYYY-MM-DD`, from year 1 to 9999.
pub fn date(name: &str, v: Option<&str>) -> Result<Option<NaiveDate>> {
    match v {
        None => Ok(None),
        Some(s) => calendar_date(s).map(Some).ok_or_else(|| {
            Error::invalid_request(format!(
                "{name} must be a date, YYYY-MM-DD from 0001-01-01 to 9999-12-31; got '{s}'"
            ))
        }),
    }
}

/// `s` as a calendar date when it is exactly `YYYY-MM-DD` with a year from 0001 to 9999
/// (the one date rule every surface reads by).
pub fn calendar_date(s: &str) -> Option<NaiveDate> {
    let shaped = s.len() == 10
        && s.bytes().enumerate().all(|(i, b)| {
            if i == 4 || i == 7 {
                b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
    if !shaped || s.starts_with("0000") {
        return None;
    }
    NaiveDate::parse_from_str(s, "%Y-%m-%d").ok()
}

/// `true` or `false`; absent reads as `false`.
pub fn flag(name: &str, v: Option<&str>) -> Result<bool> {
    match v {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(s) => Err(Error::invalid_request(format!(
            "{name} must be true or false; got '{s}'"
        ))),
    }
}

/// Reads the typed request `T` from JSON; a wrong shape is `invalid_request` naming the field
/// in plain words (see [`plain`]). A field declared as an object takes only an object, at
/// any depth (module `objects`).
pub fn from_json<T: serde::de::DeserializeOwned>(what: &str, v: Value) -> Result<T> {
    from_value(v).map_err(|e| Error::invalid_request(plain(what, &e.to_string())))
}

/// `serde_json::from_value` for what a caller sent: a struct takes only an object, at any
/// depth (module `objects`); for a reader with its own wording of the refusal.
pub fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> serde_json::Result<T> {
    T::deserialize(objects::Objects(v))
}

/// A deserializer's complaint about a request, in plain words: an unknown field names what the
/// request takes, a missing field says it is required, a wrong type names the field.
pub fn plain(what: &str, msg: &str) -> String {
    let ticked =
        |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    let msg = msg.split(" at line ").next().unwrap_or(msg);
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        let names = ticked(rest);
        if let Some((field, takes)) = names.split_first() {
            let takes = if takes.is_empty() {
                "it takes none".to_owned()
            } else {
                format!("it takes {}", takes.join(", "))
            };
            return format!("'{field}' is not a field of {what} ({takes})");
        }
    }
    if let Some(rest) = msg.strip_prefix("missing field ")
        && let Some(field) = ticked(rest).first()
    {
        return format!("{field} is required in {what}");
    }
    format!("{what}: {msg}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_complaints_read_as_english() {
        assert_eq!(
            plain(
                "a call",
                "unknown field `bogus`, expected `operation` or `query` at line 1 column 9"
            ),
            "'bogus' is not a field of a call (it takes operation, query)"
        );
        assert_eq!(
            plain("a call", "unknown field `x`, there are no fields"),
            "'x' is not a field of a call (it takes none)"
        );
        assert_eq!(
            plain("a call", "missing field `operation`"),
            "operation is required in a call"
        );
    }

    #[test]
    fn values_read_alike_from_text_and_json() {
        #[derive(Deserialize)]
        struct Q {
            #[serde(default, deserialize_with = "scalar_text")]
            limit: Option<String>,
        }
        let a: Q = serde_json::from_value(serde_json::json!({"limit": 5})).unwrap();
        let b: Q = serde_json::from_value(serde_json::json!({"limit": "5"})).unwrap();
        assert_eq!(a.limit, b.limit);
        assert_eq!(int_in("limit", a.limit.as_deref(), 1, 10).unwrap(), Some(5));
        assert!(
            int_in("limit", Some("11"), 1, 10)
                .unwrap_err()
                .message()
                .contains("1 to 10")
        );
        assert!(date("d", Some("2026-02-30")).is_err());
        assert!(date("d", Some("2026-2-3")).is_err());
        assert!(date("d", Some("")).is_err());
        assert_eq!(
            date("d", Some("2026-02-03")).unwrap().unwrap().to_string(),
            "2026-02-03"
        );
        assert!(flag("f", Some("yes")).is_err());
    }
}
