//! Product type definitions 2020-09-01: one product type, `PRODUCT`, whose attribute schema is
//! a document behind a presigned link. Its version (`productTypeVersion`) moves on when a
//! test calls `POST /__sandbox/product-types/bump`, so a client can see a schema change.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::q::{Q, seller_in};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static SEARCH: Op = Op {
    name: "definitionsProductTypes.searchDefinitionsProductTypes",
    family: Family::Sp,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};
static GET: Op = Op {
    name: "definitionsProductTypes.getDefinitionsProductType",
    family: Family::Sp,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};

/// The product type every sandbox listing has.
pub const PRODUCT_TYPE: &str = "PRODUCT";

/// The attributes a `PRODUCT` listing may carry, and whether a listing needs them.
pub const ATTRIBUTES: &[(&str, bool)] = &[
    ("item_name", true),
    ("brand", true),
    ("bullet_point", false),
    ("product_description", false),
    ("generic_keyword", false),
    ("special_feature", false),
    ("ingredients", false),
    ("item_form", false),
    ("list_price", false),
    ("main_product_image_locator", false),
    ("other_product_image_locator_1", false),
    ("other_product_image_locator_2", false),
    ("other_product_image_locator_3", false),
    ("other_product_image_locator_4", false),
    ("other_product_image_locator_5", false),
    ("other_product_image_locator_6", false),
    ("other_product_image_locator_7", false),
    ("other_product_image_locator_8", false),
];

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/definitions/2020-09-01/productTypes",
            op(sim, &SEARCH, get(search)),
        )
        .route(
            "/definitions/2020-09-01/productTypes/{productType}",
            op(sim, &GET, get(one)),
        )
}

async fn search(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let seller = q.seller(&sim, &c, "marketplaceIds")?;
    let words = q.list("keywords");
    let matches = words.is_empty()
        || words
            .iter()
            .any(|w| "product general item".contains(&w.to_lowercase()));
    let types = if matches {
        vec![
            json!({ "name": PRODUCT_TYPE, "displayName": "Product", "marketplaceIds": [seller.marketplace_id] }),
        ]
    } else {
        vec![]
    };
    Ok(Json(
        json!({ "productTypes": types, "productTypeVersion": sim.product_type_version()? }),
    ))
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(name): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let seller = q.seller(&sim, &c, "marketplaceIds")?;
    seller_in(&sim, &c, &seller.marketplace_id)?;
    if name != PRODUCT_TYPE {
        return Err(SimError::not_found(format!(
            "Product type {name} not found; the sandbox has {PRODUCT_TYPE}"
        )));
    }
    let version = sim.product_type_version()?;
    let requirements = q.get("requirements").unwrap_or("LISTING");
    let schema = json!({
        "$schema": "https://schemas.amazon.com/selling-partners/definitions/product-types/meta-schema/v1",
        "$id": format!("https://schemas.amazon.com/selling-partners/definitions/product-types/schema/v1/{PRODUCT_TYPE}/{version}"),
        "type": "object",
        "required": ATTRIBUTES.iter().filter(|(_, r)| *r).map(|(n, _)| *n).collect::<Vec<_>>(),
        "properties": ATTRIBUTES.iter().map(|(n, _)| ((*n).to_owned(), json!({ "type": "array", "items": { "type": "object" } }))).collect::<serde_json::Map<_, _>>(),
    });
    let text = schema.to_string();
    let doc = sim.put_document("application/json", false, text.as_bytes())?;
    let (url, _) = sim.presign(&doc);
    let checksum = hex::encode(&sha2::Sha256::digest(text.as_bytes())[..16]);
    Ok(Json(json!({
        "metaSchema": { "link": { "resource": format!("{}/__documents/meta-schema", sim.config.public_url), "verb": "GET" }, "checksum": "meta" },
        "schema": { "link": { "resource": url, "verb": "GET" }, "checksum": checksum },
        "requirements": requirements,
        "requirementsEnforced": "ENFORCED",
        "propertyGroups": { "offer": { "title": "Offer", "propertyNames": ["list_price"] }, "product_details": { "title": "Product details", "propertyNames": ATTRIBUTES.iter().map(|(n, _)| *n).collect::<Vec<_>>() } },
        "locale": "en_US",
        "marketplaceIds": [seller.marketplace_id],
        "productType": PRODUCT_TYPE,
        "displayName": "Product",
        "productTypeVersion": { "version": version, "latest": true, "releaseCandidate": false },
    })))
}

use sha2::Digest;
