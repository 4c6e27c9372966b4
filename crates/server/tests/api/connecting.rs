//! Connecting accounts through the sandbox's consent pages, over plain HTTP as a browser does
//! it: the `state` rules (wrong, reused, expired, another person's; a code used twice), and a
//! disconnect that stops calls at once, on every instance, until a reconnect restores them. The same journey in
//! headless Chromium against the dev server is `crates/cli/tests/cli/connect_browser.rs`.

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::TestApp;
use crate::signin_support::{Browser, PASSWORD, Page, person};

const SELLER: &str = "A1DEMOSELLERMX";
const ADVERTISER: &str = "A2DEMOSELLER01";
const CALL: &str = "/api/marketplace/spapi/call";
const ADS: &str = "/api/marketplace/ads/call";

async fn admin(app: &TestApp, email: &str) -> Browser {
    person(app, email, pp_auth::Role::Admin).await;
    let mut b = Browser::new(app);
    let p = b.sign_in(email, PASSWORD).await;
    assert_eq!(p.status, 303, "{}", p.body);
    b
}

/// Starts a connect of `kind` from the console: where it sends the browser.
async fn start(b: &mut Browser, kind: &str) -> String {
    let csrf = b.csrf("/console/connections").await;
    let p = b
        .post(
            "/console/connections/connect",
            &[("csrf", &csrf), ("kind", kind), ("region", "na")],
        )
        .await;
    assert_eq!(p.status, 303, "{}", p.body);
    p.location.unwrap()
}

/// Approves `merchant` on the consent page at `url`: the callback URL it sends back to.
async fn approve(b: &mut Browser, url: &str, merchant: &str) -> String {
    let page = b.get(url).await;
    assert_eq!(page.status, 200, "{}", page.body);
    let (path, query) = url.split_once('?').unwrap();
    let mut form: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    form.push(("merchant".into(), merchant.into()));
    form.push(("decision".into(), "approve".into()));
    let form: Vec<(&str, &str)> = form.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let p = b.post(path, &form).await;
    assert_eq!(p.status, 302, "{}", p.body);
    p.location.unwrap()
}

fn param(url: &str, name: &str) -> String {
    form_urlencoded::parse(url.split_once('?').unwrap().1.as_bytes())
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.into_owned())
        .unwrap()
}

fn refused(p: &Page, why: &str) {
    assert_eq!(p.status, 400, "{}", p.body);
    assert!(p.body.contains(why), "{why}: {}", p.body);
    assert!(!p.body.contains("Atzr|"), "no refresh token on a page");
}

async fn connection(app: &TestApp, kind: &str, merchant: &str) -> pp_store::ConnectionRow {
    let acme = pp_core::TenantId::parse("acme").unwrap();
    app.store
        .connections()
        .get(&acme, kind, merchant)
        .await
        .unwrap()
        .unwrap()
}

async fn disconnect(b: &mut Browser, kind: &str, merchant: &str) -> Page {
    let csrf = b.csrf("/console/connections").await;
    b.post(
        "/console/connections/disconnect",
        &[("csrf", &csrf), ("kind", kind), ("merchant", merchant)],
    )
    .await
}

#[tokio::test]
async fn a_wrong_reused_expired_or_foreign_state_or_a_spent_code_connects_nothing() {
    let app = TestApp::start_market().await;
    let mut ana = admin(&app, "ana@acme.example").await;
    let p = disconnect(&mut ana, "seller", SELLER).await;
    assert_eq!(p.status, 200, "{}", p.body);
    let lapsed = connection(&app, "seller", SELLER).await;
    assert_eq!(lapsed.status, "lapsed");

    // a state this gateway never made
    refused(
        &ana.get("/console/connections/callback?state=made-up&spapi_oauth_code=x&selling_partner_id=A1DEMOSELLERMX")
            .await,
        "was not started here",
    );
    // no state at all
    refused(
        &ana.get("/console/connections/callback?spapi_oauth_code=x")
            .await,
        "without a state",
    );

    // the real thing, once
    let consent = start(&mut ana, "seller").await;
    assert!(consent.contains("application_id="), "{consent}");
    let back = approve(&mut ana, &consent, SELLER).await;
    let path = back
        .split_once("/console")
        .map(|(_, p)| format!("/console{p}"))
        .unwrap();
    let ok = ana.get(&path).await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    assert!(
        ok.body
            .contains("Connected the seller account A1DEMOSELLERMX"),
        "{}",
        ok.body
    );
    assert!(!ok.body.contains("Atzr|"));
    let connected = connection(&app, "seller", SELLER).await;
    assert_eq!(connected.status, "active");
    assert_eq!(connected.connected_by.as_deref(), Some("ana@acme.example"));
    assert!(
        connected.reach.contains("A1AM78C64UM0Y8"),
        "{}",
        connected.reach
    );

    // the same callback again: the state is spent
    refused(&ana.get(&path).await, "already used");
    // a new state with the spent code: the provider refuses the code
    let consent = start(&mut ana, "seller").await;
    let replay = format!(
        "/console/connections/callback?state={}&selling_partner_id={SELLER}&spapi_oauth_code={}",
        param(&consent, "state"),
        param(&back, "spapi_oauth_code")
    );
    refused(&ana.get(&replay).await, "refused the authorization code");

    // a state that outlived its ten minutes
    let acme = pp_core::TenantId::parse("acme").unwrap();
    let ana_id = app
        .store
        .people()
        .by_email("ana@acme.example")
        .await
        .unwrap()
        .unwrap()
        .id;
    app.store
        .connect_states()
        .insert(
            &Sha256::digest(b"old-state"),
            &acme,
            &ana_id,
            "seller",
            "na",
            pp_store::now_unix() - 1,
        )
        .await
        .unwrap();
    let consent = start(&mut ana, "seller").await;
    let fresh = approve(&mut ana, &consent, SELLER).await;
    let stale = format!(
        "/console/connections/callback?state=old-state&selling_partner_id={SELLER}&spapi_oauth_code={}",
        param(&fresh, "spapi_oauth_code")
    );
    refused(&ana.get(&stale).await, "longer than 10 minutes");

    // another admin's state: refused (and spent), though the code is good
    let mut bob = admin(&app, "bob@acme.example").await;
    let consent = start(&mut bob, "seller").await;
    let bobs = approve(&mut bob, &consent, SELLER).await;
    let path = bobs
        .split_once("/console")
        .map(|(_, p)| format!("/console{p}"))
        .unwrap();
    refused(&ana.get(&path).await, "started by another person");
    refused(&bob.get(&path).await, "already used");

    // none of it touched the connection ana made
    let after = connection(&app, "seller", SELLER).await;
    assert_eq!(after.updated_at, connected.updated_at);
    assert_eq!(after.sealed_token, connected.sealed_token);
    // and a member may not start one
    person(&app, "max@acme.example", pp_auth::Role::Member).await;
    let mut max = Browser::new(&app);
    max.sign_in("max@acme.example", PASSWORD).await;
    let p = max.get("/console/connections").await;
    assert_eq!(p.status, 403);
}

#[tokio::test]
async fn a_disconnect_stops_calls_at_once_and_a_reconnect_restores_them() {
    let app = TestApp::start_market().await;
    let t = app.token(&app.acme).await;
    let account = json!({"operation": "sellers.get_account", "sellerId": SELLER});
    let (s, r) = app.post(&t, CALL, account.clone()).await;
    assert_eq!(s, 200, "{r}");
    let logins = app.sandbox.as_ref().unwrap().creds["advertising"].clone();
    let profile = logins
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["account"] == ADVERTISER)
        .unwrap()["profiles"][0]
        .as_u64()
        .unwrap();
    let campaigns =
        json!({"operation": "sp.list_campaigns", "profileId": profile, "query": {"body": {}}});
    let (s, r) = app.post(&t, ADS, campaigns.clone()).await;
    assert_eq!(s, 200, "{r}");

    // a second instance over the same store has its own access token cached
    let second = app.restarted_market_gateway().await;
    let on_second = |body: Value| {
        let (http, url, t) = (app.http.clone(), format!("{second}{CALL}"), t.clone());
        async move {
            let r = http
                .post(url)
                .bearer_auth(t)
                .json(&body)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (s, r) = on_second(account.clone()).await;
    assert_eq!(s, 200, "{r}");

    let mut ana = admin(&app, "ana@acme.example").await;
    let listed = ana.get("/console/connections").await;
    assert!(
        listed
            .body
            .contains("id=\"disconnect-seller-A1DEMOSELLERMX\""),
        "{}",
        listed.body
    );
    let p = disconnect(&mut ana, "seller", SELLER).await;
    assert!(p.body.contains("Disconnected A1DEMOSELLERMX"), "{}", p.body);
    assert!(
        connection(&app, "seller", SELLER)
            .await
            .sealed_token
            .is_empty()
    );
    // at once: the access token the gateway holds is not used again
    let before = app.sandbox_calls("sellers.getAccount").await;
    let (s, r) = app.post(&t, CALL, account.clone()).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (409, Some("reauth_required")),
        "{r}"
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .contains("disconnected by ana@acme.example"),
        "{r}"
    );
    assert_eq!(app.sandbox_calls("sellers.getAccount").await, before);

    let p = disconnect(&mut ana, "ads", ADVERTISER).await;
    assert_eq!(p.status, 200, "{}", p.body);
    let (s, r) = app.post(&t, ADS, campaigns.clone()).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (409, Some("reauth_required")),
        "{r}"
    );

    // reconnect both through the consent pages
    for (kind, merchant) in [("seller", SELLER), ("ads", ADVERTISER)] {
        let consent = start(&mut ana, kind).await;
        let back = approve(&mut ana, &consent, merchant).await;
        let path = back
            .split_once("/console")
            .map(|(_, p)| format!("/console{p}"))
            .unwrap();
        let p = ana.get(&path).await;
        assert_eq!(p.status, 200, "{}", p.body);
        assert!(!p.body.contains("Atzr|"));
    }
    let (s, r) = app.post(&t, CALL, account.clone()).await;
    assert_eq!(s, 200, "{r}");
    let (s, r) = on_second(account).await;
    assert_eq!(s, 200, "{r}");
    let (s, r) = app.post(&t, ADS, campaigns).await;
    assert_eq!(s, 200, "{r}");
    let ads = connection(&app, "ads", ADVERTISER).await;
    assert!(
        ads.reach.split(',').any(|p| p == profile.to_string()),
        "{}",
        ads.reach
    );
    assert!(ads.last_call_at.is_some());
    // the console shows who connected it and when it last worked, never a token
    let listed = ana.get("/console/connections").await;
    assert!(listed.body.contains("ana@acme.example"), "{}", listed.body);
    assert!(!listed.body.contains("Atzr|"));
    // the answers built from connections carry their state, never their token
    let (s, accounts) = app.get(&t, "/v1/accounts").await;
    assert_eq!(s, 200, "{accounts}");
    let text = Value::to_string(&accounts);
    assert!(
        text.contains(ADVERTISER) && !text.contains("Atzr|"),
        "{text}"
    );
}

#[tokio::test]
async fn without_a_selling_partner_application_the_console_says_so_and_advertising_still_connects()
{
    let app = TestApp::start_market_with(|u| u.consent.application_id = None).await;
    let mut ana = admin(&app, "ana@acme.example").await;
    let csrf = ana.csrf("/console/connections").await;
    let p = ana
        .post(
            "/console/connections/connect",
            &[("csrf", &csrf), ("kind", "seller"), ("region", "na")],
        )
        .await;
    assert_eq!(p.status, 400, "{}", p.body);
    assert!(
        p.body
            .contains("no selling-partner application id is configured"),
        "{}",
        p.body
    );
    // an unknown kind or region is refused on the page, and nothing is started
    for (kind, region) in [("both", "na"), ("ads", "mars")] {
        let p = ana
            .post(
                "/console/connections/connect",
                &[("csrf", &csrf), ("kind", kind), ("region", region)],
            )
            .await;
        assert_eq!(p.status, 400, "{kind} {region}: {}", p.body);
    }
    let consent = start(&mut ana, "ads").await;
    assert!(
        consent.contains("scope=advertising%3A%3Acampaign_management"),
        "{consent}"
    );
    let back = approve(&mut ana, &consent, ADVERTISER).await;
    let path = back
        .split_once("/console")
        .map(|(_, p)| format!("/console{p}"))
        .unwrap();
    let p = ana.get(&path).await;
    assert!(
        p.body
            .contains("Connected the advertising login for A2DEMOSELLER01"),
        "{}",
        p.body
    );
}
