//! Warehouse sync: a managed tenant (`omega`, an empty warehouse) connected to the sandbox over
//! acme's world fills itself, and then answers like acme's generated warehouse over every day
//! the provider's lookback lets a sync read.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{Options, TestApp};

/// A market app whose sandbox makes reports at once and enforces no usage plans.
async fn quick_market() -> TestApp {
    TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        report_ms: 0,
        ..Options::default()
    })
    .await
}

/// Waits until every dataset of the tenant is `synced`; the last status.
async fn until_synced(app: &TestApp, token: &str, limit: Duration) -> Value {
    let began = Instant::now();
    loop {
        let (s, b) = app.get(token, "/api/warehouse/sync").await;
        assert_eq!(s, 200, "{b}");
        let rows = b["datasets"].as_array().unwrap();
        if !rows.is_empty() && rows.iter().all(|r| r["state"] == "synced") {
            return b;
        }
        assert!(began.elapsed() < limit, "not synced after {limit:?}: {b:#}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Every row of one seller's `table` with `Date` in `from..=to`, as text, in a stable order.
fn rows(
    path: &std::path::Path,
    table: &str,
    cols: &str,
    seller: i64,
    from: &str,
    to: &str,
) -> Vec<String> {
    let c = rusqlite::Connection::open(path).unwrap();
    let sql = format!(
        "SELECT {cols} FROM {table} WHERE SellerID = ?1 AND Date BETWEEN ?2 AND ?3 ORDER BY 2, 3, 4, 5"
    );
    let mut st = c.prepare(&sql).unwrap();
    let n = st.column_count();
    st.query_map(rusqlite::params![seller, from, to], |r| {
        Ok((0..n)
            .map(|i| format!("{:?}", r.get_ref(i).unwrap()))
            .collect::<Vec<_>>()
            .join("|"))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[tokio::test]
async fn a_managed_tenant_synced_from_the_sandbox_answers_like_the_generated_warehouse() {
    let app = quick_market().await;
    let omega = app.credential("omega", None).await;
    let t = app.token(&omega).await;
    let acme = app.token(&app.acme).await;

    // an external warehouse is not the gateway's to fill
    let (s, b) = app.get(&acme, "/api/warehouse/sync").await;
    assert_eq!((s, b["warehouse"].as_str()), (200, Some("external")), "{b}");
    let (s, b) = app.post(&acme, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 400, "{b}");

    let (s, b) = app.post(&t, "/api/warehouse/sync", json!({})).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["warehouse"], "managed");
    let status = until_synced(&app, &t, Duration::from_secs(600)).await;
    assert_eq!(
        status["datasets"].as_array().unwrap().len(),
        3,
        "one dataset per seller: {status:#}"
    );
    for r in status["datasets"].as_array().unwrap() {
        assert_eq!(r["coveredFrom"], "2024-11-22", "{r}");
        assert_eq!(r["dataThrough"], "2026-11-21", "{r}");
        assert!(r["lastError"].is_null(), "{r}");
    }

    // the seller rows (numbered in the order they were connected) and every
    // sales-and-traffic row of the lookback, exactly
    let (world, synced) = (app.warehouse_file("acme"), app.warehouse_file("omega"));
    let sellers = |path: &std::path::Path| -> Vec<(i64, String)> {
        let c = rusqlite::Connection::open(path).unwrap();
        c.prepare("SELECT ID, MarketplaceSellerID || '|' || Name || '|' || AccountType || '|' || Marketplace || '|' || MarketplaceID || '|' || Currency FROM seller WHERE AccountType = 'seller' ORDER BY 2")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let (theirs, ours) = (sellers(&world), sellers(&synced));
    assert_eq!(
        theirs.iter().map(|s| &s.1).collect::<Vec<_>>(),
        ours.iter().map(|s| &s.1).collect::<Vec<_>>()
    );
    let pairs: Vec<(i64, i64)> = theirs.iter().zip(&ours).map(|(a, b)| (a.0, b.0)).collect();
    let (from, to) = ("2024-11-22", "2026-11-21");
    let by_date = "MarketplaceSellerID, Date, OrderedProductSales, UnitsOrdered, TotalOrderItems, Sessions, PageViews, BuyBoxPercentage, Currency";
    // the price a day's units say; a day without units names none
    let by_asin = "MarketplaceSellerID, Date, ParentASIN, ChildASIN, SKU, CASE WHEN UnitsOrdered > 0 THEN ItemPrice END, OrderedProductSales, UnitsOrdered, TotalOrderItems, Sessions, PageViews, BuyBoxPercentage, Currency";
    for (table, cols) in [
        ("spapi_sales_and_traffic_by_date", by_date),
        ("spapi_sales_and_traffic_by_asin", by_asin),
    ] {
        for &(w, o) in &pairs {
            let (a, b) = (
                rows(&world, table, cols, w, from, to),
                rows(&synced, table, cols, o, from, to),
            );
            assert!(!a.is_empty());
            assert_eq!(a.len(), b.len(), "{table} of seller {w}");
            assert!(a == b, "{table} of seller {w} differs");
        }
    }

    // and /v1 answers the same for each seller
    for &(w, o) in &pairs {
        // the two years of the lookback (a /v1 window is at most 366 days), and two quarters
        let windows = [
            (from, "2025-11-21"),
            ("2025-11-22", to),
            ("2025-07-01", "2025-09-30"),
            ("2026-07-01", "2026-09-30"),
        ];
        for (s, e) in windows {
            for path in ["/v1/retail/sales", "/v1/retail/traffic"] {
                let q = |tenant: &str, id: i64| {
                    format!("{path}?account_id={tenant}:{id}&start_date={s}&end_date={e}")
                };
                let (s1, mut x) = app.get(&acme, &q("acme", w)).await;
                let (s2, mut y) = app.get(&t, &q("omega", o)).await;
                assert_eq!((s1, s2), (200, 200), "{x} {y}");
                for v in [&mut x, &mut y] {
                    v.as_object_mut().unwrap().remove("account");
                    v.as_object_mut().unwrap().remove("account_id");
                }
                assert_eq!(x, y, "{path} for seller {w}, {s}..{e}");
            }
        }
    }
}
