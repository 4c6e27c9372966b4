//! Catalog items 2022-04-01: `searchCatalogItems` (by identifiers or keywords, 20 a page with
//! `pageToken`) and `getCatalogItem`, from the world's catalog in the marketplace.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Map, Value, json};

use super::q::{Q, offset, token};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;
use crate::world::Seller;

static SEARCH: Op = Op {
    name: "catalogItems.searchCatalogItems",
    family: Family::Sp,
    rate: 2.0,
    burst: 2.0,
    error_media: None,
};
static GET: Op = Op {
    name: "catalogItems.getCatalogItem",
    family: Family::Sp,
    rate: 2.0,
    burst: 2.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/catalog/2022-04-01/items", op(sim, &SEARCH, get(search)))
        .route("/catalog/2022-04-01/items/{asin}", op(sim, &GET, get(one)))
}

const SECTIONS: &[&str] = &[
    "summaries",
    "attributes",
    "identifiers",
    "relationships",
    "classifications",
    "dimensions",
    "images",
    "productTypes",
    "salesRanks",
    "vendorDetails",
];

fn included(q: &Q) -> Result<Vec<String>, SimError> {
    let list = q.list("includedData");
    if let Some(bad) = list.iter().find(|s| !SECTIONS.contains(&s.as_str())) {
        return Err(SimError::invalid(format!(
            "includedData {bad} is not one of {}",
            SECTIONS.join(", ")
        )));
    }
    Ok(if list.is_empty() {
        vec!["summaries".into()]
    } else {
        list
    })
}

fn item(r: &Map<String, Value>, seller: &Seller, sections: &[String]) -> Value {
    let m = &seller.marketplace_id;
    let mut v = json!({ "asin": r["ASIN"] });
    for s in sections {
        match s.as_str() {
            "summaries" => {
                v["summaries"] = json!([{
                    "marketplaceId": m, "brand": r["Brand"], "itemName": r["Title"],
                    "itemClassification": "BASE_PRODUCT", "adultProduct": false, "autographed": false, "memorabilia": false, "tradeInEligible": false,
                    "releaseDate": r["LaunchDate"],
                }]);
            }
            "attributes" => {
                // the sub-brand's product line is the item's model name
                v["attributes"] = json!({
                    "item_name": [{ "value": r["Title"], "marketplace_id": m }],
                    "brand": [{ "value": r["Brand"], "marketplace_id": m }],
                    "model_name": [{ "value": r["ItemGroup"], "marketplace_id": m }],
                    "list_price": [{ "value": r["ListPrice"], "currency": seller.currency, "marketplace_id": m }],
                });
            }
            "identifiers" => {
                v["identifiers"] = json!([{ "marketplaceId": m, "identifiers": [{ "identifierType": "SKU", "identifier": r["SKU"] }] }]);
            }
            "relationships" => {
                let mut rel = json!({ "marketplaceId": m, "relationships": [] });
                if r["ParentASIN"] != r["ASIN"] {
                    rel["relationships"] =
                        json!([{ "parentAsins": [r["ParentASIN"]], "type": "VARIATION" }]);
                }
                v["relationships"] = json!([rel]);
            }
            "vendorDetails" if seller.account_type == "vendor" => {
                // a vendor's own brand label and product line
                v["vendorDetails"] = json!([{
                    "marketplaceId": m, "brandCode": r["CustomBrand"], "productGroup": r["ItemGroup"],
                }]);
            }
            "productTypes" => {
                v["productTypes"] = json!([{ "marketplaceId": m, "productType": "DRINKING_CUP" }])
            }
            other => v[other] = json!([]),
        }
    }
    v
}

const COLS: &str = "SELECT ASIN, ParentASIN, SKU, Brand, CustomBrand, ItemGroup, Title, ListPrice, LaunchDate FROM catalog_item WHERE SellerID = ?1";

async fn search(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let seller = q.seller(&sim, &c, "marketplaceIds")?;
    let sections = included(&q)?;
    let ids = q.list("identifiers");
    let words = q.get("keywords").map(str::to_lowercase);
    if ids.is_empty() == words.is_none() {
        return Err(SimError::invalid(
            "Send either identifiers (with identifiersType) or keywords",
        ));
    }
    if !ids.is_empty() && !["ASIN", "SKU"].contains(&q.get("identifiersType").unwrap_or("")) {
        return Err(SimError::invalid(
            "identifiersType is required with identifiers (ASIN or SKU here)",
        ));
    }
    let size = q.int("pageSize", 1, 20, 10)? as usize;
    let start = q
        .get("pageToken")
        .map(|t| offset("cat.", t))
        .transpose()?
        .unwrap_or(0);
    let field = if q.get("identifiersType") == Some("SKU") {
        "SKU"
    } else {
        "ASIN"
    };
    let rows: Vec<_> = sim
        .world()
        .rows(&format!("{COLS} ORDER BY ASIN"), &[&seller.id])?
        .into_iter()
        .filter(|r| match &words {
            Some(w) => r["Title"]
                .as_str()
                .unwrap_or("")
                .to_lowercase()
                .contains(w.as_str()),
            None => ids.iter().any(|i| r[field].as_str() == Some(i.as_str())),
        })
        .collect();
    let items: Vec<Value> = rows
        .iter()
        .skip(start)
        .take(size)
        .map(|r| item(r, &seller, &sections))
        .collect();
    let mut out = json!({ "numberOfResults": rows.len(), "items": items });
    let mut pagination = Map::new();
    if start + size < rows.len() {
        pagination.insert("nextToken".into(), token("cat.", start + size).into());
    }
    if start > 0 {
        pagination.insert(
            "previousToken".into(),
            token("cat.", start.saturating_sub(size)).into(),
        );
    }
    if !pagination.is_empty() {
        out["pagination"] = Value::Object(pagination);
    }
    Ok(Json(out))
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(asin): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let seller = q.seller(&sim, &c, "marketplaceIds")?;
    let sections = included(&q)?;
    let rows = sim
        .world()
        .rows(&format!("{COLS} AND ASIN = ?2"), &[&seller.id, &asin])?;
    let r = rows.first().ok_or_else(|| {
        SimError::not_found(format!(
            "Requested item '{asin}' not found in marketplace {}",
            seller.marketplace_id
        ))
    })?;
    Ok(Json(item(r, &seller, &sections)))
}
