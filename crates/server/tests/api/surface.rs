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

/// A token route's gate is found by route and method: `HEAD` reaches a `GET` operation's gate
/// (refused without a token, answered with one), and a method the path does not declare is
/// 405 before any bearer check.
#[tokio::test]
async fn head_is_gated_like_get_and_an_undeclared_method_is_405_before_the_bearer_check() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let head = |auth: Option<&str>| {
        let mut req = app.http.head(app.url("/v1/me"));
        if let Some(t) = auth {
            req = req.bearer_auth(t);
        }
        req.send()
    };
    assert_eq!(head(None).await.unwrap().status(), 401);
    assert_eq!(head(Some(&token)).await.unwrap().status(), 200);
    let res = app.http.delete(app.url("/v1/me")).send().await.unwrap();
    assert_eq!(res.status(), 405);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "validation_error");
}

/// The public surface as a reviewed file: any change to a route, a scope, a parameter or a
/// schema shows in the diff of `tests/snapshots/openapi.json`. After an intended change,
/// regenerate it with `UPDATE_SNAPSHOTS=1 cargo test -p pp-server --test api openapi`.
#[test]
fn the_openapi_document_matches_its_snapshot() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/openapi.json");
    let doc = pp_server::openapi::document("https://partner.example");
    let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
    assert!(
        crate::common::matches_snapshot(&path, &text),
        "/openapi.json changed; review the difference and regenerate tests/snapshots/openapi.json \
         with UPDATE_SNAPSHOTS=1 cargo test -p pp-server --test api openapi"
    );
}

const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];

/// Every documented operation is routed, and on a documented path no undocumented method is:
/// the router, the document and the tools come from the same declarations.
#[tokio::test]
async fn every_route_is_documented_and_every_documented_path_is_routed() {
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
    assert_eq!(
        doc,
        pp_server::openapi::document(&app.base),
        "served as generated"
    );
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["servers"][0]["url"], app.base);
    let paths = doc["paths"].as_object().unwrap();
    let documented = pp_server::openapi::documented();
    assert_eq!(
        paths
            .values()
            .map(|p| p.as_object().unwrap().len())
            .sum::<usize>(),
        documented.len()
    );
    for (path, ops) in paths {
        let url = app.url(
            &path
                .replace("{name}", "seller")
                .replace("{brand}", "northwind")
                .replace("{kind}", "overview")
                .replace("{family}", "competitive-summary")
                .replace("{id}", "1"),
        );
        for method in METHODS {
            let res = app
                .http
                .request(method.to_uppercase().parse().unwrap(), &url)
                .send()
                .await
                .unwrap();
            let status = res.status().as_u16();
            if ops.get(method).is_some() {
                assert!(
                    status != 404 && status != 405,
                    "{method} {path} is documented but answers {status}"
                );
            } else {
                assert_eq!(status, 405, "{method} {path} is routed but not documented");
            }
        }
    }
    for (method, path) in [
        ("get", "/api/nothing-here"),
        ("post", "/v1/nothing"),
        ("get", "/api/marketplace"),
    ] {
        let res = app
            .http
            .request(method.to_uppercase().parse().unwrap(), app.url(path))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 404, "{method} {path}");
    }
    assert_eq!(
        paths["/v1/ads/campaign-performance"]["get"]["x-required-scopes"],
        serde_json::json!(["ads:read"])
    );
    assert_eq!(paths["/api/query"]["post"]["x-mcp-tool"], "legacy_query");
    // every success has its schema, so a client can check what it gets
    for (path, ops) in paths {
        for (method, op) in ops.as_object().unwrap() {
            let ok = op["responses"]
                .as_object()
                .unwrap()
                .iter()
                .find(|(k, _)| k.starts_with('2'));
            let (_, ok) = ok.unwrap_or_else(|| panic!("{method} {path} documents no success"));
            if !path.starts_with("/mcp") {
                assert!(
                    ok["content"]["application/json"]["schema"].is_object(),
                    "{method} {path} has no response schema"
                );
            }
        }
    }
}
