//! Public routes, request ids and the envelopes of routing failures.

use serde_json::Value;

use crate::common::TestApp;

#[tokio::test]
async fn health_is_public_and_versioned() {
    let app = TestApp::start().await;
    let res = app.http.get(app.url("/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers().contains_key("x-request-id"));
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["status"], "ok");
    for k in ["version", "engine_version", "evidence_version"] {
        assert!(body[k].as_str().is_some_and(|v| !v.is_empty()), "{k}");
    }
}

#[tokio::test]
async fn every_response_has_a_request_id() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let mut ids = std::collections::HashSet::new();
    for (method, path) in [
        ("GET", "/v1/me"),
        ("GET", "/nope"),
        ("GET", "/api/nope"),
        ("GET", "/v1/nope"),
        ("DELETE", "/api/query"),
    ] {
        let res = app
            .http
            .request(method.parse().unwrap(), app.url(path))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        let id = res.headers()["x-request-id"].to_str().unwrap().to_owned();
        assert!(ids.insert(id), "ids are unique");
    }
    // A well-formed incoming id is kept, so a client can correlate its own logs.
    let res = app
        .http
        .get(app.url("/health"))
        .header("x-request-id", "client-abc_123")
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["x-request-id"], "client-abc_123");
    let res = app
        .http
        .get(app.url("/health"))
        .header("x-request-id", "bad id with spaces")
        .send()
        .await
        .unwrap();
    assert_ne!(res.headers()["x-request-id"], "bad id with spaces");
}

#[tokio::test]
async fn unknown_routes_answer_in_their_family_envelope() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let (status, body) = app.get(&token, "/api/nope").await;
    assert_eq!(
        (status, body["ok"].as_bool(), body["kind"].as_str()),
        (404, Some(false), Some("not_found"))
    );
    let (status, body) = app.get(&token, "/v1/nope").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let res = app.get_raw(&token, "/api/query").await;
    assert_eq!(res.status(), 405);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["kind"], "method_not_allowed");
}

#[tokio::test]
async fn every_documented_route_exists() {
    let app = TestApp::start().await;
    let doc: Value = app
        .http
        .get(app.url("/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["servers"][0]["url"], app.base);
    let paths = doc["paths"].as_object().unwrap();
    assert_eq!(paths.len(), 52);
    for (method, path) in pp_server::openapi::documented() {
        assert!(paths[path][method].is_object(), "{method} {path}");
        let url = app.url(
            &path
                .replace("{name}", "seller")
                .replace("{brand}", "northwind")
                .replace("{kind}", "overview")
                .replace("{id}", "1"),
        );
        let res = app
            .http
            .request(method.to_uppercase().parse().unwrap(), url)
            .send()
            .await
            .unwrap();
        assert_ne!(
            res.status(),
            404,
            "{method} {path} is documented but not routed"
        );
        assert_ne!(
            res.status(),
            405,
            "{method} {path} is documented but not routed for {method}"
        );
    }
    assert_eq!(
        paths["/v1/ads/campaign-performance"]["get"]["x-required-scopes"],
        serde_json::json!(["ads:read"])
    );
}
