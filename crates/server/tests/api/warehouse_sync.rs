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

/// Waits until every dataset of the tenant is `synced` (or `unavailable`); the last status.
async fn until_synced(app: &TestApp, token: &str, limit: Duration) -> Value {
    let began = Instant::now();
    loop {
        let (s, b) = app.get(token, "/api/warehouse/sync").await;
        assert_eq!(s, 200, "{b}");
        let rows = b["datasets"].as_array().unwrap();
        if !rows.is_empty()
            && rows
                .iter()
                .all(|r| r["state"] == "synced" || r["state"] == "unavailable")
        {
            return b;
        }
        assert!(began.elapsed() < limit, "not synced after {limit:?}: {b:#}");
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// Which rows of a table to compare: one seller's, over `from..=to`, of one ad product in a
/// table that holds several.
struct Rows<'a> {
    table: &'a str,
    seller: i64,
    from: &'a str,
    to: &'a str,
    product: Option<&'a str>,
}

/// The rows, every column but the seller id (`cols` overrides), as text in a total order.
fn rows(path: &std::path::Path, r: &Rows<'_>, cols: Option<&str>) -> Vec<String> {
    let all: Vec<&str> = pp_world::schema::table(r.table)
        .columns
        .iter()
        .map(|c| c.name)
        .filter(|c| *c != "SellerID")
        .collect();
    let cols = cols.map_or_else(
        || {
            all.iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        },
        str::to_owned,
    );
    let order: Vec<String> = (1..=all.len()).map(|i| i.to_string()).collect();
    let c = rusqlite::Connection::open(path).unwrap();
    let date = if r.table == "spapi_brand_analytics_sqp" {
        "WeekStart"
    } else {
        "Date"
    };
    let product = match r.product {
        Some(_) => "AND AdProduct = ?4",
        None => "AND ?4 IS NULL",
    };
    let sql = format!(
        "SELECT {cols} FROM {} WHERE SellerID = ?1 AND {date} BETWEEN ?2 AND ?3 {product} ORDER BY {}",
        r.table,
        order.join(", ")
    );
    let mut st = c.prepare(&sql).unwrap();
    let n = st.column_count();
    st.query_map(
        rusqlite::params![r.seller, r.from, r.to, r.product],
        |row| {
            Ok((0..n)
                .map(|i| format!("{:?}", row.get_ref(i).unwrap()))
                .collect::<Vec<_>>()
                .join("|"))
        },
    )
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

/// Both warehouses' rows are the same, and there are some.
fn same_rows(
    world: &std::path::Path,
    synced: &std::path::Path,
    (w, o): (i64, i64),
    r: Rows<'_>,
    cols: Option<&str>,
) {
    let a = rows(world, &Rows { seller: w, ..r }, cols);
    let b = rows(synced, &Rows { seller: o, ..r }, cols);
    assert!(
        !a.is_empty(),
        "{} of seller {w} has rows to compare",
        r.table
    );
    assert_eq!(
        a.len(),
        b.len(),
        "{} {:?} of seller {w}",
        r.table,
        r.product
    );
    if let Some(i) = (0..a.len()).find(|&i| a[i] != b[i]) {
        panic!(
            "{} {:?} of seller {w} differs:\n{}\n{}",
            r.table, r.product, a[i], b[i]
        );
    }
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
    let (datasets, vendor): (Vec<&Value>, Vec<&Value>) = status["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .partition(|r| r["merchant"]["sellerId"] != "ENTITY2DEMOVENDOR");
    // per seller: sales and traffic, and eleven advertising reports; the vendor's login has
    // no sponsored ads profile, and its advertising datasets say so
    assert_eq!(datasets.len(), 3 * 12, "{status:#}");
    assert_eq!(vendor.len(), 11, "{status:#}");
    for r in vendor {
        assert_eq!(r["state"], "unavailable", "{r}");
        assert!(r["note"].as_str().unwrap().contains("no profile"), "{r}");
    }
    for r in datasets {
        let lookback = r["lookbackDays"].as_i64().unwrap();
        let first = chrono::NaiveDate::from_ymd_opt(2026, 11, 22).unwrap()
            - chrono::Days::new(lookback as u64);
        assert_eq!(r["coveredFrom"], first.to_string(), "{r}");
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
    // the price a day's units say; a day without units names none
    let by_asin = "MarketplaceSellerID, Date, ParentASIN, ChildASIN, SKU, CASE WHEN UnitsOrdered > 0 THEN ItemPrice END, OrderedProductSales, UnitsOrdered, TotalOrderItems, Sessions, PageViews, BuyBoxPercentage, Currency";
    // each advertising table over its ad product's lookback (95, 60 and 65 days)
    let ads: [(&str, &str, Option<&str>); 11] = [
        (
            "ads_campaign_daily",
            "2026-08-19",
            Some("SPONSORED_PRODUCTS"),
        ),
        (
            "ads_ad_group_daily",
            "2026-08-19",
            Some("SPONSORED_PRODUCTS"),
        ),
        (
            "ads_targeting_daily",
            "2026-08-19",
            Some("SPONSORED_PRODUCTS"),
        ),
        ("ads_search_term_daily", "2026-08-19", None),
        ("ads_advertised_product_daily", "2026-08-19", None),
        ("ads_campaign_daily", "2026-09-23", Some("SPONSORED_BRANDS")),
        ("ads_ad_group_daily", "2026-09-23", Some("SPONSORED_BRANDS")),
        (
            "ads_targeting_daily",
            "2026-09-23",
            Some("SPONSORED_BRANDS"),
        ),
        (
            "ads_campaign_daily",
            "2026-09-18",
            Some("SPONSORED_DISPLAY"),
        ),
        (
            "ads_ad_group_daily",
            "2026-09-18",
            Some("SPONSORED_DISPLAY"),
        ),
        (
            "ads_targeting_daily",
            "2026-09-18",
            Some("SPONSORED_DISPLAY"),
        ),
    ];
    for &pair in &pairs {
        let retail = |table| Rows {
            table,
            seller: 0,
            from,
            to,
            product: None,
        };
        same_rows(
            &world,
            &synced,
            pair,
            retail("spapi_sales_and_traffic_by_date"),
            None,
        );
        same_rows(
            &world,
            &synced,
            pair,
            retail("spapi_sales_and_traffic_by_asin"),
            Some(by_asin),
        );
        for (table, from, product) in ads {
            same_rows(
                &world,
                &synced,
                pair,
                Rows {
                    table,
                    seller: 0,
                    from,
                    to,
                    product,
                },
                None,
            );
        }
    }

    // and /v1 answers the same for each seller
    let windows: [(&str, &[(&str, &str)]); 3] = [
        // retail: the two years of the lookback (a /v1 window is at most 366 days), quarters
        (
            "/v1/retail/sales",
            &[
                (from, "2025-11-21"),
                ("2025-11-22", to),
                ("2025-07-01", "2025-09-30"),
                ("2026-07-01", "2026-09-30"),
            ],
        ),
        // advertising: within the shortest lookback of the products a campaign page mixes
        (
            "/v1/ads/campaign-performance",
            &[("2026-09-23", to), ("2026-11-01", "2026-11-07")],
        ),
        (
            "/v1/ads/search-terms",
            &[("2026-08-19", to), ("2026-10-01", "2026-10-31")],
        ),
    ];
    for &(w, o) in &pairs {
        for (path, spans) in windows {
            let paths: &[&str] = match path {
                "/v1/retail/sales" => &["/v1/retail/sales", "/v1/retail/traffic"],
                p => &[p][..],
            };
            for path in paths {
                for (s, e) in spans {
                    let q = |tenant: &str, id: i64| {
                        format!("{path}?account_id={tenant}:{id}&start_date={s}&end_date={e}")
                    };
                    let (s1, mut x) = app.get(&acme, &q("acme", w)).await;
                    let (s2, mut y) = app.get(&t, &q("omega", o)).await;
                    assert_eq!((s1, s2), (200, 200), "{x} {y}");
                    for v in [&mut x, &mut y] {
                        let m = v.as_object_mut().unwrap();
                        m.remove("account");
                        m.remove("account_id");
                    }
                    assert_eq!(x, y, "{path} for seller {w}, {s}..{e}");
                }
            }
        }
    }
}
