//! Listings writes (`VALIDATION_PREVIEW` applies nothing; a clean patch reads back patched)
//! and the product type version a test can bump.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{SELLER, SimApp, US, parts};

pub fn a_sku(app: &SimApp) -> String {
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    world
        .query_row("SELECT SKU FROM catalog_item WHERE SellerID = 1 AND SKU IS NOT NULL ORDER BY SKU LIMIT 1", [], |r| r.get(0))
        .unwrap()
}

#[tokio::test]
async fn listing_patches_preview_without_applying_and_apply_when_asked() {
    let app = SimApp::start().await;
    app.no_limits().await;
    let t = app.access("seller", SELLER).await;
    let sku = a_sku(&app);
    let path = format!("/listings/2021-08-01/items/{SELLER}/{sku}?marketplaceIds={US}");
    let read = || async {
        let (s, _, b) = parts(
            app.sp(
                Method::GET,
                &format!("{path}&includedData=summaries,attributes"),
                &t,
            )
            .send()
            .await
            .unwrap(),
        )
        .await;
        assert_eq!(s, 200, "{b}");
        b
    };
    let before = read().await;
    assert_eq!(before["summaries"][0]["productType"], "PRODUCT");
    let title = json!([{"value": "Northwind Bottle, 24 oz, new title", "language_tag": "en_US", "marketplace_id": US}]);
    let patch = json!({"productType": "PRODUCT", "patches": [{"op": "replace", "path": "/attributes/item_name", "value": title}]});
    let send = |mode: &str, body: &Value| {
        app.sp(Method::PATCH, &format!("{path}{mode}"), &t)
            .json(body)
            .send()
    };
    let (s, _, b) = parts(send("&mode=VALIDATION_PREVIEW", &patch).await.unwrap()).await;
    assert_eq!((s, b["status"].as_str()), (200, Some("VALID")));
    assert_eq!(
        read().await["attributes"]["item_name"],
        before["attributes"]["item_name"],
        "a preview applies nothing"
    );
    let (s, _, b) = parts(send("", &patch).await.unwrap()).await;
    assert_eq!((s, b["status"].as_str()), (200, Some("ACCEPTED")));
    assert_eq!(
        read().await["attributes"]["item_name"],
        title,
        "a patched listing reads patched"
    );
    // an attribute the product type does not have
    let bad = json!({"productType": "PRODUCT", "patches": [{"op": "replace", "path": "/attributes/color_name", "value": [{"value": "red"}]}]});
    let (_, _, b) = parts(send("&mode=VALIDATION_PREVIEW", &bad).await.unwrap()).await;
    assert_eq!(b["status"], "INVALID");
    assert_eq!(b["issues"][0]["attributeNames"], json!(["color_name"]));
    // a full put missing a required attribute
    let r = app
        .sp(Method::PUT, &format!("{path}&mode=VALIDATION_PREVIEW"), &t)
        .json(&json!({"productType": "PRODUCT", "attributes": {"item_name": title}}))
        .send()
        .await
        .unwrap();
    let (_, _, b) = parts(r).await;
    assert_eq!(b["status"], "INVALID");
    assert!(
        b["issues"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["attributeNames"] == json!(["brand"]))
    );
    // another seller's listing
    let r = app
        .sp(
            Method::GET,
            &format!("/listings/2021-08-01/items/A1DEMOSELLERMX/{sku}?marketplaceIds={US}"),
            &t,
        )
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn the_product_type_version_moves_when_bumped() {
    let app = SimApp::start().await;
    let t = app.access("seller", SELLER).await;
    let path = format!("/definitions/2020-09-01/productTypes/PRODUCT?marketplaceIds={US}");
    let version = || async {
        parts(app.sp(Method::GET, &path, &t).send().await.unwrap())
            .await
            .2["productTypeVersion"]["version"]
            .clone()
    };
    let v1 = version().await;
    assert_eq!(v1, "U1");
    let r = app
        .control(Method::POST, "/__sandbox/product-types/bump")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(version().await, "U2");
    let (_, _, def) = parts(app.sp(Method::GET, &path, &t).send().await.unwrap()).await;
    let schema: Value = app
        .http
        .get(def["schema"]["link"]["resource"].as_str().unwrap())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(schema["$id"].as_str().unwrap().ends_with("/PRODUCT/U2"));
    assert!(
        schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("item_name"))
    );
}

pub fn an_asin_and_sku(app: &SimApp) -> (String, String) {
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    world
        .query_row("SELECT ASIN, SKU FROM catalog_item WHERE SellerID = 1 AND SKU IS NOT NULL ORDER BY SKU LIMIT 1", [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
}

#[tokio::test]
async fn pricing_batches_keep_the_provider_batch_sizes_and_usage_plan() {
    let app = SimApp::start().await;
    let t = app.access("seller", SELLER).await;
    let (asin, sku) = an_asin_and_sku(&app);
    let feop = "/batches/products/pricing/2022-05-01/offer/featuredOfferExpectedPrice";
    let one = json!({"uri": "/products/pricing/2022-05-01/offer/featuredOfferExpectedPrice", "method": "GET", "marketplaceId": US, "sku": sku});
    let (s, _, b) = parts(app.sp(Method::POST, feop, &t).json(&json!({"requests": [one, {"uri": "/x", "method": "GET", "marketplaceId": US, "sku": "NOPE"}]})).send().await.unwrap()).await;
    assert_eq!(s, 200);
    assert_eq!(b["responses"][0]["status"]["statusCode"], 200);
    assert_eq!(
        b["responses"][0]["body"]["featuredOfferExpectedPriceResults"][0]["resultStatus"],
        "VALID_FOEP"
    );
    assert_eq!(
        b["responses"][1]["status"]["statusCode"], 404,
        "per-item status inside the 200"
    );
    // burst 1, then 0.033/s: the next batch is throttled
    let (s, h, _) = parts(
        app.sp(Method::POST, feop, &t)
            .json(&json!({"requests": [one]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 429);
    assert_eq!(h["x-amzn-ratelimit-limit"], "0.033");
    app.no_limits().await;
    let (s, _, b) = parts(
        app.sp(Method::POST, feop, &t)
            .json(&json!({"requests": vec![one.clone(); 41]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 400, "41 SKUs is over the provider batch of 40");
    assert!(b["errors"][0]["message"].as_str().unwrap().contains("40"));
    let summary = "/batches/products/pricing/2022-05-01/items/competitiveSummary";
    let item = json!({"asin": asin, "marketplaceId": US, "includedData": ["featuredBuyingOptions", "referencePrices", "lowestPricedOffers"], "method": "GET", "uri": "/products/pricing/2022-05-01/items/competitiveSummary"});
    let (s, _, b) = parts(
        app.sp(Method::POST, summary, &t)
            .json(&json!({"requests": [item]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(b["responses"][0]["body"]["asin"], asin.as_str());
    let (s, _, _) = parts(
        app.sp(Method::POST, summary, &t)
            .json(&json!({"requests": vec![item; 21]}))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(s, 400, "21 ASINs is over the provider batch of 20");
}
