//! Reporting v3 for every ad product at every grain the warehouse keeps: each report's daily
//! rows add up, to the cent, to the world's table for that product, profile and day; each ad
//! product keeps its own lookback and names its attributed metrics its own way.

use std::collections::BTreeMap;
use std::time::Duration as Wait;

use chrono::{Duration, NaiveDate};

use pp_marketplace::documents::ads::{AdsRow, v3};
use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Ads, SELLER, SimApp, US_PROFILE};

const CREATE: &str = "application/vnd.createasyncreportrequest.v3+json";

/// Creates a v3 report, polls it to COMPLETED and reads its rows.
async fn rows_of(a: &Ads<'_>, body: Value) -> Vec<AdsRow> {
    let (s, _, r) = a
        .call(Method::POST, "/reporting/reports", CREATE, body)
        .await;
    assert_eq!(s, 200, "{r}");
    let id = r["reportId"].as_str().unwrap().to_owned();
    let done = loop {
        let (_, _, r) = a
            .call(
                Method::GET,
                &format!("/reporting/reports/{id}"),
                "application/json",
                json!(null),
            )
            .await;
        if r["status"] == "COMPLETED" {
            break r;
        }
        assert_ne!(r["status"], "FAILED", "{r}");
        tokio::time::sleep(Wait::from_millis(20)).await;
    };
    let text = a.app.download_gz(done["url"].as_str().unwrap()).await;
    v3(&text).unwrap()
}

/// Per day: impressions, clicks, cost, purchases and sales (money in cents).
type Days = BTreeMap<String, [i64; 5]>;

/// The windows of at most 31 days that cover `first..=last`.
fn windows(first: NaiveDate, last: NaiveDate) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut start = first;
    while start <= last {
        let end = (start + Duration::days(30)).min(last);
        out.push((start.to_string(), end.to_string()));
        start = end + Duration::days(1);
    }
    out
}

/// Issue 53: Sponsored Brands and Display beside Products, at the warehouse's grains, for
/// every day of each ad product's lookback.
#[tokio::test]
async fn every_ad_product_and_grain_adds_up_to_the_world_by_day() {
    let app = SimApp::small(|c| c.report_ms = 30).await;
    app.no_limits().await;
    let a = Ads::login(&app, SELLER).await;
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let last = today - Duration::days(1);
    for (id, product, groups, table) in [
        (
            "spCampaigns",
            "SPONSORED_PRODUCTS",
            json!(["campaign"]),
            "ads_campaign_daily",
        ),
        (
            "spCampaigns",
            "SPONSORED_PRODUCTS",
            json!(["campaign", "adGroup"]),
            "ads_ad_group_daily",
        ),
        (
            "spTargeting",
            "SPONSORED_PRODUCTS",
            json!(["targeting"]),
            "ads_targeting_daily",
        ),
        (
            "spSearchTerm",
            "SPONSORED_PRODUCTS",
            json!(["searchTerm"]),
            "ads_search_term_daily",
        ),
        (
            "spAdvertisedProduct",
            "SPONSORED_PRODUCTS",
            json!(["advertiser"]),
            "ads_advertised_product_daily",
        ),
        (
            "sbCampaigns",
            "SPONSORED_BRANDS",
            json!(["campaign"]),
            "ads_campaign_daily",
        ),
        (
            "sbAdGroup",
            "SPONSORED_BRANDS",
            json!(["adGroup"]),
            "ads_ad_group_daily",
        ),
        (
            "sbTargeting",
            "SPONSORED_BRANDS",
            json!(["targeting"]),
            "ads_targeting_daily",
        ),
        (
            "sdCampaigns",
            "SPONSORED_DISPLAY",
            json!(["campaign"]),
            "ads_campaign_daily",
        ),
        (
            "sdAdGroup",
            "SPONSORED_DISPLAY",
            json!(["adGroup"]),
            "ads_ad_group_daily",
        ),
        (
            "sdTargeting",
            "SPONSORED_DISPLAY",
            json!(["targeting"]),
            "ads_targeting_daily",
        ),
    ] {
        let (purchases, sales) = if product == "SPONSORED_PRODUCTS" {
            ("purchases7d", "sales7d")
        } else {
            ("purchases", "sales")
        };
        let lookback = match product {
            "SPONSORED_BRANDS" => 60,
            "SPONSORED_DISPLAY" => 65,
            _ => 95,
        };
        let mut rows = Vec::new();
        for (start, end) in windows(today - Duration::days(lookback), last) {
            rows.extend(
                rows_of(
                    &a,
                    json!({
                        "startDate": start, "endDate": end,
                        "configuration": {
                            "adProduct": product, "groupBy": groups, "reportTypeId": id,
                            "columns": ["date", "impressions", "clicks", "cost", purchases, sales],
                            "timeUnit": "DAILY", "format": "GZIP_JSON"
                        }
                    }),
                )
                .await,
            );
        }
        let mut served = Days::new();
        for r in &rows {
            let d = served.entry(r.date.unwrap().to_string()).or_default();
            d[0] += r.impressions;
            d[1] += r.clicks;
            d[2] += r.cost;
            d[3] += r.purchases;
            d[4] += r.sales;
        }
        let filter = if table.contains("search_term") || table.contains("advertised") {
            String::new()
        } else {
            format!(" AND AdProduct = '{product}'")
        };
        let mut st = world
            .prepare(&format!(
                "SELECT Date, SUM(Impressions), SUM(Clicks), CAST(ROUND(SUM(Cost) * 100) AS INTEGER),
                        SUM(Purchases7d), CAST(ROUND(SUM(Sales7d) * 100) AS INTEGER)
                 FROM {table} WHERE ProfileID = {US_PROFILE} AND Date >= ?1{filter}
                 GROUP BY Date"
            ))
            .unwrap();
        let truth: Days = st
            .query_map([(today - Duration::days(lookback)).to_string()], |r| {
                Ok((
                    r.get(0)?,
                    [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?],
                ))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert!(
            truth.len() as i64 >= lookback - 5,
            "{id} {groups}: the world has its days"
        );
        assert_eq!(served, truth, "{id} {groups}");
    }
    // each product's own lookback: 60 days for Brands, 95 for Products
    let far = |id: &str, product: &str| {
        json!({
            "startDate": "2026-09-01", "endDate": "2026-09-10",
            "configuration": {"adProduct": product, "groupBy": ["campaign"], "reportTypeId": id,
                              "columns": ["date", "clicks"], "timeUnit": "DAILY", "format": "GZIP_JSON"}
        })
    };
    let (s, _, b) = a
        .call(
            Method::POST,
            "/reporting/reports",
            CREATE,
            far("sbCampaigns", "SPONSORED_BRANDS"),
        )
        .await;
    assert_eq!(s, 400, "{b}");
    assert!(b["detail"].as_str().unwrap().contains("60-day"), "{b}");
    let (s, _, b) = a
        .call(
            Method::POST,
            "/reporting/reports",
            CREATE,
            far("spCampaigns", "SPONSORED_PRODUCTS"),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    // a type asked for under another ad product, or at a grain it does not have, is refused
    let mut wrong = far("sdCampaigns", "SPONSORED_BRANDS");
    wrong["startDate"] = "2026-11-01".into();
    wrong["endDate"] = "2026-11-02".into();
    let (s, _, _) = a
        .call(Method::POST, "/reporting/reports", CREATE, wrong.clone())
        .await;
    assert_eq!(s, 400);
    wrong["configuration"]["adProduct"] = "SPONSORED_DISPLAY".into();
    wrong["configuration"]["groupBy"] = json!(["searchTerm"]);
    let (s, _, b) = a
        .call(Method::POST, "/reporting/reports", CREATE, wrong)
        .await;
    assert_eq!(s, 400);
    assert!(b["detail"].as_str().unwrap().contains("groupBy"), "{b}");
}
