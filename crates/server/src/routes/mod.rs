//! The router, generated from the operation declarations (`crate::operations`): each declared
//! path and method gets its handler. Its gate — public, a bearer token, or a bearer token whose
//! calls are counted as API usage — is checked with the declared scopes before the handler
//! runs, by `http::frame`, the one layer around every route, which finds a token route's gate
//! by its route template and method (`operations::gated`) and runs it (`http::gate`). What is declared
//! is routed, and nothing else is — except the HTML pages (`crate::pages`: sign-in, consent,
//! the console) and `GET /metrics` (Prometheus text for the operator's scraper, `metrics`),
//! merged beside and kept out of the API document.

pub(crate) mod health;
mod metrics;
pub(crate) mod oauth;

use axum::Router;

use crate::http::error;
use crate::http::frame::FrameLayer;
use crate::operations;
use crate::state::SharedState;

pub fn router(state: SharedState) -> Router {
    let declared = operations::all()
        .iter()
        .fold(Router::new(), |r, e| r.route(e.path, e.handler.clone()));
    declared
        .merge(crate::pages::router())
        .route("/metrics", axum::routing::get(metrics::metrics))
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(FrameLayer(state.clone()))
        .with_state(state)
}
