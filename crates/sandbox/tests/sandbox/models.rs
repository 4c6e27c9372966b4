//! Every selling-side operation the sandbox serves, checked against the official model's
//! response schema read from `$PP_PROVIDER_MODELS` (`.ci/run` points it at
//! `../shared/provider-models/spapi`) by `tests/models/validate.py`, run with the Python of
//! `$PP_MCP_PYTHON` (which has `jsonschema`). Without them the test says it was skipped and
//! why; under CI a missing one is a failure.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US, model_tools};

/// Collects (model, path template, method, status, body) cases.
struct Cases(Vec<Value>);

impl Cases {
    /// A selling-side GET as a case.
    async fn get(
        &mut self,
        app: &SimApp,
        t: &str,
        model: &str,
        template: &str,
        path: &str,
    ) -> Value {
        let r = app.sp(Method::GET, path, t).send().await.unwrap();
        self.add(model, template, "get", r).await
    }

    async fn add(
        &mut self,
        model: &str,
        template: &str,
        method: &str,
        r: reqwest::Response,
    ) -> Value {
        let status = r.status().as_u16();
        let text = r.text().await.unwrap();
        let body: Value = if text.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&text).unwrap_or(Value::String(text))
        };
        self.0.push(json!({ "model": model, "path": template, "method": method, "status": status, "body": body }));
        body
    }
}

#[tokio::test]
async fn selling_side_responses_match_the_official_models() {
    let Some((models, python)) = model_tools("") else {
        return;
    };
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    let mut c = Cases(Vec::new());
    let get = |p: &str| app.sp(Method::GET, p, &t).send();

    // sellers
    c.add(
        "sellers.json",
        "/sellers/v1/marketplaceParticipations",
        "get",
        get("/sellers/v1/marketplaceParticipations").await.unwrap(),
    )
    .await;
    c.add(
        "sellers.json",
        "/sellers/v1/account",
        "get",
        get("/sellers/v1/account").await.unwrap(),
    )
    .await;

    // reports
    let reports = "reports_2021-06-30.json";
    let created = c
        .add(reports, "/reports/2021-06-30/reports", "post", app
            .sp(Method::POST, "/reports/2021-06-30/reports", &t)
            .json(&json!({"reportType": "GET_SALES_AND_TRAFFIC_REPORT", "marketplaceIds": [US], "dataStartTime": "2026-10-01T00:00:00Z", "dataEndTime": "2026-10-07T00:00:00Z"}))
            .send()
            .await
            .unwrap())
        .await;
    let id = created["reportId"].as_str().unwrap().to_owned();
    c.add(
        reports,
        "/reports/2021-06-30/reports",
        "post",
        app.sp(Method::POST, "/reports/2021-06-30/reports", &t)
            .json(&json!({"reportType": "GET_NOTHING", "marketplaceIds": [US]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let report = c
        .add(
            reports,
            "/reports/2021-06-30/reports/{reportId}",
            "get",
            get(&format!("/reports/2021-06-30/reports/{id}"))
                .await
                .unwrap(),
        )
        .await;
    c.add(
        reports,
        "/reports/2021-06-30/reports/{reportId}",
        "get",
        get("/reports/2021-06-30/reports/404").await.unwrap(),
    )
    .await;
    c.add(
        reports,
        "/reports/2021-06-30/reports",
        "get",
        get("/reports/2021-06-30/reports?reportTypes=GET_SALES_AND_TRAFFIC_REPORT")
            .await
            .unwrap(),
    )
    .await;
    // the scheduled settlement reports
    c.add(
        reports,
        "/reports/2021-06-30/reports",
        "get",
        get("/reports/2021-06-30/reports?reportTypes=GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2")
            .await
            .unwrap(),
    )
    .await;
    // the new requested types, and a refused request for a scheduled one
    for body in [
        json!({"reportType": "GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2", "marketplaceIds": [US]}),
        json!({"reportType": "GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT", "marketplaceIds": [US],
               "dataStartTime": "2026-11-01", "dataEndTime": "2026-11-07",
               "reportOptions": {"reportPeriod": "WEEK", "asin": "B0NOTHING1"}}),
        json!({"reportType": "GET_LEDGER_SUMMARY_VIEW_DATA", "marketplaceIds": [US],
               "dataStartTime": "2026-11-01", "dataEndTime": "2026-11-07",
               "reportOptions": {"aggregatedByTimePeriod": "DAILY", "aggregateByLocation": "COUNTRY"}}),
    ] {
        c.add(
            reports,
            "/reports/2021-06-30/reports",
            "post",
            app.sp(Method::POST, "/reports/2021-06-30/reports", &t)
                .json(&body)
                .send()
                .await
                .unwrap(),
        )
        .await;
    }
    let doc = report["reportDocumentId"].as_str().unwrap();
    c.add(
        reports,
        "/reports/2021-06-30/documents/{reportDocumentId}",
        "get",
        get(&format!("/reports/2021-06-30/documents/{doc}"))
            .await
            .unwrap(),
    )
    .await;

    more_cases(&app, &t, &mut c).await;

    let file = app.dir.path().join("cases.json");
    std::fs::write(&file, serde_json::to_vec(&c.0).unwrap()).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/models/validate.py");
    let out = std::process::Command::new(python)
        .arg(script)
        .arg(&file)
        .env("PP_PROVIDER_MODELS", models)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(&format!("validated {} responses", c.0.len())),
        "{text}"
    );
}

/// Cases of the other selling-side areas.
async fn more_cases(app: &SimApp, t: &str, c: &mut Cases) {
    let get = |p: String| app.sp(Method::GET, &p, t).send();
    // FBA inventory
    let inv = "fbaInventory.json";
    let path = "/fba/inventory/v1/summaries";
    let q =
        format!("granularityType=Marketplace&granularityId={US}&marketplaceIds={US}&details=true");
    c.add(inv, path, "get", get(format!("{path}?{q}")).await.unwrap())
        .await;
    c.add(
        inv,
        path,
        "get",
        get(format!(
            "{path}?granularityType=Marketplace&marketplaceIds={US}"
        ))
        .await
        .unwrap(),
    )
    .await;
    // catalog
    let cat = "catalogItems_2022-04-01.json";
    let found = c
        .add(cat, "/catalog/2022-04-01/items", "get", get(format!("/catalog/2022-04-01/items?marketplaceIds={US}&keywords=northwind&includedData=summaries,attributes,identifiers,relationships&pageSize=2")).await.unwrap())
        .await;
    let asin = found["items"][0]["asin"].as_str().unwrap().to_owned();
    c.add(cat, "/catalog/2022-04-01/items/{asin}", "get", get(format!("/catalog/2022-04-01/items/{asin}?marketplaceIds={US}&includedData=summaries,productTypes")).await.unwrap()).await;
    c.add(
        cat,
        "/catalog/2022-04-01/items/{asin}",
        "get",
        get(format!(
            "/catalog/2022-04-01/items/B000NOPE00?marketplaceIds={US}"
        ))
        .await
        .unwrap(),
    )
    .await;
    // promotions
    let pr = "promotions_2025-12-01.json";
    let found = c
        .add(
            pr,
            "/promotions/2025-12-01/promotions",
            "get",
            get(format!(
                "/promotions/2025-12-01/promotions?marketplaceIds={US}&limit=5"
            ))
            .await
            .unwrap(),
        )
        .await;
    let promo = found["promotions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p.get("latestRevision").is_some())
        .unwrap_or(&found["promotions"][0])
        .clone();
    let id = promo["promotionId"].as_str().unwrap();
    c.add(
        pr,
        "/promotions/2025-12-01/promotions/{promotionId}",
        "get",
        get(format!("/promotions/2025-12-01/promotions/{id}"))
            .await
            .unwrap(),
    )
    .await;
    let sel = promo["selection"]["selectionId"].as_str().unwrap();
    let rev = promo["selection"]["revisionId"].as_i64().unwrap();
    let sel_path = "/promotions/2025-12-01/promotions/{promotionId}/selections/{selectionId}";
    c.add(
        pr,
        sel_path,
        "get",
        get(format!(
            "/promotions/2025-12-01/promotions/{id}/selections/{sel}?revisionId={rev}&limit=2"
        ))
        .await
        .unwrap(),
    )
    .await;
    c.add(
        pr,
        sel_path,
        "get",
        get(format!(
            "/promotions/2025-12-01/promotions/{id}/selections/{sel}"
        ))
        .await
        .unwrap(),
    )
    .await;
    inbound_cases(app, t, c).await;
    listing_cases(app, t, c).await;
    pricing_cases(app, t, c).await;
    order_cases(app, t, c).await;
    money_cases(app, t, c).await;
}

async fn inbound_cases(app: &SimApp, t: &str, c: &mut Cases) {
    let v0 = "fulfillmentInboundV0.json";
    let ships = format!(
        "/fba/inbound/v0/shipments?MarketplaceId={US}&QueryType=SHIPMENT&ShipmentStatusList=WORKING,SHIPPED"
    );
    let found = c.get(app, t, v0, "/fba/inbound/v0/shipments", &ships).await;
    c.get(
        app,
        t,
        v0,
        "/fba/inbound/v0/shipments",
        &format!("/fba/inbound/v0/shipments?MarketplaceId={US}"),
    )
    .await;
    let ship = found["payload"]["ShipmentData"][0]["ShipmentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let items = c
        .get(
            app,
            t,
            v0,
            "/fba/inbound/v0/shipments/{shipmentId}/items",
            &format!("/fba/inbound/v0/shipments/{ship}/items?MarketplaceId={US}"),
        )
        .await;
    let next = items["payload"]["NextToken"].as_str().unwrap().to_owned();
    let more = format!(
        "/fba/inbound/v0/shipmentItems?MarketplaceId={US}&QueryType=NEXT_TOKEN&NextToken={next}"
    );
    c.get(app, t, v0, "/fba/inbound/v0/shipmentItems", &more)
        .await;
    let v24 = "fulfillmentInbound_2024-03-20.json";
    let root = "/inbound/fba/2024-03-20/inboundPlans";
    let plans = c
        .get(app, t, v24, root, &format!("{root}?pageSize=2"))
        .await;
    let plan = plans["inboundPlans"][0]["inboundPlanId"]
        .as_str()
        .unwrap()
        .to_owned();
    let detail = c
        .get(
            app,
            t,
            v24,
            &format!("{root}/{{inboundPlanId}}"),
            &format!("{root}/{plan}"),
        )
        .await;
    c.get(
        app,
        t,
        v24,
        &format!("{root}/{{inboundPlanId}}/items"),
        &format!("{root}/{plan}/items"),
    )
    .await;
    let ship = detail["shipments"][0]["shipmentId"]
        .as_str()
        .unwrap()
        .to_owned();
    let one = format!("{root}/{{inboundPlanId}}/shipments/{{shipmentId}}");
    c.get(
        app,
        t,
        v24,
        &one,
        &format!("{root}/{plan}/shipments/{ship}"),
    )
    .await;
    c.get(
        app,
        t,
        v24,
        &format!("{one}/items"),
        &format!("{root}/{plan}/shipments/{ship}/items"),
    )
    .await;
}

async fn listing_cases(app: &SimApp, t: &str, c: &mut Cases) {
    let sku = crate::spapi_writes::a_sku(app);
    let model = "listingsItems_2021-08-01.json";
    let tpl = "/listings/2021-08-01/items/{sellerId}/{sku}";
    let path = format!("/listings/2021-08-01/items/{SELLER}/{sku}?marketplaceIds={US}");
    c.get(
        app,
        t,
        model,
        tpl,
        &format!("{path}&includedData=summaries,attributes,issues,offers"),
    )
    .await;
    let patch = json!({"productType": "PRODUCT", "patches": [{"op": "replace", "path": "/attributes/bullet_point", "value": [{"value": "Keeps cold 24 hours"}]}]});
    let r = app
        .sp(Method::PATCH, &format!("{path}&mode=VALIDATION_PREVIEW"), t)
        .json(&patch)
        .send()
        .await
        .unwrap();
    c.add(model, tpl, "patch", r).await;
    let bad = json!({"productType": "PRODUCT", "attributes": {}});
    let r = app
        .sp(Method::PUT, &format!("{path}&mode=VALIDATION_PREVIEW"), t)
        .json(&bad)
        .send()
        .await
        .unwrap();
    c.add(model, tpl, "put", r).await;
    let ptd = "definitionsProductTypes_2020-09-01.json";
    let root = "/definitions/2020-09-01/productTypes";
    c.get(
        app,
        t,
        ptd,
        root,
        &format!("{root}?marketplaceIds={US}&keywords=product"),
    )
    .await;
    c.get(
        app,
        t,
        ptd,
        &format!("{root}/{{productType}}"),
        &format!("{root}/PRODUCT?marketplaceIds={US}"),
    )
    .await;
}

async fn pricing_cases(app: &SimApp, t: &str, c: &mut Cases) {
    let (asin, sku) = crate::spapi_writes::an_asin_and_sku(app);
    let model = "productPricing_2022-05-01.json";
    let feop = "/batches/products/pricing/2022-05-01/offer/featuredOfferExpectedPrice";
    let body = json!({"requests": [
        {"uri": "/products/pricing/2022-05-01/offer/featuredOfferExpectedPrice", "method": "GET", "marketplaceId": US, "sku": sku},
        {"uri": "/products/pricing/2022-05-01/offer/featuredOfferExpectedPrice", "method": "GET", "marketplaceId": US, "sku": "NOPE"}
    ]});
    c.add(
        model,
        feop,
        "post",
        app.sp(Method::POST, feop, t)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
    let summary = "/batches/products/pricing/2022-05-01/items/competitiveSummary";
    let body = json!({"requests": [{"asin": asin, "marketplaceId": US, "includedData": ["featuredBuyingOptions", "referencePrices", "lowestPricedOffers"], "method": "GET", "uri": "/products/pricing/2022-05-01/items/competitiveSummary"}]});
    c.add(
        model,
        summary,
        "post",
        app.sp(Method::POST, summary, t)
            .json(&body)
            .send()
            .await
            .unwrap(),
    )
    .await;
}

async fn order_cases(app: &SimApp, t: &str, c: &mut Cases) {
    let model = "ordersV0.json";
    let list = format!(
        "/orders/v0/orders?MarketplaceIds={US}&CreatedAfter=2026-11-01T00:00:00Z&MaxResultsPerPage=3"
    );
    let found = c.get(app, t, model, "/orders/v0/orders", &list).await;
    c.get(
        app,
        t,
        model,
        "/orders/v0/orders",
        &format!("/orders/v0/orders?MarketplaceIds={US}"),
    )
    .await;
    let id = found["payload"]["Orders"][0]["AmazonOrderId"]
        .as_str()
        .unwrap()
        .to_owned();
    c.get(
        app,
        t,
        model,
        "/orders/v0/orders/{orderId}",
        &format!("/orders/v0/orders/{id}"),
    )
    .await;
    c.get(
        app,
        t,
        model,
        "/orders/v0/orders/{orderId}/orderItems",
        &format!("/orders/v0/orders/{id}/orderItems"),
    )
    .await;
}

async fn money_cases(app: &SimApp, t: &str, c: &mut Cases) {
    let fin = "financesV0.json";
    let groups = c
        .get(
            app,
            t,
            fin,
            "/finances/v0/financialEventGroups",
            "/finances/v0/financialEventGroups?MaxResultsPerPage=3",
        )
        .await;
    let id = groups["payload"]["FinancialEventGroupList"][1]["FinancialEventGroupId"]
        .as_str()
        .unwrap()
        .to_owned();
    c.get(
        app,
        t,
        fin,
        "/finances/v0/financialEventGroups/{eventGroupId}/financialEvents",
        &format!("/finances/v0/financialEventGroups/{id}/financialEvents?MaxResultsPerPage=5"),
    )
    .await;
    c.get(app, t, fin, "/finances/v0/financialEvents", "/finances/v0/financialEvents?PostedAfter=2026-10-01T00:00:00Z&PostedBefore=2026-10-15T00:00:00Z").await;
    c.get(
        app,
        t,
        fin,
        "/finances/v0/orders/{orderId}/financialEvents",
        "/finances/v0/orders/NOPE/financialEvents",
    )
    .await;
    let tx = "finances_2024-06-19.json";
    c.get(
        app,
        t,
        tx,
        "/finances/2024-06-19/transactions",
        "/finances/2024-06-19/transactions?postedAfter=2026-10-01T00:00:00Z&postedBefore=2026-10-15T00:00:00Z",
    )
    .await;
    c.get(
        app,
        t,
        tx,
        "/finances/2024-06-19/transactions",
        "/finances/2024-06-19/transactions?postedAfter=2026-11-10T00:00:00Z&transactionStatus=DEFERRED",
    )
    .await;
    let fees = "productFeesV0.json";
    let sku = crate::spapi_writes::a_sku(app);
    let body = json!({"FeesEstimateRequest": {"MarketplaceId": US, "IsAmazonFulfilled": true, "Identifier": "q1", "PriceToEstimateFees": {"ListingPrice": {"CurrencyCode": "USD", "Amount": 20.0}}}});
    let tpl = "/products/fees/v0/listings/{SellerSKU}/feesEstimate";
    let r = app
        .sp(
            Method::POST,
            &format!("/products/fees/v0/listings/{sku}/feesEstimate"),
            t,
        )
        .json(&body)
        .send()
        .await
        .unwrap();
    c.add(fees, tpl, "post", r).await;
    let r = app
        .sp(
            Method::POST,
            "/products/fees/v0/items/B000NOPE00/feesEstimate",
            t,
        )
        .json(&body)
        .send()
        .await
        .unwrap();
    c.add(
        fees,
        "/products/fees/v0/items/{Asin}/feesEstimate",
        "post",
        r,
    )
    .await;
    let batch = json!([{"IdType": "SellerSKU", "IdValue": sku, "FeesEstimateRequest": body["FeesEstimateRequest"]}]);
    let r = app
        .sp(Method::POST, "/products/fees/v0/feesEstimate", t)
        .json(&batch)
        .send()
        .await
        .unwrap();
    c.add(fees, "/products/fees/v0/feesEstimate", "post", r)
        .await;
    let dk = "dataKiosk_2023-11-15.json";
    let q = format!(
        "query {{ analytics_salesAndTraffic_2024_04_24 {{ salesAndTrafficByDate(startDate: \"2026-10-01\" endDate: \"2026-10-03\" aggregateBy: DAY marketplaceIds: [\"{US}\"]) {{ startDate }} }} }}"
    );
    let r = app
        .sp(Method::POST, "/dataKiosk/2023-11-15/queries", t)
        .json(&json!({"query": q}))
        .send()
        .await
        .unwrap();
    let created = c.add(dk, "/dataKiosk/2023-11-15/queries", "post", r).await;
    let id = created["queryId"].as_str().unwrap().to_owned();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let done = c
        .get(
            app,
            t,
            dk,
            "/dataKiosk/2023-11-15/queries/{queryId}",
            &format!("/dataKiosk/2023-11-15/queries/{id}"),
        )
        .await;
    c.get(
        app,
        t,
        dk,
        "/dataKiosk/2023-11-15/queries",
        "/dataKiosk/2023-11-15/queries?pageSize=5",
    )
    .await;
    let doc = done["dataDocumentId"].as_str().unwrap().to_owned();
    c.get(
        app,
        t,
        dk,
        "/dataKiosk/2023-11-15/documents/{documentId}",
        &format!("/dataKiosk/2023-11-15/documents/{doc}"),
    )
    .await;
}
