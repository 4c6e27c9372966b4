//! Sponsored Products v3: campaigns, ad groups and keywords — list (`POST …/list`), create
//! (`POST`), update (`PUT`) and delete (`POST …/delete`), each create/update/delete answering
//! 207 with per-item `success` and `error`. Campaigns carry `dynamicBidding`; an update that
//! sends it replaces the whole object.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{post, put};
use serde_json::{Map, Value, json};

use super::entities::{Kind, bulk, item_error};
use super::{answer, body, media, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

const CAMPAIGN_MEDIA: &str = "application/vnd.spCampaign.v3+json";
const AD_GROUP_MEDIA: &str = "application/vnd.spAdGroup.v3+json";
const KEYWORD_MEDIA: &str = "application/vnd.spKeyword.v3+json";

fn s(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::String(_) => v.clone(),
        v => v.to_string().into(),
    }
}

pub static CAMPAIGNS: Kind = Kind {
    name: "sp_campaign",
    id_field: "campaignId",
    plural: "campaigns",
    singular: "campaign",
    error_type: "CAMPAIGN",
    world_sql:
        "SELECT CampaignID, Name, TargetingType, State, DailyBudget, StartDate FROM ads_campaign
                WHERE ProfileID = ?1 AND AdProduct = 'SPONSORED_PRODUCTS'",
    shape: |r: &Map<String, Value>| {
        json!({
            "campaignId": s(&r["CampaignID"]),
            "name": r["Name"],
            "targetingType": r["TargetingType"],
            "state": r["State"],
            "budget": { "budgetType": "DAILY", "budget": r["DailyBudget"] },
            "startDate": r["StartDate"],
            "dynamicBidding": { "strategy": "LEGACY_FOR_SALES", "placementBidding": [] },
        })
    },
};

pub static AD_GROUPS: Kind = Kind {
    name: "sp_ad_group",
    id_field: "adGroupId",
    plural: "adGroups",
    singular: "adGroup",
    error_type: "AD_GROUP",
    world_sql: "SELECT g.AdGroupID, g.CampaignID, g.Name, g.DefaultBid, g.State FROM ads_ad_group g
                JOIN ads_campaign c ON c.CampaignID = g.CampaignID AND c.SellerID = g.SellerID
                WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_PRODUCTS'",
    shape: |r: &Map<String, Value>| {
        json!({
            "adGroupId": s(&r["AdGroupID"]),
            "campaignId": s(&r["CampaignID"]),
            "name": r["Name"],
            "defaultBid": r["DefaultBid"],
            "state": r["State"],
        })
    },
};

pub static KEYWORDS: Kind = Kind {
    name: "sp_keyword",
    id_field: "keywordId",
    plural: "keywords",
    singular: "keyword",
    error_type: "KEYWORD",
    world_sql: "SELECT t.TargetingID, t.CampaignID, t.AdGroupID, t.Targeting, t.MatchType, t.Bid, t.State FROM ads_targeting t
                JOIN ads_campaign c ON c.CampaignID = t.CampaignID AND c.SellerID = t.SellerID
                WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_PRODUCTS' AND t.TargetingType = 'KEYWORD'",
    shape: |r: &Map<String, Value>| {
        json!({
            "keywordId": s(&r["TargetingID"]),
            "campaignId": s(&r["CampaignID"]),
            "adGroupId": s(&r["AdGroupID"]),
            "keywordText": r["Targeting"],
            "matchType": r["MatchType"],
            "bid": r["Bid"],
            "state": r["State"],
        })
    },
};

macro_rules! ops {
    ($($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::Ads, rate: 10.0, burst: 10.0 };)*
    };
}

ops! {
    LIST_CAMPAIGNS = "sp.listCampaigns";
    CREATE_CAMPAIGNS = "sp.createCampaigns";
    UPDATE_CAMPAIGNS = "sp.updateCampaigns";
    DELETE_CAMPAIGNS = "sp.deleteCampaigns";
    LIST_AD_GROUPS = "sp.listAdGroups";
    LIST_KEYWORDS = "sp.listKeywords";
    CREATE_KEYWORDS = "sp.createKeywords";
    UPDATE_KEYWORDS = "sp.updateKeywords";
    DELETE_KEYWORDS = "sp.deleteKeywords";
}

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/sp/campaigns/list",
            op(sim, &LIST_CAMPAIGNS, post(list_campaigns)),
        )
        .route(
            "/sp/campaigns",
            op(sim, &CREATE_CAMPAIGNS, post(create_campaigns)).merge(op(
                sim,
                &UPDATE_CAMPAIGNS,
                put(update_campaigns),
            )),
        )
        .route(
            "/sp/campaigns/delete",
            op(sim, &DELETE_CAMPAIGNS, post(delete_campaigns)),
        )
        .route(
            "/sp/adGroups/list",
            op(sim, &LIST_AD_GROUPS, post(list_ad_groups)),
        )
        .route(
            "/sp/keywords/list",
            op(sim, &LIST_KEYWORDS, post(list_keywords)),
        )
        .route(
            "/sp/keywords",
            op(sim, &CREATE_KEYWORDS, post(create_keywords)).merge(op(
                sim,
                &UPDATE_KEYWORDS,
                put(update_keywords),
            )),
        )
        .route(
            "/sp/keywords/delete",
            op(sim, &DELETE_KEYWORDS, post(delete_keywords)),
        )
}

/// What every SP call starts with: the media type, the profile and the body.
fn start(
    sim: &Sim,
    c: &Caller,
    headers: &HeaderMap,
    bytes: &[u8],
    media_type: &str,
) -> Result<(i64, Value), SimError> {
    media(headers, media_type)?;
    let p = profile(sim, c, headers)?;
    let b = if bytes.is_empty() {
        json!({})
    } else {
        body(bytes)?
    };
    Ok((p, b))
}

fn items<'a>(kind: &Kind, b: &'a Value) -> Result<&'a Vec<Value>, SimError> {
    let list = b[kind.plural].as_array().ok_or_else(|| {
        SimError::new(400, "400", format!("{} must be an array", kind.plural))
            .for_family(Family::Ads)
    })?;
    if list.is_empty() || list.len() > 1000 {
        return Err(SimError::new(
            400,
            "400",
            format!("{} must hold 1 to 1000 items", kind.plural),
        )
        .for_family(Family::Ads));
    }
    Ok(list)
}

async fn list_of(
    kind: &Kind,
    media_type: &'static str,
    sim: Arc<Sim>,
    c: Caller,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, media_type)?;
    Ok(answer(200, media_type, &kind.list(&sim, p, &body)?))
}

async fn list_campaigns(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    list_of(&CAMPAIGNS, CAMPAIGN_MEDIA, sim, c, h, b).await
}

async fn list_ad_groups(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    list_of(&AD_GROUPS, AD_GROUP_MEDIA, sim, c, h, b).await
}

async fn list_keywords(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    list_of(&KEYWORDS, KEYWORD_MEDIA, sim, c, h, b).await
}

const STATES: &[&str] = &["ENABLED", "PAUSED"];

fn check_state(i: usize, v: &Value) -> Result<(), Value> {
    match v.as_str() {
        Some(st) if STATES.contains(&st) => Ok(()),
        _ => Err(item_error(
            i,
            "malformedValueError",
            "INVALID_ARGUMENT",
            "state must be ENABLED or PAUSED".into(),
            None,
        )),
    }
}

fn check_bid(i: usize, v: &Value) -> Result<(), Value> {
    match v.as_f64() {
        Some(b) if (0.02..=1000.0).contains(&b) => Ok(()),
        Some(b) => Err(item_error(
            i,
            "rangeError",
            if b < 0.02 { "TOO_LOW" } else { "TOO_HIGH" },
            format!("bid {b} is outside 0.02 to 1000"),
            None,
        )),
        None => Err(item_error(
            i,
            "malformedValueError",
            "INVALID_ARGUMENT",
            "bid must be a number".into(),
            None,
        )),
    }
}

fn missing(i: usize, field: &str) -> Value {
    item_error(
        i,
        "missingValueError",
        "MISSING_VALUE",
        format!("{field} is required"),
        None,
    )
}

fn new_keyword(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    for f in [
        "campaignId",
        "adGroupId",
        "keywordText",
        "matchType",
        "state",
    ] {
        if k.get(f).is_none_or(Value::is_null) {
            return Err(missing(i, f));
        }
    }
    check_state(i, &k["state"])?;
    if !["EXACT", "PHRASE", "BROAD"].contains(&k["matchType"].as_str().unwrap_or("")) {
        return Err(item_error(
            i,
            "malformedValueError",
            "INVALID_ARGUMENT",
            "matchType must be EXACT, PHRASE or BROAD".into(),
            None,
        ));
    }
    let group_id = s(&k["adGroupId"]);
    let group = AD_GROUPS
        .get(sim, p, group_id.as_str().unwrap_or(""))
        .map_err(|_| missing(i, "adGroupId"))?
        .filter(|g| g["campaignId"] == s(&k["campaignId"]))
        .ok_or_else(|| {
            item_error(
                i,
                "entityNotFoundError",
                "ENTITY_NOT_FOUND",
                "no such ad group in that campaign".into(),
                Some(("AD_GROUP", group_id.as_str().unwrap_or(""))),
            )
        })?;
    let bid = k
        .get("bid")
        .filter(|b| !b.is_null())
        .cloned()
        .unwrap_or_else(|| group["defaultBid"].clone());
    check_bid(i, &bid)?;
    let id = sim
        .store
        .next("sp-keyword", 7_000_000_000)
        .map_err(|_| missing(i, "keywordId"))?;
    Ok(json!({
        "keywordId": id.to_string(),
        "campaignId": s(&k["campaignId"]),
        "adGroupId": group_id,
        "keywordText": k["keywordText"],
        "matchType": k["matchType"],
        "bid": bid,
        "state": k["state"],
    }))
}

fn new_campaign(sim: &Sim, i: usize, k: &Value) -> Result<Value, Value> {
    for f in ["name", "targetingType", "state", "budget"] {
        if k.get(f).is_none_or(Value::is_null) {
            return Err(missing(i, f));
        }
    }
    check_state(i, &k["state"])?;
    if !["MANUAL", "AUTO"].contains(&k["targetingType"].as_str().unwrap_or("")) {
        return Err(item_error(
            i,
            "malformedValueError",
            "INVALID_ARGUMENT",
            "targetingType must be MANUAL or AUTO".into(),
            None,
        ));
    }
    if k["budget"]["budget"].as_f64().is_none_or(|b| b < 1.0) {
        return Err(item_error(
            i,
            "rangeError",
            "TOO_LOW",
            "budget.budget must be at least 1".into(),
            None,
        ));
    }
    let id = sim
        .store
        .next("sp-campaign", 8_000_000_000)
        .map_err(|_| missing(i, "campaignId"))?;
    Ok(json!({
        "campaignId": id.to_string(),
        "name": k["name"],
        "targetingType": k["targetingType"],
        "state": k["state"],
        "budget": { "budgetType": "DAILY", "budget": k["budget"]["budget"] },
        "startDate": k.get("startDate").cloned().unwrap_or_else(|| sim.world.last_day.succ_opt().unwrap_or_default().to_string().into()),
        "dynamicBidding": k.get("dynamicBidding").cloned().unwrap_or_else(|| json!({ "strategy": "LEGACY_FOR_SALES", "placementBidding": [] })),
    }))
}

/// Runs `make` over each item, stores the successes, answers 207.
fn apply(
    kind: &Kind,
    media_type: &'static str,
    sim: &Sim,
    p: i64,
    list: &[Value],
    make: impl Fn(usize, &Value) -> Result<Value, Value>,
) -> Result<Response, SimError> {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match make(i, item) {
            Ok(v) => {
                kind.put(sim, p, &v)?;
                ok.push((i, v));
            }
            Err(e) => errors.push(e),
        }
    }
    Ok(answer(207, media_type, &bulk(kind, ok, errors)))
}

/// An update of an existing entity: only `fields` may change; each is checked by `check`.
fn changed(
    kind: &Kind,
    sim: &Sim,
    p: i64,
    i: usize,
    item: &Value,
    fields: &[&str],
) -> Result<Value, Value> {
    let id = s(&item[kind.id_field]);
    let id = id.as_str().ok_or_else(|| missing(i, kind.id_field))?;
    let mut current = kind.get(sim, p, id).ok().flatten().ok_or_else(|| {
        item_error(
            i,
            "entityNotFoundError",
            "ENTITY_NOT_FOUND",
            format!("{} {id} not found", kind.singular),
            Some((kind.error_type, id)),
        )
    })?;
    if current["state"] == "ARCHIVED" {
        return Err(item_error(
            i,
            "entityStateError",
            "ENTITY_ARCHIVED",
            format!("{} {id} is archived", kind.singular),
            Some((kind.error_type, id)),
        ));
    }
    for f in fields {
        if let Some(v) = item.get(*f).filter(|v| !v.is_null()) {
            match *f {
                "state" => check_state(i, v)?,
                "bid" => check_bid(i, v)?,
                _ => {}
            }
            current[*f] = v.clone();
        }
    }
    Ok(current)
}

fn archive(
    kind: &Kind,
    sim: &Sim,
    p: i64,
    body: &Value,
    media_type: &'static str,
) -> Result<Response, SimError> {
    let ids: Vec<String> = body[format!("{}Filter", kind.id_field)]["include"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| s(v).as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    if ids.is_empty() {
        return Err(SimError::new(
            400,
            "400",
            format!("{}Filter.include is required", kind.id_field),
        )
        .for_family(Family::Ads));
    }
    let list: Vec<Value> = ids
        .iter()
        .map(|id| json!({ (kind.id_field): id }))
        .collect();
    apply(kind, media_type, sim, p, &list, |i, item| {
        let mut v = changed(kind, sim, p, i, item, &[])?;
        v["state"] = "ARCHIVED".into();
        Ok(v)
    })
}

async fn create_keywords(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, KEYWORD_MEDIA)?;
    apply(
        &KEYWORDS,
        KEYWORD_MEDIA,
        &sim,
        p,
        items(&KEYWORDS, &body)?,
        |i, k| new_keyword(&sim, p, i, k),
    )
}

async fn update_keywords(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, KEYWORD_MEDIA)?;
    apply(
        &KEYWORDS,
        KEYWORD_MEDIA,
        &sim,
        p,
        items(&KEYWORDS, &body)?,
        |i, k| changed(&KEYWORDS, &sim, p, i, k, &["state", "bid"]),
    )
}

async fn delete_keywords(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, KEYWORD_MEDIA)?;
    archive(&KEYWORDS, &sim, p, &body, KEYWORD_MEDIA)
}

async fn create_campaigns(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, CAMPAIGN_MEDIA)?;
    apply(
        &CAMPAIGNS,
        CAMPAIGN_MEDIA,
        &sim,
        p,
        items(&CAMPAIGNS, &body)?,
        |i, k| new_campaign(&sim, i, k),
    )
}

async fn update_campaigns(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, CAMPAIGN_MEDIA)?;
    apply(
        &CAMPAIGNS,
        CAMPAIGN_MEDIA,
        &sim,
        p,
        items(&CAMPAIGNS, &body)?,
        |i, k| {
            changed(
                &CAMPAIGNS,
                &sim,
                p,
                i,
                k,
                &["name", "state", "budget", "dynamicBidding", "endDate"],
            )
        },
    )
}

async fn delete_campaigns(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, CAMPAIGN_MEDIA)?;
    archive(&CAMPAIGNS, &sim, p, &body, CAMPAIGN_MEDIA)
}
