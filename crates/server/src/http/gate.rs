//! The gate of a token route, run by `frame` before the route's handler: the bearer check and
//! the credential's budget (`auth`), the operation's declared scopes, and for a counted
//! operation the call recorded as API usage (`usage`).

use std::convert::Infallible;

use axum::extract::Request;
use axum::response::Response;
use pp_core::Principal;
use tower::{Service, ServiceExt};

use super::{auth, error, usage};
use crate::operations::{Endpoint, Gate};
use crate::state::SharedState;

/// The gate of the token route `e` (`operations::gated`) around `route`: a live bearer token
/// (`auth::principal`: the bearer check and the credential's budget), then the operation's
/// declared scopes, then the handler with the [`Principal`]; a counted route records the call
/// as API usage, refused scopes included.
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
    let counted = (e.gate == Gate::TokenCounted).then(|| usage::Call::of(&p, e.path));
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
