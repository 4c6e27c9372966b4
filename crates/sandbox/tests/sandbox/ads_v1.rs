//! Unified reporting v1, accounts, DSP, the clean room, exports and recommendations: their
//! 207 envelopes, media types and quirks.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Ads, SELLER, SimApp};

const VENDOR: &str = "ENTITY2DEMOVENDOR";
const DSP: &str = "590000000000001";
const SEAT: &str = "ENTITYSEAT7DEMO42";

async fn login<'a>(app: &'a SimApp, who: &str) -> Ads<'a> {
    app.no_limits().await;
    Ads::login(app, who).await
}

fn report(accounts: Value, fields: Value, start: &str, end: &str) -> Value {
    json!({"accessRequestedAccounts": accounts, "reports": [{"format": "GZIP_JSON", "periods": [{"datePeriod": {"startDate": start, "endDate": end}}], "query": {"fields": fields}}]})
}

async fn wait(a: &Ads<'_>, id: &str) -> Value {
    loop {
        let (s, r) = a
            .post("/adsApi/v1/retrieve/reports", json!({"reportIds": [id]}))
            .await;
        assert_eq!(s, 207);
        let rep = r["success"][0]["report"].clone();
        if ["COMPLETED", "FAILED"].contains(&rep["status"].as_str().unwrap()) {
            return rep;
        }
        tokio::time::sleep(Duration::from_millis(80)).await;
    }
}

#[tokio::test]
async fn v1_reports_answer_207_never_dedupe_and_cap_concurrency() {
    // long enough that four creates surely land while the first still runs
    let app = SimApp::start_with(|c| c.report_ms = 2500).await;
    let a = login(&app, SELLER).await;
    let (s, accts) = a
        .post("/adsApi/v1/query/advertiserAccounts", json!({}))
        .await;
    assert_eq!(s, 200);
    let id = accts["advertiserAccounts"][0]["advertiserAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let acc = json!([{"advertiserAccountId": id}]);
    let fields = json!(["campaign.id", "metric.clicks", "metric.totalCost"]);
    let body = report(acc.clone(), fields.clone(), "2026-10-01", "2026-10-31");
    let (s, one) = a.post("/adsApi/v1/create/reports", body.clone()).await;
    assert_eq!(s, 207);
    assert_eq!(one["error"], json!([]));
    let (_, two) = a.post("/adsApi/v1/create/reports", body.clone()).await;
    assert_ne!(
        one["success"][0]["report"]["reportId"], two["success"][0]["report"]["reportId"],
        "no deduplication"
    );
    let (_, _three) = a.post("/adsApi/v1/create/reports", body.clone()).await;
    let (s, r) = a.post("/adsApi/v1/create/reports", body.clone()).await;
    assert_eq!(s, 429, "a fourth in flight is the concurrency cap: {r}");
    // errors ride inside the 207
    let (s, r) = a
        .post(
            "/adsApi/v1/create/reports",
            report(
                acc.clone(),
                json!(["metric.cost"]),
                "2026-10-01",
                "2026-10-31",
            ),
        )
        .await;
    assert_eq!(s, 207);
    assert!(
        r["error"][0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("metric.totalCost"),
        "{r}"
    );
    let six = json!([{"advertiserAccountId": "a"}, {"advertiserAccountId": "b"}, {"advertiserAccountId": "c"}, {"advertiserAccountId": "d"}, {"advertiserAccountId": "e"}, {"advertiserAccountId": "f"}]);
    let (_, r) = a
        .post(
            "/adsApi/v1/create/reports",
            report(six, fields.clone(), "2026-10-01", "2026-10-31"),
        )
        .await;
    assert!(
        r["error"][0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("at most 5")
    );
    // a completed report's parts refuse an Authorization header
    let done = wait(
        &a,
        one["success"][0]["report"]["reportId"].as_str().unwrap(),
    )
    .await;
    assert_eq!(done["status"], "COMPLETED");
    let url = done["completedReportParts"][0]["url"].as_str().unwrap();
    assert_eq!(
        app.http
            .get(url)
            .bearer_auth("x")
            .send()
            .await
            .unwrap()
            .status(),
        400
    );
    let text = app.download_gz(url).await;
    let rows: Vec<Value> = serde_json::from_str(&text).unwrap();
    let clicks: f64 = rows
        .iter()
        .map(|r| r["metric.clicks"].as_f64().unwrap())
        .sum();
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let w: f64 = world.query_row("SELECT SUM(Clicks) FROM ads_campaign_daily WHERE ProfileID = 3100000001 AND Date BETWEEN '2026-10-01' AND '2026-10-31'", [], |r| r.get(0)).unwrap();
    assert_eq!(clicks, w);
    // deleting frees a slot
    let (s, _) = a
        .post(
            "/adsApi/v1/delete/reports",
            json!({"reportIds": [two["success"][0]["report"]["reportId"]]}),
        )
        .await;
    assert_eq!(s, 207);
}

#[tokio::test]
async fn month_value_carries_no_year_and_merges_across_years() {
    let app = SimApp::start().await;
    let a = login(&app, SELLER).await;
    let id = a
        .post("/adsApi/v1/query/advertiserAccounts", json!({}))
        .await
        .1["advertiserAccounts"][0]["advertiserAccountId"]
        .clone();
    let body = report(
        json!([{"advertiserAccountId": id}]),
        json!(["month.value", "metric.clicks"]),
        "2025-11-01",
        "2026-11-30",
    );
    let (_, r) = a.post("/adsApi/v1/create/reports", body).await;
    let done = wait(&a, r["success"][0]["report"]["reportId"].as_str().unwrap()).await;
    let text = app
        .download_gz(done["completedReportParts"][0]["url"].as_str().unwrap())
        .await;
    let rows: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert_eq!(
        rows.len(),
        12,
        "13 calendar months, but November of both years is one row"
    );
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let nov: f64 = world.query_row("SELECT SUM(Clicks) FROM ads_campaign_daily WHERE ProfileID = 3100000001 AND strftime('%m', Date) = '11' AND Date BETWEEN '2025-11-01' AND '2026-11-30'", [], |r| r.get(0)).unwrap();
    let row = rows.iter().find(|r| r["month.value"] == "11").unwrap();
    assert_eq!(row["metric.clicks"].as_f64().unwrap(), nov);
}

#[tokio::test]
async fn a_dsp_seat_id_in_place_of_the_advertiser_id_is_a_401() {
    let app = SimApp::start().await;
    let a = login(&app, VENDOR).await;
    let r = a.req(Method::GET, "/managerAccounts").send().await.unwrap();
    assert_eq!(
        r.headers()["content-type"],
        "application/vnd.getmanageraccountsresponse.v1+json"
    );
    let m: Value = r.json().await.unwrap();
    let linked = &m["managerAccounts"][0]["linkedAccounts"][0];
    assert_eq!(
        (
            linked["accountId"].as_str(),
            linked["dspAdvertiserId"].as_str()
        ),
        (Some(SEAT), Some(DSP))
    );
    let fields = json!(["campaign.id", "metric.sales", "budgetCurrency.value"]);
    let (s, _) = a
        .post(
            "/adsApi/v1/create/reports",
            report(
                json!([{"advertiserAccountId": SEAT}]),
                fields.clone(),
                "2026-10-01",
                "2026-10-31",
            ),
        )
        .await;
    assert_eq!(s, 401, "the seat id looks like a permissions failure");
    let (s, r) = a
        .post(
            "/adsApi/v1/create/reports",
            report(
                json!([{"advertiserAccountId": DSP}]),
                fields,
                "2026-10-01",
                "2026-10-31",
            ),
        )
        .await;
    assert_eq!(s, 207);
    assert!(r["success"][0]["report"]["reportId"].is_string(), "{r}");
    // DSP reads and DSP reports take the numeric id too
    let read = |acct: &str| {
        a.req(Method::GET, "/dsp/campaigns")
            .header("Amazon-Ads-AccountId", acct)
            .send()
    };
    assert_eq!(read(SEAT).await.unwrap().status(), 401);
    let c: Value = read(DSP).await.unwrap().json().await.unwrap();
    assert!(!c["campaigns"].as_array().unwrap().is_empty());
    let groups: Value = a
        .req(Method::GET, "/dsp/adGroups?maxResults=1")
        .header("Amazon-Ads-AccountId", DSP)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(groups["adGroups"].as_array().unwrap().len(), 1);
    assert!(groups["nextToken"].is_string());
    let create = |acct: &str| {
        a.req(Method::POST, &format!("/accounts/{acct}/dsp/reports"))
            .header("content-type", "application/vnd.dspcreatereports.v3+json")
            .body(json!({"startDate": "20261001", "endDate": "20261007", "type": "CAMPAIGN", "timeUnit": "DAILY"}).to_string())
            .send()
    };
    assert_eq!(create(SEAT).await.unwrap().status(), 401);
    let r: Value = create(DSP).await.unwrap().json().await.unwrap();
    let id = r["reportId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let r = a
        .req(Method::GET, &format!("/accounts/{DSP}/dsp/reports/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers()["content-type"],
        "application/vnd.dspgetreports.v3+json"
    );
    let r: Value = r.json().await.unwrap();
    assert_eq!(r["status"], "SUCCESS");
    assert!(r["location"].is_string());
}

#[tokio::test]
async fn the_clean_room_needs_a_time_window_pages_sources_and_guards_audiences() {
    let app = SimApp::start().await;
    let a = login(&app, SELLER).await;
    let accounts: Value = a
        .req(Method::GET, "/amc/accounts")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let entity = accounts["amcAccounts"][0]["accountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let inst: Value = a
        .req(Method::GET, "/amc/instances")
        .header("Amazon-Advertising-API-AdvertiserId", &entity)
        .header("Amazon-Advertising-API-MarketplaceId", "ATVPDKIKX0DER")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = inst["instances"][0]["instanceId"]
        .as_str()
        .unwrap()
        .to_owned();
    let one: Value = a
        .req(Method::GET, &format!("/amc/instances/{id}"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(one["instance"]["optionalDatasets"].is_array(), "{one}");
    // data sources page at 100
    let p1: Value = a
        .req(Method::GET, &format!("/amc/reporting/{id}/dataSources"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(p1["dataSources"].as_array().unwrap().len(), 100);
    let next = p1["nextToken"].as_str().unwrap();
    let p2: Value = a
        .req(
            Method::GET,
            &format!("/amc/reporting/{id}/dataSources?nextToken={next}"),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(!p2["dataSources"].as_array().unwrap().is_empty());
    assert!(p2.get("nextToken").is_none());
    assert!(
        p2["dataSources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["isPremium"] == true)
    );
    // executions
    let exec_path = format!("/amc/reporting/{id}/workflowExecutions");
    let exec = |body: Value| a.post(&exec_path, body);
    let sql =
        json!({"sqlQuery": "SELECT campaign_id, SUM(impressions) FROM dsp_impressions GROUP BY 1"});
    let (s, r) = exec(json!({"workflow": sql})).await;
    assert_eq!(s, 400);
    assert!(r["details"].as_str().unwrap().contains("timeWindowType"));
    let (_, dry) =
        exec(json!({"workflow": sql, "timeWindowType": "MOST_RECENT_WEEK", "dryRun": true})).await;
    assert_eq!(dry["status"], "SUCCEEDED");
    let (_, paid) = exec(json!({"workflow": {"sqlQuery": "SELECT * FROM segment_metadata_000"}, "timeWindowType": "EXPLICIT", "dryRun": true})).await;
    assert_eq!(paid["status"], "FAILED");
    assert!(
        !paid["statusReason"].as_str().unwrap().contains("subscri"),
        "the refusal never mentions a subscription"
    );
    let (_, e) = exec(json!({"workflow": sql, "timeWindowType": "EXPLICIT", "timeWindowStart": "2026-10-01T00:00:00Z", "timeWindowEnd": "2026-10-31T00:00:00Z"})).await;
    let eid = e["workflowExecutionId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let st: Value = a
        .req(
            Method::GET,
            &format!("/amc/reporting/{id}/workflowExecutions/{eid}"),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(st["status"], "SUCCEEDED");
    let urls: Value = a
        .req(
            Method::GET,
            &format!("/amc/reporting/{id}/workflowExecutions/{eid}/downloadUrls"),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let csv = app
        .http
        .get(urls["downloadUrls"][0].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(csv.starts_with("campaign_id,impressions,clicks\n"));
    // audiences: only a FAILED one may change
    let aud = |q: &str| json!({"instanceId": id, "audienceName": "a", "query": q, "refreshRateDays": 7, "destination": {"advertiserId": DSP}});
    let (_, good) = a
        .post(
            "/amc/audiences/query",
            aud("SELECT user_id FROM conversions_for_audiences"),
        )
        .await;
    let (_, bad) = a
        .post(
            "/amc/audiences/query",
            aud("SELECT user_id FROM conversions_for_audiences JOIN segment_metadata_003"),
        )
        .await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let good_id = good["audienceExecutionId"].as_str().unwrap();
    let bad_id = bad["audienceExecutionId"].as_str().unwrap();
    let get = |i: &str| {
        a.req(Method::GET, &format!("/amc/audiences/query/{i}"))
            .send()
    };
    assert_eq!(
        get(good_id).await.unwrap().json::<Value>().await.unwrap()["status"],
        "ACTIVE"
    );
    assert_eq!(
        get(bad_id).await.unwrap().json::<Value>().await.unwrap()["status"],
        "FAILED"
    );
    assert_eq!(
        a.req(Method::DELETE, &format!("/amc/audiences/query/{good_id}"))
            .send()
            .await
            .unwrap()
            .status(),
        409
    );
    let update = |i: &str| {
        a.req(Method::PUT, &format!("/amc/audiences/query/{i}"))
            .header("content-type", "application/json")
            .body(json!({"query": "SELECT user_id FROM conversions_for_audiences"}).to_string())
            .send()
    };
    assert_eq!(
        update(good_id).await.unwrap().status(),
        409,
        "an ACTIVE audience cannot be updated"
    );
    assert_eq!(
        update(bad_id).await.unwrap().status(),
        200,
        "a FAILED one can"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        get(bad_id).await.unwrap().json::<Value>().await.unwrap()["status"],
        "ACTIVE",
        "and it runs again"
    );
    let (_, bad2) = a
        .post(
            "/amc/audiences/query",
            aud("SELECT user_id FROM conversions_for_audiences JOIN segment_metadata_006"),
        )
        .await;
    let bad2 = bad2["audienceExecutionId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        a.req(Method::DELETE, &format!("/amc/audiences/query/{bad2}"))
            .send()
            .await
            .unwrap()
            .status(),
        200,
        "a FAILED audience can be deleted"
    );
    assert_eq!(get(&bad2).await.unwrap().status(), 404);
    let (s, _) = a.post("/amc/audiences/query", json!({"instanceId": id, "audienceName": "a", "query": "SELECT 1 FROM conversions_for_audiences", "refreshRateDays": 30, "destination": {}})).await;
    assert_eq!(s, 400, "refresh outside 0 to 21 days");
}

#[tokio::test]
async fn exports_and_recommendations_answer_with_their_media_types() {
    let app = SimApp::start().await;
    let a = login(&app, SELLER).await;
    let scoped = |m: Method, p: &str| {
        a.req(m, p)
            .header("Amazon-Advertising-API-Scope", "3100000001")
    };
    let media = "application/vnd.campaignsexport.v1+json";
    let r = scoped(Method::POST, "/campaigns/export")
        .header("content-type", media)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);
    assert_eq!(r.headers()["content-type"], media);
    let id = r.json::<Value>().await.unwrap()["exportId"]
        .as_str()
        .unwrap()
        .to_owned();
    tokio::time::sleep(Duration::from_millis(400)).await;
    let r: Value = scoped(Method::GET, &format!("/exports/{id}"))
        .header("accept", media)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["status"], "COMPLETED");
    let text = app.download_gz(r["url"].as_str().unwrap()).await;
    assert!(
        serde_json::from_str::<Vec<Value>>(&text).unwrap().len() >= 2,
        "SP and SB campaigns"
    );
    let groups: Value = scoped(Method::POST, "/sp/adGroups/list")
        .header("content-type", "application/vnd.spAdGroup.v3+json")
        .body("{}")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let g = &groups["adGroups"][0];
    let v5 = "application/vnd.spkeywordsrecommendation.v5+json";
    let r = scoped(Method::POST, "/sp/targets/keywords/recommendations").header("content-type", v5).body(json!({"recommendationType": "KEYWORDS_FOR_ADGROUP", "campaignId": g["campaignId"], "adGroupId": g["adGroupId"]}).to_string()).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], v5);
    let recs: Value = r.json().await.unwrap();
    assert_eq!(
        recs["keywordTargetList"][0]["bidInfo"][0]["rank"], 1,
        "{recs}"
    );
    let budget = "application/vnd.budgetrecommendation.v3+json";
    let r: Value = scoped(Method::POST, "/sp/campaigns/budgetRecommendations")
        .header("content-type", budget)
        .body(json!({"campaignIds": [g["campaignId"], "1"]}).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        r["budgetRecommendationsSuccessResults"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(r["budgetRecommendationsErrorResults"][0]["index"], 1);
}

/// Budget usage and budget recommendations tell the same story for every campaign: the same
/// budget in force, and a recommendation never below it.
#[tokio::test]
async fn budget_usage_and_recommendations_agree() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let a = login(&app, SELLER).await;
    let (_, _, list) = a
        .call(
            Method::POST,
            "/sp/campaigns/list",
            "application/vnd.spCampaign.v3+json",
            json!({}),
        )
        .await;
    let ids: Vec<Value> = list["campaigns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["campaignId"].clone())
        .collect();
    assert!(!ids.is_empty());
    let usage_media = "application/vnd.spcampaignbudgetusage.v1+json";
    let (_, _, usage) = a
        .call(
            Method::POST,
            "/sp/campaigns/budget/usage",
            usage_media,
            json!({ "campaignIds": ids }),
        )
        .await;
    let rec_media = "application/vnd.budgetrecommendation.v3+json";
    let (_, _, recs) = a
        .call(
            Method::POST,
            "/sp/campaigns/budgetRecommendations",
            rec_media,
            json!({ "campaignIds": ids }),
        )
        .await;
    for u in usage["success"].as_array().unwrap() {
        let id = &u["campaignId"];
        let r = recs["budgetRecommendationsSuccessResults"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| &r["campaignId"] == id)
            .unwrap_or_else(|| panic!("no recommendation for {id}: {recs}"));
        let (budget, suggested) = (
            u["budget"].as_f64().unwrap(),
            r["suggestedBudget"].as_f64().unwrap(),
        );
        assert!(
            suggested >= budget,
            "campaign {id}: {suggested} recommended under its budget {budget}"
        );
        let raise = r["budgetRuleRecommendation"]["suggestedBudgetIncreasePercent"]
            .as_f64()
            .unwrap();
        let expected = (budget * (1.0 + raise / 100.0) * 100.0).round() / 100.0;
        assert!(
            (suggested - expected).abs() < 0.011,
            "campaign {id}: {suggested} is not {budget} raised {raise}%"
        );
    }
}

/// Issue 53: DSP daily through Reporting v1 at the warehouse's grain: per day, order and line
/// item, to the cent of the world's `dsp_daily`, for every day of the 24 months daily reports
/// reach; line items are DSP's alone.
#[tokio::test]
async fn dsp_daily_by_line_item_adds_up_to_the_world() {
    let app = SimApp::small(|_| {}).await;
    let a = login(&app, VENDOR).await;
    let fields = json!([
        "date.value",
        "campaign.id",
        "adGroup.id",
        "adGroup.name",
        "budgetCurrency.value",
        "metric.impressions",
        "metric.clicks",
        "metric.totalCost",
        "metric.purchases",
        "metric.sales",
        "metric.purchasesPromoted",
        "metric.salesPromoted"
    ]);
    let (s, r) = a
        .post(
            "/adsApi/v1/create/reports",
            report(
                json!([{"advertiserAccountId": DSP}]),
                fields.clone(),
                "2024-11-22",
                "2026-11-21",
            ),
        )
        .await;
    assert_eq!(s, 207, "{r}");
    let id = r["success"][0]["report"]["reportId"]
        .as_str()
        .unwrap()
        .to_owned();
    let done = wait(&a, &id).await;
    assert_eq!(done["status"], "COMPLETED", "{done}");
    let url = done["completedReportParts"][0]["url"].as_str().unwrap();
    let rows = pp_marketplace::documents::ads::v1(&app.download_gz(url).await).unwrap();
    let mut served: Vec<(String, i64, String, [i64; 7])> = rows
        .iter()
        .map(|r| {
            (
                r.date.unwrap().to_string(),
                r.dims["adGroup.id"].parse().unwrap(),
                r.dims["adGroup.name"].clone(),
                [
                    r.impressions,
                    r.clicks,
                    r.cost,
                    r.purchases,
                    r.sales,
                    r.purchases_promoted,
                    r.sales_promoted,
                ],
            )
        })
        .collect();
    served.sort();
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let truth: Vec<(String, i64, String, [i64; 7])> = world
        .prepare(
            "SELECT Date, LineItemID, LineItemName, Impressions, Clicks, CAST(ROUND(TotalCost * 100) AS INTEGER),
                    Purchases, CAST(ROUND(Sales * 100) AS INTEGER), PurchasesPromoted,
                    CAST(ROUND(SalesPromoted * 100) AS INTEGER)
             FROM dsp_daily WHERE Date BETWEEN '2024-11-22' AND '2026-11-21' ORDER BY 1, 2",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                [r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?, r.get(9)?],
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        truth.len(),
        2 * 730,
        "two line items, every day of the 24 months"
    );
    assert_eq!(served, truth);
    // a sponsored ads account has no line items
    let seller = Ads::login(&app, SELLER).await;
    let (_, accts) = seller
        .post("/adsApi/v1/query/advertiserAccounts", json!({}))
        .await;
    let sponsored = accts["advertiserAccounts"][0]["advertiserAccountId"].clone();
    let (s, r) = seller
        .post(
            "/adsApi/v1/create/reports",
            report(
                json!([{"advertiserAccountId": sponsored}]),
                fields,
                "2026-11-01",
                "2026-11-21",
            ),
        )
        .await;
    assert_eq!(s, 207);
    assert!(r["error"][0].to_string().contains("DSP"), "{r}");
}
