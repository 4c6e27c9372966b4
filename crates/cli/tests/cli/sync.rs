//! Warehouse sync through the real binary (issue 54): a tenant created by `admin tenant create`
//! without a warehouse is managed, and its selling account connected by `admin connection
//! add` starts syncing by itself. Two gateway processes share one PostgreSQL state; one is
//! killed with SIGKILL in the middle of the backfill and started again. The sync still ends
//! with every row once, every slice's report created once at the provider, and the days the
//! world holds.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::process::{Server, get_json, token};
use crate::provider::Provider;
use crate::scratch_db::ScratchDb;

/// A gateway process on the shared state: no pacing, a short job lease, two workers.
fn gateway(p: &Provider, d: &Path) -> Server {
    p.gateway(
        d,
        &[
            "--upstream-timeout-ms",
            "3000",
            "--upstream-pacing",
            "false",
            "--job-lease-ms",
            "3000",
            "--job-workers",
            "2",
            "--sync-poll-ms",
            "100",
        ],
    )
}

async fn status(base: &str, token: &str) -> Value {
    let (s, b) = get_json(base, token, "/api/warehouse/sync").await;
    assert_eq!(s, 200, "{b}");
    b
}

/// The natural key of each table the selling-side datasets fill.
const KEYS: [(&str, &str); 7] = [
    ("spapi_sales_and_traffic_by_date", "SellerID, Date"),
    (
        "spapi_sales_and_traffic_by_asin",
        "SellerID, Date, ChildASIN",
    ),
    ("spapi_fba_inventory", "SellerID, Date, SKU"),
    ("catalog_item", "SellerID, ASIN"),
    (
        "spapi_brand_analytics_sqp",
        "SellerID, WeekStart, SearchQuery",
    ),
    (
        "spapi_finance_transaction",
        "SellerID, Date, `Transaction-id`, `Amount-type`, `Amount-description`",
    ),
    (
        "spapi_fba_returns",
        "SellerID, Date, `Order-id`, SKU, `Detailed-disposition`",
    ),
];

fn count(c: &rusqlite::Connection, sql: &str) -> i64 {
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_sync_killed_mid_backfill_ends_with_every_row_and_every_report_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let Some(db) = ScratchDb::create("pp_sync_kill").await else {
        return;
    };
    let p = Provider::start(
        d,
        &["--no-rate-limits", "--report-ms", "0"],
        &["--state-url", &db.url],
        None,
    );
    // a managed tenant: no warehouse named
    let made: Value =
        serde_json::from_slice(&p.admin(d, &["tenant", "create", "omega", "--json"])).unwrap();
    let file = made["warehouse"]
        .as_str()
        .unwrap()
        .trim_start_matches("sqlite:");
    let cred: Value = serde_json::from_slice(&p.admin(
        d,
        &[
            "credential",
            "create",
            "--tenant",
            "omega",
            "--scopes",
            "account:read,sync:write",
            "--json",
        ],
    ))
    .unwrap();
    let merchant = &p.creds["merchants"][0];
    let (m, refresh) = (
        merchant["merchant"].as_str().unwrap(),
        merchant["refresh_token"].as_str().unwrap(),
    );
    // the provider takes a moment over each document, so the backfill is still going when A
    // is killed
    p.faults(json!({"rules": [{"op": "reports.getReportDocument", "effect": "latency", "latency_ms": 100}]}))
        .await;
    let (a, b) = (gateway(&p, d), gateway(&p, d));
    // the connection is added outside the servers: they take it in by themselves
    p.admin(
        d,
        &[
            "connection",
            "add",
            "--tenant",
            "omega",
            "--merchant",
            m,
            "--refresh-token",
            refresh,
            "--secret-key",
            &p.key,
        ],
    );
    let (s, t) = token(
        &a.base,
        cred["client_id"].as_str().unwrap(),
        cred["client_secret"].as_str().unwrap(),
    )
    .await;
    assert_eq!(s, 200, "{t}");
    let t = t["access_token"].as_str().unwrap().to_owned();

    // A is killed once the backfill is loading
    let began = Instant::now();
    loop {
        let s = status(&a.base, &t).await;
        let loading = s["datasets"].as_array().unwrap().iter().any(|r| {
            r["dataset"] == "sales_and_traffic"
                && r["state"] == "backfilling"
                && r["coveredFrom"].is_string()
        });
        if loading {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(120),
            "never started: {s:#}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    a.kill_hard();
    let a = gateway(&p, d);

    // both finish it: the US and Canadian merchants' catalog, sales and traffic, inventory,
    // returns, settlements, finance transactions and search query performance
    let began = Instant::now();
    let done = loop {
        let s = status(&b.base, &t).await;
        let rows = s["datasets"].as_array().unwrap();
        if rows.len() == 14 && rows.iter().all(|r| r["state"] == "synced") {
            break s;
        }
        assert!(
            began.elapsed() < Duration::from_secs(420),
            "not synced: {s:#}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    for r in done["datasets"].as_array().unwrap() {
        assert!(r["lastError"].is_null(), "{r}");
    }

    // every row once, and as many as the world holds over the two years read
    let synced = rusqlite::Connection::open(file).unwrap();
    for (table, key) in KEYS {
        let dup = count(
            &synced,
            &format!(
                "SELECT COUNT(*) FROM (SELECT 1 FROM {table} GROUP BY {key} HAVING COUNT(*) > 1)"
            ),
        );
        assert_eq!(dup, 0, "{table} holds a row twice");
    }
    // the gateway is configured as for the real provider and takes its today from the
    // sandbox's world (issue 70), so it reads through the world's yesterday
    let through: chrono::NaiveDate = done["datasets"][0]["dataThrough"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let today = through.succ_opt().unwrap();
    let world = rusqlite::Connection::open_with_flags(
        d.join("w/warehouse.sqlite"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .unwrap();
    let span = format!(
        "Date BETWEEN '{}' AND '{through}'",
        today - chrono::Days::new(730)
    );
    for table in [
        "spapi_sales_and_traffic_by_date",
        "spapi_sales_and_traffic_by_asin",
    ] {
        let want = count(
            &world,
            &format!("SELECT COUNT(*) FROM {table} WHERE SellerID IN (1, 2) AND {span}"),
        );
        assert!(want > 0);
        assert_eq!(
            count(&synced, &format!("SELECT COUNT(*) FROM {table}")),
            want,
            "{table}"
        );
    }

    // every report the provider made was asked for once: one create per slice key
    let pool = sqlx::PgPool::connect(&db.url).await.unwrap();
    let (keys, rows): (i64, i64) = sqlx::query_as(
        "SELECT COUNT(DISTINCT idempotency_key), COUNT(*) FROM report_ledger WHERE tenant_id = 'omega'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    // and no slice was asked for twice under another key (a run planned again after the kill)
    let (again,): (i64,) = sqlx::query_as(
        "SELECT COUNT(*) FROM (SELECT 1 FROM report_ledger WHERE tenant_id = 'omega'
         GROUP BY account, family, request_hash HAVING COUNT(*) > 1) twice",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    pool.close().await;
    assert_eq!(again, 0, "a slice's report was created twice");
    assert_eq!(keys, rows, "one ledger row per slice key");
    assert_eq!(
        p.calls("reports.createReport").await,
        keys as u64,
        "the provider made one report per slice"
    );

    // issue 70, finding 1: a second merchant connected by the command line while both
    // gateways run, with the first one's connections in their memory, is taken in and
    // synced without a restart (the new connection moves the auth epoch on PostgreSQL too)
    let mx = p.creds["merchants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["merchant"] == "A1DEMOSELLERMX")
        .unwrap();
    p.admin(
        d,
        &[
            "connection",
            "add",
            "--tenant",
            "omega",
            "--merchant",
            mx["merchant"].as_str().unwrap(),
            "--refresh-token",
            mx["refresh_token"].as_str().unwrap(),
            "--secret-key",
            &p.key,
        ],
    );
    let began = Instant::now();
    loop {
        let s = status(&b.base, &t).await;
        let synced = s["datasets"].as_array().unwrap().iter().any(|r| {
            r["merchant"]["sellerId"] == "A1DEMOSELLERMX"
                && r["dataset"] == "sales_and_traffic"
                && r["state"] == "synced"
        });
        if synced {
            break;
        }
        assert!(
            began.elapsed() < Duration::from_secs(300),
            "the Mexican merchant is not synced: {s:#}"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    a.stop();
    b.stop();
}
