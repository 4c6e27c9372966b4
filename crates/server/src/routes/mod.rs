//! The router, generated from the operation declarations (`crate::operations`): each declared
//! path and method gets its handler behind its gate — public, a bearer token, or a bearer token
//! whose calls are counted as API usage — and a layer that checks the declared scopes before
//! the handler runs. What is declared is routed, and nothing else is — except the HTML pages
//! (`crate::pages`: sign-in, consent, the console) and `GET /metrics` (Prometheus text for
//! the operator's scraper, `metrics`), merged beside and kept out of the API document.

pub(crate) mod health;
mod metrics;
pub(crate) mod oauth;
mod usage;

use axum::Router;
use axum::extract::{Request, State};
use axum::middleware::{Next, from_fn, from_fn_with_state};
use axum::response::Response;
use pp_core::Principal;

use crate::http::{auth, error, headers, request_log};
use crate::operations::{self, Endpoint, Gate};
use crate::state::SharedState;

/// Refuses a call whose token lacks the operation's declared scopes.
async fn check_scopes(State(e): State<&'static Endpoint>, req: Request, next: Next) -> Response {
    let checked = match req.extensions().get::<Principal>() {
        Some(p) => e.needs.check(p),
        None => Err(pp_core::Error::internal(
            "a token route ran without a principal",
        )),
    };
    match checked {
        Ok(()) => next.run(req).await,
        Err(err) => error::for_path(req.uri().path(), err),
    }
}

/// After a request that may have changed credentials, tokens, people or applications (a
/// write under `/oauth/` or `/console`), settles the auth epoch before the answer leaves, so
/// every instance's bearer check forgets what it just ended before the caller can use it
/// again (`pp_auth::Verifier::settle`).
async fn auth_changes(State(app): State<SharedState>, req: Request, next: Next) -> Response {
    let method = req.method();
    let path = req.uri().path();
    let may_change = !(method == axum::http::Method::GET
        || method == axum::http::Method::HEAD
        || method == axum::http::Method::OPTIONS)
        && (path.starts_with("/oauth/") || path.starts_with("/console"));
    let before = app.verifier.epoch();
    let res = next.run(req).await;
    if may_change && let Err(e) = app.verifier.settle(before).await {
        tracing::error!(error = %e, "reading the auth epoch after a change failed");
    }
    res
}

pub fn router(state: SharedState) -> Router {
    let (mut open, mut token, mut counted) = (Router::new(), Router::new(), Router::new());
    for e in operations::all() {
        let handler = e.handler.clone();
        match e.gate {
            Gate::Public | Gate::Own => open = open.route(e.path, handler),
            Gate::Token => {
                token = token.route(
                    e.path,
                    handler.route_layer(from_fn_with_state(e, check_scopes)),
                )
            }
            Gate::TokenCounted => {
                counted = counted.route(
                    e.path,
                    handler.route_layer(from_fn_with_state(e, check_scopes)),
                )
            }
        }
    }
    let counted = counted.route_layer(from_fn_with_state(state.clone(), usage::record));
    Router::new()
        .merge(open)
        .merge(crate::pages::router())
        .route("/metrics", axum::routing::get(metrics::metrics))
        .merge(
            // every route here needs a bearer token: one auth layer over all of them
            token
                .merge(counted)
                .route_layer(from_fn_with_state(state.clone(), auth::require)),
        )
        .fallback(error::not_found)
        .method_not_allowed_fallback(error::method_not_allowed)
        .layer(from_fn_with_state(state.clone(), auth_changes))
        .layer(from_fn(crate::http::rate::budget_headers))
        .layer(from_fn_with_state(state.clone(), headers::layer))
        .layer(from_fn(request_log::layer))
        .with_state(state)
}
