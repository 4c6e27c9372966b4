//! Product pricing 2022-05-01 batches: Featured Offer Expected Price by SKU (at most 40
//! requests a batch) and Competitive Summary by ASIN (at most 20), priced from the world's
//! last day. Each item answers with its own status inside the 200; a larger batch is a 400.

use std::sync::Arc;

use axum::extract::{Extension, State};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::q::seller_in;
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;
use crate::world::Seller;

static FEOP: Op = Op {
    name: "productPricing.getFeaturedOfferExpectedPriceBatch",
    family: Family::Sp,
    rate: 0.033,
    burst: 1.0,
    error_media: None,
};
static SUMMARY: Op = Op {
    name: "productPricing.getCompetitiveSummary",
    family: Family::Sp,
    rate: 0.033,
    burst: 1.0,
    error_media: None,
};

/// The provider's batch sizes.
pub const FEOP_BATCH: usize = 40;
pub const SUMMARY_BATCH: usize = 20;
/// The other seller on every detail page.
const RIVAL: &str = "A3SANDBOXRIVAL";

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/batches/products/pricing/2022-05-01/offer/featuredOfferExpectedPrice",
            op(sim, &FEOP, post(feop)),
        )
        .route(
            "/batches/products/pricing/2022-05-01/items/competitiveSummary",
            op(sim, &SUMMARY, post(summary)),
        )
}

fn requests(bytes: &[u8], max: usize) -> Result<Vec<Value>, SimError> {
    let b: Value =
        serde_json::from_slice(bytes).map_err(|e| SimError::invalid(format!("body: {e}")))?;
    let list = b["requests"]
        .as_array()
        .cloned()
        .ok_or_else(|| SimError::invalid("requests must be an array"))?;
    if list.is_empty() || list.len() > max {
        return Err(SimError::invalid(format!(
            "requests must hold 1 to {max} items; this batch has {}",
            list.len()
        )));
    }
    Ok(list)
}

/// (ASIN, today's price, buy-box share) of `field` = `key` for the seller on the last day.
fn price(
    sim: &Sim,
    seller: &Seller,
    field: &str,
    key: &str,
) -> Result<Option<(String, f64, f64)>, SimError> {
    let rows = sim.world().rows(
        &format!("SELECT ChildASIN, ItemPrice, BuyBoxPercentage FROM spapi_sales_and_traffic_by_asin WHERE SellerID = ?1 AND Date = ?2 AND {field} = ?3"),
        &[&seller.id, &sim.world().last_day.to_string(), &key],
    )?;
    Ok(rows.first().map(|r| {
        (
            r["ChildASIN"].as_str().unwrap_or_default().to_owned(),
            r["ItemPrice"].as_f64().unwrap_or(0.0),
            r["BuyBoxPercentage"].as_f64().unwrap_or(0.0),
        )
    }))
}

fn money(amount: f64, currency: &str) -> Value {
    json!({ "amount": (amount * 100.0).round() / 100.0, "currencyCode": currency })
}

fn status(code: u16, phrase: &str) -> Value {
    json!({ "statusCode": code, "reasonPhrase": phrase })
}

async fn feop(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    bytes: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let mut out = Vec::new();
    for r in requests(&bytes, FEOP_BATCH)? {
        let (market, sku) = (
            r["marketplaceId"].as_str().unwrap_or(""),
            r["sku"].as_str().unwrap_or(""),
        );
        let request = json!({ "marketplaceId": market, "sku": sku });
        let seller = match seller_in(&sim, &c, market) {
            Ok(s) => s,
            Err(e) => {
                out.push(json!({ "status": status(400, "Bad Request"), "headers": {}, "request": request, "body": { "errors": [{ "code": "InvalidInput", "message": e.message }] } }));
                continue;
            }
        };
        match price(&sim, &seller, "SKU", sku)? {
            None => out.push(json!({ "status": status(404, "Not Found"), "headers": {}, "request": request, "body": { "errors": [{ "code": "NotFound", "message": format!("SKU {sku} has no offer") }] } })),
            Some((asin, p, bb)) => {
                let expected = if bb >= 90.0 { p } else { p * 0.97 };
                let rival = json!({ "offerIdentifier": { "marketplaceId": market, "sellerId": RIVAL, "asin": asin, "fulfillmentType": "MFN" }, "condition": "New", "price": { "listingPrice": money(p * 0.98, &seller.currency) } });
                out.push(json!({
                    "status": status(200, "Success"), "headers": {}, "request": request,
                    "body": {
                        "offerIdentifier": { "marketplaceId": market, "sellerId": seller.token, "sku": sku, "asin": asin, "fulfillmentType": "AFN" },
                        "featuredOfferExpectedPriceResults": [{
                            "featuredOfferExpectedPrice": { "listingPrice": money(expected, &seller.currency) },
                            "resultStatus": "VALID_FOEP",
                            "competingFeaturedOffer": rival.clone(),
                            "currentFeaturedOffer": if bb >= 50.0 { json!({ "offerIdentifier": { "marketplaceId": market, "sellerId": seller.token, "asin": asin, "fulfillmentType": "AFN" }, "condition": "New", "price": { "listingPrice": money(p, &seller.currency) } }) } else { rival },
                        }],
                    },
                }));
            }
        }
    }
    Ok(Json(json!({ "responses": out })))
}

async fn summary(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    bytes: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let mut out = Vec::new();
    for r in requests(&bytes, SUMMARY_BATCH)? {
        let (market, asin) = (
            r["marketplaceId"].as_str().unwrap_or(""),
            r["asin"].as_str().unwrap_or(""),
        );
        let found = match seller_in(&sim, &c, market) {
            Ok(s) => price(&sim, &s, "ChildASIN", asin)?.map(|p| (s, p)),
            Err(_) => None,
        };
        let Some((seller, (_, p, _))) = found else {
            out.push(json!({ "status": status(404, "Not Found"), "body": { "asin": asin, "marketplaceId": market, "errors": [{ "code": "NotFound", "message": format!("No offers for {asin} in {market}") }] } }));
            continue;
        };
        let cur = seller.currency.as_str();
        let offer = |seller_id: &str, amount: f64, ft: &str| json!({ "sellerId": seller_id, "condition": "New", "fulfillmentType": ft, "listingPrice": money(amount, cur) });
        let mut featured = offer(&seller.token, p, "AFN");
        featured["featuredOfferSegments"] = json!([{ "customerMembership": "PRIME", "segmentDetails": { "glanceViewWeightPercentage": 100 } }]);
        out.push(json!({
            "status": status(200, "Success"),
            "body": {
                "asin": asin, "marketplaceId": market,
                "featuredBuyingOptions": [{ "buyingOptionType": "New", "segmentedFeaturedOffers": [featured] }],
                "lowestPricedOffers": [{ "lowestPricedOffersInput": { "itemCondition": "New", "offerType": "Consumer" }, "offers": [offer(RIVAL, p * 0.98, "MFN"), offer(&seller.token, p, "AFN")] }],
                "referencePrices": [{ "name": "CompetitivePriceThreshold", "price": money(p * 1.05, cur) }, { "name": "WasPrice", "price": money(p * 1.1, cur) }],
            },
        }));
    }
    Ok(Json(json!({ "responses": out })))
}
