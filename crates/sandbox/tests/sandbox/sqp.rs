//! Brand analytics search query performance by week: the ASIN rows of every query add up to
//! the world's brand figures, the totals are the marketplace's, and only merchants with brand
//! analytics may ask, for whole weeks.

use std::collections::BTreeMap;

use pp_marketplace::documents::selling::search_query_performance;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US};
use crate::spapi_reports::{create, document_of};

const SQP: &str = "GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT";

fn request(market: &str, asins: &[String], start: &str, end: &str) -> Value {
    json!({
        "reportType": SQP,
        "marketplaceIds": [market],
        "dataStartTime": start,
        "dataEndTime": end,
        "reportOptions": {"reportPeriod": "WEEK", "asin": asins.join(" ")}
    })
}

/// Issue 53: the weekly search query performance, to the unit, for every week within reach.
#[tokio::test]
async fn search_query_performance_adds_up_to_the_worlds_brand_figures() {
    let app = SimApp::small(|_| {}).await;
    app.no_limits().await;
    let token = app.access("seller", SELLER).await;
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let asins: Vec<String> = world
        .prepare("SELECT ASIN FROM catalog_item WHERE SellerID = 1 ORDER BY ASIN")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    // every week of the two-year reach, the ASINs in requests of at most 200 characters
    let (start, end) = ("2024-11-24", "2026-11-21");
    let mut served: BTreeMap<(String, String), [i64; 8]> = BTreeMap::new();
    for chunk in asins.chunks(15) {
        let doc: Value =
            serde_json::from_str(&document_of(&app, &token, request(US, chunk, start, end)).await)
                .unwrap();
        for r in search_query_performance(&doc).unwrap() {
            assert!(chunk.contains(&r.asin));
            let e = served
                .entry((r.week_start.to_string(), r.query.clone()))
                .or_default();
            e[0] = r.volume;
            e[1] = r.impressions.0;
            e[2] += r.impressions.1;
            e[3] = r.clicks.0;
            e[4] += r.clicks.1;
            e[5] = r.cart_adds.0;
            e[6] += r.cart_adds.1;
            e[7] += r.purchases.1;
        }
    }
    let mut st = world
        .prepare(
            "SELECT WeekStart, SearchQuery, SearchQueryVolume, ImpressionsTotal, ImpressionsBrand,
                    ClicksTotal, ClicksBrand, CartAddsTotal, CartAddsBrand, PurchasesBrand
             FROM spapi_brand_analytics_sqp WHERE SellerID = 1 AND WeekStart >= ?1 AND WeekEnd <= ?2",
        )
        .unwrap();
    let truth: BTreeMap<(String, String), [i64; 8]> = st
        .query_map([start, end], |r| {
            Ok((
                (r.get(0)?, r.get(1)?),
                [
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                    r.get(9)?,
                ],
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(truth.len(), 104 * 9, "104 weeks of nine queries");
    assert_eq!(served, truth);
    // refused: a week that is not Sunday to Saturday, no ASINs, a seller without brand analytics
    let mx = app.access("seller", "A1DEMOSELLERMX").await;
    for (who, body) in [
        (&token, request(US, &asins[..2], "2026-10-26", "2026-11-21")),
        (&token, request(US, &asins[..2], "2024-11-17", "2026-11-21")),
        (&token, request(US, &[], start, end)),
        (&mx, request("A1AM78C64UM0Y8", &asins[..2], start, end)),
    ] {
        let (s, b) = create(&app, who, body.clone()).await;
        assert_eq!(s, 400, "{body} → {b}");
    }
}
