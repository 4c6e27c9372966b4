//! Records calls of counted operations (forecast state) as API usage once the answer is
//! known; calls failing with 400 or above are recorded but not charged.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use pp_core::Principal;

use crate::state::SharedState;

pub async fn record(State(app): State<SharedState>, req: Request, next: Next) -> Response {
    let who = req
        .extensions()
        .get::<Principal>()
        .map(|p| (p.tenant.to_string(), p.credential_id.clone()));
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned())
        .unwrap_or_default();
    let res = next.run(req).await;
    if let Some((tenant, cred)) = who
        && let Err(e) = app
            .store
            .usage()
            .record(&tenant, &cred, &route, res.status().as_u16())
            .await
    {
        tracing::error!(cause = %e.chain(), "usage not recorded");
    }
    res
}
