//! Reports 2021-06-30: the status walk, FATAL under a fault, cancellation, listing with
//! `nextToken`, and documents behind presigned URLs whose totals match the world.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US, parts};

pub(crate) async fn create(app: &SimApp, token: &str, body: Value) -> (u16, Value) {
    let (s, _, b) = parts(
        app.sp(Method::POST, "/reports/2021-06-30/reports", token)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    (s, b)
}

/// getReport, waiting out the usage plan (2/s, burst 15) as a polite client does.
async fn get(app: &SimApp, token: &str, id: &str) -> Value {
    loop {
        let (s, _, b) = parts(
            app.sp(
                Method::GET,
                &format!("/reports/2021-06-30/reports/{id}"),
                token,
            )
            .send()
            .await
            .unwrap(),
        )
        .await;
        if s != 429 {
            return b;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

pub(crate) async fn wait_for_end(app: &SimApp, token: &str, id: &str) -> Value {
    let mut seen = Vec::new();
    loop {
        let r = get(app, token, id).await;
        let status = r["processingStatus"].as_str().unwrap().to_owned();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        if ["DONE", "FATAL", "CANCELLED"].contains(&status.as_str()) {
            return json!({ "report": r, "seen": seen });
        }
        tokio::time::sleep(Duration::from_millis(150)).await;
    }
}

fn sales_request() -> Value {
    json!({
        "reportType": "GET_SALES_AND_TRAFFIC_REPORT",
        "marketplaceIds": [US],
        "dataStartTime": "2026-10-01T00:00:00Z",
        "dataEndTime": "2026-10-31T00:00:00Z",
        "reportOptions": {"dateGranularity": "DAY", "asinGranularity": "CHILD"}
    })
}

#[tokio::test]
async fn a_report_walks_to_done_and_its_document_matches_the_world() {
    let app = SimApp::start_with(|c| c.report_ms = 1500).await;
    let token = app.access("seller", SELLER).await;
    let (s, b) = create(&app, &token, sales_request()).await;
    assert_eq!(s, 202);
    let id = b["reportId"].as_str().unwrap().to_owned();
    let end = wait_for_end(&app, &token, &id).await;
    assert_eq!(end["seen"], json!(["IN_QUEUE", "IN_PROGRESS", "DONE"]));
    let doc_id = end["report"]["reportDocumentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (s, _, doc) = parts(
        app.sp(
            Method::GET,
            &format!("/reports/2021-06-30/documents/{doc_id}"),
            &token,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(doc["compressionAlgorithm"], "GZIP");
    let url = doc["url"].as_str().unwrap();
    // the presigned URL refuses a second auth mechanism
    let r = app
        .http
        .get(url)
        .header("authorization", "Bearer x")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let text = app.download_gz(url).await;
    let report: Value = serde_json::from_str(&text).unwrap();
    let days = report["salesAndTrafficByDate"].as_array().unwrap();
    assert_eq!(days.len(), 31);
    let units: i64 = days
        .iter()
        .map(|d| d["salesByDate"]["unitsOrdered"].as_i64().unwrap())
        .sum();
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let expected: i64 = world
        .query_row(
            "SELECT SUM(UnitsOrdered) FROM spapi_sales_and_traffic_by_date WHERE SellerID = 1 AND Date BETWEEN '2026-10-01' AND '2026-10-31'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(units, expected);
    let asin_units: i64 = report["salesAndTrafficByAsin"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["salesByAsin"]["unitsOrdered"].as_i64().unwrap())
        .sum();
    assert_eq!(
        asin_units, expected,
        "by-ASIN totals add up to the by-date totals"
    );
    // another seller cannot read it
    let other = app.access("seller", "A1DEMOSELLERMX").await;
    assert_eq!(
        app.sp(
            Method::GET,
            &format!("/reports/2021-06-30/reports/{id}"),
            &other
        )
        .send()
        .await
        .unwrap()
        .status(),
        404
    );
}

#[tokio::test]
async fn presigned_urls_expire() {
    let app = SimApp::start_with(|c| c.document_ttl_secs = 1).await;
    let token = app.access("seller", SELLER).await;
    let id = create(&app, &token, sales_request()).await.1["reportId"]
        .as_str()
        .unwrap()
        .to_owned();
    let doc_id = wait_for_end(&app, &token, &id).await["report"]["reportDocumentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let doc = parts(
        app.sp(
            Method::GET,
            &format!("/reports/2021-06-30/documents/{doc_id}"),
            &token,
        )
        .send()
        .await
        .unwrap(),
    )
    .await
    .2;
    let url = doc["url"].as_str().unwrap().to_owned();
    assert_eq!(app.http.get(&url).send().await.unwrap().status(), 200);
    assert_eq!(
        app.http
            .get(url.replace("Signature=", "Signature=0"))
            .send()
            .await
            .unwrap()
            .status(),
        403
    );
    tokio::time::sleep(Duration::from_millis(2100)).await;
    assert_eq!(app.http.get(&url).send().await.unwrap().status(), 403);
}

#[tokio::test]
async fn fatal_and_cancelled_reports_and_bad_requests() {
    let app = SimApp::start_with(|c| c.report_ms = 1500).await;
    let token = app.access("seller", SELLER).await;
    app.faults(json!([{"op": "reports.createReport", "effect": "fatal_report", "times": 1}]))
        .await;
    let id = create(&app, &token, sales_request()).await.1["reportId"]
        .as_str()
        .unwrap()
        .to_owned();
    let end = wait_for_end(&app, &token, &id).await;
    assert_eq!(end["report"]["processingStatus"], "FATAL");
    assert!(end["report"].get("reportDocumentId").is_none());

    let id = create(&app, &token, sales_request()).await.1["reportId"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = app
        .sp(
            Method::DELETE,
            &format!("/reports/2021-06-30/reports/{id}"),
            &token,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        get(&app, &token, &id).await["processingStatus"],
        "CANCELLED"
    );

    let (s, b) = create(
        &app,
        &token,
        json!({"reportType": "GET_NO_SUCH_REPORT", "marketplaceIds": [US]}),
    )
    .await;
    assert_eq!(s, 400);
    assert_eq!(b["errors"][0]["code"], "InvalidInput");
    let (s, _) = create(&app, &token, json!({"reportType": "GET_MERCHANT_LISTINGS_ALL_DATA", "marketplaceIds": ["A1AM78C64UM0Y8"]})).await;
    assert_eq!(s, 400, "the seller does not sell in MX under this token");
}

#[tokio::test]
async fn get_reports_pages_with_a_token_that_must_travel_alone() {
    let app = SimApp::start().await;
    let token = app.access("seller", SELLER).await;
    for _ in 0..3 {
        create(
            &app,
            &token,
            json!({"reportType": "GET_MERCHANT_LISTINGS_ALL_DATA", "marketplaceIds": [US]}),
        )
        .await;
    }
    let list = |q: &str| {
        app.sp(
            Method::GET,
            &format!("/reports/2021-06-30/reports?{q}"),
            &token,
        )
        .send()
    };
    let (s, _, page) = parts(
        list("reportTypes=GET_MERCHANT_LISTINGS_ALL_DATA&pageSize=2")
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(page["reports"].as_array().unwrap().len(), 2);
    let next = page["nextToken"].as_str().unwrap();
    let enc: String = form_urlencoded::byte_serialize(next.as_bytes()).collect();
    let (s, _, _) = parts(list(&format!("nextToken={enc}&pageSize=2")).await.unwrap()).await;
    assert_eq!(s, 400, "nextToken must be the only parameter");
    let (_, _, rest) = parts(list(&format!("nextToken={enc}")).await.unwrap()).await;
    assert_eq!(rest["reports"].as_array().unwrap().len(), 1);
    assert!(rest.get("nextToken").is_none());
}

/// Creates the report `request` asks for, waits for it to end, and reads its document as
/// text (un-gzipped); panics unless it ends `DONE`.
pub(crate) async fn document_of(app: &SimApp, token: &str, request: Value) -> String {
    let (s, b) = create(app, token, request).await;
    assert_eq!(s, 202, "{b}");
    let id = b["reportId"].as_str().unwrap().to_owned();
    let end = wait_for_end(app, token, &id).await;
    assert_eq!(end["report"]["processingStatus"], "DONE", "{end}");
    let doc_id = end["report"]["reportDocumentId"].as_str().unwrap();
    let (s, _, doc) = parts(
        app.sp(
            Method::GET,
            &format!("/reports/2021-06-30/documents/{doc_id}"),
            token,
        )
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(s, 200, "{doc}");
    app.download_gz(doc["url"].as_str().unwrap()).await
}

/// Issue 53: sales and traffic for every day of the two years the report reaches: by date
/// in monthly requests, and by child ASIN in one-day requests, to the cent of the world.
#[tokio::test]
async fn sales_and_traffic_add_up_to_the_world_for_every_day_within_reach() {
    use chrono::{Duration as Days, NaiveDate};
    use pp_marketplace::documents::selling::{SalesFigures, sales_and_traffic};
    use std::collections::BTreeMap;
    let app = SimApp::small(|c| c.report_ms = 10).await;
    app.no_limits().await;
    let token = app.access("seller", SELLER).await;
    let request = |start: NaiveDate, end: NaiveDate| {
        json!({
            "reportType": "GET_SALES_AND_TRAFFIC_REPORT", "marketplaceIds": [US],
            "dataStartTime": format!("{start}T00:00:00Z"), "dataEndTime": format!("{end}T00:00:00Z"),
            "reportOptions": {"dateGranularity": "DAY", "asinGranularity": "CHILD"}
        })
    };
    let figures = |f: &SalesFigures| {
        [
            f.sales,
            f.units,
            f.order_items,
            f.sessions,
            f.page_views,
            f.buy_box,
        ]
    };
    let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
    let (first, last) = (today - Days::days(730), today - Days::days(1));
    // (day) → sales, units, order items, sessions, page views, buy box; and (day, ASIN) → the
    // same
    let mut by_date: BTreeMap<String, [i64; 6]> = BTreeMap::new();
    let mut by_asin: BTreeMap<(String, String), [i64; 6]> = BTreeMap::new();
    let mut day = first;
    while day <= last {
        let end = (day + Days::days(30)).min(last);
        let doc: Value =
            serde_json::from_str(&document_of(&app, &token, request(day, end)).await).unwrap();
        for d in sales_and_traffic(&doc).unwrap().0 {
            by_date.insert(d.date.to_string(), figures(&d.figures));
        }
        day = end + Days::days(1);
    }
    // one-day reports, 30 at a time
    let days: Vec<NaiveDate> = first.iter_days().take_while(|d| *d <= last).collect();
    for batch in days.chunks(30) {
        let docs = futures_util::future::join_all(
            batch
                .iter()
                .map(|d| document_of(&app, &token, request(*d, *d))),
        )
        .await;
        for (day, text) in batch.iter().zip(docs) {
            let doc: Value = serde_json::from_str(&text).unwrap();
            for a in sales_and_traffic(&doc).unwrap().1 {
                by_asin.insert((day.to_string(), a.child), figures(&a.figures));
            }
        }
    }
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let read = |sql: &str| -> BTreeMap<Vec<String>, [i64; 6]> {
        world
            .prepare(sql)
            .unwrap()
            .query_map([first.to_string()], |r| {
                let n = r.as_ref().column_count();
                let key: Vec<String> = (0..n - 6).map(|i| r.get(i).unwrap()).collect();
                let mut v = [0_i64; 6];
                for (k, x) in v.iter_mut().enumerate() {
                    *x = r.get(n - 6 + k)?;
                }
                Ok((key, v))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    let dates = read(
        "SELECT Date, CAST(ROUND(OrderedProductSales * 100) AS INTEGER), UnitsOrdered, TotalOrderItems, Sessions, PageViews,
                CAST(ROUND(BuyBoxPercentage * 100) AS INTEGER)
         FROM spapi_sales_and_traffic_by_date WHERE SellerID = 1 AND Date >= ?1",
    );
    assert_eq!(dates.len(), 730);
    let served: BTreeMap<Vec<String>, [i64; 6]> =
        by_date.into_iter().map(|(k, v)| (vec![k], v)).collect();
    assert!(served == dates, "every day by date");
    let asins = read(
        "SELECT Date, ChildASIN, CAST(ROUND(OrderedProductSales * 100) AS INTEGER), UnitsOrdered, TotalOrderItems, Sessions, PageViews,
                CAST(ROUND(BuyBoxPercentage * 100) AS INTEGER)
         FROM spapi_sales_and_traffic_by_asin WHERE SellerID = 1 AND Date >= ?1",
    );
    let served: BTreeMap<Vec<String>, [i64; 6]> = by_asin
        .into_iter()
        .map(|((d, a), v)| (vec![d, a], v))
        .collect();
    assert_eq!(served.len(), asins.len());
    assert!(served == asins, "every day by child ASIN");
    // beyond two years, it is refused
    let (s, b) = create(&app, &token, request(first - Days::days(1), first)).await;
    assert_eq!(s, 400, "{b}");
}
