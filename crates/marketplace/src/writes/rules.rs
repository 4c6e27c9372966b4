//! The dry run's per-item checks, run before anything reaches the provider: every
//! `requiredItemFields` entry (docs/marketplace.md), the fields an ad type or operation refuses (docs/writes.md), the
//! only fields a bid adjustment may carry, the bid-adjustment modifiers (docs/writes.md: placements per
//! program, whole percentages, no lowering on Sponsored Products), `state` on creates
//! (`PAUSED` unless `ENABLED` is asked for, docs/writes.md), and whether the item will serve and bill.

use serde::Serialize;
use serde_json::Value;

use super::items::at;
use crate::catalog::{Modifier, Operation, RequiredState, WriteAction, WriteSpec};

/// One thing wrong with an item; any such problem keeps the dry run from issuing a plan.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Problem {
    /// The item field (a dotted path) at fault.
    pub field: String,
    /// `required`, `forbidden`, `not_allowed`, `placement`, `percentage`, `state`,
    /// `entity_not_found`, `entity_state` and the audience SQL rules (`writes::audience`).
    pub rule: &'static str,
    pub message: String,
}

/// What the dry run found for one item.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub index: usize,
    pub problems: Vec<Problem>,
    /// What the gateway did or noticed (a defaulted state, a modifier the write removes …).
    pub notes: Vec<String>,
    /// Whether the item will serve and bill as soon as the commit lands.
    pub serves: bool,
    /// The entity an update or delete names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity_id: Option<String>,
    /// The entity as the provider has it now (updates and deletes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current: Option<Value>,
    /// The account's write-policy rules the item breaks (a commit with any is refused).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub policy: Vec<crate::policy::PolicyFinding>,
}

const SP_PLACEMENTS: &[&str] = &[
    "PLACEMENT_TOP",
    "PLACEMENT_PRODUCT_PAGE",
    "PLACEMENT_REST_OF_SEARCH",
    "SITE_AMAZON_BUSINESS",
];
const SB_PLACEMENTS: &[&str] = &["TOP_OF_SEARCH", "HOME", "DETAIL_PAGE", "OTHER"];
/// The provider's bounds on a modifier's percentage.
const MAX_PERCENT: i64 = 900;
const SB_MIN_PERCENT: i64 = -99;

fn problem(field: impl Into<String>, rule: &'static str, message: impl Into<String>) -> Problem {
    Problem {
        field: field.into(),
        rule,
        message: message.into(),
    }
}

/// Checks one item (defaulting `state` on creates) and says what it will do.
pub fn check(op: &Operation, w: &WriteSpec, index: usize, item: &mut Value) -> Finding {
    let mut f = Finding {
        index,
        problems: Vec::new(),
        notes: Vec::new(),
        serves: false,
        entity_id: None,
        current: None,
        policy: Vec::new(),
    };
    if w.audience_query {
        f.problems.extend(super::audience::problems(item));
    }
    let required = op.required_item_fields.as_deref().unwrap_or_default();
    if w.action == WriteAction::Create
        && required.iter().any(|r| r == "state")
        && at(item, "state").is_none()
    {
        item["state"] = "PAUSED".into();
        f.notes.push(
            "state was not given: the item is created PAUSED (send state ENABLED to serve at once)"
                .into(),
        );
    }
    for field in required {
        if at(item, field).is_none() {
            f.problems.push(problem(
                field,
                "required",
                format!("{field} is a required item field of {}", op.id),
            ));
        }
    }
    for field in &w.forbidden_item_fields {
        if at(item, field).is_some() {
            f.problems.push(problem(
                field,
                "forbidden",
                format!("{} refuses {field} (docs/writes.md)", op.id),
            ));
        }
    }
    if !w.only_item_fields.is_empty()
        && let Some(o) = item.as_object()
    {
        for k in o.keys().filter(|k| !w.only_item_fields.contains(k)) {
            f.problems.push(problem(
                k,
                "not_allowed",
                format!(
                    "{} changes only {}: send {k} through the entity's own update",
                    op.id,
                    w.only_item_fields.join(" and ")
                ),
            ));
        }
    }
    if let Some(m) = w.modifier {
        modifiers(m, item, &mut f.problems);
    }
    let state = at(item, "state").and_then(Value::as_str).unwrap_or("");
    if w.action == WriteAction::Create
        && !state.is_empty()
        && !["ENABLED", "PAUSED", "enabled", "paused"].contains(&state)
    {
        f.problems.push(problem(
            "state",
            "state",
            "state on a create is ENABLED or PAUSED",
        ));
    }
    if w.action != WriteAction::Delete && state.eq_ignore_ascii_case("ENABLED") {
        f.serves = true;
        f.notes.push(
            "state ENABLED: this serves and bills as soon as the commit lands, where its ad group and campaign are enabled"
                .into(),
        );
    }
    f
}

/// The modifier object's rules (docs/writes.md bid adjustments).
fn modifiers(m: Modifier, item: &Value, out: &mut Vec<Problem>) {
    let (object, lists, placements, min): (&str, [&str; 2], &[&str], i64) = match m {
        Modifier::Sp => (
            "dynamicBidding",
            ["placementBidding", "shopperCohortBidding"],
            SP_PLACEMENTS,
            0,
        ),
        Modifier::Sb => (
            "bidding",
            ["bidAdjustmentsByPlacement", "shopperCohortBidAdjustments"],
            SB_PLACEMENTS,
            SB_MIN_PERCENT,
        ),
    };
    let Some(obj) = item.get(object) else {
        return;
    };
    if !obj.is_object() {
        out.push(problem(
            object,
            "required",
            format!("{object} must be an object"),
        ));
        return;
    }
    for (n, list) in lists.iter().enumerate() {
        let Some(entries) = obj.get(*list).filter(|v| !v.is_null()) else {
            continue;
        };
        let Some(entries) = entries.as_array() else {
            out.push(problem(
                format!("{object}.{list}"),
                "not_allowed",
                format!("{object}.{list} must be an array"),
            ));
            continue;
        };
        let mut seen = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let at_field = format!("{object}.{list}[{i}]");
            if n == 0 {
                let p = e["placement"].as_str().unwrap_or("");
                if m == Modifier::Sb && p == "SITE_AMAZON_BUSINESS" {
                    out.push(problem(
                        format!("{at_field}.placement"),
                        "placement",
                        "SITE_AMAZON_BUSINESS is a Sponsored Products modifier: Sponsored Brands has no business-buyer modifier",
                    ));
                } else if !placements.contains(&p) {
                    out.push(problem(
                        format!("{at_field}.placement"),
                        "placement",
                        format!("placement must be one of {}", placements.join(", ")),
                    ));
                } else if seen.contains(&p) {
                    out.push(problem(
                        format!("{at_field}.placement"),
                        "placement",
                        format!("{p} is given twice"),
                    ));
                }
                seen.push(p);
            }
            percentage(m, &at_field, &e["percentage"], min, out);
        }
    }
}

fn percentage(m: Modifier, field: &str, v: &Value, min: i64, out: &mut Vec<Problem>) {
    let field = format!("{field}.percentage");
    let whole = v
        .as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64));
    match whole {
        None => out.push(problem(
            field,
            "percentage",
            "percentage is a whole number (0 means no adjustment)",
        )),
        Some(p) if p < 0 && m == Modifier::Sp => out.push(problem(
            field,
            "percentage",
            format!("{p}: a Sponsored Products modifier only raises a bid (0 to {MAX_PERCENT})"),
        )),
        Some(p) if p < min || p > MAX_PERCENT => out.push(problem(
            field,
            "percentage",
            format!("{p} is outside {min} to {MAX_PERCENT}"),
        )),
        Some(_) => {}
    }
}

/// The fields of an update item whose current values a commit compares with the preview's:
/// what the item changes (ids aside), and `state`.
pub fn compared_fields(w: &WriteSpec, item: &Value) -> Vec<String> {
    const IDS: &[&str] = &["campaignId", "adGroupId", "keywordId", "targetId", "adId"];
    let mut fields: Vec<String> = item
        .as_object()
        .map(|o| {
            o.keys()
                .filter(|k| !IDS.contains(&k.as_str()) && **k != w.entity_id)
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    if !fields.iter().any(|f| f == "state") {
        fields.push("state".into());
    }
    fields
}

/// The refusal of a write to an entity that is not in a state the operation may change.
pub fn required_state(need: &RequiredState, entity: &Value) -> Option<Problem> {
    let now = entity[need.field.as_str()].as_str().unwrap_or("(none)");
    (!need.values.iter().any(|v| v == now)).then(|| {
        problem(
            need.field.clone(),
            "entity_state",
            format!(
                "its {} is {now}, and {}; nothing is sent",
                need.field, need.why
            ),
        )
    })
}
