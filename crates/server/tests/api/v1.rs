//! `/v1` data plane: totals equal SQL sums over the same rows, paging returns every row once
//! in a stable order whatever the page size, cursors cannot be tampered with, and accounts
//! resolve only within the caller's tenant.

use serde_json::{Value, json};

use crate::common::TestApp;

const ACCT: &str = "acme:1";

async fn v1(app: &TestApp, token: &str, path: &str) -> Value {
    let (status, body) = app.get(token, path).await;
    assert_eq!(status, 200, "{path}: {body}");
    body
}

/// One number from SQL over the warehouse, via the public SQL route.
async fn sql(app: &TestApp, token: &str, q: &str, params: Value) -> Value {
    let (status, body) = app
        .query(token, json!({ "sql": q, "params": params }))
        .await;
    assert_eq!(status, 200, "{q}: {body}");
    body["rows"][0].clone()
}

fn amount(v: &Value) -> f64 {
    v["amount"].as_f64().unwrap()
}

fn win(body: &Value) -> Value {
    json!([1, body["window"]["start_date"], body["window"]["end_date"]])
}

#[tokio::test]
async fn ads_totals_equal_sql_sums() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    let body = v1(
        &app,
        &t,
        &format!(
            "/v1/ads/account-summary?account_id={ACCT}&start_date=2026-09-01&end_date=2026-10-31"
        ),
    )
    .await;
    assert_eq!(
        body["window"],
        json!({"start_date": "2026-09-01", "end_date": "2026-10-31", "days": 61, "data_from": "2023-11-22", "data_through": "2026-11-21"})
    );
    let s = sql(&app, &t, "SELECT SUM(Impressions) i, SUM(Clicks) c, ROUND(SUM(Cost), 2) cost, SUM(Purchases7d) p, ROUND(SUM(Sales7d), 2) s FROM ads_campaign_daily WHERE SellerID = ? AND Date BETWEEN ? AND ?", win(&body)).await;
    let tot = &body["totals"];
    assert_eq!(
        (
            tot["impressions"].clone(),
            tot["clicks"].clone(),
            tot["purchases"].clone()
        ),
        (s["i"].clone(), s["c"].clone(), s["p"].clone())
    );
    assert_eq!(
        (amount(&tot["spend"]), amount(&tot["sales"])),
        (s["cost"].as_f64().unwrap(), s["s"].as_f64().unwrap())
    );
    assert_eq!(tot["spend"]["currency"], "USD");
    assert!(tot["purchases"].as_i64().unwrap() > 0);
    let by_clicks: i64 = body["by_ad_product"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["clicks"].as_i64().unwrap())
        .sum();
    assert_eq!(by_clicks, tot["clicks"].as_i64().unwrap());

    for (path, table) in [
        ("campaign-performance", "ads_campaign_daily"),
        ("search-terms", "ads_search_term_daily"),
        ("asin-performance", "ads_advertised_product_daily"),
    ] {
        let body = v1(
            &app,
            &t,
            &format!("/v1/ads/{path}?account_id={ACCT}&limit=500"),
        )
        .await;
        let s = sql(&app, &t, &format!("SELECT SUM(Clicks) c, ROUND(SUM(Cost), 2) cost, ROUND(SUM(Sales7d), 2) s FROM {table} WHERE SellerID = ? AND Date BETWEEN ? AND ?"), win(&body)).await;
        assert_eq!(body["totals"]["clicks"], s["c"], "{path}");
        assert_eq!(
            amount(&body["totals"]["spend"]),
            s["cost"].as_f64().unwrap(),
            "{path}"
        );
        assert_eq!(
            amount(&body["totals"]["sales"]),
            s["s"].as_f64().unwrap(),
            "{path}"
        );
        let items = body["items"].as_array().unwrap();
        assert!(!items.is_empty(), "{path}");
        assert_eq!(
            items
                .iter()
                .map(|r| r["clicks"].as_i64().unwrap())
                .sum::<i64>(),
            s["c"].as_i64().unwrap(),
            "{path}: items add up to the totals"
        );
    }
}

#[tokio::test]
async fn retail_totals_and_series_equal_sql_sums() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    let body = v1(
        &app,
        &t,
        &format!("/v1/retail/sales?account_id={ACCT}&start_date=2026-06-01&end_date=2026-08-31"),
    )
    .await;
    let s = sql(&app, &t, "SELECT ROUND(SUM(OrderedProductSales), 2) s, SUM(UnitsOrdered) u, SUM(TotalOrderItems) o, COUNT(DISTINCT Date) d FROM spapi_sales_and_traffic_by_asin WHERE SellerID = ? AND Date BETWEEN ? AND ?", win(&body)).await;
    assert_eq!(
        amount(&body["totals"]["ordered_sales"]),
        s["s"].as_f64().unwrap()
    );
    assert_eq!(
        (
            body["totals"]["units"].clone(),
            body["totals"]["orders"].clone()
        ),
        (s["u"].clone(), s["o"].clone())
    );
    let series = body["series"].as_array().unwrap();
    assert_eq!(series.len() as i64, s["d"].as_i64().unwrap());
    assert_eq!(
        series
            .iter()
            .map(|p| p["units"].as_i64().unwrap())
            .sum::<i64>(),
        s["u"].as_i64().unwrap()
    );
    let day = sql(&app, &t, "SELECT ROUND(SUM(OrderedProductSales), 2) s FROM spapi_sales_and_traffic_by_asin WHERE SellerID = 1 AND Date = '2026-07-04'", json!([])).await;
    let p = series.iter().find(|p| p["date"] == "2026-07-04").unwrap();
    assert_eq!(amount(&p["ordered_sales"]), day["s"].as_f64().unwrap());

    // One ASIN's series reads that ASIN's rows only.
    let asin = sql(
        &app,
        &t,
        "SELECT ChildASIN a FROM spapi_sales_and_traffic_by_asin WHERE SellerID = 1 LIMIT 1",
        json!([]),
    )
    .await["a"]
        .as_str()
        .unwrap()
        .to_owned();
    let body = v1(
        &app,
        &t,
        &format!("/v1/retail/sales?account_id={ACCT}&asin={asin}"),
    )
    .await;
    let s = sql(&app, &t, "SELECT ROUND(SUM(OrderedProductSales), 2) s, SUM(UnitsOrdered) u FROM spapi_sales_and_traffic_by_asin WHERE SellerID = ? AND Date BETWEEN ? AND ? AND ChildASIN = ?", json!([1, body["window"]["start_date"], body["window"]["end_date"], asin])).await;
    assert_eq!(
        (
            amount(&body["totals"]["ordered_sales"]),
            body["totals"]["units"].clone()
        ),
        (s["s"].as_f64().unwrap(), s["u"].clone())
    );

    let body = v1(&app, &t, &format!("/v1/retail/traffic?account_id={ACCT}")).await;
    let s = sql(&app, &t, "SELECT SUM(Sessions) s, SUM(PageViews) pv FROM spapi_sales_and_traffic_by_asin WHERE SellerID = ? AND Date BETWEEN ? AND ?", win(&body)).await;
    assert_eq!(
        (
            body["totals"]["sessions"].clone(),
            body["totals"]["page_views"].clone()
        ),
        (s["s"].clone(), s["pv"].clone())
    );
    assert_eq!(
        body["window"]["days"], 30,
        "default window: 30 complete days"
    );
    assert_eq!(body["window"]["end_date"], "2026-11-21");

    let body = v1(
        &app,
        &t,
        &format!("/v1/retail/inventory-history?account_id={ACCT}&start_date=2026-11-01"),
    )
    .await;
    let s = sql(&app, &t, "SELECT SUM(Fulfillable) f FROM spapi_fba_inventory WHERE SellerID = 1 AND Date BETWEEN '2026-11-01' AND '2026-11-21'", json!([])).await;
    let f: i64 = body["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["fulfillable"].as_i64().unwrap())
        .sum();
    assert_eq!(f, s["f"].as_i64().unwrap());
}

/// How a list item's unique key is read.
type KeyFn = fn(&Value) -> String;

/// Follows `next_cursor` with page sizes cycling through `sizes`; returns each item's key.
async fn walk(
    app: &TestApp,
    t: &str,
    path: &str,
    sizes: &[usize],
    key: fn(&Value) -> String,
) -> Vec<String> {
    let mut keys = Vec::new();
    let mut cursor: Option<String> = None;
    for n in 0.. {
        let size = sizes[n % sizes.len()];
        let url = match &cursor {
            Some(c) => format!("{path}&limit={size}&cursor={c}"),
            None => format!("{path}&limit={size}"),
        };
        let body = v1(app, t, &url).await;
        let items = body["items"].as_array().unwrap();
        assert!(items.len() <= size);
        keys.extend(items.iter().map(key));
        match body["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
        assert!(n < 10_000);
    }
    keys
}

#[tokio::test]
async fn paging_returns_every_row_once_in_a_stable_order() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    let lists: [(&str, KeyFn); 5] = [
        ("/v1/ads/campaign-performance?account_id=acme:1", |v| {
            v["campaign_id"].to_string()
        }),
        (
            "/v1/ads/search-terms?account_id=acme:1&start_date=2026-10-01",
            |v| format!("{}|{}", v["search_term"], v["keyword_id"]),
        ),
        ("/v1/ads/asin-performance?account_id=acme:1", |v| {
            v["asin"].to_string()
        }),
        ("/v1/retail/inventory?account_id=acme:1", |v| {
            v["sku"].to_string()
        }),
        (
            "/v1/brand-analytics/search-query-performance?account_id=acme:1",
            |v| format!("{}|{}", v["week_start"], v["search_query"]),
        ),
    ];
    for (path, key) in lists {
        let all = walk(&app, &t, path, &[500], key).await;
        assert!(
            all.len() > 3,
            "{path} has too few rows to page: {}",
            all.len()
        );
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len(), "{path}: keys are unique");
        assert_eq!(
            walk(&app, &t, path, &[1], key).await,
            all,
            "{path}: one at a time"
        );
        assert_eq!(
            walk(&app, &t, path, &[2, 1, 3], key).await,
            all,
            "{path}: page size changing between calls"
        );
    }
}

#[tokio::test]
async fn tampered_or_foreign_cursors_are_validation_errors() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    let body = v1(
        &app,
        &t,
        "/v1/ads/campaign-performance?account_id=acme:1&limit=1",
    )
    .await;
    let cursor = body["next_cursor"].as_str().unwrap().to_owned();
    let mut tampered: Vec<char> = cursor.chars().collect();
    tampered[5] = if tampered[5] == 'x' { 'y' } else { 'x' };
    let tampered: String = tampered.into_iter().collect();
    for bad in [tampered.as_str(), "not-a-cursor", "e30.AAAA"] {
        let (status, body) = app
            .get(
                &t,
                &format!("/v1/ads/campaign-performance?account_id=acme:1&limit=1&cursor={bad}"),
            )
            .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("validation_error")),
            "{bad}"
        );
    }
    // A cursor made for another query (another filter, another endpoint) is refused too.
    let (status, body) = app.get(&t, &format!("/v1/ads/campaign-performance?account_id=acme:1&ad_product=SPONSORED_BRANDS&cursor={cursor}")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("validation_error"))
    );
    let (status, _) = app
        .get(
            &t,
            &format!("/v1/ads/asin-performance?account_id=acme:1&cursor={cursor}"),
        )
        .await;
    assert_eq!(status, 400);
}

#[tokio::test]
async fn accounts_resolve_only_within_the_tenant() {
    let app = TestApp::start().await;
    let (a, b) = (app.token(&app.acme).await, app.token(&app.beta).await);
    let body = v1(&app, &a, "/v1/accounts").await;
    let ids: Vec<&str> = body["accounts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["account_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["acme:1", "acme:2", "acme:3", "acme:4"]);
    let us = &body["accounts"][0];
    assert_eq!(
        (
            us["currency"].as_str(),
            us["auth"]["retail"].as_str(),
            us["auth"]["ads"].as_str()
        ),
        (Some("USD"), Some("not_connected"), Some("not_connected")),
        "this app holds no grants: the warehouse's rows alone connect nothing"
    );
    assert_eq!(body["accounts"][1]["currency"], "CAD");

    let (status, body) = app.get(&a, "/v1/retail/sales").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("account_required"))
    );
    for other in ["beta:7", "acme:999", "nonsense", "acme:x"] {
        let (status, body) = app
            .get(&a, &format!("/v1/retail/sales?account_id={other}"))
            .await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (404, Some("account_not_found")),
            "{other}"
        );
    }
    // And tenant B cannot name tenant A's accounts.
    let (status, body) = app
        .get(&b, "/v1/ads/campaign-performance?account_id=acme:1")
        .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (404, Some("account_not_found"))
    );
}

#[tokio::test]
async fn domains_without_data_answer_with_availability() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    let body = v1(
        &app,
        &t,
        "/v1/brand-analytics/search-query-performance?account_id=acme:3",
    )
    .await;
    assert_eq!(body["availability"]["status"], "no_data");
    assert!(body["metric_definitions"]["purchase_share"].is_string());
    let body = v1(&app, &t, "/v1/ads/account-summary?account_id=acme:4").await;
    assert_eq!(body["availability"]["status"], "no_data");
    let body = v1(
        &app,
        &t,
        "/v1/brand-analytics/search-query-performance?account_id=acme:1&limit=5",
    )
    .await;
    let row = &body["items"][0];
    let share = row["purchases"]["brand"].as_f64().unwrap()
        / row["purchases"]["total"].as_f64().unwrap()
        * 100.0;
    assert!((row["purchase_share"].as_f64().unwrap() - share).abs() < 0.006);
    assert!(row["search_query_volume"].as_i64().unwrap() > 0);
}

#[tokio::test]
async fn inventory_filters() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    let all = v1(&app, &t, "/v1/retail/inventory?account_id=acme:1&limit=500").await;
    assert_eq!(all["data_through"], "2026-11-21");
    let risky = v1(
        &app,
        &t,
        "/v1/retail/inventory?account_id=acme:1&at_risk_only=true&limit=500",
    )
    .await;
    for r in risky["items"].as_array().unwrap() {
        assert!(["out_of_stock", "low_stock"].contains(&r["health_alert"].as_str().unwrap()));
    }
    let expected = all["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| ["out_of_stock", "low_stock"].contains(&r["health_alert"].as_str().unwrap()))
        .count();
    assert_eq!(risky["items"].as_array().unwrap().len(), expected);
    let lte = v1(
        &app,
        &t,
        "/v1/retail/inventory?account_id=acme:1&days_of_supply_lte=60&limit=500",
    )
    .await;
    for r in lte["items"].as_array().unwrap() {
        assert!(r["days_of_supply"].as_f64().unwrap() <= 60.0);
    }
}

#[tokio::test]
async fn bad_parameters_are_validation_errors() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    for q in [
        "/v1/retail/sales?account_id=acme:1&start_date=2026-13-01",
        "/v1/retail/sales?account_id=acme:1&start_date=2026-11-10&end_date=2026-11-01",
        "/v1/retail/sales?account_id=acme:1&start_date=2024-01-01&end_date=2026-01-01",
        "/v1/retail/sales?account_id=acme:1&acount=1",
        "/v1/retail/sales?account_id=acme:1&account_id=acme:2",
        "/v1/ads/campaign-performance?account_id=acme:1&limit=0",
        "/v1/ads/campaign-performance?account_id=acme:1&limit=501",
        "/v1/ads/campaign-performance?account_id=acme:1&ad_product=TV",
        "/v1/retail/inventory?account_id=acme:1&at_risk_only=yes",
        "/v1/ads/account-pacing?account_id=acme:1&month=2026-13",
        "/v1/ads/account-pacing?account_id=acme:1&month=2027-01",
    ] {
        let (status, body) = app.get(&t, q).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("validation_error")),
            "{q}: {body}"
        );
    }
}

#[tokio::test]
async fn data_endpoints_check_their_scopes() {
    let app = TestApp::start().await;
    let c = app
        .credential("acme", Some("account:read retail:read"))
        .await;
    let t = app.token(&c).await;
    assert_eq!(
        app.get(&t, "/v1/retail/sales?account_id=acme:1").await.0,
        200
    );
    for path in [
        "/v1/ads/account-summary?account_id=acme:1",
        "/v1/brand-analytics/search-query-performance?account_id=acme:1",
    ] {
        let (status, body) = app.get(&t, path).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (403, Some("insufficient_scope")),
            "{path}"
        );
    }
    let c = app.credential("acme", Some("ads:read")).await;
    let t = app.token(&c).await;
    assert_eq!(app.get(&t, "/v1/accounts").await.0, 403);
    assert_eq!(
        app.get(&t, "/v1/retail/inventory?account_id=acme:1")
            .await
            .0,
        403
    );
}

/// Issue 67: every window names the first day its data holds (on a managed warehouse whose
/// backfill goes on, older days are not known yet rather than zero), and a window that ends
/// before it is `no_data_for_period` (`not_found` in the partner envelope) with the days
/// held; one reaching into them is answered.
#[tokio::test]
async fn windows_name_the_first_day_held_and_one_before_it_has_no_data() {
    let app = TestApp::start().await;
    let t = app.token(&app.acme).await;
    for (path, table) in [
        ("/v1/retail/sales", "spapi_sales_and_traffic_by_date"),
        ("/v1/ads/campaign-performance", "ads_campaign_daily"),
    ] {
        let q = format!("SELECT MIN(Date) AS d FROM {table} WHERE SellerID = 1");
        let first = sql(&app, &t, &q, json!([])).await["d"].clone();
        let body = v1(&app, &t, &format!("{path}?account_id={ACCT}")).await;
        assert_eq!(body["window"]["data_from"], first, "{path}: {body}");
        let through = body["window"]["data_through"].clone();
        let old = format!("{path}?account_id={ACCT}&start_date=2020-01-01&end_date=2020-01-31");
        let (s, e) = app.get(&t, &old).await;
        let e = &e["error"];
        assert_eq!((s, e["code"].as_str()), (404, Some("not_found")), "{e}");
        assert_eq!(
            (&e["data_from"], &e["data_through"]),
            (&first, &through),
            "{e}"
        );
        let says = e["message"].as_str().unwrap_or_default();
        assert!(says.contains("ends before the data's first day"), "{e}");
        let first_day: chrono::NaiveDate = first.as_str().unwrap().parse().unwrap();
        let reaching = format!(
            "{path}?account_id={ACCT}&start_date={}&end_date={first_day}",
            first_day - chrono::Days::new(10)
        );
        let body = v1(&app, &t, &reaching).await;
        assert_eq!(body["window"]["data_from"], first, "{body}");
    }
}
