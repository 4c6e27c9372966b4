//! Sponsored Products schedule bid rules: `POST /sp/rules/optimization` makes rules (v1 takes
//! one, v2 up to 300; 207 with one `responses` entry per rule in request order),
//! `POST /sp/rules/optimization/search` finds them (by id, name, category, status, or the
//! campaigns they are associated with) and `POST /sp/campaigns/{campaignId}/optimizationRules`
//! associates rules with a campaign (207 per rule id). The sandbox serves the one kind of rule
//! dayparting uses — `BID`/`SCHEDULE`: raise bids by a whole 1–100 percent over a daily or
//! weekly recurrence with at most one time range — and refuses the others per item, as it
//! refuses a malformed one. A campaign holds at most [`MAX_PER_CAMPAIGN`] rules.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use rusqlite::{OptionalExtension, params};
use serde_json::{Value, json};

use super::sp::CAMPAIGNS;
use super::{ads_err, answer, body, media_of, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::reports::now_ms;
use crate::sim::Sim;
use crate::store::random_uuid;

const V1: &str = "application/vnd.spoptimizationrules.v1+json";
const V2: &str = "application/vnd.spoptimizationrules.v2+json";

/// Schedule rules one campaign may hold.
pub const MAX_PER_CAMPAIGN: usize = 20;

macro_rules! ops {
    ($($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::Ads, rate: 5.0, burst: 10.0, error_media: None };)*
    };
}

ops! {
    CREATE = "sp.createOptimizationRules";
    SEARCH = "sp.searchOptimizationRules";
    ASSOCIATE = "sp.associateOptimizationRulesToCampaign";
}

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/sp/rules/optimization", op(sim, &CREATE, post(create)))
        .route(
            "/sp/rules/optimization/search",
            op(sim, &SEARCH, post(search)),
        )
        .route(
            "/sp/campaigns/{campaign_id}/optimizationRules",
            op(sim, &ASSOCIATE, post(associate)),
        )
}

const DAYS: [&str; 7] = [
    "MONDAY",
    "TUESDAY",
    "WEDNESDAY",
    "THURSDAY",
    "FRIDAY",
    "SATURDAY",
    "SUNDAY",
];

/// An `HH:00` time's hour, within `range`.
fn hour(v: &Value, range: std::ops::RangeInclusive<u32>) -> Option<u32> {
    let s = v.as_str()?;
    let (h, m) = s.split_once(':')?;
    (h.len() == 2 && m == "00")
        .then(|| h.parse::<u32>().ok())
        .flatten()
        .filter(|h| range.contains(h))
}

/// The rule as stored, or why it is refused.
fn valid_rule(r: &Value) -> Result<Value, String> {
    let text = |k: &str| r[k].as_str().unwrap_or("");
    if text("ruleName").trim().is_empty() || text("ruleName").len() > 255 {
        return Err("ruleName is required (1 to 255 characters)".into());
    }
    if text("ruleCategory") != "BID" || text("ruleSubCategory") != "SCHEDULE" {
        return Err("the sandbox serves schedule bid rules only: ruleCategory BID, ruleSubCategory SCHEDULE".into());
    }
    let status = match r.get("status") {
        None | Some(Value::Null) => "ENABLED",
        Some(s) => s.as_str().unwrap_or(""),
    };
    if !["ENABLED", "PAUSED"].contains(&status) {
        return Err("status is ENABLED or PAUSED".into());
    }
    let a = &r["action"];
    let d = &a["actionDetails"];
    if !matches!(a.get("actionType"), None | Some(Value::Null)) && a["actionType"] != "ADOPT" {
        return Err("action.actionType is ADOPT".into());
    }
    if d["actionOperator"] != "INCREMENT" || d["actionUnit"] != "PERCENT" {
        return Err(
            "a schedule rule only raises bids: actionOperator INCREMENT, actionUnit PERCENT".into(),
        );
    }
    let value = match &d["value"] {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.parse::<f64>().ok(),
        _ => None,
    };
    let value = value
        .filter(|v| v.fract() == 0.0 && (1.0..=100.0).contains(v))
        .ok_or("action.actionDetails.value is a whole percent from 1 to 100")?;
    let rec = &r["recurrence"];
    let days: Vec<&str> = match rec.get("daysOfWeek") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(a)) => a.iter().map(|d| d.as_str().unwrap_or("")).collect(),
        Some(_) => return Err("recurrence.daysOfWeek is a list of days".into()),
    };
    match rec["type"].as_str() {
        Some("WEEKLY") if days.is_empty() => {
            return Err("a WEEKLY recurrence names its daysOfWeek".into());
        }
        Some("WEEKLY") | Some("DAILY") => {}
        _ => return Err("recurrence.type is DAILY or WEEKLY".into()),
    }
    if let Some(d) = days.iter().find(|d| !DAYS.contains(d)) {
        return Err(format!("'{d}' is not a day of the week"));
    }
    if (1..days.len()).any(|i| days[..i].contains(&days[i])) {
        return Err("recurrence.daysOfWeek names a day twice".into());
    }
    let times = rec["timesOfDay"].as_array().cloned().unwrap_or_default();
    if times.len() > 1 {
        return Err("recurrence.timesOfDay takes at most one time range".into());
    }
    for t in &times {
        match (hour(&t["startTime"], 0..=23), hour(&t["endTime"], 1..=24)) {
            (Some(s), Some(e)) if s < e => {}
            _ => {
                return Err(
                    "a time range is startTime before endTime, each HH:00 (00:00 to 24:00)".into(),
                );
            }
        }
    }
    let instant = |k: &str| {
        rec["duration"][k]
            .as_str()
            .map(|s| {
                chrono::DateTime::parse_from_rfc3339(s)
                    .map_err(|_| format!("recurrence.duration.{k} is an ISO 8601 time"))
            })
            .transpose()
    };
    let start = instant("startTime")?.ok_or("recurrence.duration.startTime is required")?;
    if instant("endTime")?.is_some_and(|end| end <= start) {
        return Err("recurrence.duration.endTime is after its startTime".into());
    }
    let mut kept = r.clone();
    kept["status"] = status.into();
    kept["action"]["actionType"] = "ADOPT".into();
    kept["action"]["actionDetails"]["value"] = json!(value);
    Ok(kept)
}

async fn create(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Result<Response, SimError> {
    let media = media_of(&headers, &[V1, V2])?;
    let profile = profile(&sim, &c, &headers)?;
    let b = body(&bytes)?;
    let cap = if media == V1 { 1 } else { 300 };
    let rules = b["optimizationRules"]
        .as_array()
        .filter(|a| (1..=cap).contains(&a.len()))
        .ok_or_else(|| {
            ads_err(
                400,
                "400",
                format!("optimizationRules holds 1 to {cap} rules"),
            )
        })?;
    let mut responses = Vec::new();
    for r in rules {
        responses.push(match valid_rule(r) {
            Ok(mut rule) => {
                let id = random_uuid();
                rule["optimizationRuleId"] = id.clone().into();
                sim.store.with(|c| {
                    c.execute(
                        "INSERT INTO optimization_rules (id, profile, name, body, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                        params![id, profile, rule["ruleName"].as_str(), rule.to_string(), now_ms()],
                    )
                })?;
                json!({ "code": "SUCCESS", "optimizationRule": rule })
            }
            Err(details) => json!({ "code": "INVALID_ARGUMENT", "details": details }),
        });
    }
    Ok(answer(207, media, &json!({ "responses": responses })))
}

/// The values of an `EXACT_MATCH` or `BROAD_MATCH` filter, and whether a value passes it.
fn passes(filter: &Value, value: &str) -> bool {
    let Some(values) = filter["values"].as_array() else {
        return true;
    };
    let broad = filter["filterType"] == "BROAD_MATCH";
    values.iter().filter_map(Value::as_str).any(|v| {
        if broad {
            value.to_lowercase().contains(&v.to_lowercase())
        } else {
            value == v
        }
    })
}

/// The profile's rules, oldest first, and the campaigns each is associated with.
fn rules_of(sim: &Sim, profile: i64) -> Result<Vec<(Value, Vec<String>)>, SimError> {
    sim.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT r.body, (SELECT group_concat(a.campaign) FROM optimization_rule_campaigns a WHERE a.rule = r.id)
             FROM optimization_rules r WHERE r.profile = ?1 ORDER BY r.created_at, r.id",
        )?;
        st.query_map([profile], |row| {
            let body: String = row.get(0)?;
            let campaigns: Option<String> = row.get(1)?;
            Ok((
                serde_json::from_str(&body).unwrap_or(Value::Null),
                campaigns
                    .map(|s| s.split(',').map(str::to_owned).collect())
                    .unwrap_or_default(),
            ))
        })?
        .collect()
    })
}

async fn search(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Result<Response, SimError> {
    let media = media_of(&headers, &[V1, V2])?;
    let profile = profile(&sim, &c, &headers)?;
    let b = if bytes.is_empty() {
        json!({})
    } else {
        body(&bytes)?
    };
    let size = b["maxResults"]
        .as_u64()
        .or(b["pageSize"].as_u64())
        .unwrap_or(100);
    if !(1..=300).contains(&size) {
        return Err(ads_err(400, "400", "maxResults is 1 to 300"));
    }
    let from: usize = match b["nextToken"].as_str() {
        Some(t) => t
            .parse()
            .map_err(|_| ads_err(400, "400", "nextToken is not one this search gave"))?,
        None => 0,
    };
    let f = &b["optimizationRuleFilter"];
    let campaigns = &b["campaignFilter"]["campaignId"];
    let found: Vec<Value> = rules_of(&sim, profile)?
        .into_iter()
        .filter(|(r, on)| {
            let field = |k: &str| r[k].as_str().unwrap_or("").to_owned();
            passes(&f["optimizationRuleId"], &field("optimizationRuleId"))
                && passes(&f["ruleName"], &field("ruleName"))
                && passes(&f["ruleCategory"], &field("ruleCategory"))
                && passes(&f["ruleSubCategory"], &field("ruleSubCategory"))
                && passes(&f["ruleStatus"], &field("status"))
                && (campaigns["values"].is_null() || on.iter().any(|c| passes(campaigns, c)))
        })
        .map(|(r, _)| r)
        .collect();
    let page: Vec<Value> = found
        .iter()
        .skip(from)
        .take(size as usize)
        .cloned()
        .collect();
    let mut out = json!({ "optimizationRules": page });
    if from + (size as usize) < found.len() {
        out["nextToken"] = (from + size as usize).to_string().into();
    }
    Ok(answer(200, media, &out))
}

async fn associate(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    Path(campaign_id): Path<String>,
    bytes: Bytes,
) -> Result<Response, SimError> {
    let media = media_of(&headers, &[V1])?;
    let profile = profile(&sim, &c, &headers)?;
    if CAMPAIGNS.get(&sim, profile, &campaign_id)?.is_none() {
        return Err(ads_err(
            400,
            "INVALID_ARGUMENT",
            format!("Campaign {campaign_id} is not a Sponsored Products campaign of this profile"),
        ));
    }
    let b = body(&bytes)?;
    let ids = b["optimizationRuleIds"]
        .as_array()
        .filter(|a| (1..=25).contains(&a.len()))
        .ok_or_else(|| ads_err(400, "400", "optimizationRuleIds holds 1 to 25 rule ids"))?;
    let mut responses = Vec::new();
    for id in ids {
        let id = id.as_str().unwrap_or("");
        let outcome = sim.store.with(|c| {
            let held: Option<i64> = c
                .query_row(
                    "SELECT profile FROM optimization_rules WHERE id = ?1",
                    [id],
                    |r| r.get(0),
                )
                .optional()?;
            if held != Some(profile) {
                return Ok(Err(("NOT_FOUND", format!("no rule {id} in this profile"))));
            }
            let on: i64 = c.query_row(
                "SELECT COUNT(*) FROM optimization_rule_campaigns WHERE campaign = ?1 AND profile = ?2",
                params![campaign_id, profile],
                |r| r.get(0),
            )?;
            let already: i64 = c.query_row(
                "SELECT COUNT(*) FROM optimization_rule_campaigns WHERE campaign = ?1 AND rule = ?2",
                params![campaign_id, id],
                |r| r.get(0),
            )?;
            if already == 0 && on as usize >= MAX_PER_CAMPAIGN {
                return Ok(Err((
                    "LIMIT_EXCEEDED",
                    format!("campaign {campaign_id} already holds {MAX_PER_CAMPAIGN} schedule rules"),
                )));
            }
            c.execute(
                "INSERT OR IGNORE INTO optimization_rule_campaigns (rule, campaign, profile, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![id, campaign_id, profile, now_ms()],
            )?;
            Ok(Ok(()))
        })?;
        responses.push(match outcome {
            Ok(()) => json!({ "code": "SUCCESS", "optimizationRuleId": id }),
            Err((code, details)) => {
                json!({ "code": code, "details": details, "optimizationRuleId": id })
            }
        });
    }
    Ok(answer(207, media, &json!({ "responses": responses })))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule() -> Value {
        json!({
            "ruleName": "evenings", "ruleCategory": "BID", "ruleSubCategory": "SCHEDULE", "status": "ENABLED",
            "action": { "actionType": "ADOPT", "actionDetails": { "actionOperator": "INCREMENT", "actionUnit": "PERCENT", "value": "25" } },
            "recurrence": { "type": "WEEKLY", "daysOfWeek": ["MONDAY", "FRIDAY"], "timesOfDay": [{ "startTime": "18:00", "endTime": "22:00" }],
                "duration": { "startTime": "2026-12-01T00:00:00Z" } },
        })
    }

    #[test]
    fn a_schedule_rule_raises_bids_by_a_whole_percent_over_one_time_range() {
        let kept = valid_rule(&rule()).unwrap();
        assert_eq!(kept["action"]["actionDetails"]["value"], json!(25.0));
        for (path, bad) in [
            ("/action/actionDetails/actionOperator", json!("DECREMENT")),
            ("/action/actionDetails/value", json!(0)),
            ("/action/actionDetails/value", json!(101)),
            ("/action/actionDetails/value", json!(12.5)),
            ("/recurrence/daysOfWeek", json!(["MONDAY", "MONDAY"])),
            ("/recurrence/daysOfWeek", json!([])),
            (
                "/recurrence/timesOfDay",
                json!([{ "startTime": "22:00", "endTime": "18:00" }]),
            ),
            (
                "/recurrence/timesOfDay",
                json!([{ "startTime": "18:30", "endTime": "22:00" }]),
            ),
            (
                "/recurrence/timesOfDay",
                json!([{ "startTime": "01:00", "endTime": "02:00" }, { "startTime": "03:00", "endTime": "04:00" }]),
            ),
            ("/recurrence/duration", json!({})),
            ("/ruleSubCategory", json!("PERFORMANCE")),
        ] {
            let mut r = rule();
            *r.pointer_mut(path).unwrap() = bad.clone();
            assert!(valid_rule(&r).is_err(), "{path} = {bad} passed");
        }
        let mut whole_day = rule();
        whole_day["recurrence"]["timesOfDay"] =
            json!([{ "startTime": "00:00", "endTime": "24:00" }]);
        assert!(valid_rule(&whole_day).is_ok());
    }
}
