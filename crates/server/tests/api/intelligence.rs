//! Intelligence over the gateway (docs/intelligence.md): the catalog and `/health` list the engines; a run
//! answers with versions, limitations and evidence; a brand sums its seller rows; the docs/errors.md
//! refusals (`bad_params`, `merchant_not_resolved`, `no_data_for_period`, `not_enrolled`,
//! `busy`, `account_too_large_use_async`) change nothing; a credential without
//! `intelligence:read` is refused on REST and in the tool result; an asynchronous run
//! survives a restart and completes; every run is metered by request id.

use pp_core::TenantId;
use pp_store::intelligence::{Caps, NewRun};
use serde_json::{Value, json};

use crate::common::{Options, TestApp};
use crate::mcp::Mcp;

const SEPT: &str = r#"{"start": "2026-09-01", "end": "2026-09-30"}"#;

fn bridge(params: Value) -> Value {
    json!({ "id": "INS-OPS-BRIDGE-01", "params": params })
}

fn sept() -> Value {
    serde_json::from_str(SEPT).unwrap()
}

fn seller1() -> Value {
    json!({ "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "period": sept() })
}

fn cents(v: &Value) -> i64 {
    (v.as_f64().unwrap_or_else(|| panic!("an amount: {v}")) * 100.0).round() as i64
}

/// `POST /api/intelligence/run` with `body`.
async fn post_run(app: &TestApp, t: &str, body: Value) -> (u16, Value) {
    app.post(t, "/api/intelligence/run", body).await
}

async fn token(app: &TestApp, scopes: &str) -> String {
    let c = app.credential("acme", Some(scopes)).await;
    app.token(&c).await
}

#[tokio::test]
async fn the_catalog_and_health_list_the_engines_serving() {
    let app = TestApp::start().await;
    let t = token(&app, "intelligence:read").await;
    let (s, cat) = app.get(&t, "/api/intelligence/ids").await;
    assert_eq!(s, 200, "{cat}");
    let ids: Vec<&str> = cat["requests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "INS-OPS-BRIDGE-01",
            "INS-ADS-BRIDGE-01",
            "INS-DUO-01",
            "INS-LOSTSALES-01",
            "INS-MONTHLY-01",
            "INS-CHANGE-OUTCOME-01",
            "INS-PROFIT-01",
            "INS-PROFIT-BRIDGE-01",
            "INS-PAYOUT-01",
            "INS-DAYPART-01",
            "FCT-READINESS-01",
            "FCT-BASELINE-01",
            "FCT-TRACK-01",
            "PLN-BUDGET-PACING-01",
            "PLN-DAYPART-01"
        ]
    );
    for r in cat["requests"].as_array().unwrap() {
        assert!(
            r["version"].is_string() && r["contentRevision"].is_u64() && r["purpose"].is_string(),
            "{r}"
        );
        let service = match &r["id"].as_str().unwrap()[..4] {
            "FCT-" => "forecasting",
            "PLN-" => "plan",
            _ => "attribution",
        };
        assert_eq!(r["service"], service);
        assert_eq!(r["params"]["type"], "object");
    }
    let health: Value = app
        .http
        .get(app.url("/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["engine_version"], cat["engineVersion"]);
    assert_eq!(health["engines"].as_array().unwrap().len(), 15, "{health}");
    let services: Vec<(&str, &str)> = health["services"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["service"].as_str().unwrap(),
                s["prefix"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        services,
        [
            ("attribution", "INS-"),
            ("forecasting", "FCT-"),
            ("plan", "PLN-")
        ]
    );
    assert_eq!(cat["services"], health["services"]);
}

#[tokio::test]
async fn a_run_answers_a_bridge_with_versions_limitations_and_evidence() {
    let app = TestApp::start().await;
    let t = token(&app, "intelligence:read").await;
    let mut req = bridge(seller1());
    req["evidence"] = true.into();
    let (s, run) = post_run(&app, &t, req).await;
    assert_eq!(s, 200, "{run}");
    assert_eq!(
        (run["status"].as_str(), run["mode"].as_str()),
        (Some("succeeded"), Some("sync"))
    );
    assert!(run["engineVersion"].is_string() && run["evidenceVersion"].is_string());
    assert!(!run["limitations"].as_array().unwrap().is_empty());
    let ev = run["evidence"].as_array().unwrap();
    assert!(
        ev.iter()
            .all(|e| e["text"].is_string() && !e["rows"].as_array().unwrap().is_empty()),
        "{ev:?}"
    );
    let totals = &run["result"]["totals"];
    let effects: i64 = ["traffic", "mix", "conversion", "price"]
        .iter()
        .map(|k| cents(&totals["effects"][k]))
        .sum();
    assert_eq!(effects, cents(&totals["change"]));
    assert_eq!(
        run["result"]["comparePeriod"],
        json!({"start": "2026-08-02", "end": "2026-08-31"}),
        "the same days just before"
    );
    // the stored run reads back the same
    let id = run["runId"].as_str().unwrap();
    let (s, again) = app
        .get(&t, &format!("/api/intelligence/runs/{id}/result"))
        .await;
    assert_eq!(s, 200);
    assert_eq!(again["result"], run["result"]);
    // without evidence: none
    let (_, plain) = post_run(&app, &t, bridge(seller1())).await;
    assert!(plain.get("evidence").is_none());
    // every engine answers on the demo world
    for (id, params) in [
        (
            "INS-ADS-BRIDGE-01",
            json!({ "brand": "northwind", "marketplaceId": "ATVPDKIKX0DER", "period": sept(), "grain": "search_term" }),
        ),
        ("INS-DUO-01", seller1()),
        ("INS-LOSTSALES-01", json!({ "sellerId": "A1DEMOSELLERMX" })),
        (
            "INS-MONTHLY-01",
            json!({ "sellerId": "ENTITY2DEMOVENDOR", "month": "2026-10" }),
        ),
    ] {
        let (s, r) = post_run(&app, &t, json!({ "id": id, "params": params })).await;
        assert_eq!(s, 200, "{id}: {r}");
        assert_eq!(r["status"], "succeeded", "{id}: {r}");
    }
    let meter = app
        .store
        .intelligence()
        .meter(&TenantId::parse("acme").unwrap(), 0)
        .await
        .unwrap();
    let ops = meter
        .iter()
        .find(|m| m.request_id == "INS-OPS-BRIDGE-01")
        .unwrap();
    assert_eq!(
        (ops.runs, ops.succeeded),
        (2, 2),
        "every run is metered by request id"
    );
    assert_eq!(meter.len(), 5);
}

/// A warehouse with one brand sold by two sellers in one currency.
fn two_seller_warehouse(path: &std::path::Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = rusqlite::Connection::open(path).unwrap();
    c.execute_batch(
        "CREATE TABLE seller (ID INT, MarketplaceSellerID VARCHAR(32), Name VARCHAR(128), AccountType VARCHAR(8), Marketplace VARCHAR(2), MarketplaceID VARCHAR(16), Currency VARCHAR(3));
         INSERT INTO seller VALUES (1, 'AONE', 'One', 'seller', 'US', 'ATVPDKIKX0DER', 'USD'), (2, 'ATWO', 'Two', 'seller', 'US', 'ATVPDKIKX0DER', 'USD');
         CREATE TABLE brand (ID INT, Slug VARCHAR(64), Name VARCHAR(128));
         INSERT INTO brand VALUES (1, 'shared', 'Shared'), (2, 'solo', 'Solo');
         CREATE TABLE catalog_item (SellerID INT, MarketplaceSellerID VARCHAR(32), ASIN VARCHAR(10), Brand VARCHAR(128));
         INSERT INTO catalog_item VALUES (1, 'AONE', 'B1', 'Shared'), (2, 'ATWO', 'B2', 'Shared'), (1, 'AONE', 'B3', 'Solo');
         CREATE TABLE spapi_sales_and_traffic_by_asin (SellerID INT, MarketplaceSellerID VARCHAR(32), Date DATE, ChildASIN VARCHAR(10), OrderedProductSales DECIMAL(12,2), UnitsOrdered INT, Sessions INT);
         INSERT INTO spapi_sales_and_traffic_by_asin VALUES
           (1, 'AONE', '2026-01-01', 'B1', 100.00, 10, 100), (1, 'AONE', '2026-01-02', 'B1', 120.50, 11, 110),
           (2, 'ATWO', '2026-01-01', 'B2', 50.25, 5, 40), (2, 'ATWO', '2026-01-02', 'B2', 80.00, 8, 60),
           (1, 'AONE', '2026-01-01', 'B3', 999.00, 9, 90), (1, 'AONE', '2026-01-02', 'B3', 999.00, 9, 90);",
    )
    .unwrap();
}

#[tokio::test]
async fn a_brand_request_sums_its_seller_rows() {
    let app = TestApp::start().await;
    let zeta = TenantId::parse("zeta").unwrap();
    let wh = app.store.default_warehouse_path(&zeta);
    two_seller_warehouse(&wh);
    app.store
        .tenants()
        .create(&zeta, "Zeta", &format!("sqlite:{}", wh.display()))
        .await
        .unwrap();
    let c = app.credential("zeta", Some("intelligence:read")).await;
    let t = app.token(&c).await;
    let day = |d: &str| json!({ "start": d, "end": d });
    let (s, run) = post_run(&app, &t, bridge(json!({ "brand": "shared", "period": day("2026-01-02"), "comparePeriod": day("2026-01-01") })))
        .await;
    assert_eq!(s, 200, "{run}");
    let totals = &run["result"]["totals"];
    assert_eq!(
        cents(&totals["before"]["sales"]),
        10_000 + 5_025,
        "both sellers' rows of the brand, nothing else"
    );
    assert_eq!(cents(&totals["after"]["sales"]), 12_050 + 8_000);
    assert_eq!(totals["after"]["traffic"], 170);
    assert_eq!(run["merchant"]["sellers"].as_array().unwrap().len(), 2);
    let items = run["result"]["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(
        cents(&items[0]["change"]) + cents(&items[1]["change"]),
        cents(&totals["change"])
    );
}

#[tokio::test]
async fn refusals_name_what_is_wrong_and_run_nothing() {
    let app = TestApp::start().await;
    let t = token(&app, "intelligence:read").await;
    let cases = [
        (
            json!({ "id": "INS-NOPE-01", "params": seller1() }),
            400,
            "bad_params",
        ),
        (
            bridge(
                json!({ "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER", "period": sept(), "grain": "asin" }),
            ),
            400,
            "bad_params",
        ),
        (
            bridge(json!({ "sellerId": "A2DEMOSELLER01", "marketplaceId": "ATVPDKIKX0DER" })),
            400,
            "bad_params",
        ),
        (
            bridge(json!({ "sellerId": "A2DEMOSELLER01", "period": sept() })),
            422,
            "merchant_not_resolved",
        ),
        (
            bridge(json!({ "sellerId": "ANOBODY", "period": sept() })),
            422,
            "merchant_not_resolved",
        ),
        (
            bridge(json!({ "brand": "northwind", "period": sept() })),
            422,
            "merchant_not_resolved",
        ),
        (
            bridge(
                json!({ "sellerId": "A1DEMOSELLERMX", "period": { "start": "2019-01-01", "end": "2019-01-31" } }),
            ),
            404,
            "no_data_for_period",
        ),
        (
            json!({ "id": "INS-MONTHLY-01", "params": { "sellerId": "A1DEMOSELLERMX", "month": "2027-01" } }),
            404,
            "no_data_for_period",
        ),
    ];
    for (req, status, kind) in cases {
        let (s, body) = post_run(&app, &t, req.clone()).await;
        assert_eq!(
            (s, body["kind"].as_str()),
            (status, Some(kind)),
            "{req}: {body}"
        );
        assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let (_, two) = post_run(
        &app,
        &t,
        bridge(json!({ "sellerId": "A2DEMOSELLER01", "period": sept() })),
    )
    .await;
    assert_eq!(
        two["candidates"].as_array().unwrap().len(),
        2,
        "the token's two marketplaces: {two}"
    );
    let (_, early) = post_run(&app, &t, bridge(json!({ "sellerId": "A1DEMOSELLERMX", "period": { "start": "2019-01-01", "end": "2019-01-31" } }))).await;
    assert!(
        early["dataFrom"].is_string() && early["dataThrough"].is_string(),
        "{early}"
    );
    assert!(
        app.store
            .intelligence()
            .meter(&TenantId::parse("acme").unwrap(), 0)
            .await
            .unwrap()
            .is_empty(),
        "a refused request is not a run"
    );
    let (s, nf) = app
        .get(&t, "/api/intelligence/runs/run_000000000000000000000000")
        .await;
    assert_eq!((s, nf["kind"].as_str()), (404, Some("not_found")));
}

#[tokio::test]
async fn a_credential_without_intelligence_read_is_refused_everywhere() {
    let app = TestApp::start().await;
    let t = token(&app, "retail:read ads:read timeline:read").await;
    for (path, body) in [
        ("/api/intelligence/ids", None),
        ("/api/intelligence/run", Some(bridge(seller1()))),
    ] {
        let (s, v) = match body {
            Some(b) => app.post(&t, path, b).await,
            None => app.get(&t, path).await,
        };
        assert_eq!(
            (s, v["kind"].as_str()),
            (403, Some("insufficient_scope")),
            "{path}: {v}"
        );
        assert_eq!(v["required_scopes"], json!(["intelligence:read"]));
    }
    let mut mcp = Mcp::with_token(&app, t);
    mcp.initialize("2025-11-25").await;
    let (result, text) = mcp.call("intelligence_run", bridge(seller1())).await;
    assert_eq!(result["isError"], true, "{result}");
    assert_eq!(text["kind"], "insufficient_scope", "{text}");
    assert!(
        app.store
            .intelligence()
            .meter(&TenantId::parse("acme").unwrap(), 0)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn an_account_switched_off_answers_not_enrolled() {
    let app = TestApp::start().await;
    let t = token(&app, "intelligence:read").await;
    let acme = TenantId::parse("acme").unwrap();
    app.store
        .intelligence()
        .set_enrolled(&acme, 3, false, Some("pilot ended"), "admin")
        .await
        .unwrap();
    let mx = bridge(json!({ "sellerId": "A1DEMOSELLERMX", "period": sept() }));
    let (s, v) = post_run(&app, &t, mx.clone()).await;
    assert_eq!(
        (s, v["kind"].as_str(), v["reason"].as_str()),
        (403, Some("not_enrolled"), Some("pilot ended")),
        "{v}"
    );
    let (s, _) = post_run(&app, &t, bridge(seller1())).await;
    assert_eq!(s, 200, "other accounts are on");
    app.store
        .intelligence()
        .set_enrolled(&acme, 3, true, None, "admin")
        .await
        .unwrap();
    let (s, _) = post_run(&app, &t, mx).await;
    assert_eq!(s, 200, "switched back on");
}

fn held(id: &str) -> NewRun {
    NewRun {
        id: id.into(),
        tenant: "acme".into(),
        request_id: "INS-OPS-BRIDGE-01".into(),
        request_version: "1.0.0".into(),
        accounts: vec!["seller:1".into()],
        params: json!({}),
        mode: "sync".into(),
        actor: "svc:other-instance".into(),
        credential_id: "cred_x".into(),
        surface: "rest".into(),
    }
}

#[tokio::test]
async fn a_third_computing_request_on_an_account_answers_busy() {
    let app = TestApp::start().await;
    let t = token(&app, "intelligence:read").await;
    let acme = TenantId::parse("acme").unwrap();
    let runs = app.store.intelligence();
    let caps = Caps {
        per_account: 2,
        total: 16,
        lease_ms: 60_000,
    };
    // two requests computing on seller 1, as another gateway instance on the store holds them
    for id in ["run_held1", "run_held2"] {
        runs.insert(&held(id)).await.unwrap();
        assert_eq!(
            runs.start(&acme, id, &["seller:1".to_owned()], caps)
                .await
                .unwrap(),
            None
        );
    }
    let (s, v) = post_run(&app, &t, bridge(seller1())).await;
    assert_eq!(
        (s, v["kind"].as_str(), v["retryable"].as_bool()),
        (429, Some("busy"), Some(true)),
        "{v}"
    );
    let (s, _) = post_run(
        &app,
        &t,
        bridge(json!({ "sellerId": "A1DEMOSELLERMX", "period": sept() })),
    )
    .await;
    assert_eq!(s, 200, "another account is free");
    runs.finish("run_held1", Ok(&json!({})), 1).await.unwrap();
    let (s, v) = post_run(&app, &t, bridge(seller1())).await;
    assert_eq!(s, 200, "a slot freed: {v}");
    let m = runs.meter(&acme, 0).await.unwrap();
    assert_eq!(m[0].runs, 4, "the busy request was not a run: {m:?}");
}

#[tokio::test]
async fn a_large_account_runs_async_and_survives_a_restart() {
    let mut o = Options {
        workers: Some((0, 2)),
        ..Options::default()
    };
    o.jobs.intelligence.sync_item_days = 100;
    let app = TestApp::start_market_options(o).await;
    let t = token(&app, "intelligence:read").await;
    let (s, v) = post_run(&app, &t, bridge(seller1())).await;
    assert_eq!(
        (s, v["kind"].as_str()),
        (422, Some("account_too_large_use_async")),
        "{v}"
    );
    assert_eq!(v["limit"], 100);
    assert!(v["itemDays"].as_i64().unwrap() > 100);
    let mut req = bridge(seller1());
    req["async"] = true.into();
    let (s, queued) = post_run(&app, &t, req).await;
    assert_eq!(
        (s, queued["status"].as_str(), queued["mode"].as_str()),
        (200, Some("queued"), Some("async")),
        "{queued}"
    );
    let id = queued["runId"].as_str().unwrap();
    let (s, nr) = app
        .get(&t, &format!("/api/intelligence/runs/{id}/result"))
        .await;
    assert_eq!(
        (s, nr["kind"].as_str(), nr["status"].as_str()),
        (409, Some("run_not_ready"), Some("queued"))
    );
    // the gateway that queued it goes away before any worker took it; a new one picks it up
    app.spawn_workers(2).await;
    let base = app.restarted_gateway().await;
    let done: Value = app
        .http
        .get(format!("{base}/api/intelligence/runs/{id}?waitSeconds=20"))
        .bearer_auth(&t)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(done["status"], "succeeded", "{done}");
    let totals = &done["result"]["totals"];
    let effects: i64 = ["traffic", "mix", "conversion", "price"]
        .iter()
        .map(|k| cents(&totals["effects"][k]))
        .sum();
    assert_eq!(effects, cents(&totals["change"]));
}
