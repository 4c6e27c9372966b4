//! Sponsored Products v3 on the bulk surfaces: campaigns (with `dynamicBidding`, replaced whole
//! by an update), ad groups, keywords, product targets, product ads, and negative keywords,
//! campaign negative keywords and negative targets; plus campaign budget usage.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde_json::{Map, Value, json};

use super::bulk::{self, Surface, check_bid, check_state, invalid, new_id, parent, require, s};
use super::entities::{Kind, item_error};
use super::{answer, body, media, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

macro_rules! kind {
    ($stat:ident, $name:literal, $id:literal, $plural:literal, $single:literal, $err:literal, $sql:expr, $shape:expr) => {
        pub static $stat: Kind = Kind {
            name: $name,
            id_field: $id,
            plural: $plural,
            singular: $single,
            error_type: $err,
            world_sql: $sql,
            shape: $shape,
        };
    };
}

kind!(
    CAMPAIGNS,
    "sp_campaign",
    "campaignId",
    "campaigns",
    "campaign",
    "CAMPAIGN",
    "SELECT CampaignID, Name, TargetingType, State, DailyBudget, StartDate FROM ads_campaign WHERE ProfileID = ?1 AND AdProduct = 'SPONSORED_PRODUCTS'",
    |r: &Map<String, Value>| json!({
        "campaignId": s(&r["CampaignID"]), "name": r["Name"], "targetingType": r["TargetingType"], "state": r["State"],
        "budget": { "budgetType": "DAILY", "budget": r["DailyBudget"] }, "startDate": r["StartDate"],
        "dynamicBidding": { "strategy": "LEGACY_FOR_SALES", "placementBidding": [] },
    })
);

kind!(AD_GROUPS, "sp_ad_group", "adGroupId", "adGroups", "adGroup", "AD_GROUP",
    "SELECT g.AdGroupID, g.CampaignID, g.Name, g.DefaultBid, g.State FROM ads_ad_group g
     JOIN ads_campaign c ON c.CampaignID = g.CampaignID AND c.SellerID = g.SellerID WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_PRODUCTS'",
    |r: &Map<String, Value>| json!({
        "adGroupId": s(&r["AdGroupID"]), "campaignId": s(&r["CampaignID"]), "name": r["Name"], "defaultBid": r["DefaultBid"], "state": r["State"],
    }));

kind!(KEYWORDS, "sp_keyword", "keywordId", "keywords", "keyword", "KEYWORD",
    "SELECT t.TargetingID, t.CampaignID, t.AdGroupID, t.Targeting, t.MatchType, t.Bid, t.State FROM ads_targeting t
     JOIN ads_campaign c ON c.CampaignID = t.CampaignID AND c.SellerID = t.SellerID
     WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_PRODUCTS' AND t.TargetingType = 'KEYWORD'",
    |r: &Map<String, Value>| json!({
        "keywordId": s(&r["TargetingID"]), "campaignId": s(&r["CampaignID"]), "adGroupId": s(&r["AdGroupID"]),
        "keywordText": r["Targeting"], "matchType": r["MatchType"], "bid": r["Bid"], "state": r["State"],
    }));

kind!(TARGETS, "sp_target", "targetId", "targetingClauses", "targetingClause", "TARGETING_CLAUSE",
    "SELECT t.TargetingID, t.CampaignID, t.AdGroupID, t.Targeting, t.Bid, t.State FROM ads_targeting t
     JOIN ads_campaign c ON c.CampaignID = t.CampaignID AND c.SellerID = t.SellerID
     WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_PRODUCTS' AND t.TargetingType = 'PRODUCT'",
    |r: &Map<String, Value>| json!({
        "targetId": s(&r["TargetingID"]), "campaignId": s(&r["CampaignID"]), "adGroupId": s(&r["AdGroupID"]),
        "expression": [{ "type": "ASIN_SAME_AS", "value": r["Targeting"] }],
        "resolvedExpression": [{ "type": "ASIN_SAME_AS", "value": r["Targeting"] }],
        "expressionType": "MANUAL", "bid": r["Bid"], "state": r["State"],
    }));

kind!(PRODUCT_ADS, "sp_product_ad", "adId", "productAds", "productAd", "PRODUCT_AD",
    "SELECT AdGroupID * 1000 + ROW_NUMBER() OVER (PARTITION BY AdGroupID ORDER BY AdvertisedASIN) AS AdID, CampaignID, AdGroupID, AdvertisedASIN, AdvertisedSKU
     FROM (SELECT DISTINCT CampaignID, AdGroupID, AdvertisedASIN, AdvertisedSKU FROM ads_advertised_product_daily WHERE ProfileID = ?1)",
    |r: &Map<String, Value>| json!({
        "adId": s(&r["AdID"]), "campaignId": s(&r["CampaignID"]), "adGroupId": s(&r["AdGroupID"]),
        "asin": r["AdvertisedASIN"], "sku": r["AdvertisedSKU"], "state": "ENABLED",
    }));

const NONE: &str = "SELECT NULL AS x WHERE ?1 IS NULL AND 0";

kind!(
    NEGATIVE_KEYWORDS,
    "sp_negative_keyword",
    "keywordId",
    "negativeKeywords",
    "negativeKeyword",
    "NEGATIVE_KEYWORD",
    NONE,
    |_| Value::Null
);
kind!(
    CAMPAIGN_NEGATIVE_KEYWORDS,
    "sp_campaign_negative_keyword",
    "keywordId",
    "campaignNegativeKeywords",
    "campaignNegativeKeyword",
    "CAMPAIGN_NEGATIVE_KEYWORD",
    NONE,
    |_| Value::Null
);
kind!(
    NEGATIVE_TARGETS,
    "sp_negative_target",
    "targetId",
    "negativeTargetingClauses",
    "negativeTargetingClause",
    "NEGATIVE_TARGETING_CLAUSE",
    NONE,
    |_| Value::Null
);

fn new_campaign(sim: &Sim, _p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(i, k, &["name", "targetingType", "state", "budget"])?;
    check_state(i, &k["state"])?;
    if !["MANUAL", "AUTO"].contains(&k["targetingType"].as_str().unwrap_or("")) {
        return Err(invalid(i, "targetingType must be MANUAL or AUTO"));
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
    Ok(json!({
        "campaignId": new_id(sim, i, "sp-campaign", 8_000_000_000)?,
        "name": k["name"], "targetingType": k["targetingType"], "state": k["state"],
        "budget": { "budgetType": "DAILY", "budget": k["budget"]["budget"] },
        "startDate": k.get("startDate").cloned().unwrap_or_else(|| sim.world().today().to_string().into()),
        "dynamicBidding": k.get("dynamicBidding").cloned().unwrap_or_else(|| json!({ "strategy": "LEGACY_FOR_SALES", "placementBidding": [] })),
    }))
}

fn new_ad_group(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(i, k, &["campaignId", "name", "state", "defaultBid"])?;
    check_state(i, &k["state"])?;
    check_bid(i, &k["defaultBid"])?;
    parent(sim, p, i, &CAMPAIGNS, &k["campaignId"])?;
    Ok(json!({
        "adGroupId": new_id(sim, i, "sp-ad-group", 8_500_000_000)?,
        "campaignId": s(&k["campaignId"]), "name": k["name"], "state": k["state"], "defaultBid": k["defaultBid"],
    }))
}

/// The ad group of an item, which must sit in the item's campaign.
fn group_of(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    let g = parent(sim, p, i, &AD_GROUPS, &k["adGroupId"])?;
    if g["campaignId"] != s(&k["campaignId"]) {
        let id = s(&k["adGroupId"]);
        return Err(item_error(
            i,
            "entityNotFoundError",
            "ENTITY_NOT_FOUND",
            "no such ad group in that campaign".into(),
            Some(("AD_GROUP", id.as_str().unwrap_or(""))),
        ));
    }
    Ok(g)
}

fn match_type(i: usize, v: &Value, allowed: &[&str]) -> Result<(), Value> {
    if allowed.contains(&v.as_str().unwrap_or("")) {
        Ok(())
    } else {
        Err(invalid(
            i,
            format!("matchType must be one of {}", allowed.join(", ")),
        ))
    }
}

fn new_keyword(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(
        i,
        k,
        &[
            "campaignId",
            "adGroupId",
            "keywordText",
            "matchType",
            "state",
        ],
    )?;
    check_state(i, &k["state"])?;
    match_type(i, &k["matchType"], &["EXACT", "PHRASE", "BROAD"])?;
    let g = group_of(sim, p, i, k)?;
    let bid = k
        .get("bid")
        .filter(|b| !b.is_null())
        .cloned()
        .unwrap_or_else(|| g["defaultBid"].clone());
    check_bid(i, &bid)?;
    Ok(json!({
        "keywordId": new_id(sim, i, "sp-keyword", 7_000_000_000)?,
        "campaignId": s(&k["campaignId"]), "adGroupId": s(&k["adGroupId"]), "keywordText": k["keywordText"],
        "matchType": k["matchType"], "bid": bid, "state": k["state"],
    }))
}

fn new_target(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(
        i,
        k,
        &[
            "campaignId",
            "adGroupId",
            "expression",
            "expressionType",
            "state",
        ],
    )?;
    check_state(i, &k["state"])?;
    let g = group_of(sim, p, i, k)?;
    let bid = k
        .get("bid")
        .filter(|b| !b.is_null())
        .cloned()
        .unwrap_or_else(|| g["defaultBid"].clone());
    check_bid(i, &bid)?;
    Ok(json!({
        "targetId": new_id(sim, i, "sp-target", 7_500_000_000)?,
        "campaignId": s(&k["campaignId"]), "adGroupId": s(&k["adGroupId"]), "expression": k["expression"],
        "resolvedExpression": resolved(&k["expression"]),
        "expressionType": k["expressionType"], "bid": bid, "state": k["state"],
    }))
}

fn new_product_ad(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(i, k, &["campaignId", "adGroupId", "state"])?;
    check_state(i, &k["state"])?;
    if k.get("sku").is_none_or(Value::is_null) && k.get("asin").is_none_or(Value::is_null) {
        return Err(bulk::missing(i, "sku or asin"));
    }
    group_of(sim, p, i, k)?;
    Ok(json!({
        "adId": new_id(sim, i, "sp-product-ad", 6_000_000_000)?,
        "campaignId": s(&k["campaignId"]), "adGroupId": s(&k["adGroupId"]), "sku": k["sku"], "asin": k["asin"], "state": k["state"],
    }))
}

fn new_negative_keyword(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(
        i,
        k,
        &[
            "campaignId",
            "adGroupId",
            "keywordText",
            "matchType",
            "state",
        ],
    )?;
    check_state(i, &k["state"])?;
    match_type(i, &k["matchType"], &["NEGATIVE_EXACT", "NEGATIVE_PHRASE"])?;
    group_of(sim, p, i, k)?;
    Ok(json!({
        "keywordId": new_id(sim, i, "sp-negative-keyword", 6_500_000_000)?,
        "campaignId": s(&k["campaignId"]), "adGroupId": s(&k["adGroupId"]), "keywordText": k["keywordText"], "matchType": k["matchType"], "state": k["state"],
    }))
}

fn new_campaign_negative_keyword(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(i, k, &["campaignId", "keywordText", "matchType", "state"])?;
    match_type(i, &k["matchType"], &["NEGATIVE_EXACT", "NEGATIVE_PHRASE"])?;
    if k["state"] != "ENABLED" {
        return Err(invalid(i, "campaign negative keywords are created ENABLED"));
    }
    parent(sim, p, i, &CAMPAIGNS, &k["campaignId"])?;
    Ok(json!({
        "keywordId": new_id(sim, i, "sp-campaign-negative-keyword", 6_600_000_000)?,
        "campaignId": s(&k["campaignId"]), "keywordText": k["keywordText"], "matchType": k["matchType"], "state": "ENABLED",
    }))
}

fn new_negative_target(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(i, k, &["campaignId", "adGroupId", "expression", "state"])?;
    check_state(i, &k["state"])?;
    group_of(sim, p, i, k)?;
    Ok(json!({
        "targetId": new_id(sim, i, "sp-negative-target", 6_700_000_000)?,
        "campaignId": s(&k["campaignId"]), "adGroupId": s(&k["adGroupId"]), "expression": k["expression"],
        "resolvedExpression": resolved(&k["expression"]), "state": k["state"],
    }))
}

/// The provider's reading of a targeting expression (the required `resolvedExpression`): the
/// same predicates, as the provider resolved them; the sandbox resolves each to itself.
fn resolved(expression: &Value) -> Value {
    match expression {
        Value::Array(items) => Value::Array(items.clone()),
        _ => Value::Array(Vec::new()),
    }
}

macro_rules! ops {
    ($($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::AdsEntity, rate: 10.0, burst: 10.0, error_media: None };)*
    };
}

ops! {
    LIST_CAMPAIGNS = "sp.listCampaigns"; CREATE_CAMPAIGNS = "sp.createCampaigns"; UPDATE_CAMPAIGNS = "sp.updateCampaigns"; DELETE_CAMPAIGNS = "sp.deleteCampaigns";
    LIST_AD_GROUPS = "sp.listAdGroups"; CREATE_AD_GROUPS = "sp.createAdGroups"; UPDATE_AD_GROUPS = "sp.updateAdGroups"; DELETE_AD_GROUPS = "sp.deleteAdGroups";
    LIST_KEYWORDS = "sp.listKeywords"; CREATE_KEYWORDS = "sp.createKeywords"; UPDATE_KEYWORDS = "sp.updateKeywords"; DELETE_KEYWORDS = "sp.deleteKeywords";
    LIST_TARGETS = "sp.listTargets"; CREATE_TARGETS = "sp.createTargets"; UPDATE_TARGETS = "sp.updateTargets"; DELETE_TARGETS = "sp.deleteTargets";
    LIST_ADS = "sp.listProductAds"; CREATE_ADS = "sp.createProductAds"; UPDATE_ADS = "sp.updateProductAds"; DELETE_ADS = "sp.deleteProductAds";
    LIST_NEG = "sp.listNegativeKeywords"; CREATE_NEG = "sp.createNegativeKeywords"; UPDATE_NEG = "sp.updateNegativeKeywords"; DELETE_NEG = "sp.deleteNegativeKeywords";
    LIST_CNEG = "sp.listCampaignNegativeKeywords"; CREATE_CNEG = "sp.createCampaignNegativeKeywords"; UPDATE_CNEG = "sp.updateCampaignNegativeKeywords"; DELETE_CNEG = "sp.deleteCampaignNegativeKeywords";
    LIST_NT = "sp.listNegativeTargets"; CREATE_NT = "sp.createNegativeTargets"; UPDATE_NT = "sp.updateNegativeTargets"; DELETE_NT = "sp.deleteNegativeTargets";
}

/// Budget usage answers its errors as `{ code, details }`, unlike the entity calls.
static BUDGET_USAGE: Op = Op {
    name: "sp.campaignsBudgetUsage",
    family: Family::Ads,
    rate: 10.0,
    burst: 10.0,
    error_media: None,
};

static SURFACES: [Surface; 8] = [
    Surface {
        kind: &CAMPAIGNS,
        media: "application/vnd.spCampaign.v3+json",
        path: "/sp/campaigns",
        ops: [
            &LIST_CAMPAIGNS,
            &CREATE_CAMPAIGNS,
            &UPDATE_CAMPAIGNS,
            &DELETE_CAMPAIGNS,
        ],
        create: new_campaign,
        updatable: &["name", "state", "budget", "dynamicBidding", "endDate"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
    Surface {
        kind: &AD_GROUPS,
        media: "application/vnd.spAdGroup.v3+json",
        path: "/sp/adGroups",
        ops: [
            &LIST_AD_GROUPS,
            &CREATE_AD_GROUPS,
            &UPDATE_AD_GROUPS,
            &DELETE_AD_GROUPS,
        ],
        create: new_ad_group,
        updatable: &["name", "state", "defaultBid"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
    Surface {
        kind: &KEYWORDS,
        media: "application/vnd.spKeyword.v3+json",
        path: "/sp/keywords",
        ops: [
            &LIST_KEYWORDS,
            &CREATE_KEYWORDS,
            &UPDATE_KEYWORDS,
            &DELETE_KEYWORDS,
        ],
        create: new_keyword,
        updatable: &["state", "bid"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
    Surface {
        kind: &TARGETS,
        media: "application/vnd.spTargetingClause.v3+json",
        path: "/sp/targets",
        ops: [
            &LIST_TARGETS,
            &CREATE_TARGETS,
            &UPDATE_TARGETS,
            &DELETE_TARGETS,
        ],
        create: new_target,
        updatable: &["state", "bid", "expression"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
    Surface {
        kind: &PRODUCT_ADS,
        media: "application/vnd.spProductAd.v3+json",
        path: "/sp/productAds",
        ops: [&LIST_ADS, &CREATE_ADS, &UPDATE_ADS, &DELETE_ADS],
        create: new_product_ad,
        updatable: &["state"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
    Surface {
        kind: &NEGATIVE_KEYWORDS,
        media: "application/vnd.spNegativeKeyword.v3+json",
        path: "/sp/negativeKeywords",
        ops: [&LIST_NEG, &CREATE_NEG, &UPDATE_NEG, &DELETE_NEG],
        create: new_negative_keyword,
        updatable: &["state"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
    Surface {
        kind: &CAMPAIGN_NEGATIVE_KEYWORDS,
        media: "application/vnd.spCampaignNegativeKeyword.v3+json",
        path: "/sp/campaignNegativeKeywords",
        ops: [&LIST_CNEG, &CREATE_CNEG, &UPDATE_CNEG, &DELETE_CNEG],
        create: new_campaign_negative_keyword,
        updatable: &["state"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
    Surface {
        kind: &NEGATIVE_TARGETS,
        media: "application/vnd.spNegativeTargetingClause.v3+json",
        path: "/sp/negativeTargets",
        ops: [&LIST_NT, &CREATE_NT, &UPDATE_NT, &DELETE_NT],
        create: new_negative_target,
        updatable: &["state", "expression"],
        update_needs: &[],
        max_items: SP_MAX_ITEMS,
    },
];

/// Items one Sponsored Products v3 write may carry (the documents' `maxItems`).
const SP_MAX_ITEMS: usize = 1000;

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    bulk::routes(sim, &SURFACES).route(
        "/sp/campaigns/budget/usage",
        op(sim, &BUDGET_USAGE, post(budget_usage)),
    )
}

const USAGE_MEDIA: &str = "application/vnd.spcampaignbudgetusage.v1+json";

/// Today's spend of `campaign` against its budget, from the world's last day.
pub fn usage(
    sim: &Sim,
    profile: i64,
    campaign: &Value,
    kind: &Kind,
) -> Result<Option<Value>, SimError> {
    let id = s(campaign);
    let id = id.as_str().unwrap_or("");
    let Some(c) = kind.get(sim, profile, id)? else {
        return Ok(None);
    };
    let spend = sim.world().rows(
        "SELECT COALESCE(SUM(Cost), 0) AS cost FROM ads_campaign_daily WHERE ProfileID = ?1 AND CampaignID = ?2 AND Date = ?3",
        &[&profile, &id, &sim.world().last_day.to_string()],
    )?;
    let budget = c["budget"]["budget"]
        .as_f64()
        .or(c["budget"].as_f64())
        .unwrap_or(0.0);
    let cost = spend
        .first()
        .and_then(|r| r["cost"].as_f64())
        .unwrap_or(0.0);
    let pct = if budget > 0.0 {
        (cost / budget * 10_000.0).round() / 100.0
    } else {
        0.0
    };
    Ok(Some(json!({
        "campaignId": id, "budget": budget, "budgetUsagePercent": pct,
        "usageUpdatedTimestamp": format!("{}T23:59:00Z", sim.world().last_day),
    })))
}

async fn budget_usage(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    budget_usage_of(&CAMPAIGNS, USAGE_MEDIA, &sim, &c, &h, &b)
}

/// `POST …/campaigns/budget/usage` for campaigns of `kind`: 207 with success and error lists.
pub fn budget_usage_of(
    kind: &Kind,
    media_type: &'static str,
    sim: &Sim,
    c: &Caller,
    h: &HeaderMap,
    b: &[u8],
) -> Result<Response, SimError> {
    media(h, media_type)?;
    let p = profile(sim, c, h)?;
    let b = body(b)?;
    let ids = b["campaignIds"]
        .as_array()
        .filter(|a| !a.is_empty() && a.len() <= 100)
        .ok_or_else(|| {
            SimError::new(400, "400", "campaignIds must hold 1 to 100 ids")
                .for_family(Family::AdsEntity)
        })?;
    let (mut ok, mut err) = (Vec::new(), Vec::new());
    for (i, id) in ids.iter().enumerate() {
        match usage(sim, p, id, kind)? {
            Some(mut u) => {
                u["index"] = i.into();
                ok.push(u);
            }
            None => err.push(json!({ "index": i, "campaignId": s(id), "code": "INVALID_CAMPAIGN_ID", "details": "no such campaign" })),
        }
    }
    Ok(answer(
        207,
        media_type,
        &json!({ "success": ok, "error": err }),
    ))
}
