//! `/api/query`, `/api/tables`, `/api/table/{name}`: tenant isolation, read-only enforcement,
//! timeouts, caps and input validation.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::TestApp;

fn names(body: &Value, col: &str) -> Vec<String> {
    body["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[col].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn tenants_never_see_each_other() {
    let app = TestApp::start().await;
    let (a, b) = (app.token(&app.acme).await, app.token(&app.beta).await);
    let sql = json!({"sql": "SELECT MarketplaceSellerID FROM seller ORDER BY ID"});
    let (_, ra) = app.query(&a, sql.clone()).await;
    let (_, rb) = app.query(&b, sql).await;
    assert_eq!(
        names(&ra, "MarketplaceSellerID"),
        [
            "A2DEMOSELLER01",
            "A2DEMOSELLER01",
            "A1DEMOSELLERMX",
            "ENTITY2DEMOVENDOR"
        ]
    );
    assert_eq!(names(&rb, "MarketplaceSellerID"), ["ABETAONLY"]);
    // A's token cannot reach B's tables, by name or by file.
    let (status, body) = app
        .query(&a, json!({"sql": "SELECT * FROM beta_secret_table"}))
        .await;
    assert_eq!((status, body["kind"].as_str()), (400, Some("sql_error")));
    assert!(body["message"].as_str().unwrap().contains("no such table"));
    let (_, tables) = app.get(&a, "/api/tables").await;
    assert!(!tables.to_string().contains("beta_secret_table"));
    let (status, _) = app.get(&a, "/api/table/beta_secret_table").await;
    assert_eq!(status, 404);
    let (_, tables) = app.get(&b, "/api/tables").await;
    assert!(tables.to_string().contains("beta_secret_table"));
}

#[tokio::test]
async fn writes_attach_pragmas_extensions_and_batches_are_refused_and_change_nothing() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let file = app.warehouse_file("acme");
    let before = std::fs::read(&file).unwrap();
    let other = app.dir.path().join("other.sqlite");
    let vacuum_target = app.dir.path().join("copy.sqlite");
    let cases = [
        (
            "INSERT INTO seller VALUES (9, 'AX', 'X', 'seller', 'US', 'M', 'USD')",
            "read_only_violation",
        ),
        ("UPDATE seller SET Name = 'pwned'", "read_only_violation"),
        ("DELETE FROM spapi_settlement", "read_only_violation"),
        ("DROP TABLE seller", "read_only_violation"),
        ("CREATE TABLE t (x)", "read_only_violation"),
        (
            "CREATE TEMP TABLE t AS SELECT * FROM seller",
            "read_only_violation",
        ),
        ("CREATE INDEX i ON seller (Name)", "read_only_violation"),
        (
            &format!("ATTACH DATABASE '{}' AS o", other.display()),
            "read_only_violation",
        ),
        ("PRAGMA writable_schema=1", "read_only_violation"),
        ("PRAGMA query_only=0", "read_only_violation"),
        ("PRAGMA journal_mode=WAL", "read_only_violation"),
        ("SELECT load_extension('/tmp/evil')", "read_only_violation"),
        ("BEGIN IMMEDIATE", "read_only_violation"),
        (
            &format!("VACUUM INTO '{}'", vacuum_target.display()),
            "read_only_violation",
        ),
        ("SELECT 1; SELECT 2", "multiple_statements"),
        (
            "SELECT * FROM seller; DELETE FROM seller",
            "multiple_statements",
        ),
        (
            "WITH x AS (SELECT 1) DELETE FROM seller",
            "read_only_violation",
        ),
    ];
    for (sql, kind) in cases {
        let (status, body) = app.query(&token, json!({ "sql": sql })).await;
        assert_eq!(status, 400, "{sql}: {body}");
        assert_eq!(body["kind"], kind, "{sql}: {body}");
        assert_eq!(body["ok"], false);
        assert!(!body["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "warehouse bytes unchanged"
    );
    assert!(!other.exists(), "ATTACH created no file");
    assert!(!vacuum_target.exists(), "VACUUM INTO wrote no copy");
    for suffix in ["-journal", "-wal"] {
        assert!(
            !file
                .with_file_name(format!("warehouse.sqlite{suffix}"))
                .exists()
        );
    }
    // Reads still work on the same connections afterwards.
    let (status, body) = app
        .query(&token, json!({"sql": "SELECT count(*) AS n FROM seller"}))
        .await;
    assert_eq!((status, body["rows"][0]["n"].as_i64()), (200, Some(4)));
}

#[tokio::test]
async fn runaway_query_times_out_while_others_are_served() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let runaway = json!({
        "sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
        "queryTimeoutMs": 200
    });
    let started = Instant::now();
    let slow = {
        let (http, url, token) = (app.http.clone(), app.url("/api/query"), token.clone());
        tokio::spawn(async move {
            let res = http
                .post(url)
                .bearer_auth(token)
                .json(&runaway)
                .send()
                .await
                .unwrap();
            (
                res.status().as_u16(),
                res.json::<Value>().await.unwrap(),
                started.elapsed(),
            )
        })
    };
    tokio::time::sleep(Duration::from_millis(30)).await;
    // While the runaway query runs, other requests are answered.
    let (status, _) = app.get(&token, "/v1/me").await;
    let me_done = started.elapsed();
    assert_eq!(status, 200);
    let (status, body) = app.query(&token, json!({"sql": "SELECT 1 AS one"})).await;
    assert_eq!((status, body["rows"][0]["one"].as_i64()), (200, Some(1)));
    let (status, body, elapsed) = slow.await.unwrap();
    assert!(
        me_done < elapsed,
        "/v1/me answered before the runaway query stopped"
    );
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["kind"], "query_timeout");
    assert!(body["message"].as_str().unwrap().contains("200 ms"));
    // About twice the limit, with room for a busy two-core CI machine (typically ~210 ms).
    eprintln!("runaway query stopped after {elapsed:?}");
    assert!(
        elapsed < Duration::from_millis(800),
        "stopped after {elapsed:?}"
    );
}

#[tokio::test]
async fn bad_input_is_invalid_request() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let bodies = [
        "{not json",
        "[1, 2]",
        "{}",
        r#"{"sql": 42}"#,
        r#"{"sql": "   "}"#,
        r#"{"sql": "SELECT ?", "params": [[1]]}"#,
        r#"{"sql": "SELECT :a", "params": {"a": {"b": 1}}}"#,
        r#"{"sql": "SELECT ?", "params": "1"}"#,
        r#"{"sql": "SELECT ?, ?", "params": [1]}"#,
        r#"{"sql": "SELECT ?", "params": [1, 2]}"#,
        r#"{"sql": "SELECT ?"}"#,
        r#"{"sql": "SELECT :a", "params": {"b": 1}}"#,
        r#"{"sql": "SELECT :a", "params": {"a": 1, "zzz": 2}}"#,
        r#"{"sql": "SELECT 1", "queryTimeoutMs": "fast"}"#,
        r#"{"sql": "SELECT 1", "queryTimeoutMs": -5}"#,
        r#"{"sql": "SELECT 1", "queryTimeoutMs": 0}"#,
        r#"{"sql": "SELECT 1", "queryTimeoutMs": 99999999}"#,
    ];
    for raw in bodies {
        let (status, body) = app.query_raw(&token, raw).await;
        assert_eq!(status, 400, "{raw}: {body}");
        assert_eq!(body["kind"], "invalid_request", "{raw}: {body}");
        assert_eq!(body["source"], "request");
        assert_eq!(body["retryable"], false);
        assert!(body["friendly"].as_str().is_some());
    }
}

#[tokio::test]
async fn parameters_bind_positionally_and_by_name() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let (status, body) = app
        .query(&token, json!({"sql": "SELECT ID FROM seller WHERE MarketplaceSellerID = ? AND Marketplace = ?", "params": ["A2DEMOSELLER01", "CA"]}))
        .await;
    assert_eq!(
        (status, body["rows"].clone(), body["rowCount"].as_u64()),
        (200, json!([{"ID": 2}]), Some(1))
    );
    let (status, body) = app
        .query(&token, json!({"sql": "SELECT :n + 1 AS n, @s AS s, $b AS b, :z AS z", "params": {"n": 41, ":s": "x", "b": true, "z": null}}))
        .await;
    assert_eq!(
        (status, &body["rows"][0]),
        (200, &json!({"n": 42, "s": "x", "b": 1, "z": null}))
    );
    assert!(body["durationMs"].as_u64().is_some());
    assert_eq!(body["truncated"], false);
}

#[tokio::test]
async fn sql_errors_carry_the_engine_message() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let (status, body) = app.query(&token, json!({"sql": "SELEC 1"})).await;
    assert_eq!((status, body["kind"].as_str()), (400, Some("sql_error")));
    assert!(
        body["message"].as_str().unwrap().contains("syntax error"),
        "{body}"
    );
    let (status, body) = app
        .query(&token, json!({"sql": "SELECT nope FROM seller"}))
        .await;
    assert_eq!((status, body["kind"].as_str()), (400, Some("sql_error")));
    assert!(
        body["message"].as_str().unwrap().contains("no such column"),
        "{body}"
    );
}

#[tokio::test]
async fn result_caps_are_stated_not_silent() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let (status, body) = app
        .query(&token, json!({"sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 25000) SELECT x FROM c"}))
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["truncated"], true);
    assert_eq!(body["rowCount"], 10_000);
    assert_eq!(
        body["truncation"],
        json!({"reason": "max_rows", "limit": 10_000})
    );
    assert_eq!(body["rows"].as_array().unwrap().len(), 10_000);
}

#[tokio::test]
async fn tables_and_describe_show_the_spec_indexes() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let (status, body) = app.get(&token, "/api/tables").await;
    assert_eq!(status, 200);
    let tables: Vec<&str> = body["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        tables.contains(&"seller") && tables.contains(&"spapi_settlement"),
        "{tables:?}"
    );
    let (status, body) = app.get(&token, "/api/table/spapi_settlement").await;
    assert_eq!(status, 200);
    let idx = &body["table"]["indexes"];
    let find = |n: &str| {
        idx.as_array()
            .unwrap()
            .iter()
            .find(|i| i["name"] == n)
            .cloned()
            .unwrap()
    };
    assert_eq!(
        find("MIX_MAX_Record_IDX")["columns"],
        json!(["SellerID", "Posted-date-time"])
    );
    assert_eq!(
        find("Delete_Settlement_IDX")["columns"],
        json!(["MarketplaceSellerID", "Settlement-id"])
    );
    let cols = body["table"]["columns"].as_array().unwrap();
    assert!(
        cols.iter()
            .any(|c| c["name"] == "SellerID" && c["type"] == "INT")
    );
    assert!(
        cols.iter()
            .any(|c| c["name"] == "MarketplaceSellerID" && c["type"] == "VARCHAR(32)")
    );
    let (status, body) = app.get(&token, "/api/table/no_such_table").await;
    assert_eq!((status, body["kind"].as_str()), (404, Some("not_found")));
}

#[tokio::test]
async fn oversized_bodies_are_too_large() {
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    for size in [1_100_000, 3_000_000] {
        let sql = format!("SELECT '{}'", "x".repeat(size));
        let (status, body) = app.query(&token, json!({ "sql": sql })).await;
        assert_eq!(
            (status, body["kind"].as_str()),
            (400, Some("too_large")),
            "{size}"
        );
    }
}

/// The body takes `maxRows` (as the tool does) and refuses any field it does not take.
#[tokio::test]
async fn max_rows_narrows_and_unknown_fields_are_refused() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    let (s, r) = app
        .query(
            &t,
            json!({"sql": "SELECT ID FROM seller ORDER BY ID", "maxRows": 2}),
        )
        .await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(
        (r["rowCount"].as_u64(), r["truncated"].as_bool()),
        (Some(2), Some(true))
    );
    assert_eq!(r["truncation"]["reason"], "max_rows");
    let (s, r) = app
        .query(&t, json!({"sql": "SELECT 1", "maxRows": 10_001}))
        .await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("invalid_request")),
        "{r}"
    );
    let (s, r) = app.query(&t, json!({"sql": "SELECT 1", "sqll": "x"})).await;
    assert_eq!(
        (s, r["kind"].as_str()),
        (400, Some("invalid_request")),
        "{r}"
    );
    assert!(
        r["message"]
            .as_str()
            .unwrap()
            .starts_with("'sqll' is not a field"),
        "{r}"
    );
}

#[tokio::test]
async fn a_changed_tenant_row_reaches_the_next_query() {
    // The gateway remembers which warehouse serves a tenant; a change to the tenant's row
    // (made in the store, as another instance or the operator would) holds once it settled.
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let sql = json!({"sql": "SELECT MarketplaceSellerID FROM seller ORDER BY ID LIMIT 1"});
    let (_, before) = app.query(&token, sql.clone()).await;
    assert_eq!(names(&before, "MarketplaceSellerID"), ["A2DEMOSELLER01"]);
    let beta = app
        .store
        .tenants()
        .get(&pp_core::TenantId::parse("beta").unwrap())
        .await
        .unwrap()
        .unwrap();
    app.store
        .db()
        .exec(
            "UPDATE tenants SET warehouse = ?1 WHERE id = 'acme'",
            vec![beta.warehouse.as_str().into()],
        )
        .await
        .unwrap();
    app.auth_changed().await;
    let (status, after) = app.query(&token, sql).await;
    assert_eq!(status, 200, "{after}");
    assert_eq!(names(&after, "MarketplaceSellerID"), ["ABETAONLY"]);
}

#[tokio::test]
async fn statements_too_long_for_a_quick_run_are_answered_in_full() {
    // A statement is first tried on the worker that received it for at most a millisecond;
    // one that runs longer, or calls a function that may take long, runs on the blocking
    // pool instead, with the same answer, the first time and every time after.
    let app = TestApp::start().await;
    let token = app.token(&app.acme).await;
    let long = json!({
        "sql": "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT count(*) AS n, sum(x) AS s FROM c"
    });
    let with_function = json!({
        "sql": "SELECT instr(MarketplaceSellerID, 'BETA') AS at, MarketplaceSellerID FROM seller WHERE ID = ?",
        "params": [1]
    });
    for _ in 0..3 {
        let (status, body) = app.query(&token, long.clone()).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["rows"][0]["n"].as_i64(), Some(300_000));
        assert_eq!(body["rows"][0]["s"].as_i64(), Some(45_000_150_000));
        let (status, body) = app.query(&token, with_function.clone()).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["rows"][0]["at"].as_i64(), Some(0));
        assert_eq!(body["rows"][0]["MarketplaceSellerID"], "A2DEMOSELLER01");
    }
}
