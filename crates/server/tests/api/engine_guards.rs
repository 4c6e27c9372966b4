//! Hostile SQL against warehouses on PostgreSQL and MariaDB: writes in every disguise,
//! batches, files, session tricks and runaway queries, through the administrator's login (so
//! the engine's own read-only guard is what holds), then other schemas and databases through
//! the SELECT-only login the deployment guide asks for. Nothing changes, and a stopped query
//! is gone from the server.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::engines::{Engines, small_world_everywhere};
use crate::scratch_db::admin_exec;

/// What the warehouse holds: every table with its row count, read as the administrator.
async fn fingerprint(url: &str) -> Vec<(String, i64)> {
    use sqlx::Connection;
    let mut out = Vec::new();
    if url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(url).await.unwrap();
        let names: Vec<String> = sqlx::query_scalar(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
        )
        .fetch_all(&mut c)
        .await
        .unwrap();
        for n in names {
            let q = format!("SELECT COUNT(*) FROM \"{n}\"");
            out.push((n, sqlx::query_scalar(&q).fetch_one(&mut c).await.unwrap()));
        }
    } else {
        let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
        let names: Vec<String> = sqlx::query_scalar(
            "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY 1",
        )
        .fetch_all(&mut c)
        .await
        .unwrap();
        for n in names {
            let q = format!("SELECT COUNT(*) FROM `{n}`");
            out.push((n, sqlx::query_scalar(&q).fetch_one(&mut c).await.unwrap()));
        }
    }
    out
}

/// Statements still running on the server whose text holds `marker`.
async fn still_running(url: &str, marker: &str) -> i64 {
    use sqlx::Connection;
    if url.starts_with("postgres") {
        let mut c = sqlx::PgConnection::connect(url).await.unwrap();
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()",
        )
        .bind(marker)
        .fetch_one(&mut c)
        .await
        .unwrap()
    } else {
        let mut c = sqlx::MySqlConnection::connect(url).await.unwrap();
        sqlx::query_scalar(
            "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND = 'Query' AND INFO LIKE CONCAT('%', ?, '%') AND ID <> CONNECTION_ID()",
        )
        .bind(marker)
        .fetch_one(&mut c)
        .await
        .unwrap()
    }
}

async fn refused(e: &Engines, token: &str, tenant: &str, sql: &str, kinds: &[&str]) {
    let (status, body) = e.app.query(token, json!({ "sql": sql })).await;
    assert_eq!(status, 400, "{tenant}: {sql}: {body}");
    let kind = body["kind"].as_str().unwrap_or_default();
    assert!(kinds.contains(&kind), "{tenant}: {sql}: {body}");
    assert!(!body["message"].as_str().unwrap_or_default().is_empty());
}

const WRITES: &[&str] = &[
    "INSERT INTO seller VALUES (9, 'AX', 'X', 'seller', 'US', 'M', 'USD')",
    "UPDATE seller SET Name = 'pwned'",
    "DELETE FROM spapi_settlement",
    "DROP TABLE seller",
    "TRUNCATE seller",
    "CREATE TABLE t (x INT)",
    "CREATE TEMPORARY TABLE t AS SELECT * FROM seller",
    "CREATE INDEX i ON seller (Name)",
    "ALTER TABLE seller ADD COLUMN x INT",
    "GRANT ALL ON seller TO PUBLIC",
    "WITH x AS (SELECT 1) DELETE FROM seller",
    "  /* hello */ DELETE FROM seller",
];

#[tokio::test]
async fn hostile_sql_changes_nothing_on_postgres_and_mariadb() {
    let Some(e) = small_world_everywhere().await else {
        return;
    };
    let pid = std::process::id();
    let (pg_out, my_out) = (
        format!("/tmp/pp_copy_{pid}"),
        format!("/tmp/pp_outfile_{pid}"),
    );
    let pg_only = [
        format!("COPY seller TO '{pg_out}'"),
        "SELECT lo_import('/etc/hostname')".into(),
        "WITH d AS (DELETE FROM seller RETURNING *) SELECT * FROM d".into(),
        "DO $$ BEGIN DELETE FROM seller; END $$".into(),
        "EXPLAIN ANALYZE DELETE FROM seller".into(),
        "SELECT 1; DELETE FROM seller".into(),
        "SELECT $$;$$; DROP TABLE seller".into(),
        "VACUUM seller".into(),
    ];
    let my_only = [
        format!("SELECT * FROM seller INTO OUTFILE '{my_out}'"),
        "SELECT 1 INTO @x".into(),
        "SELECT 1 /*! ; DROP TABLE seller */".into(),
        "SELECT 1 /*!99999 , 2 */".into(),
        "SET @x = 1".into(),
        "SET SESSION TRANSACTION READ WRITE".into(),
        "LOAD DATA INFILE '/etc/hostname' INTO TABLE seller".into(),
        "HANDLER seller OPEN".into(),
        "DO SLEEP(0)".into(),
        "SELECT 1; DELETE FROM seller".into(),
        "SELECT 'a\\';b'; DROP TABLE seller".into(),
    ];
    for (tenant, token, url, extra) in [
        ("onpg", &e.tenants[1].1, &e.pg.url, &pg_only[..]),
        ("onmaria", &e.tenants[2].1, &e.my.url, &my_only[..]),
    ] {
        let before = fingerprint(url).await;
        for sql in WRITES {
            refused(&e, token, tenant, sql, &["read_only_violation"]).await;
        }
        for sql in extra {
            refused(
                &e,
                token,
                tenant,
                sql,
                &["read_only_violation", "multiple_statements", "sql_error"],
            )
            .await;
        }
        // A session setting changed by one query does not outlive it.
        let (_, _) = e
            .app
            .query(
                token,
                json!({"sql": "SELECT set_config('default_transaction_read_only', 'off', false) AS s"}),
            )
            .await;
        refused(&e, token, tenant, WRITES[1], &["read_only_violation"]).await;
        // Runaway queries stop at their deadline and are gone from the server.
        for (sql, marker) in [
            (
                "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) AS pp_runaway FROM r",
                "pp_runaway",
            ),
            (
                "SELECT COUNT(*) AS pp_crossjoin FROM spapi_sales_and_traffic_by_asin a, spapi_sales_and_traffic_by_asin b",
                "pp_crossjoin",
            ),
        ] {
            let started = Instant::now();
            let (status, body) = e
                .app
                .query(token, json!({"sql": sql, "queryTimeoutMs": 1500}))
                .await;
            // MariaDB bounds recursion itself (max_recursive_iterations); anything else must
            // stop at the deadline.
            let bounded = tenant == "onmaria" && marker == "pp_runaway" && status == 200;
            assert!(
                bounded || (status, body["kind"].as_str()) == (400, Some("query_timeout")),
                "{tenant}: {body}"
            );
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "{tenant}: {:?}",
                started.elapsed()
            );
            let mut left = 1;
            for _ in 0..40 {
                left = still_running(url, marker).await;
                if left == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            assert_eq!(left, 0, "{tenant}: {marker} still runs on the server");
        }
        assert_eq!(
            fingerprint(url).await,
            before,
            "{tenant}: the warehouse changed"
        );
        // Reads still work on the same sessions.
        let (status, body) = e
            .app
            .query(token, json!({"sql": "SELECT COUNT(*) AS n FROM seller"}))
            .await;
        assert_eq!(
            (status, body["rows"][0]["n"].as_i64()),
            (200, Some(4)),
            "{tenant}: {body}"
        );
    }
    assert!(
        !std::path::Path::new(&pg_out).exists(),
        "COPY wrote no file"
    );
    assert!(
        !std::path::Path::new(&my_out).exists(),
        "INTO OUTFILE wrote no file"
    );
}

#[tokio::test]
async fn a_select_only_login_reaches_no_other_schema_or_database() {
    let Some(e) = small_world_everywhere().await else {
        return;
    };
    let n = std::process::id();
    let reader = format!("pp_reader_{n}");
    // PostgreSQL: a login that may connect to the warehouse and read its tables, nothing more.
    let pg_db = e.pg.name().to_owned();
    for sql in [
        format!("DROP ROLE IF EXISTS {reader}"),
        format!("CREATE ROLE {reader} LOGIN"),
        format!("GRANT CONNECT ON DATABASE {pg_db} TO {reader}"),
    ] {
        admin_exec(false, &sql).await.unwrap();
    }
    {
        // another schema of the same database, with a table the reader is not given
        use sqlx::{Connection, Executor};
        let mut c = sqlx::PgConnection::connect(&e.pg.url).await.unwrap();
        for sql in [
            format!("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {reader}"),
            "CREATE SCHEMA pp_other".into(),
            "CREATE TABLE pp_other.secret AS SELECT 42 AS x".into(),
        ] {
            c.execute(sql.as_str()).await.unwrap();
        }
    }
    // MariaDB: the same, from any host the test may connect from.
    let my_db = e.my.name().to_owned();
    // another database on the same server, with a table
    let other = format!("{my_db}_other");
    admin_exec(true, &format!("CREATE DATABASE {other}"))
        .await
        .unwrap();
    admin_exec(
        true,
        &format!("CREATE TABLE {other}.secret AS SELECT 42 AS x"),
    )
    .await
    .unwrap();
    for host in ["%", "localhost", "127.0.0.1"] {
        let _ = admin_exec(true, &format!("DROP USER IF EXISTS '{reader}'@'{host}'")).await;
        admin_exec(true, &format!("CREATE USER '{reader}'@'{host}'"))
            .await
            .unwrap();
        admin_exec(
            true,
            &format!("GRANT SELECT ON {my_db}.* TO '{reader}'@'{host}'"),
        )
        .await
        .unwrap();
    }
    let pg_url = format!("postgres://{reader}@127.0.0.1:5432/{pg_db}");
    let my_url = format!("mariadb://{reader}@127.0.0.1:3306/{my_db}");
    let mut checked = Vec::new();
    // Each case, and whether the administrator's login (the onpg and onmaria tenants) reads
    // it: where it does, the reader's refusal is the login's doing, not a missing table.
    let insert = "INSERT INTO seller VALUES (9, 'AX', 'X', 'seller', 'US', 'M', 'USD')";
    for (id, admin, url, cases) in [
        (
            "pgreader",
            &e.tenants[1].1,
            pg_url,
            vec![
                (
                    "SELECT rolname, rolpassword FROM pg_authid".to_owned(),
                    true,
                ),
                ("SELECT x FROM pp_other.secret".into(), true),
                ("SELECT pg_read_file('/etc/hostname') AS f".into(), true),
                (insert.into(), false),
            ],
        ),
        (
            "myreader",
            &e.tenants[2].1,
            my_url,
            vec![
                ("SELECT User, Password FROM mysql.user".to_owned(), true),
                (format!("SELECT x FROM {other}.secret"), true),
                ("SELECT LOAD_FILE('/etc/hostname') AS f".into(), false),
                (insert.into(), false),
            ],
        ),
    ] {
        let tid = pp_core::TenantId::parse(id).unwrap();
        e.app.store.tenants().create(&tid, id, &url).await.unwrap();
        let token = e.app.token(&e.app.credential(id, None).await).await;
        let (status, body) = e
            .app
            .query(&token, json!({"sql": "SELECT COUNT(*) AS n FROM seller"}))
            .await;
        assert_eq!(
            (status, body["rows"][0]["n"].as_i64()),
            (200, Some(4)),
            "{id}: {body}"
        );
        for (sql, admin_reads) in &cases {
            if *admin_reads {
                let (status, body) = e.app.query(admin, json!({ "sql": sql })).await;
                assert_eq!(status, 200, "the administrator reads {sql}: {body}");
                assert!(body["rowCount"].as_u64().unwrap() > 0, "{sql}: {body}");
            }
            let (status, body) = e.app.query(&token, json!({ "sql": sql })).await;
            // LOAD_FILE without the FILE privilege answers NULL rather than an error.
            let nothing_read = status == 200
                && body["rows"][0]
                    .as_object()
                    .is_some_and(|r| r.values().all(Value::is_null));
            assert!(
                status == 400
                    && ["sql_error", "read_only_violation"]
                        .contains(&body["kind"].as_str().unwrap_or_default())
                    || nothing_read,
                "{id}: {sql}: {status} {body}"
            );
            checked.push(sql.clone());
        }
    }
    assert_eq!(checked.len(), 8);
    for host in ["%", "localhost", "127.0.0.1"] {
        let _ = admin_exec(true, &format!("DROP USER IF EXISTS '{reader}'@'{host}'")).await;
    }
    let _ = admin_exec(true, &format!("DROP DATABASE IF EXISTS {other}")).await;
    drop(e.pg);
    let _ = admin_exec(false, &format!("DROP ROLE IF EXISTS {reader}")).await;
}

/// Issue 52, finding 7: a failure inside the gateway reaches the client as `unknown` with the
/// request id, never in the database's words. Reproduced on the old main: a tenant whose
/// warehouse has no `seller` table got `400 sql_error` "no such table: seller" from the
/// merchants call (and the console's connect page showed the same words).
#[tokio::test]
async fn a_warehouse_lacking_a_table_the_gateway_reads_is_not_told_in_its_words() {
    let app = crate::common::TestApp::start().await;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("empty.sqlite");
    std::fs::File::create(&file).unwrap();
    let tid = pp_core::TenantId::parse("hollow").unwrap();
    app.store
        .tenants()
        .create(&tid, "Hollow", &format!("sqlite:{}", file.display()))
        .await
        .unwrap();
    let c = app.credential("hollow", Some("retail:read")).await;
    let t = app.token(&c).await;
    let r = app
        .http
        .get(app.url("/api/marketplace/merchants"))
        .bearer_auth(&t)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let id = r.headers()["x-request-id"].to_str().unwrap().to_owned();
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(
        (status, body["kind"].as_str()),
        (500, Some("unknown")),
        "{body}"
    );
    assert!(!body.to_string().contains("no such table"), "{body}");
    assert!(!body.to_string().contains("seller"), "{body}");
    // the request id the answer carries is what the log line with the cause is found by
    assert!(id.starts_with("req_"), "{id}");
}
