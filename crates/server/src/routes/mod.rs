//! The router, generated from the operation declarations (`crate::operations`): each declared
//! path and method gets its handler. Its gate — public, a bearer token, or a bearer token whose
//! calls are counted as API usage — is checked with the declared scopes before the handler
//! runs, by `http::frame`, the one layer around every route, which finds a token route's gate
//! by its route template and method (`operations::gated`) and runs [`gate`]. What is declared
//! is routed, and nothing else is — except the HTML pages (`crate::pages`: sign-in, consent,
//! the console) and `GET /metrics` (Prometheus text for the operator's scraper, `metrics`),
//! merged beside and kept out of the API document.

pub(crate) mod health;
mod metrics;
pub(crate) mod oauth;
mod usage;

use std::convert::Infallible;

use axum::Router;
use axum::extract::Request;
use axum::response::Response;
use pp_core::Principal;
use tower::{Service, ServiceExt};

use crate::http::frame::FrameLayer;
use crate::http::{auth, error};
use crate::operations::{self, Endpoint, Gate};
use crate::state::SharedState;

/// The gate of a token route (`operations::gated`), run by `http::frame` around it: a live bearer token
/// (`auth::principal`: the bearer check and the credential's budget), then the operation's
/// declared scopes, then the handler with the [`Principal`]; a counted route records the
/// call as API usage, refused scopes included.
pub async fn gate<S>(
    app: &SharedState,
    e: &'static Endpoint,
    mut req: Request,
    route: S,
) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let p = match auth::principal(app, req.headers(), req.extensions()).await {
        Ok(p) => p,
        Err(err) => return error::for_path(req.uri().path(), err),
    };
    let counted = (e.gate == Gate::TokenCounted).then(|| usage::Call::of(&p, &req));
    let res = match e.needs.check(&p) {
        Err(err) => error::for_path(req.uri().path(), err),
        Ok(()) => {
            req.extensions_mut().insert::<Principal>(p);
            route.oneshot(req).await.unwrap_or_else(|e| match e {})
        }
    };
    match counted {
        Some(call) => call.record(app, res).await,
        None => res,
    }
}

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
