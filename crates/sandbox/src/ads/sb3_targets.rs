//! Sponsored Brands v3 product targets and negative targets, as the SB v3 document has them:
//! integer ids (each side numbered from its own start), `expressions` resolved into
//! `resolvedExpressions`, a `bid` only on a target that was given one (negative targets have
//! none), list filters (`TARGETING_STATE`, `CAMPAIGN_ID`, `AD_GROUP_ID`, `CREATIVE_TYPE`, each
//! at most once), and 200 answers whose success and error lists correlate by
//! `targetRequestIndex`. A negative target is named by `targetId` on update, as the provider
//! names it; a `negativeTargetId` is refused. Whole-request failures answer
//! `{ code, details }` as `application/vnd.sberror.v3.0+json`.

use serde_json::{Value, json};

use super::bulk::s;
use super::entities::Kind;
use crate::error::{Family, SimError};
use crate::sim::Sim;

/// One side of product targeting.
pub struct Side {
    pub kind: &'static Kind,
    /// The request and list key: `targets` or `negativeTargets`.
    pub key: &'static str,
    /// The first id this side hands out.
    pub first_id: i64,
    pub negative: bool,
    pub list_media: &'static str,
    pub create_media: &'static str,
    pub update_media: &'static str,
}

const NONE: &str = "SELECT NULL AS x WHERE ?1 IS NULL AND 0";

static TARGET_KIND: Kind = Kind {
    name: "sb_target",
    id_field: "targetId",
    plural: "targets",
    singular: "target",
    error_type: "TARGET",
    world_sql: NONE,
    shape: |_| Value::Null,
};
static NEGATIVE_KIND: Kind = Kind {
    name: "sb_negative_target",
    id_field: "targetId",
    plural: "negativeTargets",
    singular: "negativeTarget",
    error_type: "NEGATIVE_TARGET",
    world_sql: NONE,
    shape: |_| Value::Null,
};

pub static TARGETS: Side = Side {
    kind: &TARGET_KIND,
    key: "targets",
    first_id: 9_400_000_000,
    negative: false,
    list_media: "application/vnd.sblisttargetsresponse.v3+json",
    create_media: "application/vnd.sbcreatetargetsresponse.v3+json",
    update_media: "application/vnd.updatetargetsresponse.v3+json",
};
pub static NEGATIVE_TARGETS: Side = Side {
    kind: &NEGATIVE_KIND,
    key: "negativeTargets",
    first_id: 9_600_000_000,
    negative: true,
    list_media: "application/vnd.sblistnegativetargetsresponse.v3+json",
    // the SB v3 document names the create answer's media type so
    create_media: "application/vnd.sbcreatenegativetargetsrequest.v3+json",
    update_media: "application/vnd.updatenegativetargetsresponse.v3+json",
};

/// The media type of SB v3's whole-request errors.
pub const ERROR_MEDIA: &str = "application/vnd.sberror.v3.0+json";

/// A whole-request failure in SB v3's shape (its operations answer it in `ERROR_MEDIA`).
pub fn bad_request(details: impl Into<String>) -> SimError {
    SimError::new(400, "INVALID_ARGUMENT", details).for_family(Family::Ads)
}

const PREDICATES: &[&str] = &[
    "asinCategorySameAs",
    "asinBrandSameAs",
    "asinPriceLessThan",
    "asinPriceBetween",
    "asinPriceGreaterThan",
    "asinReviewRatingLessThan",
    "asinReviewRatingBetween",
    "asinReviewRatingGreaterThan",
    "asinSameAs",
];
const NEGATIVE_PREDICATES: &[&str] = &["asinBrandSameAs", "asinSameAs"];
const STATES: &[&str] = &["enabled", "paused", "archived"];

/// An id the request sent as a number (or a string of digits).
fn int(v: &Value) -> Option<i64> {
    v.as_i64()
        .or_else(|| v.as_str().and_then(|t| t.parse().ok()))
}

fn check_expressions(side: &Side, v: &Value) -> Result<Value, String> {
    let list = v
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or("expressions must be a non-empty array")?;
    let allowed = if side.negative {
        NEGATIVE_PREDICATES
    } else {
        PREDICATES
    };
    for e in list {
        let t = e["type"].as_str().unwrap_or("");
        if !allowed.contains(&t) {
            return Err(format!(
                "expression type {t:?} is not one of {}",
                allowed.join(", ")
            ));
        }
        if e["value"].as_str().is_none_or(str::is_empty) {
            return Err(format!("expression {t} needs a value"));
        }
    }
    Ok(Value::Array(list.clone()))
}

/// Copies the item's `bid` (if any) onto target `t`: positive, and never on a negative target.
fn set_bid(side: &Side, item: &Value, t: &mut Value) -> Result<(), String> {
    match (&item["bid"], side.negative) {
        (Value::Null, _) => Ok(()),
        (_, true) => Err("a negative target has no bid".into()),
        (b, false) if b.as_f64().is_some_and(|b| b > 0.0) => {
            t["bid"] = b.clone();
            Ok(())
        }
        (b, false) => Err(format!("bid must be a positive number, not {b}")),
    }
}

fn create_one(side: &Side, sim: &Sim, p: i64, item: &Value) -> Result<i64, String> {
    let group_id = int(&item["adGroupId"]).ok_or("adGroupId (an integer) is required")?;
    let group = super::sb::AD_GROUPS
        .get(sim, p, &group_id.to_string())
        .map_err(|e| e.message)?
        .ok_or_else(|| format!("adGroupId {group_id} not found"))?;
    let campaign_id = int(&group["campaignId"]).unwrap_or_default();
    if !item["campaignId"].is_null() && int(&item["campaignId"]) != Some(campaign_id) {
        return Err(format!(
            "ad group {group_id} is not in campaign {}",
            item["campaignId"]
        ));
    }
    let expressions = check_expressions(side, &item["expressions"])?;
    let id = sim
        .store
        .next(side.kind.name, side.first_id)
        .map_err(|e| e.message)?;
    let mut t = json!({ "targetId": id, "adGroupId": group_id, "campaignId": campaign_id,
                        "expressions": expressions, "resolvedExpressions": expressions, "state": "enabled" });
    set_bid(side, item, &mut t)?;
    side.kind.put(sim, p, &t).map_err(|e| e.message)?;
    Ok(id)
}

fn update_one(side: &Side, sim: &Sim, p: i64, item: &Value) -> Result<i64, String> {
    if item.get("negativeTargetId").is_some() {
        return Err("a negative target is identified by targetId, not negativeTargetId".into());
    }
    let id = int(&item["targetId"]).ok_or("targetId (an integer) is required")?;
    let group = int(&item["adGroupId"])
        .ok_or("adGroupId is required beside targetId on a Sponsored Brands target update")?;
    let mut t = side
        .kind
        .get(sim, p, &id.to_string())
        .map_err(|e| e.message)?
        .ok_or_else(|| format!("targetId {id} not found"))?;
    if int(&t["adGroupId"]) != Some(group) {
        return Err(format!("target {id} is not in ad group {group}"));
    }
    if let Some(st) = item.get("state").filter(|v| !v.is_null()) {
        let st = st.as_str().map(str::to_lowercase).unwrap_or_default();
        if !STATES.contains(&st.as_str()) {
            return Err(format!("state must be one of {}", STATES.join(", ")));
        }
        t["state"] = st.into();
    }
    set_bid(side, item, &mut t)?;
    side.kind.put(sim, p, &t).map_err(|e| e.message)?;
    Ok(id)
}

/// Creates (`create`) or updates the request's items; each answers on its own.
pub fn write(side: &Side, sim: &Sim, p: i64, b: &Value, create: bool) -> Result<Value, SimError> {
    let items = b[side.key]
        .as_array()
        .filter(|a| (1..=100).contains(&a.len()))
        .ok_or_else(|| bad_request(format!("{} must be an array of 1 to 100 items", side.key)))?;
    let (mut ok, mut bad) = (Vec::new(), Vec::new());
    for (i, item) in items.iter().enumerate() {
        let done = if create {
            create_one(side, sim, p, item)
        } else {
            update_one(side, sim, p, item)
        };
        match done {
            Ok(id) => ok.push(json!({ "targetId": id, "targetRequestIndex": i })),
            Err(details) => {
                let mut e = json!({ "targetRequestIndex": i, "code": "INVALID_ARGUMENT", "details": details });
                if let Some(id) = int(&item["targetId"]) {
                    e["targetId"] = id.into();
                }
                bad.push(e);
            }
        }
    }
    Ok(if create {
        json!({ "createTargetSuccessResults": ok, "createTargetErrorResults": bad })
    } else {
        json!({ "updateTargetSuccessResults": ok, "updateTargetErrorResults": bad })
    })
}

/// The ad groups of `p` holding a video ad: their targets are of creative type `video`, the
/// others' `productCollection`.
fn video_groups(sim: &Sim, p: i64) -> Result<Vec<i64>, SimError> {
    Ok(super::sb::ADS
        .all(sim, p)?
        .iter()
        .filter(|ad| ad["adType"].as_str().is_some_and(|t| t.contains("VIDEO")))
        .filter_map(|ad| int(&ad["adGroupId"]))
        .collect())
}

/// One list filter: the field it reads and the values it keeps.
fn filters(b: &Value) -> Result<Vec<(String, Vec<String>)>, SimError> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for f in b["filters"].as_array().into_iter().flatten() {
        let kind = f["filterType"].as_str().unwrap_or("");
        if ![
            "TARGETING_STATE",
            "CAMPAIGN_ID",
            "AD_GROUP_ID",
            "CREATIVE_TYPE",
        ]
        .contains(&kind)
        {
            return Err(bad_request(format!("unknown filterType {kind:?}")));
        }
        if out.iter().any(|(k, _)| k == kind) {
            return Err(bad_request(format!("filterType {kind} is given twice")));
        }
        let values: Vec<String> = f["values"]
            .as_array()
            .filter(|v| !v.is_empty())
            .ok_or_else(|| bad_request(format!("filter {kind} needs values")))?
            .iter()
            .map(|v| s(v).as_str().unwrap_or("").to_owned())
            .collect();
        out.push((kind.to_owned(), values));
    }
    Ok(out)
}

/// A page of the side's targets that pass the request's filters.
pub fn list(side: &Side, sim: &Sim, p: i64, b: &Value) -> Result<Value, SimError> {
    let filters = filters(b)?;
    let max = match &b["maxResults"] {
        Value::Null => 100,
        v => v
            .as_u64()
            .filter(|m| (1..=5000).contains(m))
            .ok_or_else(|| bad_request("maxResults must be from 1 to 5000"))? as usize,
    };
    let start: usize = match &b["nextToken"] {
        Value::Null => 0,
        v => v
            .as_str()
            .and_then(|t| t.strip_prefix("o."))
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| bad_request("nextToken is not one this API gave"))?,
    };
    // read once per list, not once per target
    let video = match filters.iter().any(|(k, _)| k == "CREATIVE_TYPE") {
        true => video_groups(sim, p)?,
        false => Vec::new(),
    };
    let mut kept = Vec::new();
    for t in side.kind.all(sim, p)? {
        let mut keep = true;
        for (kind, values) in &filters {
            let have = match kind.as_str() {
                "TARGETING_STATE" => t["state"].as_str().unwrap_or("").to_owned(),
                "CAMPAIGN_ID" => s(&t["campaignId"]).as_str().unwrap_or("").to_owned(),
                "AD_GROUP_ID" => s(&t["adGroupId"]).as_str().unwrap_or("").to_owned(),
                _ => match int(&t["adGroupId"]).is_some_and(|g| video.contains(&g)) {
                    true => "video".to_owned(),
                    false => "productCollection".to_owned(),
                },
            };
            keep &= values.contains(&have);
        }
        if keep {
            kept.push(t);
        }
    }
    let page: Vec<Value> = kept.iter().skip(start).take(max).cloned().collect();
    let mut out = json!({ (side.key): page });
    if start + max < kept.len() {
        out["nextToken"] = format!("o.{}", start + max).into();
    }
    Ok(out)
}
