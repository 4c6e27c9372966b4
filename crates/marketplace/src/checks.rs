//! The catalog's `checks`: rules the gateway runs on a call's arguments before anything is
//! sent, so a request the provider would refuse for its shape fails here as `invalid_request`
//! with the rule in plain words (docs/marketplace.md inbound searches, docs/marketplace.md promotion filters, docs/writes.md Reporting
//! v1 accounts). Rules are data in the catalog files; this module only knows the rule kinds.

use std::collections::BTreeMap;

use pp_core::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// At least one of `params`, unless a paging argument in `unless` is given.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OneOf {
    pub params: Vec<String>,
    #[serde(default)]
    pub unless: BTreeMap<String, String>,
}

/// The rules of one operation.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checks {
    /// Parameter → value shape (`date-time-offset`: ISO 8601 with a time zone offset).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub formats: BTreeMap<String, String>,
    /// List parameter → most values it takes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub max_values: BTreeMap<String, usize>,
    /// Numeric parameter → inclusive bounds.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ranges: BTreeMap<String, [i64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub one_of: Option<OneOf>,
    /// Body array field → inclusive bounds on its length.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub body_arrays: BTreeMap<String, [usize; 2]>,
    /// Body fields that must be present.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub body_required: Vec<String>,
    /// Body array field → the id fields whose first present value must differ between entries.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub distinct: BTreeMap<String, Vec<String>>,
}

fn values(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().flat_map(values).collect(),
        Value::String(s) => s.split(',').map(str::to_owned).collect(),
        Value::Null => Vec::new(),
        other => vec![other.to_string()],
    }
}

impl Checks {
    /// Runs every rule on the call's `args` (operation parameters and `body`).
    pub fn run(&self, op: &str, args: &Map<String, Value>) -> Result<()> {
        for (name, format) in &self.formats {
            let Some(v) = args.get(name).and_then(Value::as_str) else {
                continue;
            };
            if format == "date-time-offset" && chrono::DateTime::parse_from_rfc3339(v).is_err() {
                return Err(Error::invalid_request(format!(
                    "{name} must be an ISO 8601 date-time with a time zone offset, such as 2026-10-01T00:00:00Z or 2026-10-01T00:00:00-07:00; got '{v}'"
                )));
            }
        }
        for (name, max) in &self.max_values {
            let n = args.get(name).map(values).unwrap_or_default().len();
            if n > *max {
                return Err(Error::invalid_request(format!(
                    "{name} takes at most {max} values on {op}; got {n}"
                )));
            }
        }
        for (name, [lo, hi]) in &self.ranges {
            if let Some(v) = args.get(name).filter(|v| !v.is_null()) {
                let n = v
                    .as_i64()
                    .or_else(|| v.as_str().and_then(|s| s.parse().ok()));
                if !n.is_some_and(|n| (*lo..=*hi).contains(&n)) {
                    return Err(Error::invalid_request(format!(
                        "{name} must be a whole number from {lo} to {hi}; got {v}"
                    )));
                }
            }
        }
        if let Some(rule) = &self.one_of {
            let paging = rule
                .unless
                .iter()
                .any(|(k, want)| args.get(k).and_then(Value::as_str) == Some(want));
            let given = rule
                .params
                .iter()
                .any(|p| args.get(p).is_some_and(|v| !values(v).is_empty()));
            if !paging && !given {
                return Err(Error::invalid_request(format!(
                    "{op} needs {} (also when searching by date range)",
                    rule.params.join(" or ")
                )));
            }
        }
        for (field, [lo, hi]) in &self.body_arrays {
            let n = args
                .get("body")
                .and_then(|b| b.get(field))
                .and_then(Value::as_array)
                .map(Vec::len)
                .unwrap_or(0);
            if n < *lo || n > *hi {
                let want = if lo == hi {
                    format!("exactly {lo}")
                } else {
                    format!("{lo} to {hi}")
                };
                return Err(Error::invalid_request(format!(
                    "body.{field} must hold {want} entries on {op}; it holds {n}"
                )));
            }
        }
        let body = args.get("body");
        for field in &self.body_required {
            if body.and_then(|b| b.get(field)).is_none_or(Value::is_null) {
                return Err(Error::invalid_request(format!(
                    "{op} needs body.{field}; nothing was sent"
                )));
            }
        }
        for (field, keys) in &self.distinct {
            let entries = body
                .and_then(|b| b.get(field))
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let mut seen = std::collections::HashSet::new();
            for e in entries {
                let id = keys.iter().find_map(|k| e.get(k).filter(|v| !v.is_null()));
                if let Some(id) = id
                    && !seen.insert(id.to_string())
                {
                    return Err(Error::invalid_request(format!(
                        "body.{field} names {id} twice on {op}: each entry must be a distinct account"
                    )));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ads, find, spapi};
    use serde_json::json;

    fn run(op: &str, api: &[crate::catalog::Operation], args: Value) -> Result<()> {
        let op = find(api, op).unwrap();
        op.checks
            .as_ref()
            .unwrap()
            .run(&op.id, args.as_object().unwrap())
    }

    #[test]
    fn each_rule_kind_refuses_what_it_names() {
        let p = "promotions.search_promotions";
        assert!(
            run(
                p,
                spapi(),
                json!({"startDateAfter": "2026-01-01T00:00:00Z"})
            )
            .is_ok()
        );
        let e = run(p, spapi(), json!({"startDateAfter": "2026-01-01T00:00:00"})).unwrap_err();
        assert!(e.message().contains("offset"), "{}", e.message());
        assert!(run(p, spapi(), json!({"asins": vec!["a"; 11]})).is_err());
        assert!(run(p, spapi(), json!({"asins": "a,b"})).is_ok());
        assert!(run(p, spapi(), json!({"limit": 101})).is_err());
        assert!(run(p, spapi(), json!({"limit": "20"})).is_ok());
        let s = "inbound.get_shipments";
        assert!(run(s, spapi(), json!({"QueryType": "DATE_RANGE"})).is_err());
        assert!(
            run(
                s,
                spapi(),
                json!({"QueryType": "NEXT_TOKEN", "NextToken": "t"})
            )
            .is_ok()
        );
        assert!(
            run(
                s,
                spapi(),
                json!({"QueryType": "SHIPMENT", "ShipmentIdList": ["F1"]})
            )
            .is_ok()
        );
        let v = "reporting_v1.create_report";
        let accounts = |n: usize| json!({"body": {"reports": [{}], "accessRequestedAccounts": vec![json!({"advertiserAccountId": "1"}); n]}});
        let distinct = |n: usize| json!({"body": {"reports": [{}], "accessRequestedAccounts": (0..n).map(|i| json!({"advertiserAccountId": i.to_string()})).collect::<Vec<_>>()}});
        assert!(run(v, ads(), distinct(5)).is_ok());
        assert!(run(v, ads(), distinct(6)).is_err());
        assert!(run(v, ads(), accounts(0)).is_err());
        // five entries naming one account are one account, not five (docs/writes.md)
        let e = run(v, ads(), accounts(2)).unwrap_err();
        assert!(e.message().contains("distinct"), "{}", e.message());
        let x = "amc.create_workflow_execution";
        let e = run(x, ads(), json!({"body": {"workflowId": "w"}})).unwrap_err();
        assert!(e.message().contains("timeWindowType"), "{}", e.message());
        assert!(
            run(
                x,
                ads(),
                json!({"body": {"timeWindowType": "MOST_RECENT_DAY"}})
            )
            .is_ok()
        );
    }
}
