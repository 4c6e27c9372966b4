//! The router, generated from the operation declarations (`crate::operations`): each declared
//! path and method gets its handler behind its gate — public, a bearer token, or a bearer token
//! whose calls are counted as API usage — checked, with the declared scopes, by one gate
//! layer before the handler runs; `http::frame` is the one layer around every route. What is declared is routed, and nothing else is — except the HTML pages
//! (`crate::pages`: sign-in, consent, the console) and `GET /metrics` (Prometheus text for
//! the operator's scraper, `metrics`), merged beside and kept out of the API document.

pub(crate) mod health;
mod metrics;
pub(crate) mod oauth;
mod usage;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::Response;
use pp_core::Principal;

use crate::http::{auth, error, frame};
use crate::operations::{self, Endpoint, Gate};
use crate::state::SharedState;

/// The gate of a token route, in one layer: a live bearer token (`auth::principal`: the
/// bearer check and the credential's budget), then the operation's declared scopes, then the
/// handler with the [`Principal`]; a counted route records the call as API usage, refused
/// scopes included.
async fn gate(
    State((app, e)): State<(SharedState, &'static Endpoint)>,
    mut req: Request,
    next: Next,
) -> Response {
    let p = match auth::principal(&app, req.headers(), req.extensions()).await {
        Ok(p) => p,
        Err(err) => return error::for_path(req.uri().path(), err),
    };
    let counted = (e.gate == Gate::TokenCounted).then(|| usage::Call::of(&p, &req));
    let res = match e.needs.check(&p) {
        Err(err) => error::for_path(req.uri().path(), err),
        Ok(()) => {
            req.extensions_mut().insert::<Principal>(p);
            next.run(req).await
        }
    };
    match counted {
        Some(call) => call.record(&app, res).await,
        None => res,
    }
}

pub fn router(state: SharedState) -> Router {
    let (mut open, mut token) = (Router::new(), Router::new());
    for e in operations::all() {
        let handler = e.handler.clone();
        match e.gate {
            Gate::Public | Gate::Own => open = open.route(e.path, handler),
            Gate::Token | Gate::TokenCounted => {
                token = token.route(
                    e.path,
                    handler.route_layer(from_fn_with_state((state.clone(), e), gate)),
                )
            }
        }
    }
    Router::new()
        .merge(open)
        .merge(crate::pages::router())
        .route("/metrics", axum::routing::get(metrics::metrics))
        .merge(token)
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(from_fn_with_state(state.clone(), frame::layer))
        .with_state(state)
}
