//! The advertising API through the sandbox alone, as a client would script it: LWA token →
//! list campaigns → create a paused keyword → the list shows it → request a v3 report twice
//! (the second answers 425 naming the first) → poll to COMPLETED → download the document,
//! whose totals match the world's facts. Plus the per-item 207 answers, media types and
//! profile scopes.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Ads, SELLER, SimApp, parts};

const KEYWORD: &str = "application/vnd.spKeyword.v3+json";
const CAMPAIGN: &str = "application/vnd.spCampaign.v3+json";

async fn ads(app: &SimApp) -> Ads<'_> {
    Ads::login(app, SELLER).await
}

#[tokio::test]
async fn scripted_session_from_token_to_report_document() {
    let app = SimApp::start_with(|c| c.report_ms = 900).await;
    let a = ads(&app).await;
    // list campaigns
    let (s, ct, list) = a
        .call(
            Method::POST,
            "/sp/campaigns/list",
            CAMPAIGN,
            json!({"stateFilter": {"include": ["ENABLED", "PAUSED"]}}),
        )
        .await;
    assert_eq!((s, ct.as_str()), (200, CAMPAIGN));
    let campaign = list["campaigns"][0].clone();
    let campaign_id = campaign["campaignId"].as_str().unwrap().to_owned();
    let (_, _, groups) = a
        .call(
            Method::POST,
            "/sp/adGroups/list",
            "application/vnd.spAdGroup.v3+json",
            json!({"campaignIdFilter": {"include": [campaign_id]}}),
        )
        .await;
    let group_id = groups["adGroups"][0]["adGroupId"]
        .as_str()
        .unwrap()
        .to_owned();
    // create a paused keyword
    let (s, ct, created) = a
        .call(Method::POST, "/sp/keywords", KEYWORD, json!({"keywords": [
            {"campaignId": campaign_id, "adGroupId": group_id, "keywordText": "insulated bottle", "matchType": "EXACT", "state": "PAUSED", "bid": 1.25}
        ]}))
        .await;
    assert_eq!((s, ct.as_str()), (207, KEYWORD));
    let keyword_id = created["keywords"]["success"][0]["keywordId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(created["keywords"]["error"], json!([]));
    assert_eq!(
        app.calls("sp.createKeywords").await,
        1,
        "exactly one create reached the provider"
    );
    // the list shows it, paused
    let (_, _, listed) = a
        .call(
            Method::POST,
            "/sp/keywords/list",
            KEYWORD,
            json!({"keywordIdFilter": {"include": [keyword_id]}}),
        )
        .await;
    assert_eq!(listed["keywords"][0]["state"], "PAUSED");
    assert_eq!(listed["keywords"][0]["keywordText"], "insulated bottle");
    // a v3 report, twice
    let report = json!({
        "name": "sp campaigns october",
        "startDate": "2026-10-01", "endDate": "2026-10-31",
        "configuration": {"adProduct": "SPONSORED_PRODUCTS", "groupBy": ["campaign"], "columns": ["campaignId", "impressions", "clicks", "cost", "sales7d"],
                          "reportTypeId": "spCampaigns", "timeUnit": "SUMMARY", "format": "GZIP_JSON"}
    });
    let create = "application/vnd.createasyncreportrequest.v3+json";
    let (s, ct, first) = a
        .call(Method::POST, "/reporting/reports", create, report.clone())
        .await;
    assert_eq!(
        (s, ct.as_str()),
        (200, "application/vnd.createasyncreportresponse.v3+json")
    );
    assert_eq!(first["status"], "PENDING");
    let id = first["reportId"].as_str().unwrap().to_owned();
    let (s, _, dup) = a
        .call(Method::POST, "/reporting/reports", create, report.clone())
        .await;
    assert_eq!(s, 425);
    assert_eq!(dup["code"], "425");
    assert!(dup["detail"].as_str().unwrap().ends_with(&id), "{dup}");
    // poll to COMPLETED
    let done = loop {
        let (s, _, r) = a
            .call(
                Method::GET,
                &format!("/reporting/reports/{id}"),
                "application/json",
                json!(null),
            )
            .await;
        assert_eq!(s, 200);
        if r["status"] == "COMPLETED" {
            break r;
        }
        assert!(["PENDING", "PROCESSING"].contains(&r["status"].as_str().unwrap()));
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    // once done, the same request makes a new report
    let (s, _, again) = a
        .call(Method::POST, "/reporting/reports", create, report)
        .await;
    assert_eq!(s, 200);
    assert_ne!(again["reportId"], done["reportId"]);
    // download: no Authorization header on the presigned URL
    let url = done["url"].as_str().unwrap();
    let text = app.download_gz(url).await;
    let rows: Vec<Value> = serde_json::from_str(&text).unwrap();
    let clicks: i64 = rows.iter().map(|r| r["clicks"].as_i64().unwrap()).sum();
    let cost: f64 = rows.iter().map(|r| r["cost"].as_f64().unwrap()).sum();
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let (w_clicks, w_cost): (i64, f64) = world
        .query_row(
            "SELECT SUM(Clicks), SUM(Cost) FROM ads_campaign_daily WHERE ProfileID = 3100000001 AND AdProduct = 'SPONSORED_PRODUCTS' AND Date BETWEEN '2026-10-01' AND '2026-10-31'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(w_clicks > 0);
    assert_eq!(clicks, w_clicks);
    assert!(
        (cost - w_cost).abs() < 0.01 * rows.len() as f64,
        "{cost} vs {w_cost}"
    );
}

#[tokio::test]
async fn bulk_writes_answer_207_per_item_and_change_what_is_served() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (_, _, list) = a
        .call(
            Method::POST,
            "/sp/keywords/list",
            KEYWORD,
            json!({"maxResults": 2}),
        )
        .await;
    assert_eq!(list["keywords"].as_array().unwrap().len(), 2);
    assert!(list["totalResults"].as_u64().unwrap() > 2);
    let next = list["nextToken"].as_str().unwrap();
    let (_, _, page2) = a
        .call(
            Method::POST,
            "/sp/keywords/list",
            KEYWORD,
            json!({"maxResults": 2, "nextToken": next}),
        )
        .await;
    assert_ne!(
        page2["keywords"][0]["keywordId"],
        list["keywords"][0]["keywordId"]
    );
    let kw = list["keywords"][0]["keywordId"]
        .as_str()
        .unwrap()
        .to_owned();
    // one good update, one unknown id, one bad bid: 207 with both lists
    let (s, _, r) = a
        .call(
            Method::PUT,
            "/sp/keywords",
            KEYWORD,
            json!({"keywords": [
                {"keywordId": kw, "state": "PAUSED"},
                {"keywordId": "999", "state": "PAUSED"},
                {"keywordId": kw, "bid": 5000}
            ]}),
        )
        .await;
    assert_eq!(s, 207);
    assert_eq!(r["keywords"]["success"][0]["index"], 0);
    let errors = r["keywords"]["error"].as_array().unwrap();
    assert_eq!(errors.len(), 2);
    assert_eq!(errors[0]["index"], 1);
    assert_eq!(errors[0]["errors"][0]["errorType"], "entityNotFoundError");
    assert_eq!(errors[1]["errors"][0]["errorType"], "rangeError");
    let (_, _, after) = a
        .call(
            Method::POST,
            "/sp/keywords/list",
            KEYWORD,
            json!({"keywordIdFilter": {"include": [kw]}}),
        )
        .await;
    assert_eq!(
        after["keywords"][0]["state"], "PAUSED",
        "a paused keyword reads paused"
    );
    // campaign dynamicBidding is replaced whole
    let (_, _, camps) = a
        .call(Method::POST, "/sp/campaigns/list", CAMPAIGN, json!({}))
        .await;
    let cid = camps["campaigns"][0]["campaignId"]
        .as_str()
        .unwrap()
        .to_owned();
    let bidding = json!({"strategy": "AUTO_FOR_SALES", "placementBidding": [{"placement": "PLACEMENT_TOP", "percentage": 50}]});
    let (s, _, _) = a
        .call(
            Method::PUT,
            "/sp/campaigns",
            CAMPAIGN,
            json!({"campaigns": [{"campaignId": cid, "dynamicBidding": bidding}]}),
        )
        .await;
    assert_eq!(s, 207);
    let only = json!({"strategy": "MANUAL"});
    a.call(
        Method::PUT,
        "/sp/campaigns",
        CAMPAIGN,
        json!({"campaigns": [{"campaignId": cid, "dynamicBidding": only}]}),
    )
    .await;
    let (_, _, c) = a
        .call(
            Method::POST,
            "/sp/campaigns/list",
            CAMPAIGN,
            json!({"campaignIdFilter": {"include": [cid]}}),
        )
        .await;
    assert_eq!(
        c["campaigns"][0]["dynamicBidding"], only,
        "the whole object is replaced"
    );
    // a created campaign is listed next; a deleted one reads archived
    let (s, _, made) = a
        .call(Method::POST, "/sp/campaigns", CAMPAIGN, json!({"campaigns": [{"name": "New", "targetingType": "MANUAL", "state": "PAUSED", "budget": {"budgetType": "DAILY", "budget": 20}}]}))
        .await;
    assert_eq!(s, 207);
    let new_id = made["campaigns"]["success"][0]["campaignId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, _, c) = a
        .call(
            Method::POST,
            "/sp/campaigns/list",
            CAMPAIGN,
            json!({"campaignIdFilter": {"include": [new_id.clone()]}}),
        )
        .await;
    assert_eq!(c["campaigns"][0]["name"], "New");
    a.call(
        Method::POST,
        "/sp/campaigns/delete",
        CAMPAIGN,
        json!({"campaignIdFilter": {"include": [new_id.clone()]}}),
    )
    .await;
    let (_, _, c) = a
        .call(
            Method::POST,
            "/sp/campaigns/list",
            CAMPAIGN,
            json!({"campaignIdFilter": {"include": [new_id]}}),
        )
        .await;
    assert_eq!(c["campaigns"][0]["state"], "ARCHIVED");
}

#[tokio::test]
async fn media_types_client_ids_and_profile_scopes_are_checked() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (s, _, b) = a
        .call(
            Method::POST,
            "/sp/keywords/list",
            "application/json",
            json!({}),
        )
        .await;
    assert_eq!(s, 415);
    assert_eq!(b["code"], "UNSUPPORTED_MEDIA_TYPE");
    // a profile of another merchant
    let r = app
        .http
        .post(app.url("/sp/keywords/list"))
        .bearer_auth(&a.token)
        .header("Amazon-Advertising-API-ClientId", app.client_id())
        .header("Amazon-Advertising-API-Scope", "3100000003")
        .header("content-type", KEYWORD)
        .body("{}")
        .send()
        .await
        .unwrap();
    let (s, _, b) = parts(r).await;
    assert_eq!(s, 401);
    assert_eq!(b["code"], "UNAUTHORIZED");
    // no client id
    let r = app
        .http
        .get(app.url("/v2/profiles"))
        .bearer_auth(&a.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    // profiles of the login
    let r = app
        .http
        .get(app.url("/v2/profiles"))
        .bearer_auth(&a.token)
        .header("Amazon-Advertising-API-ClientId", app.client_id())
        .send()
        .await
        .unwrap();
    let (s, _, profiles) = parts(r).await;
    assert_eq!(s, 200);
    let ids: Vec<i64> = profiles
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["profileId"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [3100000001, 3100000002]);
}

#[tokio::test]
async fn v3_reports_check_windows_and_fail_under_a_fault() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let create = "application/vnd.createasyncreportrequest.v3+json";
    let conf = json!({"adProduct": "SPONSORED_PRODUCTS", "groupBy": ["campaign"], "columns": ["campaignId", "date", "clicks"], "reportTypeId": "spCampaigns", "timeUnit": "DAILY", "format": "GZIP_JSON"});
    let (s, _, b) = a
        .call(
            Method::POST,
            "/reporting/reports",
            create,
            json!({"startDate": "2026-09-01", "endDate": "2026-10-15", "configuration": conf}),
        )
        .await;
    assert_eq!(s, 400);
    assert!(b["detail"].as_str().unwrap().contains("31 days"));
    let (s, _, _) = a
        .call(
            Method::POST,
            "/reporting/reports",
            create,
            json!({"startDate": "2026-01-01", "endDate": "2026-01-10", "configuration": conf}),
        )
        .await;
    assert_eq!(s, 400, "beyond the 95-day lookback");
    let mut bad = conf.clone();
    bad["columns"] = json!(["campaignId", "noSuchColumn"]);
    let (s, _, _) = a
        .call(
            Method::POST,
            "/reporting/reports",
            create,
            json!({"startDate": "2026-11-01", "endDate": "2026-11-10", "configuration": bad}),
        )
        .await;
    assert_eq!(s, 400);
    app.faults(
        json!([{"op": "reporting.createAsyncReport", "effect": "fatal_report", "times": 1}]),
    )
    .await;
    let (s, _, r) = a
        .call(
            Method::POST,
            "/reporting/reports",
            create,
            json!({"startDate": "2026-11-01", "endDate": "2026-11-10", "configuration": conf}),
        )
        .await;
    assert_eq!(s, 200);
    let id = r["reportId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let (_, _, r) = a
        .call(
            Method::GET,
            &format!("/reporting/reports/{id}"),
            "application/json",
            json!(null),
        )
        .await;
    assert_eq!(r["status"], "FAILED");
    assert!(r["url"].is_null());
}
