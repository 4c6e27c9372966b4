//! Profiles: `GET /v2/profiles` and `GET /v2/profiles/{profileId}` for the advertising login.

use std::sync::Arc;

use axum::extract::{Extension, Path, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Map, Value, json};

use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static LIST: Op = Op {
    name: "profiles.listProfiles",
    family: Family::Ads,
    rate: 0.0,
    burst: 0.0,
    error_media: None,
};
static ONE: Op = Op {
    name: "profiles.getProfileById",
    family: Family::Ads,
    rate: 0.0,
    burst: 0.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/v2/profiles", op(sim, &LIST, get(list)))
        .route("/v2/profiles/{profileId}", op(sim, &ONE, get(one)))
}

fn shape(sim: &Sim, r: &Map<String, Value>) -> Value {
    let market = sim
        .world()
        .rows(
            "SELECT MarketplaceID, Name FROM seller WHERE ID = ?1",
            &[&r["SellerID"].as_i64().unwrap_or_default()],
        )
        .ok()
        .and_then(|v| v.into_iter().next())
        .unwrap_or_default();
    json!({
        "profileId": r["ProfileID"],
        "countryCode": r["CountryCode"],
        "currencyCode": r["CurrencyCode"],
        "dailyBudget": 999999999.0,
        "timezone": r["Timezone"],
        "accountInfo": {
            "marketplaceStringId": market.get("MarketplaceID").cloned().unwrap_or_default(),
            "id": r["MarketplaceSellerID"],
            "type": r["AccountType"],
            "name": market.get("Name").cloned().unwrap_or_default(),
            "validPaymentMethod": true,
        },
    })
}

async fn list(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
) -> Result<Json<Value>, SimError> {
    let rows = sim.world().rows(
        "SELECT * FROM ads_profile WHERE MarketplaceSellerID = ?1 ORDER BY ProfileID",
        &[&c.subject],
    )?;
    Ok(Json(Value::Array(
        rows.iter().map(|r| shape(&sim, r)).collect(),
    )))
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<i64>,
) -> Result<Json<Value>, SimError> {
    let rows = sim.world().rows(
        "SELECT * FROM ads_profile WHERE MarketplaceSellerID = ?1 AND ProfileID = ?2",
        &[&c.subject, &id],
    )?;
    rows.first().map(|r| Json(shape(&sim, r))).ok_or_else(|| {
        SimError::new(404, "NOT_FOUND", format!("Profile {id} not found")).for_family(Family::Ads)
    })
}
