//! The route table: which path goes to which handler, behind which middleware.

pub(crate) mod brand;
mod forecast;
mod health;
pub(crate) mod marketplace;
mod me;
mod oauth;
pub(crate) mod pricing;
pub(crate) mod reports;
pub(crate) mod v1;
pub(crate) mod warehouse;

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};

use crate::http::{auth, error, request_log};
use crate::state::SharedState;

pub fn router(state: SharedState) -> Router {
    let public = Router::new()
        .route("/health", get(health::health))
        .route("/oauth/token", post(oauth::token))
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::metadata),
        )
        .route("/openapi.json", get(health::openapi));
    let authed = Router::new()
        .route("/v1/me", get(me::me))
        .route("/v1/accounts", get(v1::accounts))
        .route("/v1/ads/account-summary", get(v1::ads_account_summary))
        .route("/v1/ads/account-pacing", get(v1::ads_account_pacing))
        .route(
            "/v1/ads/campaign-performance",
            get(v1::ads_campaign_performance),
        )
        .route("/v1/ads/search-terms", get(v1::ads_search_terms))
        .route("/v1/ads/asin-performance", get(v1::ads_asin_performance))
        .route("/v1/retail/sales", get(v1::retail_sales))
        .route("/v1/retail/traffic", get(v1::retail_traffic))
        .route("/v1/retail/inventory", get(v1::retail_inventory))
        .route(
            "/v1/retail/inventory-history",
            get(v1::retail_inventory_history),
        )
        .route(
            "/v1/brand-analytics/search-query-performance",
            get(v1::brand_analytics_sqp),
        )
        .route("/api/query", post(warehouse::query))
        .route("/api/tables", get(warehouse::tables))
        .route("/api/table/{name}", get(warehouse::describe))
        .route("/api/marketplace/merchants", get(marketplace::merchants))
        .route(
            "/api/marketplace/spapi/operations",
            get(marketplace::spapi_operations),
        )
        .route("/api/marketplace/spapi/call", post(marketplace::spapi_call))
        .route(
            "/api/marketplace/ads/operations",
            get(marketplace::ads_operations),
        )
        .route(
            "/api/marketplace/ads/profiles",
            get(marketplace::ads_profiles),
        )
        .route("/api/marketplace/ads/call", post(marketplace::ads_call))
        .route("/api/marketplace/reports", post(reports::create))
        .route("/api/marketplace/reports/{id}", get(reports::status))
        .route(
            "/api/marketplace/reports/{id}/document",
            get(reports::document),
        )
        .route(
            "/api/marketplace/pricing/runs/{id}",
            get(pricing::run).delete(pricing::cancel),
        )
        .route(
            "/api/marketplace/pricing/runs/{id}/result",
            get(pricing::result),
        )
        .route("/api/marketplace/pricing/{family}", post(pricing::sync))
        .route(
            "/api/marketplace/pricing/{family}/start",
            post(pricing::start),
        );
    let brand_memory = Router::new()
        .route("/api/context/manifest", get(brand::manifest))
        .route(
            "/api/context/docs/{brand}/{kind}",
            axum::routing::put(brand::put_doc),
        )
        .route(
            "/api/context/docs/{brand}/{kind}/{name}",
            axum::routing::put(brand::put_named_doc),
        )
        .route("/api/context/lifecycle", post(brand::lifecycle))
        .route("/v1/context/docs", get(brand::v1_manifest))
        .route("/v1/context/doc", get(brand::v1_doc))
        .route("/v1/timeline", get(brand::timeline))
        .route("/v1/timeline/event", post(brand::append))
        .route(
            "/v1/timeline/event/{id}/corroborate",
            post(brand::corroborate),
        );
    let forecast = Router::new()
        .route("/api/app-state/forecasting/doc", get(forecast::doc))
        .route("/api/app-state/forecasting/docs", get(forecast::docs))
        .route("/api/app-state/forecasting/batch", post(forecast::batch))
        .route(
            "/api/app-state/forecasting/scopes",
            get(forecast::list_scopes).post(forecast::create_scope),
        )
        .route(
            "/api/app-state/forecasting/revisions",
            get(forecast::revisions),
        )
        .route_layer(from_fn_with_state(state.clone(), forecast::usage));
    Router::new()
        .merge(public)
        .merge(crate::mcp::routes())
        .merge(
            // Every route here needs a bearer token: one auth layer over all of them.
            authed
                .merge(forecast)
                .merge(brand_memory)
                .route_layer(from_fn_with_state(state.clone(), auth::require)),
        )
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(from_fn(request_log::layer))
        .with_state(state)
}
