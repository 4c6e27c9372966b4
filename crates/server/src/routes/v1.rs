//! The `/v1` data plane routes: each checks its scope, reads its query string, and hands the
//! caller's own warehouse to the `/v1` query in `pp-warehouse`. Failures use the `/v1`
//! envelope.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Extension, FromRequestParts, State};
use axum::http::request::Parts;
use pp_core::{Error, Principal, Scope};
use pp_warehouse::v1::{self, Args, Ctx};
use serde_json::Value;

use crate::http::error::V1Error;
use crate::state::SharedState;

/// The query string as `/v1` arguments; a repeated parameter is a `validation_error`.
pub struct Query(pub Args);

impl<S: Send + Sync> FromRequestParts<S> for Query {
    type Rejection = V1Error;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        args(parts.uri.query().unwrap_or(""))
            .map(Self)
            .map_err(V1Error)
    }
}

/// Parses a query string; a repeated parameter is a `validation_error`.
pub fn args(query: &str) -> Result<Args, Error> {
    let mut map = HashMap::new();
    for (k, v) in form_urlencoded::parse(query.as_bytes()) {
        if map.insert(k.to_string(), v.into_owned()).is_some() {
            return Err(Error::invalid_request(format!(
                "parameter '{k}' is repeated"
            )));
        }
    }
    Ok(Args(map))
}

macro_rules! endpoint {
    ($name:ident, $scope:expr, $call:path) => {
        pub async fn $name(
            State(app): State<SharedState>,
            Extension(p): Extension<Principal>,
            Query(args): Query,
        ) -> Result<Json<Value>, V1Error> {
            p.require(&[$scope])?;
            let engine = app.warehouse_for(&p)?;
            let ctx = Ctx {
                engine: engine.as_ref(),
                limits: &app.limits,
                tenant: p.tenant.as_str(),
                cursors: &app.cursors,
            };
            Ok(Json($call(&ctx, &args).await?))
        }
    };
}

endpoint!(accounts, Scope::AccountRead, v1::accounts);
endpoint!(ads_account_summary, Scope::AdsRead, v1::account_summary);
endpoint!(ads_account_pacing, Scope::AdsRead, v1::account_pacing);
endpoint!(
    ads_campaign_performance,
    Scope::AdsRead,
    v1::campaign_performance
);
endpoint!(ads_search_terms, Scope::AdsRead, v1::search_terms);
endpoint!(ads_asin_performance, Scope::AdsRead, v1::asin_performance);
endpoint!(retail_sales, Scope::RetailRead, v1::sales);
endpoint!(retail_traffic, Scope::RetailRead, v1::traffic);
endpoint!(retail_inventory, Scope::RetailRead, v1::inventory);
endpoint!(
    retail_inventory_history,
    Scope::RetailRead,
    v1::inventory_history
);
endpoint!(
    brand_analytics_sqp,
    Scope::BrandAnalyticsRead,
    v1::search_query_performance
);
