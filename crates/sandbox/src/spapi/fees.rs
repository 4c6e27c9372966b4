//! Product fees v0: fee estimates for a SKU, an ASIN, or a batch of up to 20, by the world's
//! own fee rules (`pp_world::Fees`): the item's category's referral fee on the listing price
//! (and shipping), and when Amazon fulfils, its size tier's fulfillment fee in force today —
//! what the world charges a unit sold at that price today.

use std::sync::Arc;

use axum::extract::{Extension, Path, State};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::q::seller_in;
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static FOR_SKU: Op = Op {
    name: "productFees.getMyFeesEstimateForSKU",
    family: Family::Sp,
    rate: 1.0,
    burst: 2.0,
    error_media: None,
};
static FOR_ASIN: Op = Op {
    name: "productFees.getMyFeesEstimateForASIN",
    family: Family::Sp,
    rate: 1.0,
    burst: 2.0,
    error_media: None,
};
static BATCH: Op = Op {
    name: "productFees.getMyFeesEstimates",
    family: Family::Sp,
    rate: 0.5,
    burst: 1.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/products/fees/v0/listings/{SellerSKU}/feesEstimate",
            op(sim, &FOR_SKU, post(for_sku)),
        )
        .route(
            "/products/fees/v0/items/{Asin}/feesEstimate",
            op(sim, &FOR_ASIN, post(for_asin)),
        )
        .route(
            "/products/fees/v0/feesEstimate",
            op(sim, &BATCH, post(batch)),
        )
}

fn money(amount: f64, currency: &str) -> Value {
    json!({ "CurrencyCode": currency, "Amount": (amount * 100.0).round() / 100.0 })
}

/// One estimate for `req` (a `FeesEstimateRequest`) of the item `id_type`/`id_value`.
fn estimate(sim: &Sim, c: &Caller, req: &Value, id_type: &str, id_value: &str) -> Value {
    let market = req["MarketplaceId"].as_str().unwrap_or_default();
    let price = &req["PriceToEstimateFees"]["ListingPrice"];
    let amount = price["Amount"].as_f64();
    let currency = price["CurrencyCode"].as_str().unwrap_or("USD");
    let fba = req["IsAmazonFulfilled"].as_bool().unwrap_or(false);
    let identifier = json!({
        "MarketplaceId": market, "SellerId": c.subject, "IdType": id_type, "IdValue": id_value,
        "IsAmazonFulfilled": fba, "PriceToEstimateFees": req["PriceToEstimateFees"], "SellerInputIdentifier": req["Identifier"],
    });
    let shipping = req["PriceToEstimateFees"]["Shipping"]["Amount"]
        .as_f64()
        .unwrap_or(0.0);
    // the world's own fee rules, for the seller's item at what the buyer pays (shipping
    // included: the referral fee is charged on it), today
    let world = sim.world();
    let known = seller_in(sim, c, market).ok().and_then(|s| {
        let cents = amount.map(|a| ((a + shipping) * 100.0).round() as i64)?;
        world
            .fees
            .as_ref()?
            .estimate(s.id, id_value, cents, world.today())
    });
    let (Some(_), Some(fees)) = (amount, known) else {
        return json!({
            "Status": "ClientError", "FeesEstimateIdentifier": identifier,
            "Error": { "Type": "Sender", "Code": "InvalidParameterValue", "Message": format!("No fee estimate for {id_type} {id_value} with that price in {market}"), "Detail": [] },
        });
    };
    let referral = fees.referral as f64 / 100.0;
    let fulfillment = if fba {
        fees.fulfillment as f64 / 100.0
    } else {
        0.0
    };
    let mut details = vec![
        json!({ "FeeType": "ReferralFee", "FeeAmount": money(referral, currency), "FinalFee": money(referral, currency) }),
    ];
    if fba {
        details.push(json!({ "FeeType": "FBAFees", "FeeAmount": money(fulfillment, currency), "FinalFee": money(fulfillment, currency) }));
    }
    json!({
        "Status": "Success",
        "FeesEstimateIdentifier": identifier,
        "FeesEstimate": {
            "TimeOfFeesEstimation": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            "TotalFeesEstimate": money(referral + fulfillment, currency),
            "FeeDetailList": details,
        },
    })
}

fn request(bytes: &[u8]) -> Result<Value, SimError> {
    let b: Value =
        serde_json::from_slice(bytes).map_err(|e| SimError::invalid(format!("body: {e}")))?;
    let r = b["FeesEstimateRequest"].clone();
    for k in ["MarketplaceId", "PriceToEstimateFees", "Identifier"] {
        if r.get(k).is_none_or(Value::is_null) {
            return Err(SimError::invalid(format!(
                "FeesEstimateRequest.{k} is required"
            )));
        }
    }
    Ok(r)
}

async fn for_sku(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(sku): Path<String>,
    bytes: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let r = request(&bytes)?;
    Ok(Json(
        json!({ "payload": { "FeesEstimateResult": estimate(&sim, &c, &r, "SellerSKU", &sku) } }),
    ))
}

async fn for_asin(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(asin): Path<String>,
    bytes: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let r = request(&bytes)?;
    Ok(Json(
        json!({ "payload": { "FeesEstimateResult": estimate(&sim, &c, &r, "ASIN", &asin) } }),
    ))
}

async fn batch(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    bytes: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let list: Vec<Value> = serde_json::from_slice(&bytes)
        .map_err(|e| SimError::invalid(format!("body must be an array of requests: {e}")))?;
    if list.is_empty() || list.len() > 20 {
        return Err(SimError::invalid("send 1 to 20 fee estimate requests"));
    }
    Ok(Json(Value::Array(
        list.iter()
            .map(|r| {
                let id_type = r["IdType"].as_str().unwrap_or("ASIN");
                estimate(
                    &sim,
                    &c,
                    &r["FeesEstimateRequest"],
                    id_type,
                    r["IdValue"].as_str().unwrap_or_default(),
                )
            })
            .collect(),
    )))
}
