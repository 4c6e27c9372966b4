//! Sellers v1: `getMarketplaceParticipations` and `getAccount`.

use std::sync::Arc;

use axum::extract::{Extension, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::marketplace;
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static PARTICIPATIONS: Op = Op {
    name: "sellers.getMarketplaceParticipations",
    family: Family::Sp,
    rate: 0.016,
    burst: 15.0,
    error_media: None,
};
static ACCOUNT: Op = Op {
    name: "sellers.getAccount",
    family: Family::Sp,
    rate: 0.016,
    burst: 15.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/sellers/v1/marketplaceParticipations",
            op(sim, &PARTICIPATIONS, get(participations)),
        )
        .route("/sellers/v1/account", op(sim, &ACCOUNT, get(account)))
}

fn participation_list(sim: &Sim, c: &Caller) -> Result<Vec<Value>, SimError> {
    let rows = sim.world().seller_rows(&c.subject)?;
    Ok(rows
        .iter()
        .filter_map(|s| {
            let m = marketplace(&s.marketplace_id)?;
            Some(json!({
                "marketplace": {
                    "id": m.id, "name": m.name, "countryCode": m.country,
                    "defaultCurrencyCode": m.currency, "defaultLanguageCode": m.language, "domainName": m.domain,
                },
                "participation": { "isParticipating": true, "hasSuspendedListings": false },
                "storeName": s.name,
            }))
        })
        .collect())
}

async fn participations(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
) -> Result<Json<Value>, SimError> {
    Ok(Json(json!({ "payload": participation_list(&sim, &c)? })))
}

async fn account(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
) -> Result<Json<Value>, SimError> {
    let rows = sim.world().seller_rows(&c.subject)?;
    let first = rows
        .first()
        .ok_or_else(|| SimError::not_found("no such seller"))?;
    Ok(Json(json!({ "payload": {
        "marketplaceParticipationList": participation_list(&sim, &c)?,
        "businessType": "PRIVATE_LIMITED",
        "sellingPlan": "PROFESSIONAL",
        "business": { "name": first.name, "registeredBusinessAddress": { "addressLine1": "1 Demo Way", "countryCode": first.marketplace } },
    } })))
}
