//! Sponsored Display's entity lists, as they stand: `GET /sd/campaigns`, `/sd/adGroups` and
//! `/sd/targets` on the profile (JSON arrays, the older REST style: `startIndex` and `count`
//! page, `stateFilter`, `campaignIdFilter` and `adGroupIdFilter` narrow), from the world's
//! campaigns, ad groups and targets of the `SPONSORED_DISPLAY` ad product.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Extension, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{MethodRouter, get};
use serde_json::{Map, Value, json};

use super::{answer, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;
use crate::spapi::q::Q;

static CAMPAIGNS: Op = Op {
    name: "sd.listCampaigns",
    family: Family::Ads,
    rate: 10.0,
    burst: 10.0,
    error_media: None,
};
static AD_GROUPS: Op = Op {
    name: "sd.listAdGroups",
    family: Family::Ads,
    rate: 10.0,
    burst: 10.0,
    error_media: None,
};
static TARGETS: Op = Op {
    name: "sd.listTargets",
    family: Family::Ads,
    rate: 10.0,
    burst: 10.0,
    error_media: None,
};

/// The most entities one page holds.
const MOST: i64 = 5_000;

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/sd/campaigns", op(sim, &CAMPAIGNS, lister(&CAMPAIGN_LIST)))
        .route("/sd/adGroups", op(sim, &AD_GROUPS, lister(&AD_GROUP_LIST)))
        .route("/sd/targets", op(sim, &TARGETS, lister(&TARGET_LIST)))
}

/// The `GET` route of one list.
fn lister(list: &'static List) -> MethodRouter<Arc<Sim>> {
    get(
        move |State(sim): State<Arc<Sim>>,
              Extension(c): Extension<Caller>,
              headers: HeaderMap,
              RawQuery(raw): RawQuery| async move {
            page(&sim, &c, &headers, raw.as_deref(), list)
        },
    )
}

/// The world's SD rows of the profile, in the provider's shape.
struct List {
    sql: &'static str,
    shape: fn(&Map<String, Value>) -> Value,
}

const CAMPAIGN_LIST: List = List {
    sql: "SELECT CampaignID, Name, State, DailyBudget, StartDate FROM ads_campaign
          WHERE ProfileID = ?1 AND AdProduct = 'SPONSORED_DISPLAY' ORDER BY CampaignID",
    shape: |r| {
        json!({
            "campaignId": r["CampaignID"],
            "name": r["Name"],
            "tactic": "T00020",
            "startDate": r["StartDate"].as_str().unwrap_or_default().replace('-', ""),
            "state": state(&r["State"]),
            "costType": "cpc",
            "budget": r["DailyBudget"],
            "budgetType": "daily",
            "deliveryProfile": "as_soon_as_possible",
        })
    },
};

const AD_GROUP_LIST: List = List {
    sql: "SELECT g.CampaignID, g.AdGroupID, g.Name, g.DefaultBid, g.State FROM ads_ad_group g
          JOIN ads_campaign c ON c.CampaignID = g.CampaignID
          WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_DISPLAY' ORDER BY g.AdGroupID",
    shape: |r| {
        json!({
            "adGroupId": r["AdGroupID"],
            "campaignId": r["CampaignID"],
            "name": r["Name"],
            "defaultBid": r["DefaultBid"],
            "bidOptimization": "clicks",
            "state": state(&r["State"]),
            "tactic": "T00020",
        })
    },
};

const TARGET_LIST: List = List {
    sql: "SELECT t.CampaignID, t.AdGroupID, t.TargetingID, t.Targeting, t.Bid, t.State FROM ads_targeting t
          JOIN ads_campaign c ON c.CampaignID = t.CampaignID
          WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_DISPLAY' ORDER BY t.TargetingID",
    shape: |r| {
        let expression = expression(r["Targeting"].as_str().unwrap_or_default());
        json!({
            "targetId": r["TargetingID"],
            "adGroupId": r["AdGroupID"],
            "campaignId": r["CampaignID"],
            "expressionType": "manual",
            "expression": expression,
            "resolvedExpression": expression,
            "bid": r["Bid"],
            "state": state(&r["State"]),
        })
    },
};

/// The API's lower-case state.
fn state(v: &Value) -> String {
    v.as_str().unwrap_or("ENABLED").to_lowercase()
}

/// A world target (`views=B0-northwind lookback=30`) as the API's expression: an audience of
/// the brand's viewers over the lookback.
fn expression(text: &str) -> Value {
    let mut seen = None;
    let mut lookback = None;
    for part in text.split_whitespace() {
        match part.split_once('=') {
            Some(("views", v)) => seen = Some(v.to_owned()),
            Some(("lookback", v)) => lookback = Some(v.to_owned()),
            _ => {}
        }
    }
    json!([{
        "type": "views",
        "value": [
            { "type": "asinCategorySameAs", "value": seen.unwrap_or_default() },
            { "type": "lookback", "value": lookback.unwrap_or_else(|| "30".into()) },
        ],
    }])
}

/// The page of `list` a request asks for, narrowed by its filters.
fn page(
    sim: &Sim,
    c: &Caller,
    headers: &HeaderMap,
    raw: Option<&str>,
    list: &List,
) -> Result<Response, SimError> {
    let p = profile(sim, c, headers)?;
    let q = Q::parse(raw);
    q.only(&[
        "startIndex",
        "count",
        "stateFilter",
        "campaignIdFilter",
        "adGroupIdFilter",
        "name",
    ])
    .map_err(|e| e.for_family(Family::Ads))?;
    let start = q
        .int("startIndex", 0, i64::MAX, 0)
        .map_err(|e| e.for_family(Family::Ads))?;
    let count = q
        .int("count", 1, MOST, MOST)
        .map_err(|e| e.for_family(Family::Ads))?;
    let states = q.list("stateFilter");
    let campaigns = q.list("campaignIdFilter");
    let groups = q.list("adGroupIdFilter");
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    };
    let rows: Vec<Value> = sim
        .world()
        .rows(list.sql, &[&p])?
        .iter()
        .map(list.shape)
        .filter(|v| states.is_empty() || states.contains(&text(&v["state"])))
        .filter(|v| campaigns.is_empty() || campaigns.contains(&text(&v["campaignId"])))
        .filter(|v| groups.is_empty() || groups.contains(&text(&v["adGroupId"])))
        .filter(|v| q.get("name").is_none_or(|n| v["name"] == n))
        .skip(start as usize)
        .take(count as usize)
        .collect();
    Ok(answer(200, "application/json", &Value::Array(rows)))
}
