//! A write's items as its request carries them (an array under the items key, the body
//! itself, ids in an archive filter, bare ids under the items key, or the one body), and the request body rebuilt from a
//! subset of them, in the same shape.

use pp_core::{Error, Result};
use serde_json::{Map, Value, json};

use crate::catalog::{ItemsIn, Operation, WriteSpec};

/// The value at a dotted path (`creative.asins`), if present and not null.
pub fn at<'a>(item: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(item, |v, k| v.get(k))
        .filter(|v| !v.is_null())
}

/// An id as text, whether the provider wrote it as a number or a string.
pub fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// The items of a write call's `body` (and, for a single-item operation, its parameters).
pub fn read(op: &Operation, w: &WriteSpec, args: &Map<String, Value>) -> Result<Vec<Value>> {
    let body = args.get("body").filter(|b| !b.is_null());
    let items_key = op.items_key.as_deref().unwrap_or("items");
    let list = match w.items {
        ItemsIn::Key => body
            .and_then(|b| b.get(items_key))
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| needs(op, format!("query.body.{items_key}, an array of items")))?,
        ItemsIn::Array => body
            .and_then(Value::as_array)
            .cloned()
            .ok_or_else(|| needs(op, "query.body, an array of items".into()))?,
        ItemsIn::IdFilter => {
            let filter = format!("{}Filter", w.entity_id);
            body.and_then(|b| b.get(&filter))
                .and_then(|f| f.get("include"))
                .and_then(Value::as_array)
                .ok_or_else(|| needs(op, format!("query.body.{filter}.include, an array of ids")))?
                .iter()
                .map(|id| json!({ (w.entity_id.as_str()): id }))
                .collect()
        }
        ItemsIn::Ids => body
            .and_then(|b| b.get(items_key))
            .and_then(Value::as_array)
            .ok_or_else(|| needs(op, format!("query.body.{items_key}, an array of ids")))?
            .iter()
            .map(|id| match id {
                Value::String(_) | Value::Number(_) => Ok(json!({ (w.entity_id.as_str()): id })),
                _ => Err(Error::invalid_request(format!(
                    "{} takes ids (strings) in query.body.{items_key}",
                    op.id
                ))),
            })
            .collect::<Result<_>>()?,
        ItemsIn::Single => {
            let mut item = body.cloned().unwrap_or_else(|| json!({}));
            let Some(obj) = item.as_object_mut() else {
                return Err(needs(op, "query.body, one JSON object".into()));
            };
            // a path parameter names the entity (amc.update_audience …)
            for p in op.params.iter().filter(|p| p.location == "path") {
                if let Some(v) = args.get(&p.name) {
                    obj.insert(p.name.clone(), v.clone());
                }
            }
            vec![item]
        }
    };
    let cap = op.max_items.unwrap_or(200) as usize;
    if list.is_empty() || list.len() > cap {
        return Err(Error::invalid_request(format!(
            "{} takes 1 to {cap} items per call; this call has {}",
            op.id,
            list.len()
        ))
        .with_field("max_items", cap)
        .with_field("items_count", list.len())
        .with_fix("Split the items over several calls; commit one item first and read its result before the rest."));
    }
    if let Some(i) = list.iter().position(|v| !v.is_object()) {
        return Err(Error::invalid_request(format!(
            "item {i} of {} is not a JSON object",
            op.id
        )));
    }
    Ok(list)
}

fn needs(op: &Operation, what: String) -> Error {
    Error::invalid_request(format!("{} needs {what}", op.id)).with_fix(
        "GET /api/marketplace/ads/operations shows the operation's items key and requiredItemFields.",
    )
}

/// The request body carrying exactly `items`, in the shape the call sent them (other body
/// fields kept).
pub fn body(
    op: &Operation,
    w: &WriteSpec,
    original: Option<&Value>,
    items: &[Value],
    path_params: &[String],
) -> Option<Value> {
    let items_key = op.items_key.as_deref().unwrap_or("items");
    match w.items {
        ItemsIn::Key => {
            let mut b = original.cloned().unwrap_or_else(|| json!({}));
            b[items_key] = Value::Array(items.to_vec());
            Some(b)
        }
        ItemsIn::Array => Some(Value::Array(items.to_vec())),
        ItemsIn::IdFilter => {
            let mut b = original.cloned().unwrap_or_else(|| json!({}));
            let ids: Vec<Value> = items.iter().map(|i| i[&w.entity_id].clone()).collect();
            b[format!("{}Filter", w.entity_id)] = json!({ "include": ids });
            Some(b)
        }
        ItemsIn::Ids => {
            let mut b = original.cloned().unwrap_or_else(|| json!({}));
            let ids: Vec<Value> = items.iter().map(|i| i[&w.entity_id].clone()).collect();
            b[items_key] = Value::Array(ids);
            Some(b)
        }
        ItemsIn::Single if !op.takes_body() => None,
        ItemsIn::Single => {
            let mut item = items.first().cloned().unwrap_or_else(|| json!({}));
            if let Some(o) = item.as_object_mut() {
                for p in path_params {
                    o.remove(p);
                }
            }
            Some(item)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ads, find};

    #[test]
    fn bare_ids_are_items_and_go_back_as_bare_ids() {
        let op = find(ads(), "sp.associate_optimization_rules").unwrap();
        let w = op.write.as_ref().unwrap();
        let args = json!({ "campaignId": "7", "body": { "optimizationRuleIds": ["a", "b"] } });
        let items = read(op, w, args.as_object().unwrap()).unwrap();
        assert_eq!(items[1], json!({ "optimizationRuleId": "b" }));
        let rebuilt = body(op, w, args.get("body"), &items[1..], &[]).unwrap();
        assert_eq!(rebuilt, json!({ "optimizationRuleIds": ["b"] }));
        let bad = json!({ "body": { "optimizationRuleIds": [{ "id": "a" }] } });
        assert!(read(op, w, bad.as_object().unwrap()).is_err());
    }
}
