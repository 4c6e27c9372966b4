//! The small world on all three warehouse engines (the SQLite file, PostgreSQL and MariaDB),
//! each a tenant of one gateway: every `/v1` endpoint answers the same JSON on all three,
//! page by page.

use serde_json::Value;

use crate::common::TestApp;
use crate::scratch_db::ScratchDb;

/// The tenants whose warehouses hold the same small world, and the databases behind them.
pub struct Engines {
    pub app: TestApp,
    /// Tenant ids, with a token each: SQLite, PostgreSQL, MariaDB.
    pub tenants: Vec<(&'static str, String)>,
    pub pg: ScratchDb,
    pub my: ScratchDb,
}

/// The small world loaded three times, one tenant per engine; none when a server is missing
/// outside CI.
pub async fn small_world_everywhere() -> Option<Engines> {
    let app = TestApp::start().await;
    let pg = ScratchDb::create("pp_wh_pg").await?;
    let my = ScratchDb::create_mysql("pp_wh_my").await?;
    let spec = pp_world::WorldSpec::new(
        1,
        pp_world::Scale::Small,
        chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap(),
    );
    let dir = app.dir.path().join("small");
    let world_dir = dir.clone();
    let (pg_url, my_url) = (pg.url.clone(), my.url.clone());
    let file = tokio::task::spawn_blocking(move || {
        pp_world::generate_server(&spec, &pg_url).unwrap();
        pp_world::generate_server(&spec, &my_url).unwrap();
        pp_world::generate_sqlite(&spec, &dir).unwrap().warehouse
    })
    .await
    .unwrap();
    let mut tenants = Vec::new();
    for (id, locator) in [
        ("onsqlite", format!("sqlite:{}", file.display())),
        ("onpg", pg.url.clone()),
        ("onmaria", my.url.replacen("mysql://", "mariadb://", 1)),
    ] {
        let tid = pp_core::TenantId::parse(id).unwrap();
        app.store
            .tenants()
            .create(&tid, id, &locator)
            .await
            .unwrap();
        // the world's costs and rates, as the dev tenant has them (`/v1/profit`)
        pp_profit::seed::from_world(&app.store, &tid, &world_dir)
            .await
            .unwrap();
        let token = app.token(&app.credential(id, None).await).await;
        tenants.push((id, token));
    }
    Some(Engines {
        app,
        tenants,
        pg,
        my,
    })
}

/// `body` with the tenant's own account-id prefix made neutral and the cursor (signed for the
/// tenant's own query) taken out; the cursor comes back beside it.
fn neutral(body: &Value, tenant: &str) -> (String, Option<String>) {
    let mut body = body.clone();
    let cursor = body
        .get("next_cursor")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if cursor.is_some() {
        body["next_cursor"] = "<more>".into();
    }
    let text = body.to_string().replace(&format!("\"{tenant}:"), "\"T:");
    (text, cursor)
}

/// Every `/v1` read, `{a}` standing for an account id of the tenant (`{a}1` is the US
/// seller, `{a}4` the vendor), and `{asin}` for an ASIN of the US seller.
const PATHS: &[&str] = &[
    "/v1/accounts",
    "/v1/ads/account-summary?account_id={a}1",
    "/v1/ads/account-summary?account_id={a}2&start_date=2025-01-01&end_date=2025-12-31",
    "/v1/ads/account-pacing?account_id={a}1",
    "/v1/ads/account-pacing?account_id={a}1&month=2026-02",
    "/v1/ads/campaign-performance?account_id={a}1&limit=7",
    "/v1/ads/campaign-performance?account_id={a}1&ad_product=SPONSORED_BRANDS&start_date=2026-01-01",
    "/v1/ads/search-terms?account_id={a}1&limit=9",
    "/v1/ads/asin-performance?account_id={a}1&limit=4",
    "/v1/ads/account-summary?account_id={a}4",
    "/v1/retail/sales?account_id={a}1",
    "/v1/retail/sales?account_id={a}1&asin={asin}&start_date=2026-01-01&end_date=2026-03-31",
    "/v1/retail/sales?account_id={a}4",
    "/v1/retail/sales?account_id={a}3&start_date=2024-02-01&end_date=2024-12-31",
    "/v1/retail/traffic?account_id={a}1",
    "/v1/retail/traffic?account_id={a}1&asin={asin}",
    "/v1/retail/traffic?account_id={a}4",
    "/v1/retail/inventory?account_id={a}1&limit=6",
    "/v1/retail/inventory?account_id={a}1&at_risk_only=true",
    "/v1/retail/inventory?account_id={a}2&days_of_supply_lte=45.5",
    "/v1/retail/inventory-history?account_id={a}1",
    "/v1/retail/inventory-history?account_id={a}1&asin={asin}",
    "/v1/profit?account_id={a}1",
    "/v1/profit?account_id={a}2&start_date=2026-09-01&end_date=2026-09-30",
    "/v1/profit?account_id={a}3&start_date=2025-03-01&end_date=2025-04-15",
    "/v1/profit?account_id={a}4",
    "/v1/brand-analytics/search-query-performance?account_id={a}1&limit=11",
    "/v1/brand-analytics/search-query-performance?account_id={a}4",
];

#[tokio::test]
async fn every_v1_endpoint_answers_the_same_json_on_sqlite_postgres_and_mariadb() {
    let Some(e) = small_world_everywhere().await else {
        return;
    };
    let (first, token) = &e.tenants[0];
    let (_, inv) = e
        .app
        .get(
            token,
            &format!("/v1/retail/inventory?account_id={first}:1&limit=1"),
        )
        .await;
    let asin = inv["items"][0]["asin"].as_str().unwrap().to_owned();
    let mut compared = 0;
    for template in PATHS {
        let mut answers: Vec<Vec<String>> = Vec::new();
        for (tenant, token) in &e.tenants {
            let mut path = template
                .replace("{a}", &format!("{tenant}:"))
                .replace("{asin}", &asin);
            let mut pages = Vec::new();
            // the first three pages, each engine following its own cursors
            for _ in 0..3 {
                let (status, body) = e.app.get(token, &path).await;
                assert_eq!(status, 200, "{tenant} {path}: {body}");
                let (text, cursor) = neutral(&body, tenant);
                pages.push(text);
                let Some(c) = cursor else { break };
                let base = path.split("&cursor=").next().unwrap().to_owned();
                path = format!("{base}&cursor={c}");
            }
            answers.push(pages);
        }
        for (i, (tenant, _)) in e.tenants.iter().enumerate().skip(1) {
            assert_eq!(
                answers[i], answers[0],
                "{template}: {tenant} differs from {}",
                e.tenants[0].0
            );
        }
        if !template.contains("{a}4") {
            assert!(
                !answers[0][0].contains("\"no_data\""),
                "{template} answered no data: {}",
                answers[0][0]
            );
        }
        compared += answers[0].len();
    }
    assert!(compared > PATHS.len(), "some answers were paged");
}

#[tokio::test]
async fn tables_and_sql_read_the_spec_names_on_every_engine() {
    let Some(e) = small_world_everywhere().await else {
        return;
    };
    for (tenant, token) in &e.tenants {
        let (status, body) = e.app.get(token, "/api/tables").await;
        assert_eq!(status, 200, "{tenant}: {body}");
        let names: Vec<&str> = body["tables"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert!(
            names.contains(&"spapi_sales_and_traffic_by_asin"),
            "{tenant}: {names:?}"
        );
        let (status, body) = e.app.get(token, "/api/table/seller").await;
        assert_eq!(status, 200, "{tenant}: {body}");
        assert_eq!(
            body["table"]["columns"].as_array().unwrap().len(),
            7,
            "{tenant}: {body}"
        );
        let idx = body["table"]["indexes"].to_string().to_lowercase();
        assert!(
            idx.contains("seller_marketplacesellerid_idx"),
            "{tenant}: {idx}"
        );
        // The spec's names read on every engine; params bind as the column's type (a text
        // date against a DATE column), and an empty result still names its columns.
        let (status, body) = e
            .app
            .query(
                token,
                serde_json::json!({
                    "sql": "SELECT SellerID AS seller, COUNT(*) AS days, SUM(UnitsOrdered) AS units \
                            FROM spapi_sales_and_traffic_by_date WHERE Date BETWEEN :from AND :to GROUP BY SellerID ORDER BY SellerID",
                    "params": {"from": "2026-01-01", "to": "2026-01-31"},
                }),
            )
            .await;
        assert_eq!(status, 200, "{tenant}: {body}");
        assert_eq!(body["rows"][0]["days"], 31, "{tenant}: {body}");
        assert!(
            body["rows"][0]["units"].as_i64().unwrap() > 0,
            "{tenant}: {body}"
        );
        // A cap cuts a large result and says so; the next query on the engine still works.
        let (status, body) = e
            .app
            .query(
                token,
                serde_json::json!({"sql": "SELECT * FROM spapi_sales_and_traffic_by_asin", "maxRows": 5}),
            )
            .await;
        assert_eq!(status, 200, "{tenant}: {body}");
        assert_eq!(
            (body["rowCount"].as_u64(), body["truncated"].as_bool()),
            (Some(5), Some(true)),
            "{tenant}: {body}"
        );
        assert_eq!(body["truncation"]["reason"], "max_rows", "{tenant}: {body}");
        let (status, body) = e
            .app
            .query(
                token,
                serde_json::json!({"sql": "SELECT Name AS name FROM seller WHERE ID = ?", "params": [999]}),
            )
            .await;
        assert_eq!(status, 200, "{tenant}: {body}");
        assert_eq!(body["rowCount"], 0);
        assert_eq!(body["columns"][0]["name"], "name", "{tenant}: {body}");
    }
}

/// The P&L's monthly read (its SQL grouped by month on each engine) and the bridge answer the
/// same on all three engines.
#[tokio::test]
async fn the_profit_requests_answer_the_same_on_sqlite_postgres_and_mariadb() {
    let Some(e) = small_world_everywhere().await else {
        return;
    };
    let mut answers: Vec<Vec<Value>> = Vec::new();
    for (tenant, _) in &e.tenants {
        let c = e
            .app
            .credential(tenant, Some("intelligence:read retail:read"))
            .await;
        let t = e.app.token(&c).await;
        let mut mine = Vec::new();
        for (id, extra) in [
            (
                "INS-PROFIT-01",
                serde_json::json!({ "period": { "start": "2026-04-01", "end": "2026-09-30" } }),
            ),
            (
                "INS-PROFIT-BRIDGE-01",
                serde_json::json!({ "period": { "start": "2026-07-01", "end": "2026-09-30" }, "comparePeriod": { "start": "2026-04-01", "end": "2026-06-30" }, "top": 3 }),
            ),
        ] {
            let mut params = serde_json::json!({ "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER" });
            params
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let (s, run) = e
                .app
                .post(
                    &t,
                    "/api/intelligence/run",
                    serde_json::json!({ "id": id, "params": params }),
                )
                .await;
            assert_eq!(s, 200, "{tenant} {id}: {run}");
            let mut result = run["result"].clone();
            // the audit log's ids are the state store's, counted across its tenants
            for h in result["happened"].as_array_mut().into_iter().flatten() {
                h["id"] = Value::Null;
            }
            mine.push(result);
        }
        answers.push(mine);
    }
    assert!(
        answers[0][0]["total"]["cm3"]["amount"].is_number(),
        "{}",
        answers[0][0]["total"]
    );
    assert_eq!(answers[0], answers[1], "SQLite and PostgreSQL");
    assert_eq!(answers[0], answers[2], "SQLite and MariaDB");
}
