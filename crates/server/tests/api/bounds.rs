//! The sweep's refusals: every error in its family's envelope (no bare text), input that could
//! mean two things refused, and the headers every answer carries (nosniff, no-store, CORS for
//! allowed origins only).

use serde_json::{Value, json};

use crate::common::TestApp;

/// Status, content type and body of a raw request.
async fn raw(req: reqwest::RequestBuilder) -> (u16, String, Value) {
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let ct = res
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = res.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, ct, body)
}

fn jsonrpc_error(body: &Value) -> bool {
    body["jsonrpc"] == "2.0" && body["error"]["message"].is_string()
}

#[tokio::test]
async fn every_refusal_is_in_its_familys_envelope() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let big = "x".repeat(3 * 1024 * 1024);

    // A path parameter that is not UTF-8.
    let (status, ct, body) = raw(app
        .http
        .get(app.url("/api/table/%FF%FE"))
        .bearer_auth(&token))
    .await;
    assert_eq!((status, ct.as_str()), (400, "application/json"), "{body}");
    assert_eq!(body["kind"], "invalid_request", "{body}");

    // Oversized bodies: the token endpoint, MCP and the timeline.
    let (status, ct, body) = raw(app
        .http
        .post(app.url("/oauth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("grant_type=client_credentials&pad={big}")))
    .await;
    assert_eq!((status, ct.as_str()), (400, "application/json"), "{body}");
    assert_eq!(body["error"], "invalid_request");
    let (status, ct, body) = raw(app
        .http
        .post(app.url("/mcp"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(big.clone()))
    .await;
    assert_eq!((status, ct.as_str()), (413, "application/json"), "{body}");
    assert!(jsonrpc_error(&body), "{body}");
    let (status, ct, body) = raw(app
        .http
        .post(app.url("/v1/timeline"))
        .bearer_auth(&token)
        .header("content-type", "application/json")
        .body(big))
    .await;
    assert_eq!(ct, "application/json", "{status} {body}");
    assert_eq!(body["error"]["code"], "validation_error", "{body}");

    // MCP without a session where one is needed.
    let (status, ct, body) = raw(app.http.get(app.url("/mcp")).bearer_auth(&token)).await;
    assert_eq!((status, ct.as_str()), (405, "application/json"));
    assert!(jsonrpc_error(&body), "{body}");
    let (status, ct, body) = raw(app
        .http
        .post(app.url("/mcp/sse"))
        .bearer_auth(&token)
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})))
    .await;
    assert_eq!((status, ct.as_str()), (400, "application/json"));
    assert!(jsonrpc_error(&body), "{body}");
}

#[tokio::test]
async fn a_damaged_warehouse_is_unavailable_not_a_fault() {
    let app = TestApp::start().await;
    let token = app.token(&app.beta).await;
    std::fs::write(app.warehouse_file("beta"), b"this is not a database at all").unwrap();
    for (status, body) in [
        app.query(&token, json!({"sql": "SELECT 1"})).await,
        app.get(&token, "/api/tables").await,
    ] {
        assert_eq!(
            (status, body["kind"].as_str()),
            (503, Some("warehouse_unavailable")),
            "{body}"
        );
        assert!(
            !body.to_string().contains("not a database"),
            "the cause stays in the log"
        );
    }
}

#[tokio::test]
async fn input_that_could_mean_two_things_is_refused() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    // A repeated key, and a key the endpoint does not take.
    let (status, body) = app
        .query_raw(&token, r#"{"sql":"DELETE FROM seller","sql":"SELECT 1"}"#)
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (400, Some("invalid_request")),
        "{body}"
    );
    assert!(body["message"].as_str().unwrap().contains("appears twice"));
    let (status, body) = app
        .query(&token, json!({"sql": "SELECT 1", "limit": 5}))
        .await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (400, Some("invalid_request")),
        "{body}"
    );
    // SQL that is only a comment.
    let (status, body) = app.query(&token, json!({"sql": "-- nothing here"})).await;
    assert_eq!(
        (status, body["kind"].as_str()),
        (400, Some("invalid_request")),
        "{body}"
    );
    // Dates outside 0001–9999, and an empty one.
    for q in [
        "start_date=0000-01-01",
        "start_date=",
        "start_date=%2B10000-01-01",
    ] {
        let (status, body) = app
            .get(&token, &format!("/v1/retail/sales?account_id=acme:1&{q}"))
            .await;
        assert_eq!(status, 400, "{q}: {body}");
        assert_eq!(body["error"]["code"], "validation_error", "{q}: {body}");
    }
    // One-line fields with a NUL, a bidirectional override or a line separator.
    let c = app
        .credential("gamma", Some("context:read context:write"))
        .await;
    let w = app.token(&c).await;
    for bad in ["a\u{0}b", "evil\u{202E}txt", "one\u{2028}two"] {
        let (status, body) = app
            .post(
                &w,
                "/api/context/lifecycle",
                json!({"brand_slug": "alpha", "action": "retire", "reason_code": "client_left", "note": bad}),
            )
            .await;
        assert_eq!(
            (status, body["kind"].as_str()),
            (400, Some("bad_params")),
            "{bad:?}: {body}"
        );
    }
}

#[tokio::test]
async fn basic_and_form_client_ids_must_agree() {
    let app = TestApp::start().await;
    let c = &app.acme;
    let res = app
        .token_form(
            Some((&c.client_id, &c.client_secret)),
            &[
                ("grant_type", "client_credentials"),
                ("client_id", "ppc_someone_else"),
            ],
        )
        .await;
    let status = res.status().as_u16();
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        (status, body["error"].as_str()),
        (400, Some("invalid_request")),
        "{body}"
    );
}

#[tokio::test]
async fn headers_every_answer_carries() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let res = app.http.get(app.url("/health")).send().await.unwrap();
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    let res = app.get_raw(&token, "/v1/me").await;
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.headers()["cache-control"], "no-store");
    let res = app.get_raw(&token, "/api/no-such-route").await;
    assert_eq!(res.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn cors_for_allowed_origins_only() {
    let app = TestApp::start_with_mcp_origins(&["https://console.example"]).await;
    let token = app.token(&app.acme).await;
    let preflight = |origin: &'static str| {
        app.http
            .request(reqwest::Method::OPTIONS, app.url("/mcp"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header(
                "access-control-request-headers",
                "authorization, content-type, mcp-session-id",
            )
            .send()
    };
    let res = preflight("https://console.example").await.unwrap();
    assert_eq!(res.status(), 204);
    assert_eq!(
        res.headers()["access-control-allow-origin"],
        "https://console.example"
    );
    let allowed = res.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(allowed.contains("mcp-session-id") && allowed.contains("authorization"));
    let res = preflight("https://evil.example").await.unwrap();
    assert_eq!(res.status(), 403);
    assert!(res.headers().get("access-control-allow-origin").is_none());
    // The real request: the origin echoed, the session id readable by the page.
    let res = app
        .http
        .post(app.url("/mcp"))
        .bearer_auth(&token)
        .header("origin", "https://console.example")
        .header("accept", "application/json, text/event-stream")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "page", "version": "1"}}
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.headers()["access-control-allow-origin"],
        "https://console.example"
    );
    let exposed = res.headers()["access-control-expose-headers"]
        .to_str()
        .unwrap();
    assert!(exposed.contains("Mcp-Session-Id"));
}
