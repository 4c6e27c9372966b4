//! Catalog items for the listings: every item of every merchant, read by ASIN with its
//! summaries, attributes, relationships, identifiers and vendor details, gives back the
//! world's `catalog_item` row.

use reqwest::Method;
use serde_json::Value;

use crate::common::{SimApp, parts};

/// (ASIN, parent, SKU, brand, vendor brand, product line, title, list price in cents, launch).
type Row = (
    String,
    String,
    Option<String>,
    String,
    Option<String>,
    String,
    String,
    i64,
    String,
);

fn row_of(item: &Value) -> Row {
    let s = &item["summaries"][0];
    let a = &item["attributes"];
    let parent = item["relationships"][0]["relationships"][0]["parentAsins"][0]
        .as_str()
        .unwrap_or(item["asin"].as_str().unwrap())
        .to_owned();
    let sku = item["identifiers"][0]["identifiers"][0]["identifier"]
        .as_str()
        .map(str::to_owned);
    (
        item["asin"].as_str().unwrap().to_owned(),
        parent,
        sku,
        s["brand"].as_str().unwrap().to_owned(),
        item["vendorDetails"][0]["brandCode"]
            .as_str()
            .map(str::to_owned),
        a["model_name"][0]["value"].as_str().unwrap().to_owned(),
        s["itemName"].as_str().unwrap().to_owned(),
        (a["list_price"][0]["value"].as_f64().unwrap() * 100.0).round() as i64,
        s["releaseDate"].as_str().unwrap().to_owned(),
    )
}

/// Issue 53: the catalog a warehouse's `catalog_item` holds, from catalog items.
#[tokio::test]
async fn catalog_items_give_back_every_merchants_catalog_rows() {
    let app = SimApp::small(|_| {}).await;
    app.no_limits().await;
    let world = rusqlite::Connection::open(app.dir.path().join("world/warehouse.sqlite")).unwrap();
    for (id, token, market) in [
        (1, "A2DEMOSELLER01", "ATVPDKIKX0DER"),
        (2, "A2DEMOSELLER01", "A2EUQ1WTGCTBG2"),
        (3, "A1DEMOSELLERMX", "A1AM78C64UM0Y8"),
        (4, "ENTITY2DEMOVENDOR", "ATVPDKIKX0DER"),
    ] {
        let truth: Vec<Row> = world
            .prepare(
                "SELECT ASIN, ParentASIN, SKU, Brand, CustomBrand, ItemGroup, Title,
                        CAST(ROUND(ListPrice * 100) AS INTEGER), LaunchDate
                 FROM catalog_item WHERE SellerID = ?1 ORDER BY ASIN",
            )
            .unwrap()
            .query_map([id], |r| {
                Ok((
                    r.get(0)?,
                    r.get(1)?,
                    r.get(2)?,
                    r.get(3)?,
                    r.get(4)?,
                    r.get(5)?,
                    r.get(6)?,
                    r.get(7)?,
                    r.get(8)?,
                ))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let access = app.access("seller", token).await;
        let mut served = Vec::new();
        for chunk in truth.chunks(20) {
            let asins: Vec<&str> = chunk.iter().map(|r| r.0.as_str()).collect();
            let path = format!(
                "/catalog/2022-04-01/items?marketplaceIds={market}&identifiersType=ASIN&identifiers={}&pageSize=20&includedData=summaries,attributes,relationships,identifiers,vendorDetails",
                asins.join(",")
            );
            let (s, _, b) = parts(app.sp(Method::GET, &path, &access).send().await.unwrap()).await;
            assert_eq!(s, 200, "{b}");
            served.extend(b["items"].as_array().unwrap().iter().map(row_of));
        }
        served.sort();
        assert_eq!(served, truth, "seller {id}");
    }
}
