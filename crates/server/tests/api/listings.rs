//! Listing-content change sets through the gateway against the sandbox (docs/writes.md, docs/errors.md):
//! previews that validate at the provider and apply nothing, every row of the state table with
//! its kind, drift that fails closed per SKU, the switches, images verified after the commit,
//! and another tenant's id.

use std::time::Duration;

use pp_core::TenantId;
use serde_json::{Value, json};

use crate::common::{Options, TestApp};
use crate::mcp::Mcp;

const CALL: &str = "/api/marketplace/spapi/call";
const OP: &str = "listings.patch_listings_item";
const WRITER: &str = "retail:read listings:write timeline:read";

/// A gateway whose image check reads every 100 ms.
async fn app() -> TestApp {
    let mut o = Options::default();
    o.jobs.listings.media_poll = Duration::from_millis(100);
    TestApp::start_market_options(o).await
}

/// Merchant 1's seller id and some of its SKUs; listing writes enabled for it unless `off`.
async fn merchant(app: &TestApp, n: usize, enable: bool) -> (String, Vec<String>) {
    let t = app.token(&app.acme).await;
    let skus = app.skus(&t, n).await;
    let (_, m) = app.get(&t, "/api/marketplace/merchants").await;
    let seller = m["merchants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["legacySellerId"] == 1)
        .unwrap()["sellerId"]
        .as_str()
        .unwrap()
        .to_owned();
    if enable {
        let acme = TenantId::parse("acme").unwrap();
        app.store
            .listing_writes()
            .enable(&acme, &seller, "test")
            .await
            .unwrap();
    }
    let skus = skus
        .iter()
        .map(|s| s.as_str().unwrap().to_owned())
        .collect();
    (seller, skus)
}

async fn writer(app: &TestApp) -> String {
    let c = app.credential("acme", Some(WRITER)).await;
    app.token(&c).await
}

fn patch(attribute: &str, value: Value) -> Value {
    json!({ "op": "replace", "path": format!("/attributes/{attribute}"), "value": value })
}

fn title(sku: &str, text: &str) -> Value {
    json!({ "sku": sku, "patches": [patch("item_name", json!([{ "value": text, "language_tag": "en_US" }]))] })
}

fn image(sku: &str, url: &str) -> Value {
    json!({ "sku": sku, "patches": [patch("other_product_image_locator_1", json!([{ "media_location": url }]))] })
}

fn preview_of(items: Vec<Value>) -> Value {
    json!({ "operation": OP, "legacySellerId": 1, "query": { "items": items } })
}

fn commit_of(p: &Value) -> Value {
    json!({
        "operation": OP, "legacySellerId": 1, "dryRun": false,
        "changeSetId": p["changeSet"]["changeSetId"], "changeSetHash": p["changeSet"]["changeSetHash"],
    })
}

async fn preview(app: &TestApp, t: &str, items: Vec<Value>) -> Value {
    let (s, p) = app.post(t, CALL, preview_of(items)).await;
    assert_eq!(s, 200, "{p}");
    assert_eq!(p["valid"], true, "{p}");
    p
}

/// The listing's attributes and issues as the provider serves them now.
async fn listing(app: &TestApp, t: &str, sku: &str) -> Value {
    let (s, r) = app
        .post(
            t,
            CALL,
            json!({ "operation": "listings.get_listings_item", "legacySellerId": 1,
                    "query": { "sku": sku, "includedData": ["attributes", "issues"] } }),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    r["data"].clone()
}

/// Asserts an answer is the `/api` failure of `kind` with `status`.
#[track_caller]
fn refused(s: u16, r: &Value, status: u16, kind: &str) {
    assert_eq!((s, r["kind"].as_str()), (status, Some(kind)), "{r}");
}

fn title_of(l: &Value) -> &str {
    l["attributes"]["item_name"][0]["value"].as_str().unwrap()
}

#[tokio::test]
async fn a_preview_validates_each_sku_at_the_provider_and_applies_nothing() {
    let app = app().await;
    let (_, skus) = merchant(&app, 2, true).await;
    let t = writer(&app).await;
    let before = listing(&app, &t, &skus[0]).await;
    let p = preview(
        &app,
        &t,
        vec![
            title(&skus[0], "Rewritten title"),
            title(&skus[1], "Another"),
        ],
    )
    .await;
    assert_eq!(p["dryRun"], true);
    assert_eq!(p["items"][0]["status"], "VALID", "{p}");
    assert_eq!(
        p["items"][0]["current"]["item_name"],
        before["attributes"]["item_name"]
    );
    let cs = &p["changeSet"];
    assert!(
        cs["changeSetId"].as_str().unwrap().starts_with("cs_"),
        "{p}"
    );
    assert_eq!(cs["changeSetHash"].as_str().unwrap().len(), 64);
    assert_eq!(cs["requests"].as_array().unwrap().len(), 2);
    assert_eq!(cs["productTypes"]["PRODUCT"], "U1", "{p}");
    // the provider validated (VALIDATION_PREVIEW) and nothing was applied
    assert_eq!(
        app.sandbox_calls("listingsItems.patchListingsItem").await,
        2
    );
    assert_eq!(listing(&app, &t, &skus[0]).await, before);
    let (s, v) = app
        .get(
            &t,
            &format!(
                "/api/marketplace/listings/change-sets/{}",
                cs["changeSetId"].as_str().unwrap()
            ),
        )
        .await;
    assert_eq!((s, v["status"].as_str()), (200, Some("proposed")), "{v}");
    // a patch the product type refuses makes the preview invalid, with no change set
    let long = "x".repeat(201);
    let (s, p) = app
        .post(&t, CALL, preview_of(vec![title(&skus[0], &long)]))
        .await;
    assert_eq!(s, 200, "{p}");
    assert_eq!(p["valid"], false, "{p}");
    assert_eq!(p["items"][0]["status"], "INVALID", "{p}");
    assert_eq!(p["items"][0]["issues"][0]["code"], "8541", "{p}");
    assert!(p["changeSet"].is_null(), "{p}");
}

#[tokio::test]
async fn eleven_skus_a_price_patch_and_a_missing_sku_are_refused_with_nothing_applied() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    // the count is refused before any SKU is looked up
    let eleven: Vec<Value> = (0..11)
        .map(|i| title(&format!("{}-{i}", skus[0]), "T"))
        .collect();
    let (s, r) = app.post(&t, CALL, preview_of(eleven)).await;
    refused(s, &r, 400, "invalid_request");
    assert_eq!(r["max_items"], 10, "{r}");
    let price = json!({ "sku": skus[0], "patches": [
        patch("list_price", json!([{ "value": 1.0, "currency": "USD" }])),
        patch("item_name", json!([{ "value": "ok" }])),
        { "op": "delete", "path": "/attributes/bullet_point" },
    ] });
    let (s, r) = app.post(&t, CALL, preview_of(vec![price])).await;
    refused(s, &r, 422, "patch_not_allowed");
    let attributes = r["refused"].as_array().unwrap();
    assert_eq!(attributes.len(), 2, "one entry per refused attribute: {r}");
    assert_eq!(attributes[0]["attribute"], "list_price");
    assert_eq!(attributes[1]["attribute"], "bullet_point");
    // a patch sent as an array is refused, not read by position as op, path and value
    let positional = json!({ "sku": skus[0], "patches": [
        ["replace", "/attributes/item_name", [{ "value": "T", "language_tag": "en_US" }]],
    ] });
    let (s, r) = app.post(&t, CALL, preview_of(vec![positional])).await;
    refused(s, &r, 400, "invalid_request");
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("expected an object"),
        "{r}"
    );
    assert_eq!(app.sandbox_calls("listingsItems.getListingsItem").await, 0);
    assert_eq!(
        app.sandbox_calls("listingsItems.patchListingsItem").await,
        0
    );
    // only existing SKUs: a missing one is NOT_FOUND and nothing is proposed
    let (s, r) = app
        .post(&t, CALL, preview_of(vec![title("NO-SUCH-SKU", "T")]))
        .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(
        (r["valid"].as_bool(), r["items"][0]["status"].as_str()),
        (Some(false), Some("NOT_FOUND")),
        "{r}"
    );
    // a plain call cannot carry the listing-write fields
    let (s, r) = app
        .post(&t, CALL, json!({ "operation": "listings.get_listings_item", "legacySellerId": 1, "dryRun": false, "query": { "sku": skus[0] } }))
        .await;
    refused(s, &r, 400, "invalid_request");
}

#[tokio::test]
async fn a_commit_replays_exactly_the_preview_once_and_is_audited() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let p = preview(&app, &t, vec![title(&skus[0], "Committed title")]).await;
    let (s, c) = app.post_keyed(&t, CALL, Some("k-1"), commit_of(&p)).await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(c["commit"]["outcome"], "answered", "{c}");
    assert_eq!(c["items"][0]["outcome"], "succeeded", "{c}");
    assert_eq!(
        title_of(&listing(&app, &t, &skus[0]).await),
        "Committed title"
    );
    // the same key answers the first commit again and applies nothing
    let (s, again) = app.post_keyed(&t, CALL, Some("k-1"), commit_of(&p)).await;
    assert_eq!(
        (s, again["commit"]["replayed"].as_bool()),
        (200, Some(true)),
        "{again}"
    );
    // the audit row holds exactly the previewed request, sent once
    let id = p["changeSet"]["changeSetId"].as_str().unwrap();
    let (_, v) = app
        .get(&t, &format!("/api/marketplace/listings/change-sets/{id}"))
        .await;
    assert_eq!(v["status"], "committed", "{v}");
    assert_eq!(v["commit"]["items"][0]["outcome"], "succeeded", "{v}");
    let rows = app
        .store
        .ads_writes()
        .by_plan(&TenantId::parse("acme").unwrap(), id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(rows.sent.unwrap(), p["changeSet"]["requests"]);
    assert!(rows.actor.starts_with("svc:"), "{}", rows.actor);
    // the timeline projects the commit with its before and after
    let (_, tl) = app.get(&t, "/v1/timeline?family=ads_change").await;
    let e = tl["events"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == OP)
        .unwrap_or_else(|| panic!("{tl}"));
    assert_eq!(
        e["payload"]["changes"][0]["after"]["item_name"][0]["value"],
        "Committed title"
    );
}

#[tokio::test]
async fn a_listing_edited_between_preview_and_commit_fails_closed_for_that_sku_only() {
    let app = app().await;
    let (_, skus) = merchant(&app, 2, true).await;
    let t = writer(&app).await;
    let p = preview(
        &app,
        &t,
        vec![title(&skus[0], "Mine A"), title(&skus[1], "Mine B")],
    )
    .await;
    // someone else edits SKU 0 meanwhile
    let other = preview(&app, &t, vec![title(&skus[0], "Theirs")]).await;
    let (s, _) = app.post(&t, CALL, commit_of(&other)).await;
    assert_eq!(s, 200);
    let (s, c) = app.post(&t, CALL, commit_of(&p)).await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(c["items"][0]["outcome"], "drifted", "{c}");
    assert_eq!(
        c["items"][0]["now"]["item_name"][0]["value"], "Theirs",
        "{c}"
    );
    assert_eq!(c["items"][1]["outcome"], "succeeded", "{c}");
    assert_eq!(title_of(&listing(&app, &t, &skus[0]).await), "Theirs");
    assert_eq!(title_of(&listing(&app, &t, &skus[1]).await), "Mine B");
}

#[tokio::test]
async fn every_listing_moved_answers_stale_approval_and_applies_nothing() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let p = preview(&app, &t, vec![title(&skus[0], "Mine")]).await;
    let other = preview(&app, &t, vec![title(&skus[0], "Theirs")]).await;
    app.post(&t, CALL, commit_of(&other)).await;
    let (s, r) = app.post(&t, CALL, commit_of(&p)).await;
    refused(s, &r, 409, "stale_approval");
    assert_eq!(title_of(&listing(&app, &t, &skus[0]).await), "Theirs");
}

#[tokio::test]
async fn a_wrong_hash_or_a_changed_query_answers_approval_mismatch() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let before = listing(&app, &t, &skus[0]).await;
    let p = preview(&app, &t, vec![title(&skus[0], "Approved")]).await;
    let mut wrong = commit_of(&p);
    wrong["changeSetHash"] = "0".repeat(64).into();
    let (s, r) = app.post(&t, CALL, wrong).await;
    refused(s, &r, 409, "approval_mismatch");
    let mut changed = commit_of(&p);
    changed["query"] = json!({ "items": [title(&skus[0], "Not what was approved")] });
    let (s, r) = app.post(&t, CALL, changed).await;
    refused(s, &r, 409, "approval_mismatch");
    assert_eq!(listing(&app, &t, &skus[0]).await, before);
}

#[tokio::test]
async fn an_expired_change_set_answers_change_set_expired() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let p = preview(&app, &t, vec![title(&skus[0], "Late")]).await;
    app.store
        .db()
        .exec(
            "UPDATE ads_plans SET expires_ms = 0 WHERE id = ?1",
            vec![p["changeSet"]["changeSetId"].as_str().unwrap().into()],
        )
        .await
        .unwrap();
    let (s, r) = app.post(&t, CALL, commit_of(&p)).await;
    refused(s, &r, 409, "change_set_expired");
    assert_ne!(title_of(&listing(&app, &t, &skus[0]).await), "Late");
    let id = p["changeSet"]["changeSetId"].as_str().unwrap();
    let (_, v) = app
        .get(&t, &format!("/api/marketplace/listings/change-sets/{id}"))
        .await;
    assert_eq!(v["status"], "expired", "{v}");
}

#[tokio::test]
async fn a_second_commit_answers_change_set_already_committed() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let p = preview(&app, &t, vec![title(&skus[0], "Once")]).await;
    let (s, _) = app.post(&t, CALL, commit_of(&p)).await;
    assert_eq!(s, 200);
    let sent = app.sandbox_calls("listingsItems.patchListingsItem").await;
    let (s, r) = app.post(&t, CALL, commit_of(&p)).await;
    refused(s, &r, 409, "change_set_already_committed");
    assert!(r["auditId"].is_string(), "{r}");
    assert_eq!(
        app.sandbox_calls("listingsItems.patchListingsItem").await,
        sent
    );
}

#[tokio::test]
async fn a_moved_product_type_schema_answers_schema_drift() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let before = listing(&app, &t, &skus[0]).await;
    let p = preview(&app, &t, vec![title(&skus[0], "Old schema")]).await;
    app.sandbox(
        reqwest::Method::POST,
        "/__sandbox/product-types/bump",
        Value::Null,
    )
    .await;
    let (s, r) = app.post(&t, CALL, commit_of(&p)).await;
    refused(s, &r, 409, "schema_drift");
    assert_eq!(
        (r["previewedVersion"].as_str(), r["currentVersion"].as_str()),
        (Some("U1"), Some("U2")),
        "{r}"
    );
    assert_eq!(listing(&app, &t, &skus[0]).await, before);
}

#[tokio::test]
async fn another_tenants_change_set_id_answers_change_set_not_found() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let p = preview(&app, &t, vec![title(&skus[0], "Acme's")]).await;
    let id = p["changeSet"]["changeSetId"].as_str().unwrap();
    // delta reads the same warehouse (the same merchant rows) but is another tenant
    let d = app.credential("delta", Some(WRITER)).await;
    let dt = app.token(&d).await;
    let (s, r) = app.post(&dt, CALL, commit_of(&p)).await;
    refused(s, &r, 404, "change_set_not_found");
    let (s, r) = app
        .get(&dt, &format!("/api/marketplace/listings/change-sets/{id}"))
        .await;
    refused(s, &r, 404, "change_set_not_found");
    let (s, r) = app
        .get(
            &t,
            "/api/marketplace/listings/change-sets/cs_00000000000000000000000000000000",
        )
        .await;
    refused(s, &r, 404, "change_set_not_found");
    assert_ne!(title_of(&listing(&app, &t, &skus[0]).await), "Acme's");
}

#[tokio::test]
async fn listing_writes_need_the_scope_the_merchant_enabled_and_the_switches_on() {
    let app = app().await;
    let (seller, skus) = merchant(&app, 1, false).await;
    let t = writer(&app).await;
    let (s, r) = app
        .post(&t, CALL, preview_of(vec![title(&skus[0], "T")]))
        .await;
    refused(s, &r, 403, "listings_write_not_enabled");
    let reader = app.token(&app.acme).await;
    let (s, r) = app
        .post(&reader, CALL, preview_of(vec![title(&skus[0], "T")]))
        .await;
    refused(s, &r, 403, "insufficient_scope");
    let acme = TenantId::parse("acme").unwrap();
    let l = app.store.listing_writes();
    l.enable(&acme, &seller, "test").await.unwrap();
    let p = preview(&app, &t, vec![title(&skus[0], "T")]).await;
    // text switched off for the whole service between preview and commit: nothing applied
    l.set_switch("listings_text", true, Some("incident 42"), "ops")
        .await
        .unwrap();
    let (s, r) = app.post(&t, CALL, commit_of(&p)).await;
    refused(s, &r, 503, "listings_write_disabled");
    assert!(
        r["message"].as_str().unwrap().contains("incident 42"),
        "{r}"
    );
    assert_eq!(r["retryable"], true);
    // images off: an image change is refused, a text change goes through
    l.set_switch("listings_text", false, None, "ops")
        .await
        .unwrap();
    l.set_switch("listings_media", true, None, "ops")
        .await
        .unwrap();
    let (s, r) = app
        .post(
            &t,
            CALL,
            preview_of(vec![image(&skus[0], "https://img.example/a.jpg")]),
        )
        .await;
    refused(s, &r, 503, "listings_media_write_disabled");
    let (s, c) = app.post(&t, CALL, commit_of(&p)).await;
    assert_eq!(
        (s, c["items"][0]["outcome"].as_str()),
        (200, Some("succeeded")),
        "{c}"
    );
}

async fn until_media_ends(app: &TestApp, t: &str, id: &str) -> Value {
    let started = std::time::Instant::now();
    loop {
        let (_, v) = app
            .get(t, &format!("/api/marketplace/listings/change-sets/{id}"))
            .await;
        if v["media"]["status"] != "verifying" {
            return v;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn an_image_change_is_verified_after_the_commit_and_a_bad_one_fails_with_its_issue() {
    let app = app().await;
    let (_, skus) = merchant(&app, 2, true).await;
    let t = writer(&app).await;
    let good = "https://m.media-amazon.example/images/I/new-side.jpg";
    let p = preview(
        &app,
        &t,
        vec![
            image(&skus[0], good),
            image(&skus[1], "http://insecure.example/side.gif"),
        ],
    )
    .await;
    assert_eq!(p["items"][0]["media"], true);
    let (s, c) = app.post(&t, CALL, commit_of(&p)).await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(c["items"][0]["media"], "verifying", "{c}");
    assert!(c["commit"]["mediaCheck"].is_string(), "{c}");
    // the commit answered before the image showed: the provider still serves the old one
    let now = listing(&app, &t, &skus[0]).await;
    assert_ne!(
        now["attributes"]["other_product_image_locator_1"][0]["media_location"],
        good
    );
    let id = p["changeSet"]["changeSetId"].as_str().unwrap();
    let v = until_media_ends(&app, &t, id).await;
    let media = &v["media"];
    assert_eq!(media["status"], "failed", "one of two images failed: {v}");
    let by_sku = |sku: &str| {
        media["skus"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["sku"] == sku)
            .cloned()
            .unwrap_or_else(|| panic!("{v}"))
    };
    assert_eq!(by_sku(&skus[0])["status"], "verified", "{v}");
    let bad = by_sku(&skus[1]);
    assert_eq!(bad["status"], "failed", "{v}");
    assert_eq!(bad["issues"][0]["code"], "18027", "{v}");
    let now = listing(&app, &t, &skus[0]).await;
    assert_eq!(
        now["attributes"]["other_product_image_locator_1"][0]["media_location"],
        good
    );
}

#[tokio::test]
async fn the_commit_tool_is_destructive_and_the_preview_tool_commits_nothing() {
    let app = app().await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    let mut m = Mcp::with_token(&app, t.clone());
    m.initialize("2025-11-25").await;
    let (_, list) = m.rpc("tools/list", json!({})).await;
    let commit = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["name"] == "marketplace_listings_commit")
        .unwrap();
    assert_eq!(commit["annotations"]["destructiveHint"], true, "{commit}");
    let (result, p) = m
        .call(
            "marketplace_spapi_call",
            preview_of(vec![title(&skus[0], "Via MCP")]),
        )
        .await;
    assert_eq!(result["isError"], false, "{result}");
    let mut commit = commit_of(&p);
    commit["dryRun"] = false.into();
    let (result, _) = m.call("marketplace_spapi_call", commit).await;
    assert_eq!(result["isError"], true, "{result}");
    let args = json!({
        "legacySellerId": 1, "changeSetId": p["changeSet"]["changeSetId"],
        "changeSetHash": p["changeSet"]["changeSetHash"], "idempotencyKey": "mcp-1",
    });
    let (result, c) = m.call("marketplace_listings_commit", args).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(c["items"][0]["outcome"], "succeeded", "{c}");
    assert_eq!(title_of(&listing(&app, &t, &skus[0]).await), "Via MCP");
}

#[tokio::test]
async fn a_surface_switched_off_in_configuration_stays_off_whatever_the_store_says() {
    let mut o = Options::default();
    o.jobs.listings.media_writes = false;
    let app = TestApp::start_market_options(o).await;
    let (_, skus) = merchant(&app, 1, true).await;
    let t = writer(&app).await;
    // an administrator's stored "on" does not lift the configuration's "off"
    app.store
        .listing_writes()
        .set_switch("listings_media", false, None, "ops")
        .await
        .unwrap();
    let (s, r) = app
        .post(
            &t,
            CALL,
            preview_of(vec![image(&skus[0], "https://img.example/a.jpg")]),
        )
        .await;
    refused(s, &r, 503, "listings_media_write_disabled");
    assert!(
        r["message"].as_str().unwrap().contains("configuration"),
        "{r}"
    );
    preview(&app, &t, vec![title(&skus[0], "Text still goes through")]).await;
}
