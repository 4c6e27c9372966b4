//! The live marketplace through the gateway, against the sandbox provider with faults switched
//! on per test: merchant resolution (docs/concepts/identifiers.md), the catalogs, calls, the triage table (docs/errors.md),
//! retries that honour `Retry-After`, creates that are never retried, paging through the
//! provider's quirks, and a revoked merchant beside working ones.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::TestApp;

const US: &str = "ATVPDKIKX0DER";

async fn call(
    app: &TestApp,
    token: &str,
    api: &str,
    body: Value,
) -> (u16, reqwest::header::HeaderMap, Value) {
    let r = app
        .http
        .post(app.url(&format!("/api/marketplace/{api}/call")))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await
        .unwrap();
    let (s, h) = (r.status().as_u16(), r.headers().clone());
    (s, h, r.json().await.unwrap_or(Value::Null))
}

async fn token(app: &TestApp) -> String {
    app.token(
        &app.credential("acme", Some("account:read retail:read ads:read"))
            .await,
    )
    .await
}

fn triaged(body: &Value, kind: &str, source: &str, retryable: bool) {
    assert_eq!(body["kind"], kind, "{body}");
    assert_eq!(body["source"], source, "{body}");
    assert_eq!(body["retryable"], retryable, "{body}");
}

/// Calls `api`, checks the refusal's status, kind, `source` and `retryable`; the envelope.
async fn refused(
    app: &TestApp,
    token: &str,
    api: &str,
    body: Value,
    (status, kind, source, retryable): (u16, &str, &str, bool),
) -> Value {
    let (s, _, r) = call(app, token, api, body).await;
    assert_eq!(s, status, "{r}");
    triaged(&r, kind, source, retryable);
    r
}

#[tokio::test]
async fn merchants_resolve_by_the_section_2_1_rules() {
    let app = TestApp::start_market().await;
    let t = token(&app).await;
    let (_, list) = app.get(&t, "/api/marketplace/merchants").await;
    let rows = list["merchants"].as_array().unwrap();
    assert!(
        rows.iter().all(|r| r.as_object().unwrap().len() == 3),
        "sellerId, legacySellerId, marketplace and nothing else: {list}"
    );
    assert!(
        rows.iter()
            .any(|r| r["sellerId"] == "A2DEMOSELLER01" && r["marketplace"] == "CA")
    );
    let read = |sel: Value| {
        let mut body = json!({"operation": "sellers.get_marketplace_participations"});
        body.as_object_mut()
            .unwrap()
            .extend(sel.as_object().unwrap().clone());
        body
    };
    // legacySellerId wins
    let (s, _, r) = call(
        &app,
        &t,
        "spapi",
        read(json!({"legacySellerId": 2, "sellerId": "A1DEMOSELLERMX"})),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["merchant"]["marketplace"], "CA");
    // an ambiguous sellerId lists its candidates
    let r = refused(
        &app,
        &t,
        "spapi",
        read(json!({"sellerId": "A2DEMOSELLER01"})),
        (400, "invalid_request", "request", false),
    )
    .await;
    assert_eq!(r["candidates"].as_array().unwrap().len(), 2);
    // marketplace narrows it
    let (s, _, r) = call(
        &app,
        &t,
        "spapi",
        read(json!({"sellerId": "A2DEMOSELLER01", "marketplace": "US"})),
    )
    .await;
    assert_eq!(
        (s, r["merchant"]["legacySellerId"].as_i64()),
        (200, Some(1))
    );
    // merchantId is ignored: this credential acts for several merchants, so it must name one
    let (s, _, r) = call(&app, &t, "spapi", read(json!({"merchantId": 1}))).await;
    assert_eq!(s, 400);
    assert!(r["message"].as_str().unwrap().contains("legacySellerId"));
    assert!(r["candidates"].as_array().unwrap().len() >= 3);
    // nothing matches
    let r = refused(
        &app,
        &t,
        "spapi",
        read(json!({"legacySellerId": 99})),
        (404, "merchant_not_found", "request", false),
    )
    .await;
    assert!(
        r["message"].as_str().unwrap().contains("sellerId"),
        "says which identifiers it takes"
    );
}

#[tokio::test]
async fn catalogs_describe_every_operation_and_bad_calls_send_nothing() {
    let app = TestApp::start_market().await;
    let t = token(&app).await;
    let (s, sp) = app.get(&t, "/api/marketplace/spapi/operations").await;
    assert_eq!(s, 200);
    assert!(sp["merchantIdentifiers"]["legacySellerId"].is_string());
    assert!(
        sp["operations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o["id"] == "promotions.search_promotions")
    );
    let (_, ads) = app.get(&t, "/api/marketplace/ads/operations").await;
    let write = ads["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["id"] == "sb.create_video_ads")
        .unwrap();
    // Sponsored Brands v4 takes 10 items per call at the provider, under the spec's 200
    assert_eq!(write["maxItems"], 10);
    assert!(
        write["requiredItemFields"]
            .as_array()
            .unwrap()
            .contains(&json!("creative.videoAssetIds"))
    );
    for (body, what) in [
        (
            json!({"operation": "nope.nothing", "legacySellerId": 1}),
            "not in the spapi catalog",
        ),
        (
            json!({"operation": "promotions.get_selection", "legacySellerId": 1, "query": {"promotionId": "x"}}),
            "selectionId",
        ),
        (
            json!({"operation": "sellers.get_account", "legacySellerId": 1, "query": {"body": {"a": 1}}}),
            "takes no body",
        ),
        (
            json!({"operation": "reports.create_report", "legacySellerId": 1, "query": {"body": "x"}}),
            "must be a JSON object",
        ),
        (
            json!({"operation": "promotions.get_selection", "legacySellerId": 1, "query": {"promotionId": "p", "selectionId": "s"}}),
            "revisionId",
        ),
        (
            json!({"operation": "promotions.search_promotions", "legacySellerId": 1, "query": {"startDateAfter": "2026-01-01T00:00:00"}}),
            "time zone offset",
        ),
        (
            json!({"operation": "promotions.search_promotions", "legacySellerId": 1, "query": {"marketplaceIds": "A2EUQ1WTGCTBG2"}}),
            "exactly that one",
        ),
        (
            json!({"operation": "inbound.get_shipments", "legacySellerId": 1, "query": {"QueryType": "DATE_RANGE", "LastUpdatedAfter": "2026-01-01T00:00:00Z"}}),
            "ShipmentStatusList or ShipmentIdList",
        ),
        (
            json!({"operation": "inbound.get_shipments", "legacySellerId": 1, "query": {"ShipmentIdList": ["FBA1"]}}),
            "QueryType",
        ),
    ] {
        let (s, _, r) = call(&app, &t, "spapi", body).await;
        assert_eq!(s, 400, "{r}");
        triaged(&r, "invalid_request", "request", false);
        assert!(r["message"].as_str().unwrap().contains(what), "{what}: {r}");
    }
    // the guarded listing write needs listings:write, and even then is not a plain call
    let lister = app
        .token(
            &app.credential("acme", Some("retail:read listings:write"))
                .await,
        )
        .await;
    let patch = json!({"operation": "listings.patch_listings_item", "legacySellerId": 1, "query": {"sku": "X"}});
    let (s, _, r) = call(&app, &t, "spapi", patch.clone()).await;
    assert_eq!(
        (s, r["required_scopes"].clone()),
        (403, json!(["listings:write"])),
        "{r}"
    );
    // the listing write takes a change set's items, and sends nothing for a plain call's shape
    let (s, _, r) = call(&app, &lister, "spapi", patch).await;
    assert_eq!(s, 400, "{r}");
    assert!(
        r["message"].as_str().unwrap().contains("query.items"),
        "{r}"
    );
    // advertising: more than 5 accounts on Reporting v1; an entity create is a write
    let six = vec![json!({"advertiserAccountId": "590000000000001"}); 6];
    let ads_writer = app
        .token(
            &app.credential("acme", Some("account:read ads:read ads:write"))
                .await,
        )
        .await;
    for (tok, body, status, what) in [
        (
            &t,
            json!({"operation": "reporting_v1.create_report", "legacySellerId": 1, "query": {"body": {"accessRequestedAccounts": six, "reports": [{}]}}}),
            400,
            "1 to 5",
        ),
        (
            &t,
            json!({"operation": "sp.create_keywords", "profileId": 3100000001u64, "query": {"body": {"keywords": []}}}),
            403,
            "ads:write",
        ),
        (
            &ads_writer,
            json!({"operation": "sp.create_keywords", "profileId": 3100000001u64, "query": {"body": {"keywords": []}}}),
            400,
            "1 to 200 items",
        ),
    ] {
        let (s, _, r) = call(&app, tok, "ads", body).await;
        assert_eq!(s, status, "{r}");
        assert!(r["message"].as_str().unwrap().contains(what), "{what}: {r}");
    }
    let calls = app
        .sandbox(Method::GET, "/__sandbox/calls", Value::Null)
        .await;
    assert_eq!(calls["calls"], json!({}), "nothing reached the provider");
    // scopes
    let no_retail = app
        .token(&app.credential("acme", Some("account:read ads:read")).await)
        .await;
    refused(
        &app,
        &no_retail,
        "spapi",
        json!({"operation": "sellers.get_account", "legacySellerId": 1}),
        (403, "insufficient_scope", "account", false),
    )
    .await;
}

#[tokio::test]
async fn provider_refusals_are_triaged_as_the_table_says() {
    let app = TestApp::start_market().await;
    let t = token(&app).await;
    let promo = |q: Value, sel: Value| {
        let mut b = json!({"operation": "promotions.search_promotions", "query": q});
        b.as_object_mut()
            .unwrap()
            .extend(sel.as_object().unwrap().clone());
        b
    };
    // the provider rejects a parameter: bad_request with its own words
    let r = refused(&app, &t, "spapi", json!({"operation": "finances.list_financial_events", "legacySellerId": 1,
            "query": {"PostedAfter": "2026-10-10T00:00:00Z", "PostedBefore": "2026-10-01T00:00:00Z"}}), (400, "bad_request", "amazon_rejected", false)).await;
    assert_eq!(r["marketplace_error_code"], "InvalidInput");
    assert!(
        r["amazon"]["message"]
            .as_str()
            .unwrap()
            .contains("PostedBefore")
    );
    assert_eq!(r["amazon"]["status"], 400);
    assert_eq!(r["status"], 400);
    assert!(r["responsePayload"]["errors"].is_array());
    // a vendor on promotions: restricted_report
    refused(
        &app,
        &t,
        "spapi",
        promo(json!({}), json!({"sellerId": "ENTITY2DEMOVENDOR"})),
        (403, "restricted_report", "amazon_rejected", false),
    )
    .await;
    // the merchant's authorization lapses: reauth_required
    app.sandbox(
        Method::POST,
        "/__sandbox/merchants/lapse",
        json!({"merchant": "A1DEMOSELLERMX"}),
    )
    .await;
    refused(
        &app,
        &t,
        "spapi",
        json!({"operation": "sellers.get_account", "sellerId": "A1DEMOSELLERMX"}),
        (409, "reauth_required", "account", false),
    )
    .await;
    // provider failures: upstream_unavailable once the read's retries run out
    let before = app.sandbox_calls("sellers.getAccount").await;
    app.faults(
        json!([{"op": "sellers.getAccount", "effect": "status", "status": 503, "times": 3}]),
    )
    .await;
    refused(
        &app,
        &t,
        "spapi",
        json!({"operation": "sellers.get_account", "legacySellerId": 1}),
        (502, "upstream_unavailable", "amazon_unavailable", true),
    )
    .await;
    assert_eq!(
        app.sandbox_calls("sellers.getAccount").await - before,
        3,
        "one try and two retries"
    );
    // throttled with a delay longer than the client waits: throttled, with Retry-After
    app.faults(
        json!([{"op": "sellers.getAccount", "effect": "throttle", "retry_after": 30, "times": 1}]),
    )
    .await;
    let (s, h, r) = call(
        &app,
        &t,
        "spapi",
        json!({"operation": "sellers.get_account", "legacySellerId": 1}),
    )
    .await;
    assert_eq!(s, 429);
    triaged(&r, "throttled", "request", true);
    assert_eq!(h["retry-after"], "30");
    // an unreadable 200: upstream_unavailable
    app.faults(
        json!([{"op": "sellers.getMarketplaceParticipations", "effect": "garbage", "times": 3}]),
    )
    .await;
    refused(
        &app,
        &t,
        "spapi",
        json!({"operation": "sellers.get_marketplace_participations", "legacySellerId": 1}),
        (502, "upstream_unavailable", "amazon_unavailable", true),
    )
    .await;
}

#[tokio::test]
async fn advertising_refusals_inactive_merchants_and_the_seat_id() {
    let app = TestApp::start_market().await;
    let t = token(&app).await;
    // the DSP seat id in place of the advertiser id: profile_not_authorized
    let v1 = |acct: &str| {
        json!({"operation": "reporting_v1.create_report", "sellerId": "ENTITY2DEMOVENDOR", "query": {"body": {
        "accessRequestedAccounts": [{"advertiserAccountId": acct}],
        "reports": [{"format": "GZIP_JSON", "periods": [{"datePeriod": {"startDate": "2026-10-01", "endDate": "2026-10-31"}}], "query": {"fields": ["campaign.id", "metric.clicks"]}}]}}})
    };
    refused(
        &app,
        &t,
        "ads",
        v1("ENTITYSEAT7DEMO42"),
        (403, "profile_not_authorized", "amazon_rejected", false),
    )
    .await;
    let (s, _, r) = call(&app, &t, "ads", v1("590000000000001")).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["status"], 207);
    assert!(r["data"]["success"][0]["report"]["reportId"].is_string());
    // a 207 whose error array is not empty is a failure, whatever the status says
    let r = refused(
        &app,
        &t,
        "ads",
        json!({"operation": "reporting_v1.retrieve_report", "legacySellerId": 1,
        "query": {"body": {"reportIds": ["rpt-none"]}}}),
        (400, "bad_request", "amazon_rejected", false),
    )
    .await;
    assert_eq!(r["amazon"]["status"], 207);
    assert_eq!(r["marketplace_error_code"], "NOT_FOUND");
    // a 429 on the v1 create is its concurrency cap: throttled, but waiting alone won't do
    app.faults(json!([{"op": "reporting_v1.createReport", "effect": "throttle", "retry_after": 1, "times": 1}]))
        .await;
    let before = app.sandbox_calls("reporting_v1.createReport").await;
    // (another window: the identical request would get the first report from the ledger)
    let mut other = v1("590000000000001");
    other["query"]["body"]["reports"][0]["periods"][0]["datePeriod"]["endDate"] =
        "2026-10-30".into();
    let r = refused(&app, &t, "ads", other, (429, "throttled", "request", false)).await;
    assert_eq!(r["automaticRetry"], false);
    assert!(
        r["fix"]
            .as_str()
            .unwrap()
            .contains("reporting_v1.delete_report")
    );
    assert_eq!(
        app.sandbox_calls("reporting_v1.createReport").await - before,
        1
    );
    // a profile that is not the tenant's
    refused(
        &app,
        &t,
        "ads",
        json!({"operation": "sp.list_campaigns", "profileId": 42, "query": {"body": {}}}),
        (403, "profile_not_authorized", "amazon_rejected", false),
    )
    .await;
    // a merchant not activated for advertising in the service
    pp_marketplace::connections::set_status(
        &app.store,
        &pp_core::TenantId::parse("acme").unwrap(),
        pp_marketplace::connections::GrantKind::Ads,
        "A1DEMOSELLERMX",
        pp_marketplace::connections::ConnectionStatus::NotActivated,
    )
    .await
    .unwrap();
    // changed behind the gateway's back, as the admin command does: it waits for every
    // instance to read the change
    app.auth_changed().await;
    refused(
        &app,
        &t,
        "ads",
        json!({"operation": "accounts.list_manager_accounts", "sellerId": "A1DEMOSELLERMX"}),
        (422, "merchant_inactive", "account", false),
    )
    .await;
    // profiles and a profile-scoped list
    let (s, profiles) = app.get(&t, "/api/marketplace/ads/profiles").await;
    assert_eq!(s, 200, "{profiles}");
    let us = profiles["logins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["sellerId"] == "A2DEMOSELLER01")
        .unwrap();
    assert_eq!(us["profiles"].as_array().unwrap().len(), 2);
    let (s, _, r) = call(&app, &t, "ads", json!({"operation": "sp.list_campaigns", "profileId": 3100000001u64, "query": {"body": {"maxResults": 2}}})).await;
    assert_eq!(s, 200, "{r}");
    let n = r["data"]["campaigns"].as_array().unwrap().len();
    assert!((1..=2).contains(&n), "{r}");
    let (s, _, r) = call(
        &app,
        &t,
        "ads",
        json!({"operation": "sp.list_campaigns", "query": {"body": {}}}),
    )
    .await;
    assert_eq!(s, 400, "profile-scoped needs profileId: {r}");
    // one revoked login shows on its own row; the others still list their profiles
    app.sandbox(
        Method::POST,
        "/__sandbox/grants/revoke",
        json!({"merchant": "A2DEMOSELLER01"}),
    )
    .await;
    let (s, profiles) = app.get(&t, "/api/marketplace/ads/profiles").await;
    assert_eq!(s, 200, "{profiles}");
    let logins = profiles["logins"].as_array().unwrap();
    let revoked = logins
        .iter()
        .find(|l| l["sellerId"] == "A2DEMOSELLER01")
        .unwrap();
    assert_eq!(revoked["error"]["kind"], "reauth_required", "{profiles}");
    assert_eq!(revoked["status"], "lapsed");
    assert!(
        logins.iter().any(|l| l["sellerId"] == "ENTITY2DEMOVENDOR"
            && l["status"] == "active"
            && l["error"].is_null()
            && l["profiles"].is_array()),
        "{profiles}"
    );
}

#[tokio::test]
async fn a_throttled_read_is_retried_after_the_delay_and_a_timed_out_create_is_not() {
    let app = TestApp::start_market().await;
    let t = token(&app).await;
    app.faults(
        json!([{"op": "sellers.getAccount", "effect": "throttle", "retry_after": 1, "times": 1}]),
    )
    .await;
    let started = std::time::Instant::now();
    let (s, _, r) = call(
        &app,
        &t,
        "spapi",
        json!({"operation": "sellers.get_account", "legacySellerId": 1}),
    )
    .await;
    assert_eq!(s, 200, "{r}");
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "it waited out Retry-After"
    );
    assert_eq!(app.sandbox_calls("sellers.getAccount").await, 2);
    // our own pacing: past the usage plan's burst the gateway answers throttled itself
    let participations =
        json!({"operation": "sellers.get_marketplace_participations", "legacySellerId": 1});
    let mut answered = 0;
    let (s, h, r) = loop {
        let (s, h, r) = call(&app, &t, "spapi", participations.clone()).await;
        if s != 200 || answered > 100 {
            break (s, h, r);
        }
        answered += 1;
    };
    assert_eq!(s, 429, "{r}");
    triaged(&r, "throttled", "request", true);
    assert!(r["amazon"].is_null(), "the provider was not asked: {r}");
    assert!(h["retry-after"].to_str().unwrap().parse::<u64>().unwrap() > 3);
    assert_eq!(
        app.sandbox_calls("sellers.getMarketplaceParticipations")
            .await,
        answered,
        "the refused call was never sent"
    );
    // a create that hangs past the timeout: not retried, outcome unknown
    app.faults(json!([{"op": "reports.createReport", "effect": "hang", "times": 1}]))
        .await;
    let body = json!({"operation": "reports.create_report", "legacySellerId": 1, "query": {"body": {"reportType": "GET_MERCHANT_LISTINGS_ALL_DATA", "marketplaceIds": [US]}}});
    let r = refused(
        &app,
        &t,
        "spapi",
        body,
        (502, "upstream_unavailable", "amazon_unavailable", true),
    )
    .await;
    assert_eq!(r["requestOutcome"], "unknown");
    assert_eq!(r["automaticRetry"], false);
    assert_eq!(
        app.sandbox_calls("reports.createReport").await,
        1,
        "exactly one create reached the provider"
    );
}

#[tokio::test]
async fn paging_through_promotions_and_inbound_items_reaches_the_end() {
    let app = TestApp::start_market().await;
    let t = token(&app).await;
    let mut seen = 0;
    let mut empty_pages = 0;
    let mut q = json!({"limit": 2});
    loop {
        let (s, _, r) = call(
            &app,
            &t,
            "spapi",
            json!({"operation": "promotions.search_promotions", "legacySellerId": 1, "query": q}),
        )
        .await;
        assert_eq!(s, 200, "{r}");
        let page = r["data"]["promotions"].as_array().unwrap().len();
        seen += page;
        match r["data"]["pagination"]["nextToken"].as_str() {
            Some(n) => {
                empty_pages += usize::from(page == 0);
                q["paginationToken"] = n.into();
            }
            None => break,
        }
    }
    assert!(
        empty_pages >= 1 && seen > 2,
        "{seen} promotions, {empty_pages} empty pages"
    );
    // inbound: the per-shipment call's short list, continued with getShipmentItems
    let (_, _, ships) = call(&app, &t, "spapi", json!({"operation": "inbound.get_shipments", "legacySellerId": 1, "query": {"QueryType": "SHIPMENT", "ShipmentStatusList": ["WORKING", "SHIPPED", "RECEIVING", "CLOSED"]}})).await;
    let id = ships["data"]["payload"]["ShipmentData"][0]["ShipmentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, _, first) = call(&app, &t, "spapi", json!({"operation": "inbound.get_shipment_items_by_shipment_id", "legacySellerId": 1, "query": {"shipmentId": id}})).await;
    let mut items = first["data"]["payload"]["ItemData"]
        .as_array()
        .unwrap()
        .len();
    let mut next = first["data"]["payload"]["NextToken"]
        .as_str()
        .map(str::to_owned);
    while let Some(n) = next {
        let (s, _, r) = call(&app, &t, "spapi", json!({"operation": "inbound.get_shipment_items", "legacySellerId": 1, "query": {"QueryType": "NEXT_TOKEN", "NextToken": n}})).await;
        assert_eq!(s, 200, "{r}");
        items += r["data"]["payload"]["ItemData"].as_array().unwrap().len();
        next = r["data"]["payload"]["NextToken"]
            .as_str()
            .map(str::to_owned);
    }
    assert_eq!(items, 5);
}

#[tokio::test]
async fn a_revoked_merchant_needs_reauth_and_the_others_keep_working() {
    let app = TestApp::start_market().await;
    let t = token(&app).await;
    let account = |sel: Value| {
        let mut b = json!({"operation": "sellers.get_account"});
        b.as_object_mut()
            .unwrap()
            .extend(sel.as_object().unwrap().clone());
        b
    };
    assert_eq!(
        call(
            &app,
            &t,
            "spapi",
            account(json!({"sellerId": "A1DEMOSELLERMX"}))
        )
        .await
        .0,
        200
    );
    app.sandbox(
        Method::POST,
        "/__sandbox/grants/revoke",
        json!({"merchant": "A1DEMOSELLERMX"}),
    )
    .await;
    refused(
        &app,
        &t,
        "spapi",
        account(json!({"sellerId": "A1DEMOSELLERMX"})),
        (409, "reauth_required", "account", false),
    )
    .await;
    let (s, _, r) = call(
        &app,
        &t,
        "spapi",
        account(json!({"sellerId": "A1DEMOSELLERMX"})),
    )
    .await;
    assert_eq!(
        s, 409,
        "still lapsed without asking the provider again: {r}"
    );
    assert_eq!(
        call(&app, &t, "spapi", account(json!({"legacySellerId": 1})))
            .await
            .0,
        200,
        "the others keep working"
    );
}

#[tokio::test]
async fn unconfigured_and_unreachable_upstreams() {
    let plain = TestApp::start().await;
    let t = token(&plain).await;
    // a gateway without upstream configuration says so before anything else
    refused(
        &plain,
        &t,
        "spapi",
        json!({"operation": "sellers.get_account", "legacySellerId": 1}),
        (503, "spapi_not_configured", "mixshift", false),
    )
    .await;
    refused(
        &plain,
        &t,
        "ads",
        json!({"operation": "profiles.list", "legacySellerId": 1}),
        (503, "ads_not_configured", "mixshift", false),
    )
    .await;
    let (s, r) = plain.get(&t, "/api/marketplace/ads/profiles").await;
    assert_eq!(s, 503);
    triaged(&r, "ads_not_configured", "mixshift", false);
    let dead = TestApp::start_market_with(|u| u.spapi_url = "http://127.0.0.1:9".into()).await;
    let t = token(&dead).await;
    refused(
        &dead,
        &t,
        "spapi",
        json!({"operation": "sellers.get_account", "legacySellerId": 1}),
        (502, "host_unreachable", "amazon_unavailable", true),
    )
    .await;
    let wrong_app = TestApp::start_market_with(|u| u.client_secret = "not-the-secret".into()).await;
    let t = token(&wrong_app).await;
    refused(
        &wrong_app,
        &t,
        "spapi",
        json!({"operation": "sellers.get_account", "legacySellerId": 1}),
        (500, "unknown", "mixshift", true),
    )
    .await;
}

/// Every export kind is readable through the gateway: the `Accept` media type of
/// `exports.get_export` follows the kind the provider's export id names.
#[tokio::test]
async fn every_export_kind_is_readable_through_the_gateway() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    let path = "/api/marketplace/ads/call";
    for kind in ["campaigns", "ad_groups", "targets", "ads"] {
        let (s, r) = app
            .post(&t, path, json!({"operation": format!("exports.{kind}_export"), "profileId": 3100000001u64, "query": {"body": {}}}))
            .await;
        assert_eq!(s, 200, "{kind}: {r}");
        let id = r["data"]["exportId"].as_str().unwrap().to_owned();
        let (s, r) = app
            .post(&t, path, json!({"operation": "exports.get_export", "profileId": 3100000001u64, "query": {"exportId": id}}))
            .await;
        assert_eq!(s, 200, "{kind}: {r}");
        assert_eq!(r["data"]["exportId"], id.as_str(), "{kind}: {r}");
    }
    // an id whose kind cannot be told is refused before anything is sent
    let before = app.sandbox_calls("exports.getExport").await;
    let (s, r) = app
        .post(&t, path, json!({"operation": "exports.get_export", "profileId": 3100000001u64, "query": {"exportId": "not-an-export"}}))
        .await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("invalid_request")),
        "{r}"
    );
    assert_eq!(app.sandbox_calls("exports.getExport").await, before);
}
