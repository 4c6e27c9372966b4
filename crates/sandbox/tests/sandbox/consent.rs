//! The consent pages: a merchant approves the app, the browser goes back to a registered
//! redirect URI with a code, and LWA exchanges that code once for a refresh token that works.

use reqwest::Method;
use serde_json::Value;

use crate::common::{SELLER, SimApp, parts};

const CALLBACK: &str = "http://gateway.test/console/connections/callback";

async fn sandbox() -> SimApp {
    SimApp::start_with(|c| c.redirect_uris = vec![CALLBACK.to_owned()]).await
}

/// A consent page's decision posted to `path` with `form`, the redirect not followed.
async fn decide(app: &SimApp, path: &str, form: &[(&str, &str)]) -> reqwest::Response {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(app.url(path))
        .form(form)
        .send()
        .await
        .unwrap()
}

/// The query of the `Location` a decision sends the browser to.
fn back(r: &reqwest::Response) -> (String, Vec<(String, String)>) {
    let loc = r.headers()["location"].to_str().unwrap().to_owned();
    let (base, q) = loc.split_once('?').unwrap();
    let q = form_urlencoded::parse(q.as_bytes()).into_owned().collect();
    (base.to_owned(), q)
}

fn param(q: &[(String, String)], k: &str) -> String {
    q.iter()
        .find(|(n, _)| n == k)
        .map(|(_, v)| v.clone())
        .unwrap_or_default()
}

async fn exchange(app: &SimApp, code: &str, redirect: &str) -> (u16, Value) {
    let r = app
        .http
        .post(app.url("/auth/o2/token"))
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", redirect),
            ("client_id", app.client_id()),
            ("client_secret", app.secret()),
        ])
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.json().await.unwrap())
}

#[tokio::test]
async fn a_seller_approves_and_the_code_is_exchanged_once_for_a_working_grant() {
    let app = sandbox().await;
    let id = app.creds["application_id"].as_str().unwrap().to_owned();
    let page = app
        .http
        .get(app.url("/apps/authorize/consent"))
        .query(&[("application_id", id.as_str()), ("state", "s-1")])
        .send()
        .await
        .unwrap();
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains(&format!("value=\"{SELLER}\"")), "{html}");
    let r = decide(
        &app,
        "/apps/authorize/consent",
        &[
            ("application_id", id.as_str()),
            ("state", "s-1"),
            ("merchant", SELLER),
            ("decision", "approve"),
        ],
    )
    .await;
    assert_eq!(r.status(), 302);
    let (to, q) = back(&r);
    assert_eq!(to, CALLBACK);
    assert_eq!(param(&q, "state"), "s-1");
    assert_eq!(param(&q, "selling_partner_id"), SELLER);
    let code = param(&q, "spapi_oauth_code");
    // another redirect URI than the code was made for burns it
    let (s, body) = exchange(&app, &code, "http://elsewhere.test/cb").await;
    assert_eq!((s, body["error"].as_str()), (400, Some("invalid_grant")));
    let (s, body) = exchange(&app, &code, CALLBACK).await;
    assert_eq!((s, body["error"].as_str()), (400, Some("invalid_grant")));

    // a fresh approval: its code works once, and the grant it makes calls the API
    let r = decide(
        &app,
        "/apps/authorize/consent",
        &[
            ("application_id", id.as_str()),
            ("state", "s-2"),
            ("merchant", SELLER),
            ("decision", "approve"),
        ],
    )
    .await;
    let code = param(&back(&r).1, "spapi_oauth_code");
    let (s, body) = exchange(&app, &code, CALLBACK).await;
    assert_eq!(s, 200, "{body}");
    let refresh = body["refresh_token"].as_str().unwrap().to_owned();
    assert!(refresh.starts_with("Atzr|"));
    assert_ne!(refresh, app.refresh_token("seller", SELLER));
    let access = body["access_token"].as_str().unwrap();
    let (s, _, _) = parts(
        app.sp(Method::GET, "/sellers/v1/marketplaceParticipations", access)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
    let (s, body) = exchange(&app, &code, CALLBACK).await;
    assert_eq!((s, body["error"].as_str()), (400, Some("invalid_grant")));
    // the grant made at first start keeps working beside the new one
    assert_eq!(app.lwa(&app.refresh_token("seller", SELLER)).await.0, 200);
    assert_eq!(app.lwa(&refresh).await.0, 200);
}

#[tokio::test]
async fn the_advertising_login_page_checks_the_app_scope_and_redirect() {
    let app = sandbox().await;
    let client = app.client_id().to_owned();
    let ask = |redirect: &'static str, scope: &'static str| {
        let client = client.clone();
        let app = &app;
        async move {
            app.http
                .get(app.url("/ap/oa"))
                .query(&[
                    ("client_id", client.as_str()),
                    ("scope", scope),
                    ("response_type", "code"),
                    ("redirect_uri", redirect),
                    ("state", "s"),
                ])
                .send()
                .await
                .unwrap()
        }
    };
    let ok = ask(CALLBACK, "advertising::campaign_management").await;
    assert_eq!(ok.status(), 200);
    // an unregistered redirect URI and a missing scope are refused on the page: no redirect
    let r = ask("http://evil.test/cb", "advertising::campaign_management").await;
    assert_eq!(r.status(), 400);
    assert!(r.text().await.unwrap().contains("not registered"));
    assert_eq!(ask(CALLBACK, "profile").await.status(), 400);

    let r = decide(
        &app,
        "/ap/oa",
        &[
            ("client_id", client.as_str()),
            ("scope", "advertising::campaign_management"),
            ("response_type", "code"),
            ("redirect_uri", CALLBACK),
            ("state", "s"),
            ("merchant", SELLER),
            ("decision", "approve"),
        ],
    )
    .await;
    assert_eq!(r.status(), 302);
    let q = back(&r).1;
    assert_eq!(param(&q, "scope"), "advertising::campaign_management");
    let (s, body) = exchange(&app, &param(&q, "code"), CALLBACK).await;
    assert_eq!(s, 200, "{body}");
    // the login reaches the merchant's profiles
    let r = app
        .http
        .get(app.url("/v2/profiles"))
        .bearer_auth(body["access_token"].as_str().unwrap())
        .header("Amazon-Advertising-API-ClientId", &client)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let profiles: Value = r.json().await.unwrap();
    assert!(!profiles.as_array().unwrap().is_empty());
    assert!(
        profiles
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["accountInfo"]["id"] == SELLER)
    );

    // a denial goes back with access_denied and no code
    let r = decide(
        &app,
        "/ap/oa",
        &[
            ("client_id", client.as_str()),
            ("scope", "advertising::campaign_management"),
            ("response_type", "code"),
            ("redirect_uri", CALLBACK),
            ("state", "s"),
            ("decision", "deny"),
        ],
    )
    .await;
    let q = back(&r).1;
    assert_eq!(param(&q, "error"), "access_denied");
    assert_eq!(param(&q, "code"), "");
}
