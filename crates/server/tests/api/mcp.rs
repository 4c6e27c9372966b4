//! The MCP server's protocol details, spoken over raw HTTP: auth and the connect rule, the
//! Host/Origin guard, session-era Streamable HTTP (initialize, session ids, GET, DELETE, 404 for
//! an unknown session), the 2026-07-28 envelope checks, legacy SSE, tool-level scope errors,
//! result caps, and the lifecycle tool against its REST twin.

use serde_json::{Value, json};

use crate::common::TestApp;

const ACCEPT: &str = "application/json, text/event-stream";

pub(crate) struct Mcp {
    base: String,
    http: reqwest::Client,
    token: String,
    session: Option<String>,
    version: &'static str,
}

impl Mcp {
    async fn new(app: &TestApp, scopes: Option<&str>) -> Self {
        let c = app.credential("acme", scopes).await;
        Self::with_token(app, app.token(&c).await)
    }

    pub(crate) fn with_token(app: &TestApp, token: String) -> Self {
        Self {
            base: app.base.clone(),
            http: app.http.clone(),
            token,
            session: None,
            version: "2025-11-25",
        }
    }

    fn post(&self) -> reqwest::RequestBuilder {
        self.post_accepting(ACCEPT)
    }

    fn post_accepting(&self, accept: &str) -> reqwest::RequestBuilder {
        let mut r = self
            .http
            .post(format!("{}/mcp", self.base))
            .bearer_auth(&self.token)
            .header("accept", accept);
        if let Some(s) = &self.session {
            r = r
                .header("mcp-session-id", s)
                .header("mcp-protocol-version", self.version);
        }
        r
    }

    pub(crate) async fn rpc(&self, method: &str, params: Value) -> (u16, Value) {
        let r = self
            .post()
            .json(&json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json().await.unwrap_or(Value::Null))
    }

    pub(crate) async fn initialize(&mut self, version: &str) -> Value {
        let r = self
            .post()
            .json(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        self.session = Some(r.headers()["mcp-session-id"].to_str().unwrap().to_owned());
        let body: Value = r.json().await.unwrap();
        self.version = match body["result"]["protocolVersion"].as_str().unwrap() {
            "2024-11-05" => "2024-11-05",
            "2025-03-26" => "2025-03-26",
            "2025-06-18" => "2025-06-18",
            _ => "2025-11-25",
        };
        body
    }

    /// A tool call; returns the result and its text parsed as JSON.
    pub(crate) async fn call(&self, name: &str, args: Value) -> (Value, Value) {
        let (status, body) = self
            .rpc("tools/call", json!({"name": name, "arguments": args}))
            .await;
        assert_eq!(status, 200, "{body}");
        let result = body["result"].clone();
        let text = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        (result, text)
    }
}

fn modern_body(method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params})
}

#[tokio::test]
async fn no_token_is_401_pointing_at_the_resource_metadata() {
    let app = TestApp::start().await;
    for (method, path) in [("POST", "/mcp"), ("GET", "/mcp/sse")] {
        let r = app
            .http
            .request(method.parse().unwrap(), app.url(path))
            .header("content-type", "application/json")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{path}");
        let challenge = r.headers()["www-authenticate"].to_str().unwrap().to_owned();
        let meta_url = format!("{}/.well-known/oauth-protected-resource/mcp", app.base);
        assert!(
            challenge.contains(&format!("resource_metadata=\"{meta_url}\"")),
            "{challenge}"
        );
        // no token is an invitation to sign in, not an error (RFC 6750, docs/auth.md)
        assert!(!challenge.contains("error="), "{challenge}");
        // issue 52, finding 9: the challenge says which scopes to ask for (RFC 6750, docs/auth.md), and
        // the SQL tools' are among them
        assert!(
            challenge.contains("scope=\"") && challenge.contains("sql:query"),
            "{challenge}"
        );
        let meta: Value = app
            .http
            .get(&meta_url)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(meta["resource"], format!("{}/mcp", app.base));
        assert_eq!(meta["authorization_servers"], json!([app.base]));
        // every scope a tool needs, sql:query included (issue 52, finding 9: the metadata
        // left out what the SQL tools need)
        let supported = meta["scopes_supported"].as_array().unwrap();
        for scope in [
            "timeline:read",
            "sql:query",
            "account:read",
            "intelligence:read",
        ] {
            assert!(supported.contains(&json!(scope)), "{scope}: {meta}");
        }
    }
    let root: Value = app
        .http
        .get(app.url("/.well-known/oauth-protected-resource"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(root["resource"], app.base);
}

#[tokio::test]
async fn a_credential_without_any_tool_scope_is_refused_at_connect() {
    let app = TestApp::start().await;
    let mut m = Mcp::new(&app, Some("brand_analytics:read corrections:write")).await;
    let (status, body) = m
        .rpc(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {}}),
        )
        .await;
    assert_eq!(status, 403);
    let msg = body["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("none of the scopes") && msg.contains("timeline:read"),
        "{msg}"
    );
    assert_eq!(body["error"]["data"]["kind"], "insufficient_scope");
    // the SSE door refuses it the same way
    m.session = None;
    let r = app
        .http
        .get(app.url("/mcp/sse"))
        .bearer_auth(&m.token)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let challenge = r.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.contains("insufficient_scope"), "{challenge}");
    // the challenge names scopes that would do
    let scope = challenge
        .split("scope=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(
        scope.split(' ').any(|s| s == "timeline:read"),
        "{challenge}"
    );
    // a token that is presented but wrong is an error
    let r = app
        .http
        .get(app.url("/mcp/sse"))
        .bearer_auth("ppat_not_a_token")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert!(
        r.headers()["www-authenticate"]
            .to_str()
            .unwrap()
            .contains("error=\"invalid_token\"")
    );
}

#[tokio::test]
async fn rebound_hosts_and_foreign_origins_are_refused() {
    let app = TestApp::start().await;
    let m = Mcp::new(&app, None).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}});
    let r = m
        .post()
        .header("origin", "https://evil.example")
        .json(&init)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["error"]["data"]["kind"], "origin_not_allowed");
    let r = m
        .post()
        .header("host", "evil.example")
        .json(&init)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = m
        .post()
        .header("origin", app.base.as_str())
        .json(&init)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the server's own origin is fine");
}

#[tokio::test]
async fn session_era_handshake_sessions_get_and_delete() {
    let app = TestApp::start().await;
    let mut m = Mcp::new(&app, None).await;
    // no session yet: only initialize is taken
    let (status, body) = m.rpc("tools/list", json!({})).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );

    let init = m.initialize("2025-03-26").await;
    assert_eq!(
        init["result"]["protocolVersion"], "2025-03-26",
        "the client's revision when served"
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "partner-platform");
    let (status, list) = m.rpc("tools/list", json!({})).await;
    assert_eq!(status, 200);
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(
        tools.iter().all(|t| t.get("outputSchema").is_none()),
        "2025-03-26 knows no outputSchema"
    );

    // an unknown revision gets our newest handshake revision
    let mut newer = Mcp::new(&app, None).await;
    let init = newer.initialize("2031-01-01").await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let (_, list) = newer.rpc("tools/list", json!({})).await;
    let lq = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "legacy_query")
        .unwrap()
        .clone();
    assert_eq!(lq["annotations"]["readOnlyHint"], true);
    assert!(lq["outputSchema"].is_object());
    assert!(lq["description"].as_str().unwrap().contains("sql:query"));

    // a notification is acknowledged with 202
    let r = m
        .post()
        .json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 202);

    // GET opens the session's event stream
    let r = app
        .http
        .get(app.url("/mcp"))
        .bearer_auth(&m.token)
        .header("accept", "text/event-stream")
        .header("mcp-session-id", m.session.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    drop(r);

    // another credential cannot use this session
    let other = Mcp {
        session: m.session.clone(),
        version: m.version,
        ..Mcp::new(&app, None).await
    };
    assert_eq!(other.rpc("tools/list", json!({})).await.0, 404);

    // an SSE-only client gets its answer as one event
    let r = m
        .post_accepting("text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 5, "method": "ping"}))
        .send()
        .await
        .unwrap();
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let text = r.text().await.unwrap();
    assert!(
        text.starts_with("event: message\ndata: {") && text.contains("\"id\":5"),
        "{text}"
    );

    // DELETE ends it; the id then answers 404
    let r = app
        .http
        .delete(app.url("/mcp"))
        .bearer_auth(&m.token)
        .header("mcp-session-id", m.session.as_deref().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (status, body) = m.rpc("tools/list", json!({})).await;
    assert_eq!(status, 404);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );
}

/// Sessions live in the state store: requests alternating between two gateways on one store
/// keep one session; once it is ended through one, the other answers 404 and the client
/// starts again.
#[tokio::test]
async fn a_session_works_on_every_gateway_of_the_store() {
    let app = TestApp::start().await;
    let mut m = Mcp::new(&app, None).await;
    m.initialize("2025-06-18").await;
    assert_eq!(m.rpc("tools/list", json!({})).await.0, 200);
    let mut m2 = Mcp {
        base: app.restarted_gateway().await,
        session: m.session.clone(),
        version: m.version,
        ..Mcp::with_token(&app, m.token.clone())
    };
    for _ in 0..3 {
        assert_eq!(
            m2.rpc("tools/list", json!({})).await.0,
            200,
            "on the other gateway"
        );
        assert_eq!(m.rpc("tools/list", json!({})).await.0, 200, "and back");
    }
    let ended = app
        .http
        .delete(app.url("/mcp"))
        .bearer_auth(&m.token)
        .header("mcp-session-id", m.session.clone().unwrap())
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 200);
    let (status, body) = m2.rpc("tools/list", json!({})).await;
    assert_eq!(status, 404, "{body}");
    m2.session = None;
    m2.initialize("2025-06-18").await;
    assert_eq!(
        m2.rpc("tools/list", json!({})).await.0,
        200,
        "the client re-initializes"
    );
}

#[tokio::test]
async fn the_2026_revision_is_stateless_and_checks_its_envelope() {
    let app = TestApp::start().await;
    let m = Mcp::new(&app, None).await;
    let send = |body: Value, version: &str, method: &str, name: Option<&str>| {
        let mut r = app
            .http
            .post(app.url("/mcp"))
            .bearer_auth(&m.token)
            .header("accept", ACCEPT)
            .header("mcp-protocol-version", version)
            .header("mcp-method", method);
        if let Some(n) = name {
            r = r.header("mcp-name", n);
        }
        r.json(&body).send()
    };
    let r = send(
        modern_body("server/discover", json!({})),
        "2026-07-28",
        "server/discover",
        None,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 200);
    assert!(
        r.headers().get("mcp-session-id").is_none(),
        "no sessions in 2026-07-28"
    );
    let d: Value = r.json().await.unwrap();
    assert_eq!(d["result"]["supportedVersions"], json!(["2026-07-28"]));
    assert_eq!(d["result"]["resultType"], "complete");
    assert_eq!(d["result"]["cacheScope"], "private");

    let call = modern_body(
        "tools/call",
        json!({"name": "legacy_query", "arguments": {"sql": "SELECT 1 AS one"}}),
    );
    let r = send(
        call.clone(),
        "2026-07-28",
        "tools/call",
        Some("legacy_query"),
    )
    .await
    .unwrap();
    let body: Value = r.json().await.unwrap();
    assert_eq!(
        body["result"]["structuredContent"]["rows"],
        json!([{"one": 1}])
    );
    assert_eq!(body["result"]["resultType"], "complete");
    assert_eq!(
        body["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "partner-platform"
    );

    // headers that disagree with the body
    let r = send(
        call.clone(),
        "2026-07-28",
        "tools/call",
        Some("timeline_list"),
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32020);
    let r = send(
        call.clone(),
        "2026-07-28",
        "tools/list",
        Some("legacy_query"),
    )
    .await
    .unwrap();
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32020);
    // a revision we do not serve names the ones we do
    let mut future = call.clone();
    future["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2027-01-01".into();
    let r = send(future, "2027-01-01", "tools/call", Some("legacy_query"))
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["error"]["code"], -32022);
    assert_eq!(e["error"]["data"]["supported"], json!(["2026-07-28"]));
    // the envelope is required
    let bare = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let r = send(bare, "2026-07-28", "tools/list", None).await.unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32602);
    // unknown methods are 404 with a JSON-RPC error
    let r = send(
        modern_body("prompts/list", json!({})),
        "2026-07-28",
        "prompts/list",
        None,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], -32601);
}

#[tokio::test]
async fn legacy_sse_names_its_endpoint_and_answers_down_the_stream() {
    let app = TestApp::start().await;
    let m = Mcp::new(&app, None).await;
    let mut stream = app
        .http
        .get(app.url("/mcp/sse"))
        .bearer_auth(&m.token)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    assert_eq!(stream.status(), 200);
    let first = String::from_utf8(stream.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    assert!(
        first.starts_with("event: endpoint\ndata: /mcp/sse?session_id="),
        "{first}"
    );
    let endpoint = first
        .lines()
        .nth(1)
        .unwrap()
        .trim_start_matches("data: ")
        .to_owned();
    let post = |body: Value, token: &str| {
        app.http
            .post(app.url(&endpoint))
            .bearer_auth(token)
            .json(&body)
            .send()
    };
    let r = post(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2024-11-05"}}), &m.token).await.unwrap();
    assert_eq!(r.status(), 202);
    let mut seen = String::new();
    while !seen.contains("\n\n") {
        seen.push_str(std::str::from_utf8(&stream.chunk().await.unwrap().unwrap()).unwrap());
    }
    assert!(seen.starts_with("event: message\ndata: "), "{seen}");
    let msg: Value =
        serde_json::from_str(seen.lines().nth(1).unwrap().trim_start_matches("data: ")).unwrap();
    assert_eq!(msg["result"]["protocolVersion"], "2024-11-05");
    // another credential cannot post into this session
    let other = app.token(&app.credential("acme", None).await).await;
    let r = post(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        &other,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
    // the session ends with its stream
    drop(stream);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let r = post(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        &m.token,
    )
    .await
    .unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn tool_scope_errors_are_tool_results_and_failures_carry_the_envelope() {
    let app = TestApp::start().await;
    let mut m = Mcp::new(&app, Some("timeline:read")).await;
    m.initialize("2025-11-25").await;
    let (result, text) = m.call("legacy_query", json!({"sql": "SELECT 1"})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text["error"], "insufficient_scope");
    assert_eq!(text["kind"], "insufficient_scope");
    assert_eq!(
        text["required_scopes"],
        json!([
            "account:read",
            "retail:read",
            "ads:read",
            "brand_analytics:read",
            "sql:query"
        ])
    );
    let (result, text) = m
        .call(
            "timeline_add_event",
            json!({"brand": "northwind", "kind": "comment", "note": "x"}),
        )
        .await;
    assert_eq!(result["isError"], true);
    assert_eq!(
        text["required_scopes"],
        json!(["timeline:read", "timeline:write"])
    );
    // nothing was written
    let (_, list) = m.call("timeline_list", json!({"kind": "comment"})).await;
    assert_eq!(list["events"], json!([]));
    // an unknown tool is a protocol error, answered as JSON-RPC (200)
    let (status, body) = m
        .rpc("tools/call", json!({"name": "nope", "arguments": {}}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["error"]["code"], -32602);

    let mut full = Mcp::new(&app, None).await;
    full.initialize("2025-11-25").await;
    let (result, text) = full
        .call("legacy_query", json!({"sql": "SELECT 1; SELECT 2"}))
        .await;
    assert_eq!(result["isError"], true);
    assert_eq!(text["ok"], false);
    assert_eq!(text["kind"], "multiple_statements");
    assert_eq!(text["source"], "request");
    let (_, text) = full
        .call("legacy_query", json!({"sql": "SELECT 1", "bogus": 1}))
        .await;
    assert!(text["message"].as_str().unwrap().contains("'bogus'"));
    let (_, text) = full
        .call("warehouse_describe_table", json!({"table": "brand"}))
        .await;
    assert_eq!(text["table"]["name"], "brand");
    let (_, text) = full.call("warehouse_list_tables", json!({})).await;
    assert!(text["tables"].as_array().unwrap().len() > 10);
}

#[tokio::test]
async fn large_results_are_capped_and_say_how_to_get_the_rest() {
    let app = TestApp::start().await;
    let mut m = Mcp::new(&app, None).await;
    m.initialize("2025-11-25").await;
    let sql = "SELECT * FROM spapi_sales_and_traffic_by_asin";
    let (_, text) = m.call("legacy_query", json!({"sql": sql})).await;
    assert_eq!(text["rowCount"], 100, "default cap");
    assert_eq!(text["truncated"], true);
    assert!(text["next"].as_str().unwrap().contains("OFFSET 100"));
    let (_, text) = m
        .call("legacy_query", json!({"sql": sql, "maxRows": 1000}))
        .await;
    assert!(text["rowCount"].as_u64().unwrap() <= 1000);
    assert!(serde_json::to_string(&text["rows"]).unwrap().len() <= 300 * 1024);
    let (result, text) = m
        .call("legacy_query", json!({"sql": sql, "maxRows": 5000}))
        .await;
    assert_eq!(result["isError"], true);
    assert!(text["message"].as_str().unwrap().contains("maxRows"));
    // timeline pages cap at 100 and hand back a cursor
    let (_, page) = m.call("timeline_list", json!({"limit": 2})).await;
    assert_eq!(page["events"].as_array().unwrap().len(), 2);
    let cursor = page["next_cursor"].as_str().unwrap();
    let (_, next) = m
        .call("timeline_list", json!({"limit": 2, "cursor": cursor}))
        .await;
    assert_ne!(next["events"][0]["id"], page["events"][0]["id"]);
    let (result, _) = m.call("timeline_list", json!({"limit": 101})).await;
    assert_eq!(result["isError"], true);
}

/// Strips what differs between two otherwise equal answers.
fn comparable(mut v: Value) -> Value {
    for k in [
        "ok",
        "at",
        "event_id",
        "id",
        "created_at",
        "changed_at",
        "surface",
        "source",
        "actor",
        "changed_by",
    ] {
        if let Some(o) = v.as_object_mut() {
            o.remove(k);
        }
    }
    v
}

#[tokio::test]
async fn the_lifecycle_tool_and_the_rest_route_agree_with_their_own_surface() {
    let app = TestApp::start().await;
    let c = app
        .credential("acme", Some("context:read context:write timeline:read"))
        .await;
    let token = app.token(&c).await;
    let mut m = Mcp::with_token(&app, token.clone());
    m.initialize("2025-11-25").await;
    let change = json!({"brand_slug": "northwind", "action": "retire", "reason_code": "client_left", "note": "contract ended"});
    let (result, via_mcp) = m.call("context_set_brand_lifecycle", change.clone()).await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"], via_mcp);
    let rest = |body: Value| {
        app.http
            .post(app.url("/api/context/lifecycle"))
            .bearer_auth(&token)
            .json(&body)
            .send()
    };
    // restore over REST, then retire over REST: the same change the tool made
    let r: Value = rest(json!({"brand_slug": "northwind", "action": "restore"}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["changed"], true);
    let via_rest: Value = rest(change.clone()).await.unwrap().json().await.unwrap();
    assert_eq!(comparable(via_mcp.clone()), comparable(via_rest.clone()));
    assert_eq!(via_mcp["state"], "retired");

    let events = |id: &Value| {
        let id = id.as_i64().unwrap();
        let m = &m;
        async move {
            let (_, list) = m
                .call(
                    "timeline_list",
                    json!({"kind": "structural.brand_retired", "limit": 100}),
                )
                .await;
            list["events"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["id"] == id)
                .cloned()
                .unwrap()
        }
    };
    let e_mcp = events(&via_mcp["event_id"]).await;
    let e_rest = events(&via_rest["event_id"]).await;
    assert_eq!(e_mcp["surface"], "mcp");
    assert_eq!(e_rest["surface"], "api");
    assert_eq!(e_mcp["payload"]["surface"], "mcp");
    assert_eq!(e_rest["payload"]["surface"], "api");
    assert_eq!(e_mcp["reason_code"], e_rest["reason_code"]);
    assert_eq!(e_mcp["note"], e_rest["note"]);
    assert_eq!(e_mcp["kind"], e_rest["kind"]);
    // the same refusal on both doors for a bad change
    let bad = json!({"brand_slug": "northwind", "action": "delete"});
    let (result, via_mcp) = m.call("context_set_brand_lifecycle", bad.clone()).await;
    assert_eq!(result["isError"], true);
    let via_rest: Value = rest(bad).await.unwrap().json().await.unwrap();
    assert_eq!(via_mcp["kind"], via_rest["kind"]);
    assert_eq!(via_mcp["message"], via_rest["message"]);
}

#[tokio::test]
async fn timeline_writes_through_mcp_record_mcp() {
    let app = TestApp::start().await;
    let c = app
        .credential("acme", Some("timeline:read timeline:write"))
        .await;
    let mut m = Mcp::with_token(&app, app.token(&c).await);
    m.initialize("2025-11-25").await;
    let (result, added) = m
        .call("timeline_add_event", json!({"brand": "northwind", "kind": "stake", "category": "price_test",
            "starts_on": "2026-11-01", "interpretation": "Price lowered 10% to test elasticity.", "actor": "someone-else"}))
        .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(added["event"]["source"], "mcp");
    assert_eq!(added["event"]["surface"], "mcp");
    assert!(
        added["event"]["actor"]
            .as_str()
            .unwrap()
            .starts_with("svc:")
    );
    let id = added["event"]["id"].clone();
    let (_, corroborated) = m
        .call(
            "timeline_corroborate",
            json!({"event_id": id, "note": "seen in sales"}),
        )
        .await;
    assert_eq!(corroborated["stake"]["status"], "corroborated");
    assert_eq!(corroborated["event"]["surface"], "mcp");
}

#[tokio::test]
async fn marketplace_tools_call_the_provider_like_their_rest_twins() {
    let app = TestApp::start_market().await;
    let token = app
        .token(
            &app.credential("acme", Some("account:read retail:read"))
                .await,
        )
        .await;
    let mut m = Mcp::with_token(&app, token.clone());
    m.initialize("2025-11-25").await;
    let (_, list) = m.rpc("tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let call_tool = tools
        .iter()
        .find(|t| t["name"] == "marketplace_spapi_call")
        .unwrap();
    assert_eq!(call_tool["annotations"]["openWorldHint"], true);
    assert!(
        call_tool["description"]
            .as_str()
            .unwrap()
            .contains("Scopes: retail:read")
    );
    // the merchants and one call, as over REST
    let (_, merchants) = m.call("marketplace_list_merchants", json!({})).await;
    let (_, rest) = app.get(&token, "/api/marketplace/merchants").await;
    assert_eq!(merchants, comparable(rest));
    let (_, ops) = m
        .call(
            "marketplace_spapi_operations",
            json!({"prefix": "promotions."}),
        )
        .await;
    assert_eq!(ops["operations"].as_array().unwrap().len(), 3, "{ops}");
    let body = json!({"operation": "sellers.get_marketplace_participations", "legacySellerId": 2});
    let (result, via_mcp) = m.call("marketplace_spapi_call", body.clone()).await;
    assert_eq!(result["isError"], false, "{result}");
    let via_rest: Value = app
        .http
        .post(app.url("/api/marketplace/spapi/call"))
        .bearer_auth(&token)
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(via_mcp, comparable(via_rest));
    assert_eq!(via_mcp["merchant"]["marketplace"], "CA");
    // the selector's refusal and the provider's are the /api envelope as a tool error
    let (result, text) = m
        .call(
            "marketplace_spapi_call",
            json!({"operation": "sellers.get_account", "sellerId": "A2DEMOSELLER01"}),
        )
        .await;
    assert_eq!(result["isError"], true);
    assert_eq!(text["kind"], "invalid_request");
    assert_eq!(text["candidates"].as_array().unwrap().len(), 2);
    // advertising needs ads:read: a tool result, not an HTTP refusal
    let (result, text) = m.call("marketplace_ads_profiles", json!({})).await;
    assert_eq!(result["isError"], true);
    assert_eq!(text["required_scopes"], json!(["ads:read"]));
}

#[tokio::test]
async fn report_and_pricing_tools_run_long_work_like_their_routes() {
    let mut o = crate::common::Options {
        pacing: false,
        sim_limits: false,
        ..Default::default()
    };
    o.jobs.pricing_spacing =
        pp_marketplace::pricing::Spacing(Some(std::time::Duration::from_millis(50)));
    let app = TestApp::start_market_options(o).await;
    let token = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let mut m = Mcp::with_token(&app, token.clone());
    m.initialize("2025-11-25").await;
    // a report made once: the same key answers the same id
    let report = json!({"legacySellerId": 1, "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
        "dataStartTime": "2026-10-01T00:00:00Z", "dataEndTime": "2026-10-31T00:00:00Z", "idempotencyKey": "mcp-1"});
    let (r, first) = m.call("marketplace_report_create", report.clone()).await;
    assert_eq!(r["isError"], false, "{r}");
    let (_, again) = m.call("marketplace_report_create", report).await;
    assert_eq!(again["reportId"], first["reportId"]);
    assert_eq!(again["reused"], true);
    let (_, status) = m
        .call(
            "marketplace_report_status",
            json!({"reportId": first["reportId"]}),
        )
        .await;
    assert!(status["status"].is_string(), "{status}");
    // a pricing run, polled, then read in pages
    let asins: Vec<String> = (0..45).map(|i| format!("B0MC{i:06}")).collect();
    let (r, run) = m
        .call(
            "marketplace_pricing_start",
            json!({"family": "competitive-summary", "legacySellerId": 1, "asins": asins}),
        )
        .await;
    assert_eq!(r["isError"], false, "{r}");
    let id = run["runId"].as_str().unwrap().to_owned();
    let started = std::time::Instant::now();
    loop {
        let (_, v) = m
            .call("marketplace_pricing_run", json!({"runId": id}))
            .await;
        if v["status"] == "succeeded" {
            break;
        }
        assert!(started.elapsed().as_secs() < 30, "stuck: {v}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (_, page) = m
        .call(
            "marketplace_pricing_result",
            json!({"runId": id, "limit": 40}),
        )
        .await;
    assert_eq!(page["items"].as_array().unwrap().len(), 40);
    assert_eq!(page["nextOffset"], 40);
    let (_, rest) = m
        .call(
            "marketplace_pricing_result",
            json!({"runId": id, "offset": 40}),
        )
        .await;
    assert_eq!(rest["items"].as_array().unwrap().len(), 5);
    assert!(rest["nextOffset"].is_null());
    assert_eq!(rest["items"][4]["asin"], "B0MC000044");
    let (r, e) = m
        .call("marketplace_pricing_cancel", json!({"runId": id}))
        .await;
    assert_eq!(
        (r["isError"].as_bool(), e["kind"].as_str()),
        (Some(true), Some("conflict")),
        "an ended run: {e}"
    );
}

/// In the session era an error is the request's JSON-RPC answer (200), so every client reads
/// its code; only transport failures are 4xx. A revision we serve is accepted in the header
/// even when it is not the session's; errors answer the request's id when it could be read.
#[tokio::test]
async fn session_era_errors_are_json_rpc_answers() {
    let app = TestApp::start().await;
    let mut m = Mcp::new(&app, None).await;
    m.initialize("2025-06-18").await;
    for method in ["prompts/list", "logging/setLevel", "resources/list"] {
        let (status, body) = m.rpc(method, json!({})).await;
        assert_eq!(status, 200, "{method}: {body}");
        assert_eq!(body["error"]["code"], -32601, "{method}");
        assert_eq!(body["id"], 1);
    }
    // another served revision in the header: accepted, the session's rules apply
    let with_version = |v: &str| {
        m.http
            .post(format!("{}/mcp", m.base))
            .bearer_auth(&m.token)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-session-id", m.session.clone().unwrap())
            .header("mcp-protocol-version", v)
    };
    let r = with_version("2025-03-26")
        .json(&json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.json::<Value>().await.unwrap()["result"]["tools"].is_array());
    // a revision we do not serve: refused, naming the request
    let r = with_version("1999-01-01")
        .json(&json!({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["id"], 6, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("1999-01-01")
    );
    // a message that is not valid JSON-RPC still answers its id when it has one
    let r = m
        .post()
        .json(&json!({"jsonrpc": "1.0", "id": 7, "method": "tools/list"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["id"], 7, "{body}");
    assert_eq!(body["error"]["code"], -32600);
}
