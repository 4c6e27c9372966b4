//! Document rules per kind (docs/forecast-state.md): what a write may hold, how it merges into what is
//! stored (an omitted field keeps its value; `inherit` clears a measure), the service's
//! stamps, and which month-row fields a change log records.

use pp_core::{Error, Kind, Result};
use serde_json::{Map, Value};

use crate::key::{DocKind, Key};

/// Fields the service stamps; a value sent for them is ignored.
const STAMPS: &[&str] = &["version", "updatedAt", "actor", "createdAt"];
/// Month-row measures and their change-log names.
pub const MEASURES: &[(&str, &str)] = &[
    ("sales", "sales"),
    ("units", "units"),
    ("adSpend", "ad_spend"),
    ("adBudget", "ad_budget"),
    ("dspSpend", "dsp_spend"),
];

fn bad(key: &Key, msg: String) -> Error {
    Error::new(Kind::BadParams, format!("{}: {msg}", key.as_str()))
}

fn number_or_null(key: &Key, field: &str, v: &Value) -> Result<()> {
    match v {
        Value::Null => Ok(()),
        Value::Number(n) if n.as_f64().is_some_and(f64::is_finite) => Ok(()),
        _ => Err(bad(key, format!("{field} must be a number or null"))),
    }
}

fn measure(key: &Key, field: &str, v: &Value) -> Result<()> {
    let Value::Object(m) = v else {
        return Err(bad(
            key,
            format!("{field} must be an object {{ mode, value }}"),
        ));
    };
    let modes: &[&str] = if field == "dspSpend" {
        &["inherit", "replace"]
    } else {
        &["inherit", "replace", "suppress"]
    };
    let allowed: &[&str] = if field == "adBudget" {
        &["mode", "value"]
    } else {
        &["mode", "value", "sourceObserved"]
    };
    if let Some(extra) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(bad(
            key,
            format!(
                "{field}.{extra} is not a field of {field} (fields: {})",
                allowed.join(", ")
            ),
        ));
    }
    let mode = m
        .get("mode")
        .and_then(Value::as_str)
        .ok_or_else(|| bad(key, format!("{field}.mode is required")))?;
    if !modes.contains(&mode) {
        return Err(bad(
            key,
            format!("{field}.mode must be one of {}", modes.join(", ")),
        ));
    }
    if let Some(v) = m.get("value") {
        number_or_null(key, &format!("{field}.value"), v)?;
    }
    if let Some(v) = m.get("sourceObserved") {
        number_or_null(key, &format!("{field}.sourceObserved"), v)?;
    }
    if mode == "replace" && m.get("value").is_none_or(Value::is_null) {
        return Err(bad(key, format!("{field}: mode replace needs a value")));
    }
    Ok(())
}

fn must_match(key: &Key, m: &Map<String, Value>, field: &str, expected: &str) -> Result<()> {
    match m.get(field) {
        None => Ok(()),
        Some(Value::String(s)) if s == expected => Ok(()),
        Some(other) => Err(bad(
            key,
            format!("{field} is {other} but the key says {expected}"),
        )),
    }
}

fn month_row(key: &Key, m: &Map<String, Value>) -> Result<()> {
    must_match(key, m, "scopeId", &key.scope.render())?;
    must_match(key, m, "month", key.month.as_deref().unwrap_or_default())?;
    for (k, v) in m {
        match k.as_str() {
            "scopeId" | "month" => {}
            "sales" | "units" | "adSpend" | "adBudget" | "dspSpend" => measure(key, k, v)?,
            "status" => {
                if !matches!(v.as_str(), Some("auto" | "final" | "draft")) {
                    return Err(bad(key, "status must be auto, final or draft".into()));
                }
            }
            "note" => {
                if !(v.is_string() || v.is_null()) {
                    return Err(bad(key, "note must be a string".into()));
                }
            }
            other => return Err(bad(key, format!("'{other}' is not a month-row field"))),
        }
    }
    Ok(())
}

fn values(key: &Key, m: &Map<String, Value>, field: &str) -> Result<()> {
    let Some(v) = m.get(field) else { return Ok(()) };
    let Value::Array(items) = v else {
        return Err(bad(key, format!("{field} must be an array of strings")));
    };
    if items.len() > 100 {
        return Err(bad(
            key,
            format!("{field} holds {} values; the limit is 100", items.len()),
        ));
    }
    if items
        .iter()
        .any(|i| i.as_str().is_none_or(|s| s.trim().is_empty()))
    {
        return Err(bad(key, format!("{field} must hold non-empty strings")));
    }
    Ok(())
}

fn scope_def(key: &Key, m: &Map<String, Value>) -> Result<()> {
    must_match(key, m, "id", key.scope.sub.as_deref().unwrap_or_default())?;
    if let Some(v) = m.get("merchantId")
        && v.as_i64() != Some(key.scope.merchant)
        && v.as_str() != Some(key.scope.merchant.to_string().as_str())
    {
        return Err(bad(
            key,
            format!("merchantId is {v} but the key says {}", key.scope.merchant),
        ));
    }
    for (k, v) in m {
        match k.as_str() {
            "id" | "merchantId" | "itemValues" | "campaignValues" | "scopeId" => {}
            "kind" => {
                if !matches!(v.as_str(), Some("sub_brand" | "item_group")) {
                    return Err(bad(key, "kind must be sub_brand or item_group".into()));
                }
            }
            "name" => {
                if !v
                    .as_str()
                    .is_some_and(|s| !s.trim().is_empty() && s.len() <= 200)
                {
                    return Err(bad(key, "name must be 1-200 characters".into()));
                }
            }
            other => {
                return Err(bad(
                    key,
                    format!("'{other}' is not a field of a sub-brand definition"),
                ));
            }
        }
    }
    must_match(key, m, "scopeId", &key.scope.render())?;
    values(key, m, "itemValues")?;
    values(key, m, "campaignValues")
}

/// Checks a written document and returns its fields without the service's stamps.
pub fn validate(key: &Key, doc: &Value) -> Result<Map<String, Value>> {
    let Value::Object(m) = doc else {
        return Err(bad(key, "doc must be an object, or null to delete".into()));
    };
    let m: Map<String, Value> = m
        .iter()
        .filter(|(k, _)| !STAMPS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    match key.kind {
        DocKind::Override => month_row(key, &m)?,
        DocKind::ScopeDef => scope_def(key, &m)?,
        DocKind::Account => must_match(key, &m, "scopeId", &key.scope.render())?,
    }
    Ok(m)
}

/// What the stored document becomes: omitted fields keep their value, `inherit` (month
/// rows) and `null` (other fields) clear one. Stamps are not part of the content.
pub fn merge(
    key: &Key,
    stored: Option<&Map<String, Value>>,
    write: &Map<String, Value>,
) -> Result<Map<String, Value>> {
    let mut out = stored.cloned().unwrap_or_default();
    for s in STAMPS {
        out.remove(*s);
    }
    for (k, v) in write {
        let clears = v.is_null()
            || (MEASURES.iter().any(|(f, _)| f == k)
                && v.get("mode").and_then(Value::as_str) == Some("inherit"));
        if clears {
            out.remove(k);
        } else {
            out.insert(k.clone(), v.clone());
        }
    }
    out.insert("scopeId".into(), key.scope.render().into());
    match key.kind {
        DocKind::Override => {
            out.insert("month".into(), key.month.clone().unwrap_or_default().into());
        }
        DocKind::ScopeDef => {
            out.insert(
                "id".into(),
                key.scope.sub.clone().unwrap_or_default().into(),
            );
            out.insert("merchantId".into(), key.scope.merchant.into());
            for side in ["itemValues", "campaignValues"] {
                out.entry(side).or_insert_with(|| Value::Array(Vec::new()));
            }
            if !out.get("kind").is_some_and(Value::is_string)
                || !out.get("name").is_some_and(Value::is_string)
            {
                return Err(bad(
                    key,
                    "a sub-brand definition needs kind and name".into(),
                ));
            }
        }
        DocKind::Account => {}
    }
    Ok(out)
}

/// The stored document with the service's stamps.
pub fn stamped(
    content: &Map<String, Value>,
    kind: DocKind,
    version: i64,
    at: &str,
    actor: &str,
    created: Option<&str>,
) -> Value {
    let mut d = content.clone();
    d.insert("version".into(), version.into());
    d.insert("updatedAt".into(), at.into());
    d.insert("actor".into(), actor.into());
    if kind == DocKind::ScopeDef {
        d.insert("createdAt".into(), created.unwrap_or(at).into());
    }
    Value::Object(d)
}

/// The content of a stored document (stamps removed).
pub fn content(stored: &Value) -> Map<String, Value> {
    let mut m = stored.as_object().cloned().unwrap_or_default();
    for s in STAMPS {
        m.remove(*s);
    }
    m
}

/// The change-log rows of a month-row change: `(field, before, after)` for each measure or
/// the status that changed.
pub fn changes(
    before: Option<&Map<String, Value>>,
    after: Option<&Map<String, Value>>,
) -> Vec<(&'static str, Value, Value)> {
    let get = |m: Option<&Map<String, Value>>, f: &str| {
        m.and_then(|m| m.get(f)).cloned().unwrap_or(Value::Null)
    };
    MEASURES
        .iter()
        .copied()
        .chain(std::iter::once(("status", "status")))
        .filter_map(|(f, name)| {
            let (b, a) = (get(before, f), get(after, f));
            (b != a).then_some((name, b, a))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key() -> Key {
        Key::parse("fb:override:src:acme:1:2026-03-01").unwrap()
    }

    #[test]
    fn month_row_rules() {
        let k = key();
        assert!(validate(&k, &json!({"sales": {"mode": "replace", "value": 10, "sourceObserved": 8}, "status": "draft"})).is_ok());
        for bad in [
            json!({"sales": {"mode": "replace"}}),
            json!({"sales": {"mode": "boost", "value": 1}}),
            json!({"dspSpend": {"mode": "suppress"}}),
            json!({"adBudget": {"mode": "replace", "value": 1, "sourceObserved": 2}}),
            json!({"status": "done"}),
            json!({"month": "2026-04-01"}),
            json!({"scopeId": "src:acme:2"}),
            json!({"colour": "red"}),
            json!({"units": {"mode": "replace", "value": "ten"}}),
            json!([1]),
        ] {
            assert_eq!(
                validate(&k, &bad).unwrap_err().kind,
                Kind::BadParams,
                "{bad}"
            );
        }
        // Stamps sent by a caller are ignored.
        let w = validate(
            &k,
            &json!({"version": 99, "actor": "someone-else", "note": "x"}),
        )
        .unwrap();
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn merge_keeps_omitted_and_inherit_clears() {
        let k = key();
        let first = merge(
            &k,
            None,
            &validate(
                &k,
                &json!({"sales": {"mode": "replace", "value": 5}, "units": {"mode": "suppress"}}),
            )
            .unwrap(),
        )
        .unwrap();
        let second = merge(
            &k,
            Some(&first),
            &validate(
                &k,
                &json!({"units": {"mode": "inherit"}, "status": "final"}),
            )
            .unwrap(),
        )
        .unwrap();
        assert_eq!(second["sales"]["value"], 5);
        assert!(second.get("units").is_none());
        let log = changes(Some(&first), Some(&second));
        let fields: Vec<&str> = log.iter().map(|c| c.0).collect();
        assert_eq!(fields, ["units", "status"]);
    }
}
