//! Audited advertising writes through the gateway against the sandbox (docs/writes.md): dry runs
//! that never send the write, commits that send exactly their plan once, drift that fails
//! closed per item, bid adjustments with the audit snapshot and merge, Sponsored Brands
//! creatives refused per item by the provider, keys that survive a restart, scopes, and the
//! timeline's projection.

use serde_json::{Value, json};

use crate::common::TestApp;
use crate::mcp::Mcp;
use crate::signin_support::{Browser, PASSWORD, person};
use pp_auth::Role;

pub(crate) const CALL: &str = "/api/marketplace/ads/call";
const PROFILE: u64 = 3100000001;
pub(crate) const WRITER: &str = "ads:read ads:write timeline:read";

async fn total_calls(app: &TestApp) -> u64 {
    app.sandbox(reqwest::Method::GET, "/__sandbox/calls", Value::Null)
        .await["calls"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(Value::as_u64)
        .sum()
}

pub(crate) async fn writer(app: &TestApp) -> String {
    let c = app.credential("acme", Some(WRITER)).await;
    app.token(&c).await
}

/// A call body for `op` on the acme profile.
fn call(op: &str, body: Value) -> Value {
    json!({ "operation": op, "profileId": PROFILE, "query": { "body": body } })
}

/// The committing form of a previewed call.
pub(crate) fn commit_of(mut c: Value, preview: &Value) -> Value {
    c["dryRun"] = false.into();
    c["planId"] = preview["plan"]["planId"].clone();
    c["planHash"] = preview["plan"]["planHash"].clone();
    c
}

pub(crate) async fn preview_ok(app: &TestApp, t: &str, c: &Value) -> Value {
    let (s, r) = app.post(t, CALL, c.clone()).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["valid"], true, "{r}");
    r
}

pub(crate) async fn commit(app: &TestApp, t: &str, c: &Value, preview: &Value) -> Value {
    let (s, r) = app.post(t, CALL, commit_of(c.clone(), preview)).await;
    assert_eq!(s, 200, "{r}");
    r
}

/// Some SP keywords of the acme profile.
pub(crate) async fn keywords(app: &TestApp, t: &str, n: usize) -> Vec<Value> {
    let (s, r) = app
        .post(
            t,
            CALL,
            call(
                "sp.list_keywords",
                json!({ "maxResults": n, "stateFilter": { "include": ["ENABLED"] } }),
            ),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    r["data"]["keywords"].as_array().unwrap().clone()
}

async fn keyword(app: &TestApp, t: &str, id: &Value) -> Value {
    let (_, r) = app
        .post(
            t,
            CALL,
            call(
                "sp.list_keywords",
                json!({ "keywordIdFilter": { "include": [id] } }),
            ),
        )
        .await;
    r["data"]["keywords"][0].clone()
}

pub(crate) fn bid_update(ids: &[&Value], bid: f64) -> Value {
    let items: Vec<Value> = ids
        .iter()
        .map(|id| json!({ "keywordId": id, "bid": bid }))
        .collect();
    call("sp.update_keywords", json!({ "keywords": items }))
}

#[tokio::test]
async fn a_dry_run_checks_every_item_and_never_sends_the_write() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let k = keywords(&app, &t, 1).await;
    let before = total_calls(&app).await;
    // a create: nothing reaches the provider at all; state defaults to PAUSED
    let create = call(
        "sp.create_keywords",
        json!({ "keywords": [
            { "campaignId": k[0]["campaignId"], "adGroupId": k[0]["adGroupId"], "keywordText": "blue mug", "matchType": "EXACT" },
            { "campaignId": k[0]["campaignId"], "adGroupId": k[0]["adGroupId"], "matchType": "EXACT", "state": "ENABLED" },
        ]}),
    );
    let (s, r) = app.post(&t, CALL, create).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["valid"], false, "{r}");
    assert!(r["plan"].is_null());
    assert_eq!(r["items"][0]["problems"], json!([]), "{r}");
    assert!(
        r["items"][0]["notes"][0]
            .as_str()
            .unwrap()
            .contains("PAUSED"),
        "{r}"
    );
    assert_eq!(r["items"][1]["problems"][0]["field"], "keywordText", "{r}");
    assert_eq!(r["items"][1]["problems"][0]["rule"], "required");
    assert_eq!(
        r["items"][1]["serves"], true,
        "an ENABLED item says it will bill: {r}"
    );
    // a valid create plans PAUSED unless asked
    let ok = call(
        "sp.create_keywords",
        json!({ "keywords": [{ "campaignId": k[0]["campaignId"], "adGroupId": k[0]["adGroupId"], "keywordText": "blue mug", "matchType": "EXACT" }] }),
    );
    let r = preview_ok(&app, &t, &ok).await;
    let planned = &r["plan"]["requests"][0];
    assert_eq!(planned["body"]["keywords"][0]["state"], "PAUSED", "{r}");
    assert_eq!(planned["path"], "/sp/keywords");
    assert_eq!(r["plan"]["serves"], json!([]));
    assert_eq!(
        total_calls(&app).await,
        before,
        "a create's dry run reaches nothing"
    );
    // 201 items are refused before anything else
    let ids: Vec<Value> = (0..201)
        .map(|i| json!(format!("{}", 7_000_000_000u64 + i)))
        .collect();
    let refs: Vec<&Value> = ids.iter().collect();
    let (s, r) = app.post(&t, CALL, bid_update(&refs, 0.5)).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("invalid_request")),
        "{r}"
    );
    assert_eq!(r["max_items"], 200);
    // a video ad with brand fields is refused in the dry run (docs/writes.md)
    let video = call(
        "sb.create_video_ads",
        json!({ "ads": [{ "adGroupId": "1", "name": "v", "creative": { "asins": ["B0"], "videoAssetIds": ["a"], "brandName": "X" } }] }),
    );
    let (s, r) = app.post(&t, CALL, video).await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(r["valid"], false);
    assert_eq!(r["items"][0]["problems"][0]["rule"], "forbidden", "{r}");
    assert_eq!(r["items"][0]["problems"][0]["field"], "creative.brandName");
    // an update reads the entities, never writes them
    let r = preview_ok(&app, &t, &bid_update(&[&k[0]["keywordId"]], 0.77)).await;
    assert_eq!(
        r["items"][0]["current"]["keywordId"], k[0]["keywordId"],
        "{r}"
    );
    for op in [
        "sp.createKeywords",
        "sp.updateKeywords",
        "sb.createVideoAds",
    ] {
        assert_eq!(app.sandbox_calls(op).await, 0, "{op}");
    }
}

#[tokio::test]
async fn a_commit_sends_exactly_its_plan_once_and_only_with_ads_write() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let k = keywords(&app, &t, 1).await;
    let id = &k[0]["keywordId"];
    let c = bid_update(&[id], 0.77);
    let p = preview_ok(&app, &t, &c).await;
    // a wrong hash, an altered request, an expired plan: nothing is sent
    let mut wrong = commit_of(c.clone(), &p);
    wrong["planHash"] = "0".repeat(64).into();
    let (s, r) = app.post(&t, CALL, wrong).await;
    assert_eq!((s, r["kind"].as_str()), (409, Some("plan_mismatch")), "{r}");
    let (s, r) = app
        .post(&t, CALL, commit_of(bid_update(&[id], 9.0), &p))
        .await;
    assert_eq!((s, r["kind"].as_str()), (409, Some("plan_mismatch")), "{r}");
    // ads:read alone cannot commit, over REST or MCP
    let reader = app.credential("acme", Some("ads:read")).await;
    let rt = app.token(&reader).await;
    let (s, r) = app.post(&rt, CALL, commit_of(c.clone(), &p)).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (403, Some("insufficient_scope")),
        "{r}"
    );
    let mut m = Mcp::with_token(&app, rt.clone());
    m.initialize("2025-11-25").await;
    let mut args = commit_of(c.clone(), &p);
    args.as_object_mut().unwrap().remove("dryRun");
    let (result, text) = m.call("marketplace_ads_commit", args).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(text["kind"], "insufficient_scope", "{text}");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
    // expired
    let expired = preview_ok(&app, &t, &c).await;
    app.store
        .db()
        .exec(
            "UPDATE ads_plans SET expires_ms = 0 WHERE id = ?1",
            vec![expired["plan"]["planId"].as_str().unwrap().into()],
        )
        .await
        .unwrap();
    let (s, r) = app.post(&t, CALL, commit_of(c.clone(), &expired)).await;
    assert_eq!((s, r["kind"].as_str()), (409, Some("plan_expired")), "{r}");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
    // the right commit lands once; the same plan again is refused
    let r = commit(&app, &t, &c, &p).await;
    assert_eq!(r["commit"]["outcome"], "answered", "{r}");
    assert_eq!(r["items"][0]["outcome"], "succeeded", "{r}");
    assert_eq!(r["items"][0]["entityId"], *id, "{r}");
    assert_eq!(keyword(&app, &t, id).await["bid"], 0.77);
    let (s, r) = app.post(&t, CALL, commit_of(c.clone(), &p)).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (409, Some("plan_already_committed")),
        "{r}"
    );
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
}

#[tokio::test]
async fn an_entity_changed_after_the_preview_fails_closed_for_that_item_only() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let k = keywords(&app, &t, 2).await;
    let (a, b) = (&k[0]["keywordId"], &k[1]["keywordId"]);
    let c = bid_update(&[a, b], 0.66);
    let p = preview_ok(&app, &t, &c).await;
    // someone else pauses keyword a meanwhile
    let other = call(
        "sp.update_keywords",
        json!({ "keywords": [{ "keywordId": a, "state": "PAUSED" }] }),
    );
    let op = preview_ok(&app, &t, &other).await;
    commit(&app, &t, &other, &op).await;
    let r = commit(&app, &t, &c, &p).await;
    assert_eq!(r["items"][0]["outcome"], "drifted", "{r}");
    assert_eq!(r["items"][0]["before"]["state"], "ENABLED", "{r}");
    assert_eq!(r["items"][0]["now"]["state"], "PAUSED", "{r}");
    assert_eq!(r["items"][1]["outcome"], "succeeded", "{r}");
    assert_ne!(
        keyword(&app, &t, a).await["bid"],
        0.66,
        "the moved item was not sent"
    );
    assert_eq!(keyword(&app, &t, b).await["bid"], 0.66);
    // the audit row says what was sent: b alone
    let (_, audit) = app
        .get(
            &t,
            "/api/marketplace/audit?operation=sp.update_keywords&limit=1",
        )
        .await;
    let sent = &audit["records"][0]["sent"]["body"]["keywords"];
    assert_eq!(sent.as_array().unwrap().len(), 1, "{audit}");
    assert_eq!(sent[0]["keywordId"], *b);
}

async fn sp_campaign(app: &TestApp, t: &str) -> Value {
    let (s, r) = app
        .post(
            t,
            CALL,
            call(
                "sp.list_campaigns",
                json!({ "maxResults": 1, "stateFilter": { "include": ["ENABLED"] } }),
            ),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    r["data"]["campaigns"][0].clone()
}

#[tokio::test]
async fn bid_adjustments_snapshot_first_merge_and_refuse_what_a_program_lacks() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let campaign = sp_campaign(&app, &t).await;
    let cid = &campaign["campaignId"];
    let adjust = |placements: Value, merge: bool| {
        let mut c = call(
            "sp.update_campaign_bid_adjustments",
            json!({ "campaigns": [{ "campaignId": cid, "dynamicBidding": { "placementBidding": placements } }] }),
        );
        if merge {
            c["merge"] = true.into();
        }
        c
    };
    let first = adjust(
        json!([{ "placement": "PLACEMENT_TOP", "percentage": 30 }, { "placement": "PLACEMENT_PRODUCT_PAGE", "percentage": 10 }]),
        false,
    );
    let p = preview_ok(&app, &t, &first).await;
    commit(&app, &t, &first, &p).await;
    // without merge, the dry run says what the write would remove
    let only_pp = json!([{ "placement": "PLACEMENT_PRODUCT_PAGE", "percentage": 50 }]);
    let r = preview_ok(&app, &t, &adjust(only_pp.clone(), false)).await;
    let notes = r["items"][0]["notes"].to_string();
    assert!(
        notes.contains("PLACEMENT_TOP") && notes.contains("removes"),
        "{r}"
    );
    // merge keeps the omitted placement's percentage
    let merged = adjust(only_pp, true);
    let p = preview_ok(&app, &t, &merged).await;
    let sent =
        &p["plan"]["requests"][0]["body"]["campaigns"][0]["dynamicBidding"]["placementBidding"];
    assert!(
        sent.as_array()
            .unwrap()
            .contains(&json!({ "placement": "PLACEMENT_TOP", "percentage": 30 })),
        "{p}"
    );
    let r = commit(&app, &t, &merged, &p).await;
    assert_eq!(r["items"][0]["outcome"], "succeeded", "{r}");
    let now = sp_campaign_by_id(&app, &t, cid).await;
    let live = now["dynamicBidding"]["placementBidding"]
        .as_array()
        .unwrap()
        .clone();
    assert!(
        live.contains(&json!({ "placement": "PLACEMENT_TOP", "percentage": 30 })),
        "{now}"
    );
    assert!(
        live.contains(&json!({ "placement": "PLACEMENT_PRODUCT_PAGE", "percentage": 50 })),
        "{now}"
    );
    // the audit row holds the object the write replaced
    let (_, audit) = app
        .get(
            &t,
            "/api/marketplace/audit?operation=sp.update_campaign_bid_adjustments&limit=1",
        )
        .await;
    let old =
        &audit["records"][0]["snapshot"][0]["atPreview"]["dynamicBidding"]["placementBidding"];
    assert!(
        old.as_array()
            .unwrap()
            .contains(&json!({ "placement": "PLACEMENT_PRODUCT_PAGE", "percentage": 10 })),
        "{audit}"
    );
    // a negative SP percentage, and SITE_AMAZON_BUSINESS on Sponsored Brands, are refused
    let (_, r) = app
        .post(
            &t,
            CALL,
            adjust(
                json!([{ "placement": "PLACEMENT_TOP", "percentage": -5 }]),
                false,
            ),
        )
        .await;
    assert_eq!(r["items"][0]["problems"][0]["rule"], "percentage", "{r}");
    let sb = call(
        "sb.update_campaign_bid_adjustments",
        json!({ "campaigns": [{ "campaignId": "1", "bidding": { "bidAdjustmentsByPlacement": [{ "placement": "SITE_AMAZON_BUSINESS", "percentage": 10 }] } }] }),
    );
    let (_, r) = app.post(&t, CALL, sb).await;
    assert_eq!(r["valid"], false, "{r}");
    assert_eq!(r["items"][0]["problems"][0]["rule"], "placement", "{r}");
    assert!(
        r["items"][0]["problems"][0]["message"]
            .as_str()
            .unwrap()
            .contains("Sponsored Products")
    );
}

/// The audit row is written before the request leaves: with the provider holding the write
/// unanswered (it never acts), the row already holds the object the write would replace.
#[tokio::test]
async fn the_audit_row_holds_the_replaced_modifiers_before_the_write_lands() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let campaign = sp_campaign(&app, &t).await;
    let cid = &campaign["campaignId"];
    let set = |pct: i64| {
        call(
            "sp.update_campaign_bid_adjustments",
            json!({ "campaigns": [{ "campaignId": cid, "dynamicBidding": { "placementBidding": [{ "placement": "PLACEMENT_TOP", "percentage": pct }] } }] }),
        )
    };
    let first = set(25);
    let p = preview_ok(&app, &t, &first).await;
    commit(&app, &t, &first, &p).await;
    let second = set(60);
    let p = preview_ok(&app, &t, &second).await;
    app.faults(json!([{ "op": "sp.updateCampaigns", "effect": "hang", "times": 1 }]))
        .await;
    let r = commit(&app, &t, &second, &p).await;
    assert_eq!(r["commit"]["outcome"], "unknown", "{r}");
    assert_eq!(r["items"][0]["outcome"], "unknown", "{r}");
    let (_, audit) = app
        .get(
            &t,
            "/api/marketplace/audit?operation=sp.update_campaign_bid_adjustments&limit=1",
        )
        .await;
    let rec = &audit["records"][0];
    assert_eq!(rec["status"], "unknown", "{audit}");
    assert_eq!(
        rec["snapshot"][0]["atCommit"]["dynamicBidding"]["placementBidding"],
        json!([{ "placement": "PLACEMENT_TOP", "percentage": 25 }]),
        "{audit}"
    );
    // the write never landed: the live campaign still has what the row holds
    let live = sp_campaign_by_id(&app, &t, cid).await;
    assert_eq!(
        live["dynamicBidding"]["placementBidding"],
        json!([{ "placement": "PLACEMENT_TOP", "percentage": 25 }])
    );
}

async fn sp_campaign_by_id(app: &TestApp, t: &str, id: &Value) -> Value {
    let (_, r) = app
        .post(
            t,
            CALL,
            call(
                "sp.list_campaigns",
                json!({ "campaignIdFilter": { "include": [id] } }),
            ),
        )
        .await;
    r["data"]["campaigns"][0].clone()
}

/// Previews and commits `op` with `items`; the commit's answer.
async fn create(app: &TestApp, t: &str, op: &str, key: &str, items: Value) -> Value {
    let c = call(op, json!({ key: items }));
    let p = preview_ok(app, t, &c).await;
    commit(app, t, &c, &p).await
}

#[tokio::test]
async fn sponsored_brands_creatives_follow_the_creation_order_and_fail_per_item_at_the_provider() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let r = create(
        &app,
        &t,
        "sb.create_campaigns",
        "campaigns",
        json!([{ "name": "launch", "budget": 20, "budgetType": "DAILY" }]),
    )
    .await;
    assert_eq!(r["items"][0]["outcome"], "succeeded", "{r}");
    let campaign = r["items"][0]["entityId"].clone();
    // ad groups take no bid (docs/writes.md)
    let (_, bad) = app
        .post(
            &t,
            CALL,
            call(
                "sb.create_ad_groups",
                json!({ "adGroups": [{ "campaignId": campaign, "name": "g", "bid": 1.0 }] }),
            ),
        )
        .await;
    assert_eq!(bad["items"][0]["problems"][0]["rule"], "forbidden", "{bad}");
    let r = create(
        &app,
        &t,
        "sb.create_ad_groups",
        "adGroups",
        json!([{ "campaignId": campaign, "name": "g" }]),
    )
    .await;
    let group = r["items"][0]["entityId"].clone();
    assert!(group.is_string(), "{r}");
    // the library's assets, for the item that only lacks a Store ASIN
    let (_, assets) = app
        .post(&t, CALL, call("assets.list_recent", json!({})))
        .await;
    let list = assets["data"]["assetList"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let of = |sub: &str| {
        list.iter()
            .find(|a| {
                a["assetSubTypeList"]
                    .as_array()
                    .is_some_and(|l| l.iter().any(|x| x == sub))
            })
            .and_then(|a| a["assetId"].as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let (video, logo) = (of("BACKGROUND_VIDEO"), of("LOGO"));
    assert!(!video.is_empty() && !logo.is_empty(), "{assets}");
    let ad = |videos: Value, asins: Value| {
        json!({ "adGroupId": group, "name": "bv", "creative": {
            "asins": asins, "videoAssetIds": videos, "brandName": "Acme", "brandLogoAssetID": logo,
            "brandLogoCrop": { "top": 0, "left": 0, "width": 400, "height": 400 }, "headline": "Hello" } })
    };
    let r = create(
        &app,
        &t,
        "sb.create_brand_video_ads",
        "ads",
        json!([
            ad(json!(["not-in-the-library"]), json!(["B0NOTONSTORE"])),
            ad(json!([video]), json!(["B0NOTONSTORE"]))
        ]),
    )
    .await;
    let items = r["items"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{r}");
    for (i, needle) in [(0, "asset library"), (1, "Store page")] {
        assert_eq!(items[i]["outcome"], "failed", "{r}");
        assert_eq!(items[i]["error"]["kind"], "bad_request");
        assert!(
            items[i]["error"]["amazon"]["message"]
                .as_str()
                .unwrap()
                .contains(needle),
            "{r}"
        );
    }
    assert_eq!(app.sandbox_calls("sb.createBrandVideoAds").await, 1);
}

#[tokio::test]
async fn a_repeated_commit_key_gets_the_first_answer_after_a_restart_and_sends_nothing() {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    let k = keywords(&app, &t, 1).await;
    let c = bid_update(&[&k[0]["keywordId"]], 0.55);
    let p = preview_ok(&app, &t, &c).await;
    let (s, first) = app
        .post_keyed(&t, CALL, Some("commit-1"), commit_of(c.clone(), &p))
        .await;
    assert_eq!(s, 200, "{first}");
    let base = app.restarted_market_gateway().await;
    let again = app
        .http
        .post(format!("{base}{CALL}"))
        .bearer_auth(&t)
        .header("Idempotency-Key", "commit-1")
        .json(&commit_of(c.clone(), &p))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 200);
    let again: Value = again.json().await.unwrap();
    assert_eq!(again["commit"]["replayed"], true, "{again}");
    assert_eq!(again["commit"]["auditId"], first["commit"]["auditId"]);
    assert_eq!(again["items"], first["items"]);
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
}

#[tokio::test]
async fn a_committed_change_appears_in_the_timeline_with_its_actor() {
    let app = TestApp::start_market().await;
    let c = app.credential("acme", Some(WRITER)).await;
    let t = app.token(&c).await;
    let k = keywords(&app, &t, 1).await;
    let up = bid_update(&[&k[0]["keywordId"]], 0.44);
    let p = preview_ok(&app, &t, &up).await;
    commit(&app, &t, &up, &p).await;
    let (s, r) = app.get(&t, "/v1/timeline?family=ads_change").await;
    assert_eq!(s, 200, "{r}");
    let e = &r["events"][0];
    assert_eq!(e["family"], "ads_change", "{r}");
    assert_eq!(e["kind"], "sp.update_keywords");
    assert!(
        e["actor"].as_str().unwrap().ends_with(&c.credential_id),
        "{e}"
    );
    let change = &e["payload"]["changes"][0];
    assert_eq!(change["after"]["bid"], 0.44, "{e}");
    assert_eq!(change["before"]["bid"], k[0]["bid"], "{e}");
}

#[tokio::test]
async fn the_account_policy_reports_a_bid_past_the_ceiling_and_a_budget_past_the_ratio_and_refuses_their_commits()
 {
    let app = TestApp::start_market().await;
    let t = writer(&app).await;
    // a $90 bid: over the default USD ceiling of 50, and more than ×3 the current bid
    let k = keywords(&app, &t, 1).await;
    let id = &k[0]["keywordId"];
    let now_bid = k[0]["bid"].as_f64().unwrap();
    let c = bid_update(&[id], 90.0);
    let p = preview_ok(&app, &t, &c).await;
    assert_eq!(p["policy"]["allowed"], false, "{p}");
    let found = p["items"][0]["policy"].as_array().unwrap();
    let ceiling = found.iter().find(|f| f["rule"] == "bid_ceiling").unwrap();
    assert_eq!(
        (&ceiling["field"], &ceiling["proposed"], &ceiling["bound"]),
        (&json!("bid"), &json!(90.0), &json!(50.0)),
        "{p}"
    );
    assert_eq!(ceiling["current"].as_f64(), Some(now_bid));
    let (s, r) = app.post(&t, CALL, commit_of(c.clone(), &p)).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (422, Some("policy_violation")),
        "{r}"
    );
    assert!(r["findings"].as_array().unwrap().len() >= 2, "{r}");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
    assert_eq!(keyword(&app, &t, id).await["bid"].as_f64(), Some(now_bid));

    // a budget raised fiftyfold: past the ×3 the policy allows
    let campaign = sp_campaign(&app, &t).await;
    let cid = &campaign["campaignId"];
    let budget = campaign["budget"]["budget"].as_f64().unwrap();
    let c = call(
        "sp.update_campaigns",
        json!({ "campaigns": [{ "campaignId": cid, "budget": { "budget": budget * 50.0, "budgetType": "DAILY" } }] }),
    );
    let p = preview_ok(&app, &t, &c).await;
    let raise = &p["items"][0]["policy"][0];
    assert_eq!(
        (raise["rule"].as_str(), raise["field"].as_str()),
        (Some("raise_limit"), Some("budget.budget")),
        "{p}"
    );
    assert_eq!(raise["current"].as_f64(), Some(budget));
    assert!(
        (raise["bound"].as_f64().unwrap() - budget * 3.0).abs() < 1e-3,
        "{p}"
    );
    let (s, r) = app.post(&t, CALL, commit_of(c.clone(), &p)).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (422, Some("policy_violation")),
        "{r}"
    );
    assert_eq!(app.sandbox_calls("sp.updateCampaigns").await, 0);

    // the policy is read again at commit: once the account allows it, the same plan goes, once
    app.store
        .policies()
        .put(
            "acme",
            &json!({ "maxRaise": 100, "budgets": { "USD": { "max": 1000000 } } }),
            "test",
        )
        .await
        .unwrap();
    let r = commit(&app, &t, &c, &p).await;
    assert_eq!(r["commit"]["outcome"], "answered", "{r}");
    assert_eq!(app.sandbox_calls("sp.updateCampaigns").await, 1);
}

/// A bid 10% above a keyword's own, rounded to the cent.
pub(crate) fn nudged(k: &Value) -> f64 {
    (k["bid"].as_f64().unwrap() * 110.0).round() / 100.0
}

pub(crate) async fn approver_browser(app: &TestApp, email: &str) -> Browser {
    let who = person(app, email, Role::Approver).await;
    let mut b = Browser::new(app);
    b.sign_in(&who, PASSWORD).await;
    b
}

pub(crate) async fn decide(b: &mut Browser, id: &str, what: &str) -> crate::signin_support::Page {
    let csrf = b.csrf("/console/approvals").await;
    b.post(
        &format!("/console/approvals/{id}/{what}"),
        &[("csrf", csrf.as_str())],
    )
    .await
}

/// An AI client's bid change held by an `approval.mcp` policy: the acme writer's token, its
/// MCP session, the keyword and the bid, the preview, the commit's arguments, and the answer.
pub(crate) struct HeldByMcp {
    pub t: String,
    pub m: Mcp,
    pub keyword: Value,
    pub bid: f64,
    pub preview: Value,
    pub args: Value,
    pub held: Value,
}

/// Sets the policy that holds MCP commits, then previews and commits a 10% bid raise through
/// MCP (under `Idempotency-Key` `held-1`).
pub(crate) async fn held_by_mcp(app: &TestApp) -> HeldByMcp {
    app.store
        .policies()
        .put("acme", &json!({ "approval": { "mcp": true } }), "test")
        .await
        .unwrap();
    let t = writer(app).await;
    let k = keywords(app, &t, 1).await;
    let (keyword, bid) = (k[0]["keywordId"].clone(), nudged(&k[0]));
    let c = bid_update(&[&keyword], bid);
    let mut m = Mcp::with_token(app, t.clone());
    m.initialize("2025-11-25").await;
    let (_, preview) = m.call("marketplace_ads_call", c.clone()).await;
    assert_eq!(preview["policy"]["allowed"], true, "{preview}");
    let mut args = commit_of(c, &preview);
    args.as_object_mut().unwrap().remove("dryRun");
    args["idempotencyKey"] = "held-1".into();
    let (result, held) = m.call("marketplace_ads_commit", args.clone()).await;
    assert_eq!(result["isError"], false, "{result}");
    HeldByMcp {
        t,
        m,
        keyword,
        bid,
        preview,
        args,
        held,
    }
}

#[tokio::test]
async fn an_mcp_commit_held_by_the_policy_is_sent_exactly_once_an_approver_approves_it() {
    let app = TestApp::start_market().await;
    // an AI client previews and commits through MCP: held, nothing sent
    let HeldByMcp {
        t,
        m,
        keyword: id,
        bid,
        args,
        held,
        ..
    } = held_by_mcp(&app).await;
    let id = &id;
    assert_eq!(held["outcome"], "pending_approval", "{held}");
    assert_eq!(held["approval"]["status"], "pending", "{held}");
    assert!(
        held["approval"]["message"]
            .as_str()
            .unwrap()
            .contains("/console/approvals")
    );
    let approval = held["approval"]["approvalId"].as_str().unwrap().to_owned();
    // the same commit again is the same request, also once the plan's own 15 minutes are over
    let (_, again) = m.call("marketplace_ads_commit", args.clone()).await;
    assert_eq!(again["approval"]["approvalId"], approval.as_str());
    app.store
        .db()
        .exec(
            "UPDATE ads_plans SET expires_ms = 0 WHERE id = ?1",
            vec![held["approval"]["planId"].as_str().unwrap().into()],
        )
        .await
        .unwrap();
    let (_, later) = m.call("marketplace_ads_commit", args.clone()).await;
    assert_eq!(
        (
            later["outcome"].as_str(),
            later["approval"]["approvalId"].as_str()
        ),
        (Some("pending_approval"), Some(approval.as_str())),
        "{later}"
    );
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
    let (s, r) = app
        .get(&t, &format!("/api/marketplace/approvals/{approval}"))
        .await;
    assert_eq!((s, r["status"].as_str()), (200, Some("pending")), "{r}");

    // a member may not decide; an approver sees the change before and after, and approves
    let member = person(&app, "mo@acme.example", Role::Member).await;
    let mut mb = Browser::new(&app);
    mb.sign_in(&member, PASSWORD).await;
    assert_eq!(mb.get("/console/approvals").await.status, 403);
    let mut b = approver_browser(&app, "val@acme.example").await;
    let page = b.get("/console/approvals").await;
    assert_eq!(page.status, 200);
    assert!(
        page.body.contains(&format!("approval-{approval}")),
        "{}",
        page.body
    );
    assert!(
        page.body.contains(&format!("<strong>{bid}</strong>")),
        "{}",
        page.body
    );
    let page = decide(&mut b, &approval, "approve").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(page.body.contains("Approved and sent"), "{}", page.body);
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
    assert_eq!(keyword(&app, &t, id).await["bid"].as_f64(), Some(bid));

    // the requester reads the outcome; the audit record names the requester and the approver
    let (_, done) = m
        .call(
            "marketplace_ads_approval",
            json!({ "approvalId": approval }),
        )
        .await;
    assert_eq!(done["status"], "sent", "{done}");
    assert_eq!(done["decidedBy"], "val@acme.example");
    let (_, audit) = app
        .get(
            &t,
            "/api/marketplace/audit?operation=sp.update_keywords&limit=1",
        )
        .await;
    let record = &audit["records"][0];
    assert_eq!(record["auditId"], done["auditId"], "{audit}");
    assert_eq!(record["approvedBy"], "val@acme.example", "{audit}");
    assert_eq!(record["surface"], "mcp");
    assert!(
        record["actor"].as_str().unwrap().starts_with("svc:"),
        "{audit}"
    );
    // the timeline tells the story: proposed by the caller, approved and sent by the person
    let (s, tl) = app
        .get(&t, "/v1/timeline?family=ads_approval&limit=10")
        .await;
    assert_eq!(s, 200, "{tl}");
    let steps: Vec<(&str, &str)> = tl["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["actor"].as_str().unwrap()))
        .collect();
    assert_eq!(
        steps.iter().map(|s| s.0).collect::<Vec<_>>(),
        ["approval.sent", "approval.approved", "approval.proposed"],
        "{tl}"
    );
    assert_eq!(steps[1].1, "val@acme.example");
    assert!(steps[2].1.starts_with("svc:"), "{tl}");
    // deciding again changes nothing and sends nothing
    let page = decide(&mut b, &approval, "approve").await;
    assert_eq!(page.status, 409, "{}", page.body);
    let (_, replay) = m.call("marketplace_ads_commit", args).await;
    assert_eq!(replay["commit"]["replayed"], true, "{replay}");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
}

/// The plan (`planId`, `planHash`) a held commit named, in the shape `commit_of` reads.
async fn app_plan(app: &TestApp, t: &str, approval: &str) -> Value {
    let (_, r) = app
        .get(t, &format!("/api/marketplace/approvals/{approval}"))
        .await;
    json!({ "plan": { "planId": r["planId"], "planHash": r["planHash"] } })
}

#[tokio::test]
async fn a_rejected_an_expired_or_a_changed_held_plan_is_never_sent() {
    let app = TestApp::start_market().await;
    app.store
        .policies()
        .put(
            "acme",
            &json!({ "approval": { "operations": ["sp.update_keywords"] } }),
            "test",
        )
        .await
        .unwrap();
    let t = writer(&app).await;
    let k = keywords(&app, &t, 1).await;
    let (id, bid) = (&k[0]["keywordId"], nudged(&k[0]));
    let mut b = approver_browser(&app, "val@acme.example").await;
    let hold = |c: Value| {
        let (app, t) = (&app, t.clone());
        async move {
            let p = preview_ok(app, &t, &c).await;
            let (s, r) = app.post(&t, CALL, commit_of(c, &p)).await;
            assert_eq!(s, 202, "{r}");
            r["approval"]["approvalId"].as_str().unwrap().to_owned()
        }
    };
    let status = |approval: String| {
        let (app, t) = (&app, t.clone());
        async move {
            let (_, r) = app
                .get(&t, &format!("/api/marketplace/approvals/{approval}"))
                .await;
            r["status"].as_str().unwrap().to_owned()
        }
    };
    // rejected
    let rejected = hold(bid_update(&[id], bid)).await;
    assert_eq!(decide(&mut b, &rejected, "reject").await.status, 200);
    assert_eq!(status(rejected.clone()).await, "rejected");
    assert_eq!(decide(&mut b, &rejected, "approve").await.status, 409);
    // committing it again says so, and sends nothing
    let (s, r) = app
        .post(
            &t,
            CALL,
            commit_of(bid_update(&[id], bid), &app_plan(&app, &t, &rejected).await),
        )
        .await;
    assert_eq!((s, r["outcome"].as_str()), (202, Some("rejected")), "{r}");
    let (_, tl) = app
        .get(
            &t,
            "/v1/timeline?family=ads_approval&kind=approval.rejected",
        )
        .await;
    assert_eq!(
        tl["events"][0]["payload"]["approvalId"],
        rejected.as_str(),
        "{tl}"
    );
    // expired
    let expired = hold(bid_update(&[id], bid + 0.01)).await;
    app.store
        .db()
        .exec(
            "UPDATE ads_approvals SET expires_ms = 1 WHERE id = ?1",
            vec![expired.as_str().into()],
        )
        .await
        .unwrap();
    assert_eq!(status(expired.clone()).await, "expired");
    assert_eq!(decide(&mut b, &expired, "approve").await.status, 409);
    // changed after it was held: the approved hash no longer matches, nothing is sent
    let changed = hold(bid_update(&[id], bid + 0.02)).await;
    let plan_id = {
        let (_, r) = app
            .get(&t, &format!("/api/marketplace/approvals/{changed}"))
            .await;
        r["planId"].as_str().unwrap().to_owned()
    };
    let row = app
        .store
        .db()
        .one(
            "SELECT body FROM ads_plans WHERE id = ?1",
            vec![plan_id.as_str().into()],
        )
        .await
        .unwrap()
        .unwrap();
    let mut body: Value = serde_json::from_str(&row.text(0).unwrap()).unwrap();
    // within the policy's bounds, so only the binding to the approved hash stops it
    body["request"]["body"]["keywords"][0]["bid"] = (bid + 0.05).into();
    app.store
        .db()
        .exec(
            "UPDATE ads_plans SET body = ?1 WHERE id = ?2",
            vec![body.to_string().into(), plan_id.as_str().into()],
        )
        .await
        .unwrap();
    let page = decide(&mut b, &changed, "approve").await;
    assert!(page.body.contains("not sent"), "{}", page.body);
    assert_eq!(status(changed).await, "failed");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);
}

/// Issue 52, finding 1: the approval rule follows the plan, not the door. Reproduced on the
/// old main: with `{"approval": {"mcp": true}}`, an AI client's token previewed through the
/// MCP tool and committed that plan through `POST /api/marketplace/ads/call`, and it was sent
/// at once (audit: `surface: api`, `approvedBy: null`), skipping the person.
#[tokio::test]
async fn a_plan_previewed_over_mcp_waits_for_a_person_when_committed_over_rest() {
    let app = TestApp::start_market().await;
    app.store
        .policies()
        .put("acme", &json!({ "approval": { "mcp": true } }), "test")
        .await
        .unwrap();
    let t = writer(&app).await;
    let k = keywords(&app, &t, 1).await;
    let c = bid_update(&[&k[0]["keywordId"]], nudged(&k[0]));
    let mut m = Mcp::with_token(&app, t.clone());
    m.initialize("2025-11-25").await;
    let (_, preview) = m.call("marketplace_ads_call", c.clone()).await;
    assert_eq!(preview["valid"], true, "{preview}");
    // the same token commits the MCP-previewed plan over REST
    let (status, held) = app.post(&t, CALL, commit_of(c.clone(), &preview)).await;
    assert_eq!(
        (status, held["outcome"].as_str()),
        (202, Some("pending_approval")),
        "{held}"
    );
    assert!(
        held["approval"]["reason"]
            .as_str()
            .unwrap()
            .contains("previewed there"),
        "{held}"
    );
    assert_eq!(
        app.sandbox_calls("sp.updateKeywords").await,
        0,
        "nothing sent"
    );
    // a plan previewed over REST still commits over REST at once under the same policy
    let k2 = keywords(&app, &t, 2).await;
    let c2 = bid_update(&[&k2[1]["keywordId"]], nudged(&k2[1]));
    let preview = preview_ok(&app, &t, &c2).await;
    let sent = commit(&app, &t, &c2, &preview).await;
    assert_ne!(sent["outcome"], "pending_approval", "{sent}");
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
}

/// Issue 52, finding 3: the audit row keeps who previewed the plan beside who committed it.
/// Reproduced on the old main: one credential committed a plan another credential of the
/// tenant previewed, and the audit row named only the committer.
#[tokio::test]
async fn the_audit_row_names_who_previewed_and_who_committed() {
    let app = TestApp::start_market().await;
    let previewer = app.credential("acme", Some(WRITER)).await;
    let committer = app.credential("acme", Some(WRITER)).await;
    let (tp, tc) = (app.token(&previewer).await, app.token(&committer).await);
    let k = keywords(&app, &tp, 1).await;
    let c = bid_update(&[&k[0]["keywordId"]], nudged(&k[0]));
    let preview = preview_ok(&app, &tp, &c).await;
    let done = commit(&app, &tc, &c, &preview).await;
    assert_eq!(done["commit"]["outcome"], "answered", "{done}");
    let (_, audit) = app
        .get(
            &tc,
            "/api/marketplace/audit?operation=sp.update_keywords&limit=1",
        )
        .await;
    let rec = &audit["records"][0];
    assert_eq!(
        rec["credentialId"],
        committer.credential_id.as_str(),
        "{rec}"
    );
    assert_eq!(
        rec["previewedCredentialId"],
        previewer.credential_id.as_str(),
        "{rec}"
    );
    assert!(
        rec["previewedBy"]
            .as_str()
            .unwrap()
            .contains(&previewer.credential_id),
        "{rec}"
    );
    assert_ne!(rec["previewedBy"], rec["actor"], "{rec}");
}
