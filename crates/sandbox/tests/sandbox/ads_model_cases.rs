//! The answers the advertising model test checks beyond the catalog's operations: Sponsored
//! Brands v3 targets and negative targets made on the sandbox (the demo world holds none), and
//! error answers of every advertising API whose documents describe them. Each case is
//! `{op, path, method, status, media, body}`, as `validate_ads.py` reads it.

use reqwest::{Method, RequestBuilder};
use serde_json::{Value, json};

use crate::common::{Ads, US_PROFILE, typed_parts};

/// The vendor login that has a DSP advertiser, and that advertiser as the DSP report paths
/// name it.
pub const VENDOR: &str = "ENTITY2DEMOVENDOR";
pub const DSP_ACCOUNT: &str = "590000000000001";

/// Sends `req` and records its answer as a case for the document operation `method path`.
pub async fn record(label: &str, method: &str, path: &str, req: RequestBuilder) -> Value {
    let (status, media, body) = typed_parts(req.send().await.unwrap()).await;
    json!({ "op": label, "path": path, "method": method, "status": status, "media": media, "body": body })
}

/// Makes one Sponsored Brands v3 target and one negative target in `group` (an SB ad group
/// id) and records both create answers.
pub async fn sb3_targets(a: &Ads<'_>, group: &str) -> Vec<Value> {
    let group: i64 = group.parse().expect("an SB ad group id is a number");
    let made = [
        (
            "/sb/targets",
            json!({ "targets": [{ "adGroupId": group, "bid": 1.25,
                                  "expressions": [{ "type": "asinSameAs", "value": "B0MODELS01" }] }] }),
        ),
        (
            "/sb/negativeTargets",
            json!({ "negativeTargets": [{ "adGroupId": group,
                                          "expressions": [{ "type": "asinBrandSameAs", "value": "Models" }] }] }),
        ),
    ];
    let mut cases = Vec::new();
    for (path, body) in made {
        let req = scoped(a, Method::POST, path, "application/json").body(body.to_string());
        cases.push(record(&format!("create {path}"), "post", path, req).await);
    }
    cases
}

/// A call on the US profile with `media` as Content-Type and Accept.
fn scoped(a: &Ads<'_>, method: Method, path: &str, media: &str) -> RequestBuilder {
    a.req(method, path)
        .header("Amazon-Advertising-API-Scope", US_PROFILE)
        .header("content-type", media)
        .header("accept", media)
}

/// A POST on the US profile without an access token.
fn tokenless(a: &Ads<'_>, path: &str, media: &str) -> RequestBuilder {
    a.app
        .http
        .post(a.app.url(path))
        .header("Amazon-Advertising-API-ClientId", a.app.client_id())
        .header("Amazon-Advertising-API-Scope", US_PROFILE)
        .header("content-type", media)
        .body("{}")
}

/// An Ads API v1 call (its own client-id header).
fn v1(a: &Ads<'_>, path: &str) -> RequestBuilder {
    a.req(Method::POST, path)
        .header("Amazon-Ads-ClientId", a.app.client_id())
        .header("content-type", "application/json")
}

/// Error answers the documents describe, one or more per advertising API (Ads API v1 answers
/// a bad item inside its 207).
pub async fn errors(a: &Ads<'_>, vendor: &Ads<'_>, export_id: &str) -> Vec<Value> {
    let mut cases = Vec::new();
    let malformed = "{ not json";
    // (label, method, document path, request)
    let calls: Vec<(&str, &str, &str, RequestBuilder)> = vec![
        (
            "sp.list_campaigns (400)",
            "post",
            "/sp/campaigns/list",
            scoped(
                a,
                Method::POST,
                "/sp/campaigns/list",
                "application/vnd.spCampaign.v3+json",
            )
            .body(malformed),
        ),
        (
            "sp.list_campaigns (415)",
            "post",
            "/sp/campaigns/list",
            scoped(a, Method::POST, "/sp/campaigns/list", "text/plain").body("{}"),
        ),
        (
            "sp.list_keywords (401)",
            "post",
            "/sp/keywords/list",
            tokenless(a, "/sp/keywords/list", "application/vnd.spKeyword.v3+json"),
        ),
        (
            "sp.create_keywords (no profile, 400)",
            "post",
            "/sp/keywords",
            a.req(Method::POST, "/sp/keywords")
                .header("content-type", "application/vnd.spKeyword.v3+json")
                .body(r#"{"keywords": []}"#),
        ),
        (
            "sp.campaigns_budget_usage (400)",
            "post",
            "/sp/campaigns/budget/usage",
            scoped(
                a,
                Method::POST,
                "/sp/campaigns/budget/usage",
                "application/vnd.spcampaignbudgetusage.v1+json",
            )
            .body(malformed),
        ),
        (
            "sp.budget_recommendations (400)",
            "post",
            "/sp/campaigns/budgetRecommendations",
            scoped(
                a,
                Method::POST,
                "/sp/campaigns/budgetRecommendations",
                "application/vnd.budgetrecommendation.v3+json",
            )
            .body(malformed),
        ),
        (
            "sp.keyword_recommendations (400)",
            "post",
            "/sp/targets/keywords/recommendations",
            scoped(
                a,
                Method::POST,
                "/sp/targets/keywords/recommendations",
                "application/vnd.spkeywordsrecommendation.v5+json",
            )
            .body(malformed),
        ),
        (
            "sb.list_campaigns (400)",
            "post",
            "/sb/v4/campaigns/list",
            scoped(
                a,
                Method::POST,
                "/sb/v4/campaigns/list",
                "application/vnd.sbcampaignresource.v4+json",
            )
            .body(malformed),
        ),
        (
            "sb.list_ads (401)",
            "post",
            "/sb/v4/ads/list",
            tokenless(a, "/sb/v4/ads/list", "application/vnd.sbadresource.v4+json"),
        ),
        (
            "sb.update_targets (400)",
            "put",
            "/sb/targets",
            scoped(a, Method::PUT, "/sb/targets", "application/json").body(r#"{"targets": []}"#),
        ),
        (
            "sb.update_negative_targets (400)",
            "put",
            "/sb/negativeTargets",
            scoped(a, Method::PUT, "/sb/negativeTargets", "application/json").body(malformed),
        ),
        (
            "sb.get_keyword (404)",
            "get",
            "/sb/keywords/{keywordId}",
            scoped(
                a,
                Method::GET,
                "/sb/keywords/1",
                "application/vnd.sbkeyword.v3+json",
            ),
        ),
        (
            "reporting.get_report (404)",
            "get",
            "/reporting/reports/{reportId}",
            scoped(
                a,
                Method::GET,
                "/reporting/reports/00000000-0000-0000-0000-000000000000",
                "application/json",
            ),
        ),
        (
            "reporting.create_report (400)",
            "post",
            "/reporting/reports",
            scoped(
                a,
                Method::POST,
                "/reporting/reports",
                "application/vnd.createasyncreportrequest.v3+json",
            )
            .body(malformed),
        ),
        (
            "reporting_v1.retrieve_report (no id, 207)",
            "post",
            "/adsApi/v1/retrieve/reports",
            v1(a, "/adsApi/v1/retrieve/reports").body("{}"),
        ),
        (
            "reporting_v1.create_report (400)",
            "post",
            "/adsApi/v1/create/reports",
            v1(a, "/adsApi/v1/create/reports").body(malformed),
        ),
        (
            "accounts.query_advertiser_accounts (400)",
            "post",
            "/adsApi/v1/query/advertiserAccounts",
            v1(a, "/adsApi/v1/query/advertiserAccounts").body(r#"{"maxResults": 5}"#),
        ),
        (
            "dsp.get_report (404)",
            "get",
            "/accounts/{accountId}/dsp/reports/{reportId}",
            vendor.req(
                Method::GET,
                &format!("/accounts/{DSP_ACCOUNT}/dsp/reports/dsp-0000000000000000"),
            ),
        ),
        (
            "dsp.create_report (400)",
            "post",
            "/accounts/{accountId}/dsp/reports",
            vendor
                .req(
                    Method::POST,
                    &format!("/accounts/{DSP_ACCOUNT}/dsp/reports"),
                )
                .header("content-type", "application/vnd.dspcreatereports.v3+json")
                .body(r#"{"startDate": "2026-10-01"}"#),
        ),
        (
            "amc.get_instance (404)",
            "get",
            "/amc/instances/{instanceId}",
            a.req(Method::GET, "/amc/instances/amcnotaninstance")
                .header(
                    "Amazon-Advertising-API-AdvertiserId",
                    "ENTITYA2DEMOSELLER01",
                )
                .header("Amazon-Advertising-API-MarketplaceId", "ATVPDKIKX0DER"),
        ),
        (
            "exports.get_export (406)",
            "get",
            "/exports/{exportId}",
            scoped(
                a,
                Method::GET,
                &format!("/exports/{export_id}"),
                "application/vnd.adsexport.v1+json",
            ),
        ),
        (
            "exports.get_export (404)",
            "get",
            "/exports/{exportId}",
            scoped(
                a,
                Method::GET,
                "/exports/bm90LWFuLWV4cG9ydCxD",
                "application/vnd.campaignsexport.v1+json",
            ),
        ),
        (
            "assets.search (400)",
            "post",
            "/assets/search",
            scoped(a, Method::POST, "/assets/search", "application/json").body(malformed),
        ),
    ];
    for (label, method, path, req) in calls {
        let case = record(label, method, path, req).await;
        assert!(
            case["status"].as_u64().is_some_and(|s| s >= 400)
                || case["body"]["error"]
                    .as_array()
                    .is_some_and(|e| !e.is_empty()),
            "{label} was meant to fail: {case}"
        );
        cases.push(case);
    }
    cases
}
