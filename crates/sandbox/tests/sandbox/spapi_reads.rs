//! Selling-side reads and their quirks: promotions paging through empty mid-stream pages with
//! totals above the summed pages, `revisionId` on selections, vendors refused; inventory and
//! catalog paging.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US, parts};

async fn get(app: &SimApp, token: &str, path: &str) -> (u16, Value) {
    let (s, _, b) = parts(app.sp(Method::GET, path, token).send().await.unwrap()).await;
    (s, b)
}

#[tokio::test]
async fn promotions_page_through_empty_pages_and_totals_exceed_the_pages() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    let base = format!("/promotions/2025-12-01/promotions?marketplaceIds={US}&limit=2");
    let (mut seen, mut pages, mut empty_mid_stream) = (Vec::new(), 0, 0);
    let mut path = base.clone();
    let total = loop {
        let (s, b) = get(&app, &t, &path).await;
        assert_eq!(s, 200, "{b}");
        pages += 1;
        let page = b["promotions"].as_array().unwrap();
        seen.extend(
            page.iter()
                .map(|p| p["promotionId"].as_str().unwrap().to_owned()),
        );
        match b["pagination"]["nextToken"].as_str() {
            Some(next) => {
                if page.is_empty() {
                    empty_mid_stream += 1;
                }
                let enc: String = form_urlencoded::byte_serialize(next.as_bytes()).collect();
                path = format!("{base}&paginationToken={enc}");
            }
            None => break b["totalResults"].as_u64().unwrap(),
        }
    };
    assert!(pages > 3, "{pages}");
    assert!(empty_mid_stream >= 1, "an empty page came mid-stream");
    let mut unique = seen.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), seen.len(), "no promotion twice");
    assert!(
        total as usize > seen.len(),
        "totalResults {total} exceeds the {} returned",
        seen.len()
    );
    // a selection needs its revisionId
    let id = &seen[0];
    let (_, promo) = get(&app, &t, &format!("/promotions/2025-12-01/promotions/{id}")).await;
    let sel = promo["selection"]["selectionId"].as_str().unwrap();
    let rev = promo["selection"]["revisionId"].as_i64().unwrap();
    let path = format!("/promotions/2025-12-01/promotions/{id}/selections/{sel}");
    let (s, b) = get(&app, &t, &path).await;
    assert_eq!(s, 400);
    assert!(
        b["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("revisionId")
    );
    let (s, b) = get(&app, &t, &format!("{path}?revisionId={rev}&limit=1")).await;
    assert_eq!(s, 200);
    assert_eq!(
        b["selection"]["selectionDetails"]["items"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert!(b["selection"]["selectionDetails"]["pagination"]["nextToken"].is_string());
}

#[tokio::test]
async fn promotions_refuse_vendors_naive_dates_and_two_marketplaces() {
    let app = SimApp::start().await;
    let vendor = app.access("seller", "ENTITY2DEMOVENDOR").await;
    let (s, b) = get(
        &app,
        &vendor,
        &format!("/promotions/2025-12-01/promotions?marketplaceIds={US}"),
    )
    .await;
    assert_eq!(s, 403);
    assert!(
        b["errors"][0]["details"]
            .as_str()
            .unwrap()
            .contains("vendor")
    );
    let t = app.access("seller", SELLER).await;
    let (s, _) = get(&app, &t, &format!("/promotions/2025-12-01/promotions?marketplaceIds={US}&startDateAfter=2025-01-01T00:00:00")).await;
    assert_eq!(s, 400, "a date without an offset");
    let (s, _) = get(&app, &t, &format!("/promotions/2025-12-01/promotions?marketplaceIds={US}&startDateAfter=2025-01-01T00:00:00-08:00")).await;
    assert_eq!(s, 200);
    let (s, _) = get(
        &app,
        &t,
        &format!("/promotions/2025-12-01/promotions?marketplaceIds={US},A2EUQ1WTGCTBG2"),
    )
    .await;
    assert_eq!(s, 400, "exactly one marketplace");
}

#[tokio::test]
async fn inventory_and_catalog_page_with_their_tokens() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    let (s, b) = get(
        &app,
        &t,
        &format!("/catalog/2022-04-01/items?marketplaceIds={US}&keywords=a&pageSize=2"),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(b["items"].as_array().unwrap().len(), 2);
    let next = b["pagination"]["nextToken"].as_str().unwrap();
    let (_, b2) = get(
        &app,
        &t,
        &format!(
            "/catalog/2022-04-01/items?marketplaceIds={US}&keywords=a&pageSize=2&pageToken={next}"
        ),
    )
    .await;
    assert_ne!(b2["items"][0]["asin"], b["items"][0]["asin"]);
    assert!(b2["pagination"]["previousToken"].is_string());
    let (s, _) = get(
        &app,
        &t,
        &format!("/catalog/2022-04-01/items?marketplaceIds={US}"),
    )
    .await;
    assert_eq!(s, 400, "identifiers or keywords");
    let (s, b) = get(&app, &t, &format!("/fba/inventory/v1/summaries?granularityType=Marketplace&granularityId={US}&marketplaceIds={US}")).await;
    assert_eq!(s, 200);
    assert!(
        !b["payload"]["inventorySummaries"]
            .as_array()
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn inbound_needs_query_types_and_items_continue_through_get_shipment_items() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    let (s, b) = get(
        &app,
        &t,
        &format!("/fba/inbound/v0/shipments?MarketplaceId={US}"),
    )
    .await;
    assert_eq!(s, 400);
    assert!(
        b["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("QueryType")
    );
    let (s, b) = get(
        &app,
        &t,
        &format!("/fba/inbound/v0/shipments?MarketplaceId={US}&QueryType=SHIPMENT"),
    )
    .await;
    assert_eq!(s, 400);
    assert!(
        b["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("ShipmentStatusList")
    );
    let (s, b) = get(&app, &t, &format!("/fba/inbound/v0/shipments?MarketplaceId={US}&QueryType=SHIPMENT&ShipmentStatusList=WORKING,SHIPPED,RECEIVING")).await;
    assert_eq!(s, 200, "{b}");
    let first = b["payload"]["ShipmentData"][0]["ShipmentId"]
        .as_str()
        .unwrap()
        .to_owned();
    // the per-shipment call: a short list and a token it cannot follow itself
    let (s, b) = get(
        &app,
        &t,
        &format!("/fba/inbound/v0/shipments/{first}/items?MarketplaceId={US}"),
    )
    .await;
    assert_eq!(s, 200);
    let mut skus: Vec<String> = b["payload"]["ItemData"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["SellerSKU"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(skus.len(), 2, "a short list");
    let mut next = b["payload"]["NextToken"].as_str().map(str::to_owned);
    assert!(next.is_some(), "beside a continuation token");
    let (s, _) = get(
        &app,
        &t,
        &format!("/fba/inbound/v0/shipments/{first}/items?MarketplaceId={US}&NextToken=x"),
    )
    .await;
    assert_eq!(s, 400, "the per-shipment call takes no token");
    while let Some(tok) = next {
        let (s, b) = get(&app, &t, &format!("/fba/inbound/v0/shipmentItems?MarketplaceId={US}&QueryType=NEXT_TOKEN&NextToken={tok}")).await;
        assert_eq!(s, 200, "{b}");
        skus.extend(
            b["payload"]["ItemData"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["SellerSKU"].as_str().unwrap().to_owned()),
        );
        next = b["payload"]["NextToken"].as_str().map(str::to_owned);
    }
    assert_eq!(
        skus.len(),
        5,
        "followed to the end: every SKU of the shipment"
    );
    // 2024-03-20: plans and shipment items page with paginationToken
    let (_, plans) = get(&app, &t, "/inbound/fba/2024-03-20/inboundPlans?pageSize=1").await;
    let plan = plans["inboundPlans"][0]["inboundPlanId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(plan.len(), 38);
    assert!(plans["pagination"]["nextToken"].is_string());
    let (_, detail) = get(
        &app,
        &t,
        &format!("/inbound/fba/2024-03-20/inboundPlans/{plan}"),
    )
    .await;
    let ship = detail["shipments"][0]["shipmentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (_, items) = get(
        &app,
        &t,
        &format!("/inbound/fba/2024-03-20/inboundPlans/{plan}/shipments/{ship}/items?pageSize=3"),
    )
    .await;
    assert_eq!(items["items"].as_array().unwrap().len(), 3);
    let tok = items["pagination"]["nextToken"].as_str().unwrap();
    let (_, rest) = get(&app, &t, &format!("/inbound/fba/2024-03-20/inboundPlans/{plan}/shipments/{ship}/items?pageSize=3&paginationToken={tok}")).await;
    assert_eq!(rest["items"].as_array().unwrap().len(), 2);
    assert!(rest.get("pagination").is_none());
}

#[tokio::test]
async fn orders_page_to_the_end_and_add_up_to_the_worlds_sales() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    let base = format!(
        "/orders/v0/orders?MarketplaceIds={US}&CreatedAfter=2026-11-01T00:00:00Z&CreatedBefore=2026-11-03T23:59:59Z&MaxResultsPerPage=7"
    );
    let (s, b) = get(&app, &t, &format!("/orders/v0/orders?MarketplaceIds={US}")).await;
    assert_eq!(s, 400, "{b}");
    let mut path = base.clone();
    let mut orders = Vec::new();
    loop {
        let (s, b) = get(&app, &t, &path).await;
        assert_eq!(s, 200, "{b}");
        orders.extend(b["payload"]["Orders"].as_array().unwrap().iter().cloned());
        match b["payload"]["NextToken"].as_str() {
            Some(n) => path = format!("/orders/v0/orders?MarketplaceIds={US}&NextToken={n}"),
            None => break,
        }
    }
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let (items, units): (i64, i64) = world
        .query_row("SELECT SUM(TotalOrderItems), SUM(UnitsOrdered) FROM spapi_sales_and_traffic_by_asin WHERE SellerID = 1 AND Date BETWEEN '2026-11-01' AND '2026-11-03'", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(orders.len() as i64, items);
    let shipped: i64 = orders
        .iter()
        .map(|o| {
            o["NumberOfItemsShipped"].as_i64().unwrap()
                + o["NumberOfItemsUnshipped"].as_i64().unwrap()
        })
        .sum();
    assert_eq!(shipped, units);
    let id = orders[0]["AmazonOrderId"].as_str().unwrap();
    let (s, one) = get(&app, &t, &format!("/orders/v0/orders/{id}")).await;
    assert_eq!(s, 200);
    assert_eq!(one["payload"], orders[0]);
    let (_, items) = get(&app, &t, &format!("/orders/v0/orders/{id}/orderItems")).await;
    assert_eq!(
        items["payload"]["OrderItems"][0]["QuantityOrdered"],
        orders[0]["NumberOfItemsShipped"]
    );
    let (s, _) = get(&app, &t, "/orders/v0/orders/999-0000000-0000000").await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn finances_fees_and_data_kiosk_answer_from_the_world() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    // finances: groups page; a group's events add up to its total
    let (s, g) = get(
        &app,
        &t,
        "/finances/v0/financialEventGroups?MaxResultsPerPage=2",
    )
    .await;
    assert_eq!(s, 200);
    assert!(g["payload"]["NextToken"].is_string(), "{g}");
    let group = &g["payload"]["FinancialEventGroupList"][1];
    let id = group["FinancialEventGroupId"].as_str().unwrap();
    // every page of the group's events; their amounts and the reserve the settlement moved
    // (not an event) add up to its total
    let mut amounts = 0.0;
    let mut kinds = std::collections::BTreeSet::new();
    let mut path = format!("/finances/v0/financialEventGroups/{id}/financialEvents");
    loop {
        let (s, ev) = get(&app, &t, &path).await;
        assert_eq!(s, 200, "{ev}");
        for (list, events) in ev["payload"]["FinancialEvents"].as_object().unwrap() {
            for e in events.as_array().unwrap() {
                kinds.insert(list.clone());
                amounts += event_amount(e);
            }
        }
        match ev["payload"]["NextToken"].as_str() {
            Some(next) => {
                path = format!(
                    "/finances/v0/financialEventGroups/{id}/financialEvents?NextToken={next}"
                )
            }
            None => break,
        }
    }
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let reserve: f64 = world
        .query_row(
            "SELECT COALESCE(SUM(Amount), 0) FROM spapi_settlement
             WHERE \"Settlement-id\" = ?1 AND \"Amount-description\" LIKE '%Reserve%'",
            [id],
            |r| r.get(0),
        )
        .unwrap();
    let total = group["OriginalTotal"]["CurrencyAmount"].as_f64().unwrap();
    assert!(
        (amounts + reserve - total).abs() < 0.005,
        "{amounts} + {reserve} vs {total}"
    );
    for k in [
        "ShipmentEventList",
        "RefundEventList",
        "ServiceFeeEventList",
    ] {
        assert!(kinds.contains(k), "{k}: {kinds:?}");
    }
    let (s, _) = get(&app, &t, "/finances/v0/financialEvents").await;
    assert_eq!(s, 400, "PostedAfter is required");
    // fees: what the world charged a unit of the SKU at the price of its latest order (without
    // a coupon) is what an estimate at that price answers
    let sku = crate::spapi_writes::a_sku(&app);
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    let per_unit = |desc: &str| -> f64 {
        world
            .query_row(
                "SELECT Amount / Quantity FROM spapi_finance_transaction t WHERE Sku = ?1
                   AND \"Transaction-type\" = 'Shipment' AND \"Amount-description\" = ?2
                   AND NOT EXISTS (SELECT 1 FROM spapi_finance_transaction p
                                   WHERE p.\"Transaction-id\" = t.\"Transaction-id\" AND p.\"Amount-type\" = 'Promotion')
                 ORDER BY \"Posted-date-time\" DESC LIMIT 1",
                [&sku, desc],
                |r| r.get(0),
            )
            .unwrap()
    };
    let (price, referral, fba) = (
        per_unit("Principal"),
        -per_unit("Commission"),
        -per_unit("FBAPerUnitFulfillmentFee"),
    );
    let body = json!({"FeesEstimateRequest": {"MarketplaceId": US, "IsAmazonFulfilled": true, "Identifier": "q1", "PriceToEstimateFees": {"ListingPrice": {"CurrencyCode": "USD", "Amount": price}}}});
    let (s, _, f) = parts(
        app.sp(
            Method::POST,
            &format!("/products/fees/v0/listings/{sku}/feesEstimate"),
            &t,
        )
        .json(&body)
        .send()
        .await
        .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
    let estimate = &f["payload"]["FeesEstimateResult"];
    assert_eq!(estimate["Status"], "Success", "{f}");
    let fee = |kind: &str| -> f64 {
        estimate["FeesEstimate"]["FeeDetailList"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["FeeType"] == kind)
            .unwrap()["FeeAmount"]["Amount"]
            .as_f64()
            .unwrap()
    };
    assert!(
        (fee("ReferralFee") - referral).abs() < 0.005,
        "{f} vs {referral}"
    );
    assert!((fee("FBAFees") - fba).abs() < 0.005, "{f} vs {fba}");
    // data kiosk: a query walks to DONE and its document holds the world's days
    let q = format!(
        "query {{ analytics_salesAndTraffic_2024_04_24 {{ salesAndTrafficByDate(startDate: \"2026-10-01\" endDate: \"2026-10-10\" aggregateBy: DAY marketplaceIds: [\"{US}\"]) {{ startDate sales {{ unitsOrdered }} }} }} }}"
    );
    let (s, _, created) = parts(
        app.sp(Method::POST, "/dataKiosk/2023-11-15/queries", &t)
            .json(&json!({"query": q}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 202);
    let id = created["queryId"].as_str().unwrap().to_owned();
    let done = loop {
        let (_, r) = get(&app, &t, &format!("/dataKiosk/2023-11-15/queries/{id}")).await;
        if r["processingStatus"] == "DONE" {
            break r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let doc = done["dataDocumentId"].as_str().unwrap();
    let (_, d) = get(&app, &t, &format!("/dataKiosk/2023-11-15/documents/{doc}")).await;
    let text = app
        .http
        .get(d["documentUrl"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(text.lines().count(), 10, "one line a day");
    // a query the sandbox cannot answer ends FATAL with an error document
    let (_, _, bad) = parts(
        app.sp(Method::POST, "/dataKiosk/2023-11-15/queries", &t)
            .json(&json!({"query": "query { nothing }"}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    let bad_id = bad["queryId"].as_str().unwrap().to_owned();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let (_, r) = get(&app, &t, &format!("/dataKiosk/2023-11-15/queries/{bad_id}")).await;
    assert_eq!(r["processingStatus"], "FATAL");
    assert!(r["errorDocumentId"].is_string());
}

/// The money of one Finances v0 event: its items' charges, fees and promotions (or their
/// adjustments), an adjustment's amount, or a service fee's.
fn event_amount(e: &Value) -> f64 {
    let amount = |m: &Value| m["CurrencyAmount"].as_f64().unwrap();
    let mut sum = 0.0;
    for items in ["ShipmentItemList", "ShipmentItemAdjustmentList"] {
        for item in e[items].as_array().into_iter().flatten() {
            for (list, field) in [
                ("ItemChargeList", "ChargeAmount"),
                ("ItemFeeList", "FeeAmount"),
                ("PromotionList", "PromotionAmount"),
                ("ItemChargeAdjustmentList", "ChargeAmount"),
                ("ItemFeeAdjustmentList", "FeeAmount"),
                ("PromotionAdjustmentList", "PromotionAmount"),
            ] {
                for c in item[list].as_array().into_iter().flatten() {
                    sum += amount(&c[field]);
                }
            }
        }
    }
    if e["AdjustmentAmount"].is_object() {
        sum += amount(&e["AdjustmentAmount"]);
    }
    for f in e["FeeList"].as_array().into_iter().flatten() {
        sum += amount(&f["FeeAmount"]);
    }
    sum
}
