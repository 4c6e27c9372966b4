//! Advertising answers the sandbox gives — every catalogued read, create and write it can
//! call, the Sponsored Brands v3 target creates, and error answers of every API
//! (`ads_model_cases`) — checked against the Ads API's own OpenAPI 3.0 documents
//! (`$PP_PROVIDER_MODELS/../ads`) by `tests/models/validate_ads.py`, run with the Python of
//! `$PP_MCP_PYTHON` (which has `jsonschema` and PyYAML). The operations come from the
//! gateway's catalog, so a new catalogued operation is checked without a new line here.
//!
//! An answer that may not match yet would be named in [`NOT_YET`] with what is wrong; the
//! test fails when another answer stops matching, and when a named one starts to (so the list
//! only shrinks). It is empty: every answer the documents describe matches.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::ads_model_cases::{self, DSP_ACCOUNT, VENDOR};
use crate::common::{Ads, SELLER, SimApp, US_PROFILE, model_tools, typed_parts};

/// Reads whose answers still differ from the models, and how (issue 24 fixes them).
const NOT_YET: &[(&str, &str)] = &[];

/// Ids the calls need, by name (`campaignId`, `sp.keywords`, `sb.adGroupId` …).
type Ids = BTreeMap<String, String>;

/// The US seller's entity and marketplace, as AMC's administration calls name them.
const AMC_ENTITY: &str = "ENTITYA2DEMOSELLER01";
const US_MARKET: &str = "ATVPDKIKX0DER";

/// Ids the reads' paths need, made or found on the sandbox first, and the answers of the
/// uncatalogued creates that made some of them.
async fn ids(a: &Ads<'_>, vendor: &Ads<'_>, made: &mut Vec<Value>) -> Ids {
    let mut ids = BTreeMap::new();
    let (_, _, r) = a
        .call(Method::POST, "/reporting/reports", "application/vnd.createasyncreportrequest.v3+json", json!({
            "name": "models", "startDate": "2026-10-01", "endDate": "2026-10-07",
            "configuration": {"adProduct": "SPONSORED_PRODUCTS", "groupBy": ["campaign"], "columns": ["date", "campaignId", "clicks"],
                              "reportTypeId": "spCampaigns", "timeUnit": "DAILY", "format": "GZIP_JSON"}}))
        .await;
    ids.insert(
        "reportId".into(),
        r["reportId"].as_str().unwrap_or_default().to_owned(),
    );
    let media = "application/vnd.campaignsexport.v1+json";
    let (_, _, r) = a
        .call(Method::POST, "/campaigns/export", media, json!({}))
        .await;
    ids.insert(
        "exportId".into(),
        r["exportId"].as_str().unwrap_or_default().to_owned(),
    );
    let r: Value = a
        .req(Method::GET, "/amc/instances")
        .header("Amazon-Advertising-API-AdvertiserId", AMC_ENTITY)
        .header("Amazon-Advertising-API-MarketplaceId", US_MARKET)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap_or(Value::Null);
    let instance = r["instances"][0]["instanceId"].as_str().unwrap_or_default();
    ids.insert("instanceId".into(), instance.to_owned());
    let media = "application/vnd.spCampaign.v3+json";
    let (_, _, r) = a
        .call(Method::POST, "/sp/campaigns/list", media, json!({}))
        .await;
    let campaign = r["campaigns"][0]["campaignId"].as_str().unwrap_or_default();
    ids.insert("campaignId".into(), campaign.to_owned());
    let media = "application/vnd.spAdGroup.v3+json";
    let (_, _, r) = a
        .call(Method::POST, "/sp/adGroups/list", media, json!({}))
        .await;
    let group = r["adGroups"][0]["adGroupId"].as_str().unwrap_or_default();
    ids.insert("adGroupId".into(), group.to_owned());
    for (list, media, key, id) in [
        ("keywords", "spKeyword", "keywords", "keywordId"),
        (
            "targets",
            "spTargetingClause",
            "targetingClauses",
            "targetId",
        ),
        ("productAds", "spProductAd", "productAds", "adId"),
        (
            "negativeKeywords",
            "spNegativeKeyword",
            "negativeKeywords",
            "keywordId",
        ),
        (
            "campaignNegativeKeywords",
            "spCampaignNegativeKeyword",
            "campaignNegativeKeywords",
            "keywordId",
        ),
        (
            "negativeTargets",
            "spNegativeTargetingClause",
            "negativeTargetingClauses",
            "targetId",
        ),
    ] {
        let media = format!("application/vnd.{media}.v3+json");
        let (_, _, r) = a
            .call(Method::POST, &format!("/sp/{list}/list"), &media, json!({}))
            .await;
        let value = r[key][0][id].as_str().unwrap_or_default();
        ids.insert(format!("sp.{key}"), value.to_owned());
    }
    for (list, media, id) in [
        ("campaigns", "sbcampaignresource", "campaignId"),
        ("adGroups", "sbadgroupresource", "adGroupId"),
        ("ads", "sbadresource", "adId"),
    ] {
        let media = format!("application/vnd.{media}.v4+json");
        let (_, _, r) = a
            .call(
                Method::POST,
                &format!("/sb/v4/{list}/list"),
                &media,
                json!({}),
            )
            .await;
        let value = r[list][0][id].as_str().unwrap_or_default();
        ids.insert(format!("sb.{id}"), value.to_owned());
    }
    made.extend(ads_model_cases::sb3_targets(a, &ids["sb.adGroupId"]).await);
    let r: Value = vendor
        .req(Method::POST, &format!("/accounts/{DSP_ACCOUNT}/dsp/reports"))
        .header("content-type", "application/vnd.dspcreatereports.v3+json")
        .body(json!({"startDate": "20261001", "endDate": "20261007", "type": "CAMPAIGN", "timeUnit": "DAILY"}).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap_or(Value::Null);
    ids.insert("accountId".into(), DSP_ACCOUNT.into());
    ids.insert("dsp.reportId".into(), s_id(&r["reportId"]));
    let (_, r) = a
        .post("/adsApi/v1/query/advertiserAccounts", json!({}))
        .await;
    let account = s_id(&r["advertiserAccounts"][0]["advertiserAccountId"]);
    let (_, r) = a
        .post(
            "/adsApi/v1/create/reports",
            json!({"accessRequestedAccounts": [{"advertiserAccountId": account}],
                   "reports": [{"format": "GZIP_JSON", "periods": [{"datePeriod": {"startDate": "2026-10-01", "endDate": "2026-10-03"}}],
                                "query": {"fields": ["campaign.id", "metric.clicks"]}}]}),
        )
        .await;
    ids.insert("v1.account".into(), account);
    ids.insert(
        "v1.reportId".into(),
        s_id(&r["success"][0]["report"]["reportId"]),
    );
    let r: Value = a
        .req(Method::GET, "/sb/keywords")
        .header("Amazon-Advertising-API-Scope", US_PROFILE)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap_or(Value::Null);
    ids.insert("sb3.keyword".into(), s_id(&r[0]["keywordId"]));
    ids.insert("sb3.keywordGroup".into(), s_id(&r[0]["adGroupId"]));
    for (path, key, id, group) in [
        (
            "/sb/targets/list",
            "targets",
            "sb3.target",
            "sb3.targetGroup",
        ),
        (
            "/sb/negativeTargets/list",
            "negativeTargets",
            "sb3.negativeTarget",
            "sb3.negativeTargetGroup",
        ),
    ] {
        let (_, _, r) = a
            .call(Method::POST, path, "application/json", json!({}))
            .await;
        ids.insert(id.into(), s_id(&r[key][0]["targetId"]));
        ids.insert(group.into(), s_id(&r[key][0]["adGroupId"]));
    }
    let (_, _, r) = a
        .call(
            Method::POST,
            "/assets/search",
            "application/json",
            json!({}),
        )
        .await;
    for asset in r["assetList"].as_array().into_iter().flatten() {
        let key = match asset["assetSubTypeList"][0].as_str() {
            Some("LOGO") => "asset.logo",
            Some("BACKGROUND_VIDEO") | Some("VIDEO") => "asset.video",
            _ => continue,
        };
        let id = asset["assetId"].as_str().unwrap_or_default().to_owned();
        ids.entry(key.into()).or_insert(id);
    }
    ids
}

/// An id as text, whether the answer spelled it as a number or a string.
fn s_id(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// The body of a Sponsored Brands v3 update: one item naming an existing keyword or target
/// and its ad group, with a new state.
fn sb3_write(op: &Value, ids: &Ids) -> Option<Value> {
    let num = |k: &str| -> Option<Value> { Some(json!(ids.get(k)?.parse::<i64>().ok()?)) };
    let item = |id_field: &str, id: &str, group: &str| -> Option<Value> {
        Some(json!({ id_field: num(id)?, "adGroupId": num(group)?, "state": "paused" }))
    };
    match op["id"].as_str()? {
        "sb.update_keywords" => Some(json!([item(
            "keywordId",
            "sb3.keyword",
            "sb3.keywordGroup"
        )?])),
        "sb.update_targets" => {
            Some(json!({ "targets": [item("targetId", "sb3.target", "sb3.targetGroup")?] }))
        }
        "sb.update_negative_targets" => Some(json!({
            "negativeTargets": [item("targetId", "sb3.negativeTarget", "sb3.negativeTargetGroup")?]
        })),
        _ => None,
    }
}

/// A value for a Sponsored Brands v4 item field (`creative.x` fields go inside `creative`).
fn sb_field(field: &str, _entity: &str, ids: &Ids) -> Value {
    let id = |k: &str| json!(ids.get(k).cloned().unwrap_or_default());
    match field {
        "name" => json!("models sb"),
        "state" => json!("ENABLED"),
        "budget" => json!(25.0),
        "budgetType" => json!("DAILY"),
        "campaignId" => id("sb.campaignId"),
        "adGroupId" => id("sb.adGroupId"),
        "adId" => id("sb.adId"),
        "bidding" => {
            json!({ "bidOptimization": false, "bidAdjustmentsByPlacement": [{ "placement": "HOME", "percentage": 20 }] })
        }
        "asins" => json!(["B0MODELS01", "B0MODELS02", "B0MODELS03"]),
        "brandName" => json!("Models"),
        "brandLogoAssetID" => id("asset.logo"),
        "brandLogoCrop" => json!({ "top": 0, "left": 0, "width": 400, "height": 400 }),
        "headline" => json!("Models headline"),
        "videoAssetIds" => json!([ids.get("asset.video").cloned().unwrap_or_default()]),
        "subpages" => {
            json!([{ "pageTitle": "Models", "asin": "B0MODELS01", "url": "https://www.amazon.com/stores/page/MODELS" }])
        }
        _ => Value::Null,
    }
}

/// A value for a Sponsored Products item field, by its name.
fn sp_field(field: &str, entity: &str, ids: &Ids) -> Value {
    match field {
        "name" => json!(format!("models {entity}")),
        "targetingType" => json!("MANUAL"),
        "state" => json!("ENABLED"),
        "budget" => json!({ "budgetType": "DAILY", "budget": 25.0 }),
        "campaignId" => json!(ids["campaignId"]),
        "adGroupId" => json!(ids["adGroupId"]),
        "defaultBid" => json!(0.75),
        "keywordText" => json!("models keyword"),
        "matchType" if entity.contains("egative") => json!("NEGATIVE_EXACT"),
        "matchType" => json!("EXACT"),
        "expression" => json!([{ "type": "ASIN_SAME_AS", "value": "B0MODELS01" }]),
        "expressionType" => json!("MANUAL"),
        "dynamicBidding" => {
            json!({ "strategy": "LEGACY_FOR_SALES", "placementBidding": [{ "placement": "PLACEMENT_TOP", "percentage": 20 }] })
        }
        _ => json!(
            ids.get(format!("sp.{entity}").as_str())
                .cloned()
                .unwrap_or_default()
        ),
    }
}

/// The body of an entity write (Sponsored Products, Sponsored Brands v4): one item with its
/// required fields (`creative.x` ones inside `creative`); a delete names the first of them in
/// its id filter (`campaignIdFilter` …).
fn entity_write(op: &Value, ids: &Ids) -> Option<Value> {
    let entity = op["itemsKey"].as_str()?;
    let value: fn(&str, &str, &Ids) -> Value = match op["path"].as_str()? {
        p if p.starts_with("/sp/") => sp_field,
        p if p.starts_with("/sb/v4/") => sb_field,
        _ => return None,
    };
    let mut item = serde_json::Map::new();
    let mut creative = serde_json::Map::new();
    for f in op["requiredItemFields"].as_array()? {
        let f = f.as_str()?;
        match f.strip_prefix("creative.") {
            Some(c) => creative.insert(c.to_owned(), value(c, entity, ids)),
            None => item.insert(f.to_owned(), value(f, entity, ids)),
        };
    }
    if !creative.is_empty() {
        item.insert("creative".into(), Value::Object(creative));
    }
    if op["id"].as_str()?.contains(".delete_") {
        let (field, id) = item.into_iter().next()?;
        return Some(json!({ format!("{field}Filter"): { "include": [id] } }));
    }
    Some(json!({ entity: [Value::Object(item)] }))
}

/// The body a read or create needs to answer with data (`{}` for the rest).
fn body_for(op: &str, ids: &Ids) -> Value {
    match op {
        "reporting.create_report" => json!({
            "name": "models create", "startDate": "2026-10-08", "endDate": "2026-10-14",
            "configuration": {"adProduct": "SPONSORED_PRODUCTS", "groupBy": ["campaign"], "columns": ["date", "campaignId", "impressions"],
                              "reportTypeId": "spCampaigns", "timeUnit": "DAILY", "format": "GZIP_JSON"}}),
        "reporting_v1.create_report" => json!({
            "accessRequestedAccounts": [{"advertiserAccountId": ids["v1.account"]}],
            "reports": [{"format": "GZIP_JSON", "periods": [{"datePeriod": {"startDate": "2026-10-01", "endDate": "2026-10-07"}}],
                         "query": {"fields": ["campaign.id", "metric.clicks"]}}]}),
        "reporting_v1.retrieve_report" | "reporting_v1.delete_report" => {
            json!({ "reportIds": [ids["v1.reportId"]] })
        }
        "dsp.create_report" => {
            json!({"startDate": "20261008", "endDate": "20261014", "type": "CAMPAIGN", "timeUnit": "DAILY"})
        }
        // one campaign of the profile and one that is not, so both result lists are filled
        "sp.budget_recommendations" => json!({ "campaignIds": [ids["campaignId"], "1"] }),
        "sp.keyword_recommendations" => json!({
            "recommendationType": "KEYWORDS_FOR_ADGROUP",
            "campaignId": ids["campaignId"], "adGroupId": ids["adGroupId"],
        }),
        _ => json!({}),
    }
}

#[tokio::test]
async fn advertising_reads_match_the_official_models() {
    let Some((models, python)) = model_tools("../ads") else {
        return;
    };
    let app = SimApp::start().await;
    app.no_limits().await;
    let seller = Ads::login(&app, SELLER).await;
    let vendor = Ads::login(&app, VENDOR).await;
    let mut cases = Vec::new();
    let ids = ids(&seller, &vendor, &mut cases).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let catalog: Value = serde_json::from_str(include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../marketplace/catalog/ads.json"
    )))
    .unwrap();
    for op in catalog["operations"].as_array().unwrap() {
        let write = if op["kind"] == "write" {
            match entity_write(op, &ids).or_else(|| sb3_write(op, &ids)) {
                Some(body) => Some(body),
                None => continue, // the AMC audience writes are not in the documents
            }
        } else {
            None // reads, creates and cancels
        };
        let template = op["path"].as_str().unwrap();
        let mut path = template.to_owned();
        // DSP is the vendor's (the seller has no DSP advertiser)
        let a = match op["id"].as_str().unwrap().starts_with("dsp.") {
            true => {
                path = path.replace("{reportId}", &ids["dsp.reportId"]);
                &vendor
            }
            false => &seller,
        };
        for (name, id) in &ids {
            path = path.replace(&format!("{{{name}}}"), id);
        }
        if path.contains('{') {
            continue; // a path id this test does not make yet (DSP accounts, AMC executions)
        }
        let method: Method = op["method"].as_str().unwrap().parse().unwrap();
        let media = op["mediaType"].as_str().unwrap_or("application/json");
        let mut req = a
            .req(method.clone(), &path)
            .header("accept", media)
            .header("Amazon-Ads-ClientId", app.client_id());
        if op["profileScoped"] == true {
            req = req.header("Amazon-Advertising-API-Scope", US_PROFILE);
        }
        let header_param = |name: &str| {
            op["params"]
                .as_array()
                .is_some_and(|ps| ps.iter().any(|p| p["in"] == "header" && p["name"] == name))
        };
        if header_param("Amazon-Advertising-API-AdvertiserId") {
            req = req
                .header("Amazon-Advertising-API-AdvertiserId", AMC_ENTITY)
                .header("Amazon-Advertising-API-MarketplaceId", US_MARKET);
        }
        if method != Method::GET {
            let body = write
                .clone()
                .unwrap_or_else(|| body_for(op["id"].as_str().unwrap(), &ids));
            req = req.header("content-type", media).body(body.to_string());
        }
        let (status, ct, body) = typed_parts(req.send().await.unwrap()).await;
        cases.push(json!({ "op": op["id"], "path": template, "method": op["method"].as_str().unwrap().to_lowercase(),
                           "status": status, "media": ct, "body": body }));
    }
    // the keyword recommendations in the two versions the catalog does not ask for
    for version in ["v3", "v4"] {
        let media = format!("application/vnd.spkeywordsrecommendation.{version}+json");
        let (status, ct, body) = seller
            .call(
                Method::POST,
                "/sp/targets/keywords/recommendations",
                &media,
                body_for("sp.keyword_recommendations", &ids),
            )
            .await;
        cases.push(
            json!({ "op": format!("sp.keyword_recommendations ({version})"),
                           "path": "/sp/targets/keywords/recommendations", "method": "post",
                           "status": status, "media": ct, "body": body }),
        );
    }
    cases.extend(ads_model_cases::errors(&seller, &vendor, &ids["exportId"]).await);
    let file = app.dir.path().join("ads-cases.json");
    std::fs::write(&file, serde_json::to_vec(&cases).unwrap()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/models/validate_ads.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(&file)
        .env("PP_ADS_MODELS", &models)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut checked = 0;
    let mut failing = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["described"] != true {
            continue;
        }
        checked += 1;
        if v["ok"] != true {
            failing.insert(v["op"].as_str().unwrap().to_owned(), v["problems"].clone());
        }
    }
    println!(
        "checked {checked} advertising answers against the models; {} differ",
        failing.len()
    );
    let known: BTreeMap<&str, &str> = NOT_YET.iter().copied().collect();
    let unexpected: Vec<_> = failing
        .iter()
        .filter(|(op, _)| !known.contains_key(op.as_str()))
        .collect();
    assert!(
        unexpected.is_empty(),
        "answers that differ from the models: {unexpected:#?}"
    );
    let fixed: Vec<_> = known
        .keys()
        .filter(|op| !failing.contains_key(**op))
        .collect();
    assert!(
        fixed.is_empty(),
        "these now match the models; take them off NOT_YET: {fixed:?}"
    );
    assert!(checked >= 100, "only {checked} answers were checked");
}
