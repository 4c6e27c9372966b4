//! LWA, access tokens, lapsed and revoked authorizations, usage plans and fault rules, on the
//! selling side's sellers API.

use reqwest::Method;
use serde_json::json;

use crate::common::{SELLER, SimApp, parts};

#[tokio::test]
async fn lwa_exchanges_refresh_tokens_and_refuses_revoked_ones() {
    let app = SimApp::start().await;
    let refresh = app.refresh_token("seller", SELLER);
    let (s, body) = app.lwa(&refresh).await;
    assert_eq!(s, 200);
    assert!(body["access_token"].as_str().unwrap().starts_with("Atza|"));
    assert_eq!(body["token_type"], "bearer");
    assert_eq!(body["expires_in"], 3600);
    // wrong client secret
    let r = app
        .http
        .post(app.url("/auth/o2/token"))
        .form(&[
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh.as_str()),
            ("client_id", app.client_id()),
            ("client_secret", "nope"),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(
        r.json::<serde_json::Value>().await.unwrap()["error"],
        "invalid_client"
    );
    // an unknown refresh token
    let (s, body) = app.lwa("Atzr|nope").await;
    assert_eq!((s, body["error"].as_str()), (400, Some("invalid_grant")));
    // revoked: the refresh token and its access tokens stop
    let access = body_token(&app, &refresh).await;
    let r = app
        .control(Method::POST, "/__sandbox/grants/revoke")
        .json(&json!({"merchant": SELLER}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (s, body) = app.lwa(&refresh).await;
    assert_eq!((s, body["error"].as_str()), (400, Some("invalid_grant")));
    let (s, _, body) = parts(
        app.sp(
            Method::GET,
            "/sellers/v1/marketplaceParticipations",
            &access,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(s, 403);
    assert_eq!(body["errors"][0]["code"], "Unauthorized");
    // the other merchants keep working
    let other = app.access("seller", "A1DEMOSELLERMX").await;
    let (s, _, _) = parts(
        app.sp(Method::GET, "/sellers/v1/marketplaceParticipations", &other)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
}

async fn body_token(app: &SimApp, refresh: &str) -> String {
    app.lwa(refresh).await.1["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn access_tokens_expire() {
    let app = SimApp::start_with(|c| c.access_token_ttl_secs = 1).await;
    let token = app.access("seller", SELLER).await;
    let path = "/sellers/v1/marketplaceParticipations";
    assert_eq!(
        app.sp(Method::GET, path, &token)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    tokio::time::sleep(std::time::Duration::from_millis(2100)).await;
    let (s, _, body) = parts(app.sp(Method::GET, path, &token).send().await.unwrap()).await;
    assert_eq!(s, 403);
    assert!(
        body["errors"][0]["details"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
}

#[tokio::test]
async fn participations_come_from_the_world_with_provider_headers() {
    let app = SimApp::start().await;
    let token = app.access("seller", SELLER).await;
    let (s, h, body) = parts(
        app.sp(Method::GET, "/sellers/v1/marketplaceParticipations", &token)
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
    let countries: Vec<&str> = body["payload"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["marketplace"]["countryCode"].as_str().unwrap())
        .collect();
    assert_eq!(countries, ["US", "CA"], "one token, two marketplaces");
    assert_eq!(h["x-amzn-ratelimit-limit"], "0.016");
    assert!(h.contains_key("x-amzn-requestid"));
    // an ads token is not a selling-side token
    let ads = app.access("ads", SELLER).await;
    assert_eq!(
        app.sp(Method::GET, "/sellers/v1/marketplaceParticipations", &ads)
            .send()
            .await
            .unwrap()
            .status(),
        403
    );
}

#[tokio::test]
async fn a_lapsed_authorization_answers_403_until_restored() {
    let app = SimApp::start().await;
    let token = app.access("seller", SELLER).await;
    let path = "/sellers/v1/account";
    let lapse = |on: bool| {
        app.control(Method::POST, "/__sandbox/merchants/lapse")
            .json(&json!({"merchant": SELLER, "on": on}))
            .send()
    };
    assert_eq!(lapse(true).await.unwrap().status(), 200);
    let (s, _, body) = parts(app.sp(Method::GET, path, &token).send().await.unwrap()).await;
    assert_eq!(s, 403);
    assert!(
        body["errors"][0]["details"]
            .as_str()
            .unwrap()
            .contains("lapsed")
    );
    lapse(false).await.unwrap();
    assert_eq!(
        app.sp(Method::GET, path, &token)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test]
async fn usage_plans_throttle_per_seller_and_operation() {
    let app = SimApp::start().await;
    let token = app.access("seller", SELLER).await;
    let path = "/sellers/v1/account"; // 0.016/s, burst 15
    for _ in 0..15 {
        assert_eq!(
            app.sp(Method::GET, path, &token)
                .send()
                .await
                .unwrap()
                .status(),
            200
        );
    }
    let (s, h, body) = parts(app.sp(Method::GET, path, &token).send().await.unwrap()).await;
    assert_eq!(s, 429);
    assert_eq!(h["x-amzn-ratelimit-limit"], "0.016");
    assert_eq!(body["errors"][0]["code"], "QuotaExceeded");
    // another operation of the same seller has its own bucket
    assert_eq!(
        app.sp(Method::GET, "/sellers/v1/marketplaceParticipations", &token)
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        app.calls("sellers.getAccount").await,
        16,
        "throttled calls are counted too"
    );
}

#[tokio::test]
async fn fault_rules_answer_as_configured_and_count_down() {
    let app = SimApp::start().await;
    let token = app.access("seller", SELLER).await;
    let path = "/sellers/v1/marketplaceParticipations";
    let op = "sellers.getMarketplaceParticipations";
    app.faults(json!([
        {"op": op, "effect": "status", "status": 503, "times": 1},
        {"op": op, "effect": "throttle", "retry_after": 2, "times": 1},
        {"op": op, "effect": "throttle", "times": 1},
        {"op": op, "effect": "garbage", "times": 1},
        {"op": op, "effect": "latency", "latency_ms": 300, "times": 1},
        {"op": op, "effect": "reset", "times": 1}
    ]))
    .await;
    let send = || app.sp(Method::GET, path, &token).send();
    let (s, _, body) = parts(send().await.unwrap()).await;
    assert_eq!(
        (s, body["errors"][0]["code"].as_str()),
        (503, Some("ServiceUnavailable"))
    );
    let r = send().await.unwrap();
    assert_eq!(
        (
            r.status().as_u16(),
            r.headers()["retry-after"].to_str().unwrap()
        ),
        (429, "2")
    );
    let r = send().await.unwrap();
    assert_eq!(r.status(), 429);
    assert!(r.headers().get("retry-after").is_none());
    let r = send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        serde_json::from_slice::<serde_json::Value>(&r.bytes().await.unwrap()).is_err(),
        "unreadable 200"
    );
    let t = std::time::Instant::now();
    assert_eq!(send().await.unwrap().status(), 200);
    assert!(t.elapsed() >= std::time::Duration::from_millis(300));
    let reset = async { send().await?.bytes().await };
    assert!(reset.await.is_err(), "the connection is cut");
    assert_eq!(
        send().await.unwrap().status(),
        200,
        "every rule has run out"
    );
    assert_eq!(app.calls(op).await, 7);
    // a hang outlasts a client's timeout
    app.faults(json!([{"op": op, "effect": "hang", "times": 1}]))
        .await;
    let r = app
        .sp(Method::GET, path, &token)
        .timeout(std::time::Duration::from_millis(300))
        .send()
        .await;
    assert!(r.unwrap_err().is_timeout());
}

#[tokio::test]
async fn the_control_surface_needs_the_app_secret_and_checks_rules() {
    let app = SimApp::start().await;
    let r = app
        .http
        .get(app.url("/__sandbox/calls"))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    let r = app
        .control(Method::POST, "/__sandbox/faults")
        .json(&json!({"rules": [{"op": "*", "effect": "status"}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400, "a status rule without a status");
    let r = app.http.get(app.url("/no/such/path")).send().await.unwrap();
    assert_eq!(r.status(), 404);
}
