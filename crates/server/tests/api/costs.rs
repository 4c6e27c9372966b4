//! Profit's tenant data over HTTP (docs/profit.md): cost periods written in audited batches
//! that land whole or not at all, the SKUs sold without a cost named until one is entered,
//! reference rates imported from the demo world's ECB file, the reporting currency, the audit
//! log, scopes and tenants, and the managed warehouse's copy.

use serde_json::{Value, json};

use crate::common::{Options, TestApp};

const US: (&str, &str) = ("A2DEMOSELLER01", "ATVPDKIKX0DER");
/// The tiny world's last day with data (its today is 2026-11-22).
const WINDOW: &str = "from=2026-08-01&to=2026-11-21";

fn period(sku: &str, from: &str, unit: Value) -> Value {
    json!({
        "sellerId": US.0, "marketplaceId": US.1, "sku": sku, "validFrom": from,
        "currency": "USD", "unitCost": unit, "freight": "0.50", "duties": 0.25,
    })
}

async fn missing(app: &TestApp, token: &str) -> Value {
    let path = format!(
        "/api/costs/missing?sellerId={}&marketplaceId={}&{WINDOW}",
        US.0, US.1
    );
    let (s, v) = app.get(token, &path).await;
    assert_eq!(s, 200, "{v}");
    v
}

async fn held(app: &TestApp, token: &str) -> Vec<Value> {
    let (s, v) = app.get(token, "/api/costs").await;
    assert_eq!(s, 200, "{v}");
    v["periods"].as_array().unwrap().clone()
}

#[tokio::test]
async fn costs_land_whole_or_not_at_all_and_a_sku_without_one_is_named_until_it_has_one() {
    let app = TestApp::start().await;
    let reader = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let writer = app
        .token(
            &app.credential("acme", Some("retail:read costs:write"))
                .await,
        )
        .await;

    // nothing entered yet: every SKU sold is missing its cost
    let m = missing(&app, &reader).await;
    let sold: Vec<String> = m["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["sku"].as_str().unwrap().to_owned())
        .collect();
    assert!(sold.len() >= 2, "the tiny world's US seller sells: {m}");
    assert_eq!(m["skusSold"], sold.len());
    assert!(
        m["missing"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["costFrom"].is_null())
    );

    // a reader cannot write; each bad batch is refused and changes nothing
    let (s, v) = app
        .post(
            &reader,
            "/api/costs",
            json!({"periods": [period(&sold[0], "2026-01-01", json!(5))]}),
        )
        .await;
    assert_eq!(
        (s, v["kind"].as_str()),
        (403, Some("insufficient_scope")),
        "{v}"
    );
    let good = period(&sold[0], "2026-01-01", json!(5));
    let mut no_duties = period(&sold[1], "2026-01-01", json!(5));
    no_duties.as_object_mut().unwrap().remove("duties");
    let mut other = period(&sold[1], "2026-01-01", json!(5));
    other["sellerId"] = json!("A9NOBODY");
    let bad: [(Value, u16, &str); 8] = [
        (
            json!({"periods": [good.clone(), period(&sold[1], "2026-01-01", json!(5.125))]}),
            400,
            "more than 2 decimals",
        ),
        (
            json!({"periods": [good.clone(), period(&sold[1], "2026-01-01", json!(-1))]}),
            400,
            "plain decimal",
        ),
        (json!({"periods": [good.clone(), no_duties]}), 400, "duties"),
        (
            json!({"periods": [good.clone(), period(&sold[1], "2026-02-30", json!(5))]}),
            400,
            "validFrom",
        ),
        (
            json!({"periods": [good.clone(), good.clone()]}),
            400,
            "named twice",
        ),
        (json!({"periods": [good.clone(), other]}), 404, "A9NOBODY"),
        (
            json!({"periods": [good.clone()], "remove": [{"sellerId": US.0, "marketplaceId": US.1, "sku": "NOPE", "validFrom": "2026-01-01"}]}),
            404,
            "no cost period",
        ),
        (json!({"periods": [], "remove": []}), 400, "1 to 5000"),
    ];
    for (body, status, says) in bad {
        let (s, v) = app.post(&writer, "/api/costs", body.clone()).await;
        assert_eq!(s, status, "{body}: {v}");
        assert!(
            v["message"].as_str().unwrap_or_default().contains(says),
            "{says}: {v}"
        );
    }
    let (s, v) = app
        .post(
            &writer,
            "/api/costs",
            json!({"periods": [good.clone()], "extra": 1}),
        )
        .await;
    assert_eq!(s, 400, "an unknown field: {v}");
    assert!(
        held(&app, &reader).await.is_empty(),
        "nothing of a refused batch was written"
    );

    // every SKU but the last gets a cost from before it first sold; the last one stays named
    let (last, costed) = sold.split_last().unwrap();
    let periods: Vec<Value> = costed
        .iter()
        .map(|k| period(k, "2026-01-01", json!("4.10")))
        .collect();
    let batch = json!({"periods": periods, "reason": "supplier price list 2026"});
    let (s, v) = app.post(&writer, "/api/costs", batch.clone()).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(
        (v["added"].as_u64(), v["warehouseCopy"].as_str()),
        (Some(costed.len() as u64), Some("external")),
        "{v}"
    );
    let m = missing(&app, &reader).await;
    let names: Vec<&str> = m["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["sku"].as_str().unwrap())
        .collect();
    assert_eq!(names, [last.as_str()], "{m}");
    assert_eq!(m["skusCosted"], costed.len());
    // sending the batch again changes and logs nothing
    let (_, log) = app.get(&reader, "/api/costs/changes?limit=500").await;
    let logged = log["changes"].as_array().unwrap().len();
    let (_, v) = app.post(&writer, "/api/costs", batch).await;
    assert_eq!(v["unchanged"], costed.len(), "{v}");
    let (_, log) = app.get(&reader, "/api/costs/changes?limit=500").await;
    assert_eq!(log["changes"].as_array().unwrap().len(), logged);

    // a period that starts after the SKU first sold leaves the days before it uncosted
    let first_sold = m["missing"][0]["firstSold"].as_str().unwrap().to_owned();
    let late = period(last, "2026-11-01", json!(7));
    let (s, v) = app
        .post(&writer, "/api/costs", json!({"periods": [late]}))
        .await;
    assert_eq!(s, 200, "{v}");
    let m = missing(&app, &reader).await;
    if first_sold.as_str() < "2026-11-01" {
        assert_eq!(m["missing"][0]["costFrom"], "2026-11-01", "{m}");
    }
    // a later period closes the earlier one the day before it starts, and a change is logged
    let (s, v) = app
        .post(&writer, "/api/costs", json!({"periods": [period(&sold[0], "2026-06-15", json!(4.4))], "reason": "new supplier price"}))
        .await;
    assert_eq!((s, v["added"].as_i64()), (200, Some(1)), "{v}");
    let (_, v) = app
        .get(
            &reader,
            &format!(
                "/api/costs?sellerId={}&marketplaceId={}&sku={}",
                US.0, US.1, sold[0]
            ),
        )
        .await;
    let p = v["periods"].as_array().unwrap();
    assert_eq!(
        (p[0]["validThrough"].as_str(), p[1]["validThrough"].as_str()),
        (Some("2026-06-14"), None),
        "{v}"
    );
    assert_eq!(
        (p[0]["landedCost"].as_f64(), p[1]["unitCost"].as_f64()),
        (Some(4.85), Some(4.4)),
        "{v}"
    );
    let (_, log) = app.get(&reader, "/api/costs/changes?limit=1").await;
    let newest = &log["changes"][0];
    assert_eq!(
        (newest["what"].as_str(), newest["reason"].as_str()),
        (Some("cost"), Some("new supplier price")),
        "{log}"
    );
    assert!(
        newest["actor"].as_str().unwrap().contains("cred_"),
        "the credential that wrote it: {log}"
    );
    assert_eq!(newest["after"]["unitCents"], 440, "{log}");
    assert!(log["nextBefore"].is_i64(), "more pages: {log}");

    // removing it opens the earlier one again
    let remove = json!({"remove": [{"sellerId": US.0, "marketplaceId": US.1, "sku": sold[0], "validFrom": "2026-06-15"}]});
    let (_, v) = app.post(&writer, "/api/costs", remove).await;
    assert_eq!(v["removed"], 1, "{v}");

    // another tenant sees none of it
    let beta = app
        .token(&app.credential("beta", Some("retail:read")).await)
        .await;
    assert!(held(&app, &beta).await.is_empty());
    let (_, log) = app.get(&beta, "/api/costs/changes").await;
    assert!(log["changes"].as_array().unwrap().is_empty(), "{log}");
}

#[tokio::test]
async fn the_worlds_reference_rates_import_exactly_and_the_reporting_currency_is_the_tenants() {
    let app = TestApp::start().await;
    let writer = app
        .token(
            &app.credential("acme", Some("retail:read costs:write"))
                .await,
        )
        .await;
    let file = std::fs::read_to_string(
        app.store
            .default_warehouse_path(&pp_core::TenantId::parse("acme").unwrap())
            .with_file_name("reference-rates.csv"),
    )
    .unwrap();
    let rates = pp_profit::ecb::read(&file, &[]).unwrap();
    let body = json!({
        "source": "reference-rates.csv",
        "rates": rates.iter().map(|r| json!({"date": r.day, "currency": r.currency, "perEur": pp_profit::money::rate_text(r.per_eur_e6)})).collect::<Vec<_>>(),
    });
    let (s, v) = app.post(&writer, "/api/exchange-rates", body.clone()).await;
    assert_eq!(
        (s, v["added"].as_u64()),
        (200, Some(rates.len() as u64)),
        "{v}"
    );
    let (_, v) = app.post(&writer, "/api/exchange-rates", body).await;
    assert_eq!(v["unchanged"], rates.len(), "{v}");
    // every rate reads back as the file wrote it
    let newest = file.lines().nth(1).unwrap();
    let (day, cells) = newest.split_once(',').unwrap();
    let (_, v) = app
        .get(&writer, &format!("/api/exchange-rates?from={day}&to={day}"))
        .await;
    let got: Vec<&str> = v["rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["perEur"].as_str().unwrap())
        .collect();
    let mut want: Vec<&str> = cells.split(',').collect();
    // the answer is by currency (CAD, MXN, USD); the file's columns are USD, CAD, MXN
    want.rotate_left(1);
    assert_eq!(got, want, "{v}");
    assert_eq!(v["coverage"].as_array().unwrap().len(), 3, "{v}");
    // EUR is the base; a bad rate or day is refused and nothing changes
    for bad in [
        json!({"date": day, "currency": "EUR", "perEur": 1}),
        json!({"date": day, "currency": "USD", "perEur": 0}),
        json!({"date": "2026-12-32", "currency": "USD", "perEur": 1.1}),
        json!({"date": day, "currency": "USD", "perEur": "1.1234567"}),
    ] {
        let (s, v) = app
            .post(
                &writer,
                "/api/exchange-rates",
                json!({"source": "x", "rates": [bad.clone()]}),
            )
            .await;
        assert_eq!(s, 400, "{bad}: {v}");
    }
    // the reporting currency: USD until set, then the tenant's, logged
    let (_, v) = app.get(&writer, "/api/profit/settings").await;
    assert_eq!(
        (v["reportingCurrency"].as_str(), v["set"].as_bool()),
        (Some("USD"), Some(false)),
        "{v}"
    );
    let put = |body: Value| {
        let app = &app;
        let token = writer.clone();
        async move {
            let r = app
                .http
                .put(app.url("/api/profit/settings"))
                .bearer_auth(token)
                .json(&body)
                .send()
                .await
                .unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let (s, _) = put(json!({"reportingCurrency": "cad"})).await;
    assert_eq!(s, 400);
    let (s, v) = put(json!({"reportingCurrency": "CAD"})).await;
    assert_eq!(
        (s, v["reportingCurrency"].as_str(), v["set"].as_bool()),
        (200, Some("CAD"), Some(true)),
        "{v}"
    );
    let (_, log) = app.get(&writer, "/api/costs/changes").await;
    let whats: Vec<&str> = log["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["what"].as_str().unwrap())
        .collect();
    assert_eq!(
        whats,
        ["reporting_currency", "rates"],
        "one row per import, one per currency change: {log}"
    );
}

#[tokio::test]
async fn a_managed_warehouse_holds_a_copy_of_the_costs_and_rates_for_sql() {
    let mut o = Options::default();
    o.jobs.workers = 0;
    let app = TestApp::start_market_options(o).await;
    let c = app
        .credential(
            "omega",
            Some("account:read retail:read ads:read brand_analytics:read sql:query sync:write costs:write"),
        )
        .await;
    let token = app.token(&c).await;
    // the sync takes the connected merchants in as seller rows (no job runs: no worker)
    let (s, v) = app.post(&token, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{v}");
    let batch = json!({"periods": [period("SKU-A", "2026-01-01", json!(3)), period("SKU-A", "2026-07-01", json!("3.30"))]});
    let (s, v) = app.post(&token, "/api/costs", batch).await;
    assert_eq!(
        (s, v["warehouseCopy"].as_str()),
        (200, Some("updated")),
        "{v}"
    );
    let rates = json!({"source": "test", "rates": [{"date": "2026-11-20", "currency": "USD", "perEur": "1.0517"}]});
    let (s, v) = app.post(&token, "/api/exchange-rates", rates).await;
    assert_eq!(
        (s, v["warehouseCopy"].as_str()),
        (200, Some("updated")),
        "{v}"
    );
    let sql = "SELECT c.SKU, c.ValidFrom, c.ValidThrough, c.UnitCost + c.Freight + c.Duties AS landed, r.PerEuro
               FROM cost_period c JOIN seller s ON s.ID = c.SellerID CROSS JOIN exchange_rate r
               WHERE s.MarketplaceID = ? ORDER BY c.ValidFrom";
    let (s, v) = app
        .post(&token, "/api/query", json!({"sql": sql, "params": [US.1]}))
        .await;
    assert_eq!(s, 200, "{v}");
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2, "{v}");
    assert_eq!(rows[0]["ValidThrough"], "2026-06-30", "{v}");
    assert!(rows[1]["ValidThrough"].is_null(), "{v}");
    assert_eq!(rows[1]["landed"].as_f64(), Some(4.05), "{v}");
    // a removal leaves the copy with what the store holds
    let remove = json!({"remove": [{"sellerId": US.0, "marketplaceId": US.1, "sku": "SKU-A", "validFrom": "2026-07-01"}]});
    let (_, v) = app.post(&token, "/api/costs", remove).await;
    assert_eq!(v["warehouseCopy"], "updated", "{v}");
    let (_, v) = app
        .post(
            &token,
            "/api/query",
            json!({"sql": "SELECT COUNT(*) AS n FROM cost_period"}),
        )
        .await;
    assert_eq!(v["rows"][0]["n"], 1, "{v}");
}

#[tokio::test]
async fn the_costs_page_names_the_skus_without_a_cost_and_an_admin_enters_one() {
    use crate::signin_support::{Browser, PASSWORD, person};
    use pp_auth::Role;
    let app = TestApp::start().await;
    let reader = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let sold = missing(&app, &reader).await;
    let sku = sold["missing"][0]["sku"].as_str().unwrap().to_owned();

    // a member reads the page (the SKU is listed) but has no form, and cannot post one
    let member = person(&app, "mo@acme.example", Role::Member).await;
    let mut m = Browser::new(&app);
    m.sign_in(&member, PASSWORD).await;
    let page = m.get("/console/costs").await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        page.body.contains(&format!("<code>{sku}</code>")),
        "{}",
        page.body
    );
    assert!(!page.body.contains("class=\"cost-form\""), "{}", page.body);
    let csrf = m.csrf("/console/costs").await;
    let refused = m
        .post("/console/costs", &[("csrf", &csrf), ("sku", &sku)])
        .await;
    assert_eq!(refused.status, 403, "{}", refused.body);

    // an admin's bad amount changes nothing; a good one takes the SKU off the list
    let admin = person(&app, "ana@acme.example", Role::Admin).await;
    let mut b = Browser::new(&app);
    b.sign_in(&admin, PASSWORD).await;
    let form = |csrf: &str, unit: &str| -> Vec<(String, String)> {
        [
            ("csrf", csrf),
            ("sellerId", US.0),
            ("marketplaceId", US.1),
            ("sku", sku.as_str()),
            ("currency", "USD"),
            ("validFrom", "2026-01-01"),
            ("unitCost", unit),
            ("freight", "0.30"),
            ("duties", "0"),
        ]
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
    };
    let csrf = b.csrf("/console/costs").await;
    let f = form(&csrf, "4.999");
    let pairs: Vec<(&str, &str)> = f.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let page = b.post("/console/costs", &pairs).await;
    assert_eq!(page.status, 400, "{}", page.body);
    assert!(page.body.contains("Nothing was changed"), "{}", page.body);
    assert!(held(&app, &reader).await.is_empty());
    let csrf = b.csrf("/console/costs").await;
    let f = form(&csrf, "4.99");
    let pairs: Vec<(&str, &str)> = f.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let page = b.post("/console/costs", &pairs).await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert!(
        !page.body.contains(&format!("<code>{sku}</code>")),
        "the SKU left the list: {}",
        page.body
    );
    assert!(
        page.body.contains("ana@acme.example"),
        "the change is shown with its author: {}",
        page.body
    );
    let p = held(&app, &reader).await;
    assert_eq!(
        (p.len(), p[0]["updatedBy"].as_str()),
        (1, Some("ana@acme.example")),
        "{p:?}"
    );
}

#[tokio::test]
async fn v1_profit_is_a_daily_series_whose_margins_wait_for_costs() {
    let app = TestApp::start().await;
    let t = app
        .token(&app.credential("acme", Some("retail:read")).await)
        .await;
    let path = "/v1/profit?account_id=acme:1&start_date=2026-11-01&end_date=2026-11-21";
    let (s, v) = app.get(&t, path).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["series"].as_array().unwrap().len(), 21, "{v}");
    assert!(
        !v["missing_costs"].as_array().unwrap().is_empty(),
        "no costs yet: {v}"
    );
    assert!(
        v["totals"]["cm1"].is_null() && v["totals"]["net_sales"]["amount"].as_f64().unwrap() > 0.0,
        "{v}"
    );
    // the world's costs and rates entered: every day has its margins, and its status
    let acme = pp_core::TenantId::parse("acme").unwrap();
    let dir = app.store.default_warehouse_path(&acme);
    pp_profit::seed::from_world(&app.store, &acme, dir.parent().unwrap())
        .await
        .unwrap();
    let (_, v) = app.get(&t, path).await;
    assert_eq!(v["missing_costs"], serde_json::json!([]), "{v}");
    assert_eq!(v["totals"]["cm3"]["currency"], "USD", "{v}");
    let statuses: std::collections::BTreeSet<&str> = v["series"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["status"].as_str().unwrap())
        .collect();
    assert!(
        statuses.contains("settled") && statuses.contains("estimated"),
        "{statuses:?}"
    );
    let cm = |k: &str| v["totals"][k]["amount"].as_f64().unwrap();
    assert!(cm("cm1") > cm("cm2") && cm("net_sales") > cm("cm1"), "{v}");
    // a vendor has no P&L of its own; a reader without retail:read is refused
    let (_, v) = app.get(&t, "/v1/profit?account_id=acme:4").await;
    assert_eq!(v["availability"]["status"], "no_data", "{v}");
    let ads = app
        .token(&app.credential("acme", Some("ads:read")).await)
        .await;
    let (s, _) = app.get(&ads, path).await;
    assert_eq!(s, 403);
}
