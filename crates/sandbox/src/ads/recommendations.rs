//! Sponsored Products recommendations from the world's search terms and spend: keyword
//! recommendations for an ad group (ranked by the clicks its search terms drew, with a bid from
//! their cost per click) and budget recommendations for campaigns that ran out of budget.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, header};
use axum::response::Response;
use axum::routing::post;
use serde_json::{Value, json};

use super::bulk::s;
use super::{answer, body, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static KEYWORDS: Op = Op {
    name: "sp.getRankedKeywordRecommendation",
    family: Family::Ads,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};
static BUDGETS: Op = Op {
    name: "sp.getBudgetRecommendations",
    family: Family::Ads,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};

const KEYWORD_MEDIA: &[&str] = &[
    "application/vnd.spkeywordsrecommendation.v3+json",
    "application/vnd.spkeywordsrecommendation.v4+json",
    "application/vnd.spkeywordsrecommendation.v5+json",
];
const BUDGET_MEDIA: &str = "application/vnd.budgetrecommendation.v3+json";

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/sp/targets/keywords/recommendations",
            op(sim, &KEYWORDS, post(keywords)),
        )
        .route(
            "/sp/campaigns/budgetRecommendations",
            op(sim, &BUDGETS, post(budgets)),
        )
}

async fn keywords(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let ct = h
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let Some(version) = KEYWORD_MEDIA.iter().find(|m| ct.starts_with(**m)) else {
        return Err(SimError::new(
            415,
            "UNSUPPORTED_MEDIA_TYPE",
            format!("Content-Type must be one of {}", KEYWORD_MEDIA.join(", ")),
        )
        .for_family(Family::Ads));
    };
    let version: &'static str = version;
    let in_media = |e: SimError| e.with_media(version);
    let p = profile(&sim, &c, &h).map_err(in_media)?;
    let req = body(&b).map_err(in_media)?;
    let group = s(&req["adGroupId"]);
    let group = group.as_str().ok_or_else(|| {
        in_media(SimError::new(400, "400", "adGroupId is required").for_family(Family::Ads))
    })?;
    let rows = sim.world().rows(
        "SELECT SearchTerm, SUM(Clicks) AS clk, SUM(Cost) AS cost FROM ads_search_term_daily WHERE ProfileID = ?1 AND AdGroupID = ?2
         GROUP BY SearchTerm ORDER BY clk DESC, SearchTerm LIMIT 50",
        &[&p, &group],
    )?;
    let list: Vec<Value> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let cpc = r["cost"].as_f64().unwrap_or(0.0) / r["clk"].as_f64().unwrap_or(1.0).max(1.0);
            ranked(
                version,
                i + 1,
                &r["SearchTerm"],
                (cpc * 100.0).round() / 100.0,
            )
        })
        .collect();
    let answer_body = match version {
        // v3 answers the targets themselves; v4 and v5 a list under keywordTargetList (v5
        // with impact metrics beside it)
        v if v.contains(".v3+") => Value::Array(list),
        v if v.contains(".v4+") => json!({ "keywordTargetList": list }),
        _ => json!({ "keywordTargetList": list, "impactMetrics": [] }),
    };
    Ok(answer(200, version, &answer_body))
}

/// One ranked keyword in the shape of the version asked: v3 flat (bid and suggestedBid on
/// the target), v4 and v5 with the bids in bidInfo (v5's themed, with the default theme).
fn ranked(version: &str, rank: usize, keyword: &Value, bid: f64) -> Value {
    let range = |low: f64, high: f64| {
        (bid * low * 100.0).round() / 100.0..=(bid * high * 100.0).round() / 100.0
    };
    let r = range(0.8, 1.25);
    let suggested = json!({ "suggested": bid, "rangeStart": r.start(), "rangeEnd": r.end(), "bidRecId": format!("rec-{rank}") });
    if version.contains(".v3+") {
        return json!({ "keyword": keyword, "matchType": "EXACT", "rank": rank, "bid": bid, "translation": keyword, "suggestedBid": suggested });
    }
    let mut info =
        json!({ "matchType": "EXACT", "rank": rank, "bid": bid, "suggestedBid": suggested });
    if version.contains(".v5+") {
        info["theme"] = "CONVERSION_OPPORTUNITIES".into();
        info["suggestedBid"] =
            json!({ "suggested": bid, "rangeStart": r.start(), "rangeEnd": r.end() });
    }
    json!({ "keyword": keyword, "recId": format!("rec-{rank}"), "translation": keyword, "userSelectedKeyword": false, "bidInfo": [info] })
}

async fn budgets(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    // every answer of this operation, errors included, is in its own media type
    let in_media = |e: SimError| e.with_media(BUDGET_MEDIA);
    super::media(&h, BUDGET_MEDIA).map_err(in_media)?;
    let p = profile(&sim, &c, &h).map_err(in_media)?;
    let req = body(&b).map_err(in_media)?;
    let ids = req["campaignIds"]
        .as_array()
        .filter(|a| !a.is_empty() && a.len() <= 100)
        .ok_or_else(|| {
            in_media(
                SimError::new(400, "400", "campaignIds must hold 1 to 100 ids")
                    .for_family(Family::Ads),
            )
        })?;
    let end = sim.world().last_day;
    let start = end - chrono::Days::new(6);
    let day = |d: chrono::NaiveDate| d.format("%Y%m%d").to_string();
    let (mut ok, mut bad) = (Vec::new(), Vec::new());
    for (i, id) in ids.iter().enumerate() {
        let id = s(id);
        let id = id.as_str().unwrap_or("");
        let rows = sim.world().rows(
            // the budget in force now (as budget usage reports it), and the days of the last
            // thirty it ran out
            "SELECT (SELECT CampaignBudget FROM ads_campaign_daily WHERE ProfileID = ?1 AND CampaignID = ?2 ORDER BY Date DESC LIMIT 1) AS budget,
                    AVG(Cost) AS spend, SUM(CASE WHEN Cost >= CampaignBudget * 0.98 THEN 1 ELSE 0 END) AS capped
             FROM ads_campaign_daily WHERE ProfileID = ?1 AND CampaignID = ?2 AND Date > date(?3, '-30 day')",
            &[&p, &id, &sim.world().last_day.to_string()],
        )?;
        match rows.first().filter(|r| !r["budget"].is_null()) {
            Some(r) => {
                let budget = r["budget"].as_f64().unwrap_or(0.0);
                let capped = r["capped"].as_i64().unwrap_or(0);
                let increase = if capped > 0 { 30.0 } else { 0.0 };
                let suggested = (budget * (1.0 + increase / 100.0) * 100.0).round() / 100.0;
                let in_budget = 100 - (capped * 100 / 30).min(100);
                ok.push(json!({
                    "index": i, "campaignId": id, "suggestedBudget": suggested,
                    "sevenDaysMissedOpportunities": {
                        "startDate": day(start), "endDate": day(end),
                        "estimatedMissedClicksLower": capped * 3, "estimatedMissedClicksUpper": capped * 8,
                        "estimatedMissedImpressionsLower": capped * 120, "estimatedMissedImpressionsUpper": capped * 300,
                        "estimatedMissedSalesLower": (capped * 9) as f64, "estimatedMissedSalesUpper": (capped * 24) as f64,
                        "percentTimeInBudget": in_budget,
                    },
                    "budgetRuleRecommendation": { "ruleId": format!("rule-{id}"), "ruleName": "Raise the budget on days it runs out", "suggestedBudgetIncreasePercent": increase },
                }));
            }
            None => bad.push(json!({ "index": i, "campaignId": id, "Error": { "code": "400", "details": "No campaign with this id in the profile." } })),
        }
    }
    Ok(answer(
        200,
        BUDGET_MEDIA,
        &json!({ "budgetRecommendationsSuccessResults": ok, "budgetRecommendationsErrorResults": bad }),
    ))
}
