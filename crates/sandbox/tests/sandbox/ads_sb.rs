//! Sponsored Brands and the creative rules, the asset library's quirks, SP negatives and
//! budget usage: status codes, media types and per-item 207 shapes.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Ads, SELLER, SimApp, US_PROFILE};

async fn ads(app: &SimApp) -> Ads<'_> {
    app.no_limits().await;
    Ads::login(app, SELLER).await
}

const CAMPAIGN: &str = "application/vnd.sbcampaignresource.v4+json";
const AD_GROUP: &str = "application/vnd.sbadgroupresource.v4+json";
const AD: &str = "application/vnd.sbadresource.v4+json";

/// An SB campaign of the world with its brand, and a fresh ad group in it.
async fn setup(a: &Ads<'_>) -> (String, String, Vec<Value>) {
    let (s, ct, list) = a
        .call(Method::POST, "/sb/v4/campaigns/list", CAMPAIGN, json!({}))
        .await;
    assert_eq!((s, ct.as_str()), (200, CAMPAIGN));
    let campaign = list["campaigns"][0]["campaignId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (s, _, g) = a
        .call(
            Method::POST,
            "/sb/v4/adGroups",
            AD_GROUP,
            json!({"adGroups": [{"campaignId": campaign, "name": "g", "state": "ENABLED"}]}),
        )
        .await;
    assert_eq!(s, 207);
    let group = g["adGroups"]["success"][0]["adGroupId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, _, assets) = a
        .call(
            Method::POST,
            "/assets/search",
            "application/json",
            json!({}),
        )
        .await;
    (
        campaign,
        group,
        assets["assetList"].as_array().unwrap().clone(),
    )
}

#[tokio::test]
async fn sb_ad_groups_take_no_bid_and_bidding_is_replaced_whole() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (campaign, _, _) = setup(&a).await;
    let (s, _, r) = a.call(Method::POST, "/sb/v4/adGroups", AD_GROUP, json!({"adGroups": [{"campaignId": campaign, "name": "g", "state": "ENABLED", "bid": 1.0}]})).await;
    assert_eq!(s, 207);
    assert!(
        r["adGroups"]["error"][0]["errors"][0]["errorValue"]["malformedValueError"]["message"]
            .as_str()
            .unwrap()
            .contains("no bid")
    );
    let bidding = json!({"bidOptimization": false, "bidAdjustmentsByPlacement": [{"placement": "TOP_OF_SEARCH", "percentage": 30}]});
    a.call(
        Method::PUT,
        "/sb/v4/campaigns",
        CAMPAIGN,
        json!({"campaigns": [{"campaignId": campaign, "bidding": bidding}]}),
    )
    .await;
    let only = json!({"bidOptimization": true});
    a.call(
        Method::PUT,
        "/sb/v4/campaigns",
        CAMPAIGN,
        json!({"campaigns": [{"campaignId": campaign, "bidding": only}]}),
    )
    .await;
    let (_, _, c) = a
        .call(
            Method::POST,
            "/sb/v4/campaigns/list",
            CAMPAIGN,
            json!({"campaignIdFilter": {"include": [campaign]}}),
        )
        .await;
    assert_eq!(
        c["campaigns"][0]["bidding"], only,
        "omitted entries lose their value"
    );
}

#[tokio::test]
async fn sb_creatives_follow_the_asset_store_and_field_rules() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (campaign, group, assets) = setup(&a).await;
    let logo = assets
        .iter()
        .find(|x| x["assetSubTypeList"][0] == "LOGO")
        .unwrap()["assetId"]
        .clone();
    let video = assets.iter().find(|x| x["assetType"] == "VIDEO").unwrap()["assetId"].clone();
    // the Store page of the campaign's brand
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let brand: String = world
        .query_row(
            "SELECT Brand FROM ads_campaign WHERE CampaignID = ?1",
            [&campaign],
            |r| r.get(0),
        )
        .unwrap();
    let url = format!(
        "https://www.amazon.com/stores/{}/page/{}",
        brand.replace(' ', ""),
        brand.len()
    );
    let r = app
        .http
        .get(app.url(&format!(
            "/pageAsins?pageUrl={}",
            form_urlencoded::byte_serialize(url.as_bytes()).collect::<String>()
        )))
        .bearer_auth(&a.token)
        .header("Amazon-Advertising-API-ClientId", app.client_id())
        .header("Amazon-Advertising-API-Scope", US_PROFILE)
        .send()
        .await
        .unwrap();
    assert_eq!(
        r.headers()["content-type"],
        "application/vnd.pageasins.v3+json"
    );
    let store: Vec<String> = r.json::<Value>().await.unwrap()["asinList"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    let all: Vec<String> = {
        let mut st = world
            .prepare("SELECT c.ASIN FROM catalog_item c WHERE c.SellerID = 1 AND c.Brand = ?1")
            .unwrap();
        st.query_map([&brand], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let off_store = all.iter().find(|x| !store.contains(x)).unwrap().clone();
    let crop = json!({"top": 0, "left": 0, "width": 400, "height": 400});
    let collection = |asins: Vec<String>, logo: Value| {
        json!({"ads": [{"adGroupId": group, "name": "pc", "state": "ENABLED",
        "landingPage": {"pageType": "STORE", "url": url},
        "creative": {"asins": asins, "brandName": brand, "brandLogoAssetID": logo, "brandLogoCrop": crop, "headline": "Stay cold"}}]})
    };
    let (s, ct, ok) = a
        .call(
            Method::POST,
            "/sb/v4/ads/productCollection",
            AD,
            collection(store[..1].to_vec(), logo.clone()),
        )
        .await;
    assert_eq!((s, ct.as_str()), (207, AD));
    assert!(ok["ads"]["success"][0]["adId"].is_string(), "{ok}");
    let (_, _, r) = a
        .call(
            Method::POST,
            "/sb/v4/ads/productCollection",
            AD,
            collection(vec![off_store.clone()], logo.clone()),
        )
        .await;
    assert!(
        r["ads"]["error"][0]["errors"][0]["errorValue"]["malformedValueError"]["message"]
            .as_str()
            .unwrap()
            .contains("Store page"),
        "{r}"
    );
    let (_, _, r) = a
        .call(
            Method::POST,
            "/sb/v4/ads/productCollection",
            AD,
            collection(store[..1].to_vec(), json!("amzn1.assetlibrary.asset1.nope")),
        )
        .await;
    assert!(
        r["ads"]["error"][0]["errors"][0]["errorValue"]["malformedValueError"]["message"]
            .as_str()
            .unwrap()
            .contains("asset library")
    );
    // VIDEO: brand fields fail; asins + videoAssetIds pass (product page landing: no Store check)
    let video_ad = |creative: Value| json!({"ads": [{"adGroupId": group, "name": "v", "state": "ENABLED", "creative": creative}]});
    let (_, _, r) = a
        .call(
            Method::POST,
            "/sb/v4/ads/video",
            AD,
            video_ad(json!({"asins": [off_store], "videoAssetIds": [video], "brandName": brand})),
        )
        .await;
    assert!(
        r["ads"]["error"][0]["errors"][0]["errorValue"]["malformedValueError"]["message"]
            .as_str()
            .unwrap()
            .contains("brandName")
    );
    let (_, _, r) = a
        .call(
            Method::POST,
            "/sb/v4/ads/video",
            AD,
            video_ad(json!({"asins": [off_store], "videoAssetIds": [video]})),
        )
        .await;
    assert_eq!(r["ads"]["success"].as_array().unwrap().len(), 1, "{r}");
    // STORE_SPOTLIGHT: no top-level asins
    let spot = json!({"ads": [{"adGroupId": group, "name": "s", "state": "ENABLED", "creative": {"asins": [store[0]], "brandName": brand, "brandLogoAssetID": logo, "brandLogoCrop": crop, "headline": "h", "subpages": []}}]});
    let (_, _, r) = a
        .call(Method::POST, "/sb/v4/ads/storeSpotlight", AD, spot)
        .await;
    assert!(
        r["ads"]["error"][0]["errors"][0]["errorValue"]["malformedValueError"]["message"]
            .as_str()
            .unwrap()
            .contains("asins")
    );
    // the list shows what was created
    let (_, _, list) = a
        .call(
            Method::POST,
            "/sb/v4/ads/list",
            AD,
            json!({"adGroupIdFilter": {"include": [group]}}),
        )
        .await;
    assert_eq!(list["ads"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn the_asset_search_ignores_filters_and_cannot_page() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (s, ct, first) = a
        .call(
            Method::POST,
            "/assets/search",
            "application/json",
            json!({}),
        )
        .await;
    assert_eq!(
        (s, ct.as_str()),
        (
            200,
            "application/vnd.creativeassetssearchassetsresponse.v3+json"
        )
    );
    let page = first["assetList"].as_array().unwrap();
    assert_eq!(page.len(), 20, "the newest page only");
    assert!(first["totalRecords"].as_u64().unwrap() > 20);
    let filtered = json!({"text": "zzz-no-such-asset", "filterCriteria": {"assetTypeFilter": {"values": ["VIDEO"]}}});
    let (s, _, same) = a
        .call(Method::POST, "/assets/search", "application/json", filtered)
        .await;
    assert_eq!(s, 200);
    assert_eq!(
        same["assetList"], first["assetList"],
        "filters are silently ignored"
    );
    let token = first["token"].clone();
    let (_, _, next) = a
        .call(
            Method::POST,
            "/assets/search",
            "application/json",
            json!({"pageCriteria": {"identifier": {"token": token}}}),
        )
        .await;
    assert_eq!(
        next["assetList"], first["assetList"],
        "the token does not page"
    );
    let video = page.iter().find(|x| x["assetType"] == "VIDEO").unwrap();
    assert!(video["fileMetadata"]["durationInSeconds"].is_number());
    let image = page.iter().find(|x| x["assetType"] == "IMAGE").unwrap();
    assert!(image["fileMetadata"]["aspectRatio"].is_string());
}

#[tokio::test]
async fn sb_keyword_and_target_updates_need_the_ad_group_and_negative_targets_use_target_id() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (_, group, _) = setup(&a).await;
    let (s, ct, made) = a.call(Method::POST, "/sb/keywords", "application/json", json!([{"adGroupId": group, "keywordText": "cold bottle", "matchType": "exact", "bid": 1.1}])).await;
    assert_eq!(
        (s, ct.as_str()),
        (207, "application/vnd.sbkeywordresponse.v3+json")
    );
    assert_eq!(made[0]["code"], "SUCCESS");
    let id = made[0]["keywordId"].clone();
    let (_, _, r) = a
        .call(
            Method::PUT,
            "/sb/keywords",
            "application/json",
            json!([{"keywordId": id, "state": "paused"}]),
        )
        .await;
    assert_eq!(r[0]["code"], "INVALID_ARGUMENT");
    assert!(r[0]["details"].as_str().unwrap().contains("adGroupId"));
    let (_, _, r) = a
        .call(
            Method::PUT,
            "/sb/keywords",
            "application/json",
            json!([{"keywordId": id, "adGroupId": group, "state": "paused"}]),
        )
        .await;
    assert_eq!(r[0]["code"], "SUCCESS");
    let (_, _, nt) = a.call(Method::POST, "/sb/negativeTargets", "application/json", json!({"negativeTargets": [{"adGroupId": group, "expressions": [{"type": "asinBrandSameAs", "value": "Acme"}]}]})).await;
    let tid = nt["createTargetSuccessResults"][0]["targetId"].clone();
    let (_, _, r) = a.call(Method::PUT, "/sb/negativeTargets", "application/json", json!({"negativeTargets": [{"negativeTargetId": tid, "adGroupId": group, "state": "paused"}]})).await;
    assert!(
        r["updateTargetErrorResults"][0]["details"]
            .as_str()
            .unwrap()
            .contains("targetId")
    );
    let (_, _, r) = a
        .call(
            Method::PUT,
            "/sb/negativeTargets",
            "application/json",
            json!({"negativeTargets": [{"targetId": tid, "adGroupId": group, "state": "paused"}]}),
        )
        .await;
    assert_eq!(r["updateTargetSuccessResults"][0]["targetId"], tid);
}

#[tokio::test]
async fn sp_negatives_product_ads_and_budget_usage() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (_, _, groups) = a
        .call(
            Method::POST,
            "/sp/adGroups/list",
            "application/vnd.spAdGroup.v3+json",
            json!({}),
        )
        .await;
    let g = &groups["adGroups"][0];
    let nk = "application/vnd.spNegativeKeyword.v3+json";
    let (s, ct, r) = a.call(Method::POST, "/sp/negativeKeywords", nk, json!({"negativeKeywords": [
        {"campaignId": g["campaignId"], "adGroupId": g["adGroupId"], "keywordText": "cheap", "matchType": "NEGATIVE_EXACT", "state": "ENABLED"},
        {"campaignId": g["campaignId"], "adGroupId": g["adGroupId"], "keywordText": "cheap", "matchType": "EXACT", "state": "ENABLED"}
    ]})).await;
    assert_eq!((s, ct.as_str()), (207, nk));
    assert_eq!(
        r["negativeKeywords"]["success"].as_array().unwrap().len(),
        1
    );
    assert_eq!(r["negativeKeywords"]["error"][0]["index"], 1);
    let (_, _, list) = a
        .call(Method::POST, "/sp/negativeKeywords/list", nk, json!({}))
        .await;
    assert_eq!(list["negativeKeywords"][0]["keywordText"], "cheap");
    let (_, _, ads_list) = a
        .call(
            Method::POST,
            "/sp/productAds/list",
            "application/vnd.spProductAd.v3+json",
            json!({}),
        )
        .await;
    assert!(!ads_list["productAds"].as_array().unwrap().is_empty());
    let usage = "application/vnd.spcampaignbudgetusage.v1+json";
    let (s, ct, u) = a
        .call(
            Method::POST,
            "/sp/campaigns/budget/usage",
            usage,
            json!({"campaignIds": [g["campaignId"], "1"]}),
        )
        .await;
    assert_eq!((s, ct.as_str()), (207, usage));
    assert!(u["success"][0]["budgetUsagePercent"].is_number());
    assert_eq!(u["error"][0]["index"], 1);
}

/// Sponsored Brands v4 writes take at most the documents' 10 items; the eleventh is refused
/// whole, as `{ code, message }`.
#[tokio::test]
async fn sb_v4_writes_take_at_most_ten_items() {
    let app = SimApp::start().await;
    let a = Ads::login(&app, SELLER).await;
    let media = "application/vnd.sbcampaignresource.v4+json";
    let campaign = |i: usize| json!({ "name": format!("ten {i}"), "state": "ENABLED", "budget": 10.0, "budgetType": "DAILY" });
    let eleven: Vec<Value> = (0..11).map(campaign).collect();
    let (status, _, r) = a
        .call(
            Method::POST,
            "/sb/v4/campaigns",
            media,
            json!({ "campaigns": eleven }),
        )
        .await;
    assert_eq!(status, 400, "{r}");
    assert_eq!(r["code"], "INVALID_ARGUMENT", "{r}");
    assert!(r["message"].as_str().unwrap().contains("1 to 10"), "{r}");
    let ten: Vec<Value> = (0..10).map(campaign).collect();
    let (status, _, r) = a
        .call(
            Method::POST,
            "/sb/v4/campaigns",
            media,
            json!({ "campaigns": ten }),
        )
        .await;
    assert_eq!(status, 207, "{r}");
}

#[tokio::test]
async fn sb_v3_targets_are_numbered_apart_filtered_and_negative_targets_carry_no_bid() {
    let app = SimApp::start().await;
    let a = ads(&app).await;
    let (_, group, _) = setup(&a).await;
    let (_, _, other) = a
        .call(Method::POST, "/sb/v4/adGroups/list", AD_GROUP, json!({}))
        .await;
    let other = other["adGroups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["adGroupId"].as_str().unwrap().to_owned())
        .find(|g| *g != group)
        .unwrap();
    let expr = |v: &str| json!([{"type": "asinSameAs", "value": v}]);
    let (s, ct, made) = a.call(Method::POST, "/sb/targets", "application/json", json!({"targets": [
        {"adGroupId": group.parse::<i64>().unwrap(), "expressions": expr("B0FILTER01"), "bid": 0.9},
        {"adGroupId": other.parse::<i64>().unwrap(), "expressions": expr("B0FILTER02")},
        {"adGroupId": group, "expressions": [{"type": "keywordSameAs", "value": "x"}]}
    ]})).await;
    assert_eq!(
        (s, ct.as_str()),
        (200, "application/vnd.sbcreatetargetsresponse.v3+json")
    );
    let ok = made["createTargetSuccessResults"].as_array().unwrap();
    assert_eq!(ok.len(), 2, "{made}");
    assert!(ok[0]["targetId"].is_i64(), "ids are integers: {made}");
    assert_eq!(made["createTargetErrorResults"][0]["targetRequestIndex"], 2);
    let (s, ct, neg) = a.call(Method::POST, "/sb/negativeTargets", "application/json", json!({"negativeTargets": [
        {"adGroupId": group, "expressions": [{"type": "asinBrandSameAs", "value": "Rival"}]},
        {"adGroupId": group, "expressions": [{"type": "asinBrandSameAs", "value": "Rival"}], "bid": 1.0}
    ]})).await;
    assert_eq!(
        (s, ct.as_str()),
        (
            200,
            "application/vnd.sbcreatenegativetargetsrequest.v3+json"
        )
    );
    let neg_id = &neg["createTargetSuccessResults"][0]["targetId"];
    assert!(
        neg["createTargetErrorResults"][0]["details"]
            .as_str()
            .unwrap()
            .contains("no bid")
    );
    let target_ids: Vec<&Value> = ok.iter().map(|r| &r["targetId"]).collect();
    assert!(
        !target_ids.contains(&neg_id),
        "a negative target's id is never a target's"
    );
    // an ad group filter keeps that group's targets only; a state filter none paused
    let list = |filters: Value| {
        a.call(
            Method::POST,
            "/sb/targets/list",
            "application/json",
            json!({ "filters": filters }),
        )
    };
    let (_, ct, mine) = list(json!([{"filterType": "AD_GROUP_ID", "values": [group]}])).await;
    assert_eq!(ct, "application/vnd.sblisttargetsresponse.v3+json");
    let mine = mine["targets"].as_array().unwrap();
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0]["bid"], 0.9);
    assert_eq!(mine[0]["resolvedExpressions"], mine[0]["expressions"]);
    // no ad group here holds a video ad: every target is of creative type productCollection
    let (_, _, videos) = list(json!([{"filterType": "CREATIVE_TYPE", "values": ["video"]}])).await;
    assert_eq!(videos["targets"], json!([]));
    let (_, _, collections) =
        list(json!([{"filterType": "CREATIVE_TYPE", "values": ["productCollection"]}])).await;
    assert_eq!(collections["targets"].as_array().unwrap().len(), 2);
    let (_, _, none) = list(json!([{"filterType": "TARGETING_STATE", "values": ["paused"]}])).await;
    assert_eq!(none["targets"], json!([]));
    let (_, _, theirs) = list(json!([{"filterType": "AD_GROUP_ID", "values": [other]}])).await;
    assert!(
        theirs["targets"][0].get("bid").is_none(),
        "no bid unless one was given: {theirs}"
    );
    let (s, ct, _) = list(json!([{"filterType": "AD_GROUP_ID", "values": [group]}, {"filterType": "AD_GROUP_ID", "values": [other]}])).await;
    assert_eq!((s, ct.as_str()), (400, "application/vnd.sberror.v3.0+json"));
    let (_, ct, negs) = a
        .call(
            Method::POST,
            "/sb/negativeTargets/list",
            "application/json",
            json!({}),
        )
        .await;
    assert_eq!(ct, "application/vnd.sblistnegativetargetsresponse.v3+json");
    assert!(negs["negativeTargets"][0].get("bid").is_none());
}
