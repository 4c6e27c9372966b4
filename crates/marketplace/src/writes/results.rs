//! The provider's answer to a committed write, per item (docs/writes.md): a success with the entity
//! id, or the provider's own refusal of that item triaged as `bad_request` with its words under
//! `amazon`. The answer shapes differ by API (`ItemAnswer`); the index each names is the item's
//! place in the request as sent, mapped back to its place in the plan.

use serde::Serialize;
use serde_json::{Value, json};

use super::items::id_text;
use crate::catalog::{ItemAnswer, Operation, WriteSpec};
use crate::triage::provider_error;

/// What became of one planned item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The provider applied it.
    Succeeded,
    /// The provider refused it (its words in `error`).
    Failed,
    /// Its entity moved after the preview: not sent.
    Drifted,
    /// Sent, but the provider's answer does not mention it, or the answer was lost: check the
    /// entity before planning again.
    Unknown,
}

/// One item's result.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemResult {
    pub index: usize,
    pub outcome: Outcome,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_id: Option<String>,
    /// The triage (docs/errors.md) of the provider's refusal: `kind`, `source`, `retryable`, `amazon`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// For a drifted item: the values at preview and now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub now: Option<Value>,
}

impl ItemResult {
    pub fn new(index: usize, outcome: Outcome) -> Self {
        Self {
            index,
            outcome,
            entity_id: None,
            error: None,
            before: None,
            now: None,
        }
    }
}

/// An item's refusal in the failure envelope's terms (docs/errors.md).
fn refusal(status: u16, code: &str, message: &str) -> Value {
    json!({
        "kind": "bad_request",
        "source": "amazon_rejected",
        "retryable": false,
        "message": if message.is_empty() { code.to_owned() } else { message.to_owned() },
        "amazon": { "status": status, "code": code, "message": message },
        "marketplace_error_code": code,
    })
}

/// A bulk error item's code and message (`errors[0].errorValue.<kind>.{reason,message}`).
fn bulk_error(e: &Value) -> (String, String) {
    let first = &e["errors"][0];
    let detail = first["errorValue"]
        .as_object()
        .and_then(|o| o.values().next())
        .cloned()
        .unwrap_or(Value::Null);
    let code = detail["reason"]
        .as_str()
        .or(first["errorType"].as_str())
        .unwrap_or("")
        .to_owned();
    let message = detail["message"].as_str().unwrap_or("").to_owned();
    if code.is_empty() && message.is_empty() {
        return provider_error(e);
    }
    (code, message)
}

/// The entity id a success item names.
fn success_id(w: &WriteSpec, s: &Value) -> Option<String> {
    id_text(&s[&w.entity_id]).or_else(|| {
        s.as_object()?
            .iter()
            .find(|(k, v)| k.ends_with("Id") && id_text(v).is_some())
            .and_then(|(_, v)| id_text(v))
    })
}

/// One item's result from its entry in the answer.
fn from_entry(w: &WriteSpec, plan_index: usize, status: u16, ok: bool, e: &Value) -> ItemResult {
    let mut r = ItemResult::new(
        plan_index,
        if ok {
            Outcome::Succeeded
        } else {
            Outcome::Failed
        },
    );
    if ok {
        r.entity_id = success_id(w, e);
    } else {
        let (code, message) = match e.get("errors") {
            Some(_) => bulk_error(e),
            None => provider_error(e),
        };
        r.error = Some(refusal(status, &code, &message));
    }
    r
}

/// Maps the provider's answer to one result per sent item; `sent[i]` is the plan index of the
/// i-th item sent.
pub fn map(
    op: &Operation,
    w: &WriteSpec,
    status: u16,
    body: &Value,
    sent: &[usize],
) -> Vec<ItemResult> {
    let mut out: Vec<Option<ItemResult>> = vec![None; sent.len()];
    let mut put = |i: Option<usize>, ok: bool, e: &Value| {
        if let Some(i) = i.filter(|i| *i < sent.len()) {
            out[i] = Some(from_entry(w, sent[i], status, ok, e));
        }
    };
    let index = |e: &Value, key: &str| e[key].as_u64().map(|n| n as usize);
    match w.answer {
        ItemAnswer::Bulk => {
            let lists = &body[op.items_key.as_deref().unwrap_or("items")];
            for (ok, list) in [(true, "success"), (false, "error")] {
                for e in lists[list].as_array().into_iter().flatten() {
                    put(index(e, "index"), ok, e);
                }
            }
        }
        ItemAnswer::Positional => {
            for (i, e) in body.as_array().into_iter().flatten().enumerate() {
                put(Some(i), e["code"] == "SUCCESS", e);
            }
        }
        ItemAnswer::Indexed => {
            for (k, v) in body.as_object().into_iter().flatten() {
                let ok = k.ends_with("SuccessResults");
                if !ok && !k.ends_with("ErrorResults") {
                    continue;
                }
                for e in v.as_array().into_iter().flatten() {
                    put(index(e, "targetRequestIndex"), ok, e);
                }
            }
        }
        ItemAnswer::Responses => {
            for (i, e) in body["responses"]
                .as_array()
                .into_iter()
                .flatten()
                .enumerate()
            {
                // a made rule's id is in the rule it echoes
                let named = e.get("optimizationRule").filter(|r| r.is_object());
                match (e["code"] == "SUCCESS", named) {
                    (true, Some(rule)) => put(Some(i), true, rule),
                    (ok, _) => put(Some(i), ok, e),
                }
            }
        }
        ItemAnswer::Whole => put(Some(0), true, body),
    }
    out.into_iter()
        .enumerate()
        .map(|(i, r)| r.unwrap_or_else(|| ItemResult::new(sent[i], Outcome::Unknown)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ads, find};

    #[test]
    fn a_rules_answer_names_each_made_rule_and_each_refusal_in_request_order() {
        let op = find(ads(), "sp.create_optimization_rules").unwrap();
        let w = op.write.as_ref().unwrap();
        let body = json!({ "responses": [
            { "code": "SUCCESS", "optimizationRule": { "ruleName": "a", "optimizationRuleId": "r-1" } },
            { "code": "INVALID_ARGUMENT", "details": "value is a whole percent from 1 to 100" },
        ] });
        let r = map(op, w, 207, &body, &[3, 5]);
        assert_eq!((r[0].index, r[0].outcome), (3, Outcome::Succeeded));
        assert_eq!(r[0].entity_id.as_deref(), Some("r-1"));
        assert_eq!((r[1].index, r[1].outcome), (5, Outcome::Failed));
        let e = r[1].error.as_ref().unwrap();
        assert_eq!(e["amazon"]["code"], "INVALID_ARGUMENT");
        assert!(
            e["message"].as_str().unwrap().contains("whole percent"),
            "{e}"
        );
        // an association names the rule it was about
        let op = find(ads(), "sp.associate_optimization_rules").unwrap();
        let w = op.write.as_ref().unwrap();
        let body = json!({ "responses": [{ "code": "SUCCESS", "optimizationRuleId": "r-1" }] });
        let r = map(op, w, 207, &body, &[0, 1]);
        assert_eq!(r[0].entity_id.as_deref(), Some("r-1"));
        assert_eq!(
            r[1].outcome,
            Outcome::Unknown,
            "an item the answer leaves out"
        );
    }
}
