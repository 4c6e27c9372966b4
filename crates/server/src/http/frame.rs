//! The one layer every routed request passes through, outermost, in one step (a layer each
//! would cost every request a boxed future and a cloned service per layer):
//!
//! 1. its id and log slot (`request_log`), and its credential's budget slot (`rate`);
//! 2. what every answer carries (`headers`: `nosniff`, `no-store`, CORS, the family's
//!    envelope for a framework's plain-text refusal), a CORS preflight answered here;
//! 3. after a request that may have changed credentials, tokens, people or applications (a
//!    write under `/oauth/` or `/console`), the auth epoch settled before the answer leaves,
//!    so every instance's bearer check forgets what it just ended before the caller can use
//!    it again (`pp_auth::Verifier::settle`);
//! 4. the `RateLimit-*` headers, the request id header, the request metrics and the log line.

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

use super::{headers, rate::BudgetSlot, request_log};
use crate::state::SharedState;

/// Whether `req` may change what bearer checks trust (a write under `/oauth/` or `/console`).
fn may_change_auth(req: &Request) -> bool {
    let path = req.uri().path();
    !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS)
        && (path.starts_with("/oauth/") || path.starts_with("/console"))
}

pub async fn layer(State(app): State<SharedState>, mut req: Request, next: Next) -> Response {
    let started = request_log::start(&mut req);
    let budget = BudgetSlot::attach(&mut req);
    let mut res = match headers::plan(&app, &req) {
        (plan, Some(preflight)) => headers::finish(plan, preflight).await,
        (plan, None) => {
            let epoch_before = may_change_auth(&req).then(|| app.verifier.epoch());
            let res = headers::finish(plan, next.run(req).await).await;
            if let Some(before) = epoch_before
                && let Err(e) = app.verifier.settle(before).await
            {
                tracing::error!(error = %e, "reading the auth epoch after a change failed");
            }
            res
        }
    };
    budget.answer(&mut res);
    request_log::finish(started, &mut res);
    res
}
