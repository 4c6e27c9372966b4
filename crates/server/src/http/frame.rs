//! The one layer every routed request passes through, outermost, in one step (a layer each
//! would cost every request a boxed future and a cloned service per layer):
//!
//! 1. its id (`request_log`), and the slot its caller and budget are left in (`slot`);
//! 2. what every answer carries (`headers`: `nosniff`, `no-store`, CORS, the family's
//!    envelope for a framework's plain-text refusal), a CORS preflight answered here;
//! 3. on a token route, its gate (`gate`: the bearer check, the declared scopes,
//!    usage) before the handler;
//! 4. after a request that may have changed credentials, tokens, people or applications (a
//!    write under `/oauth/` or `/console`), the auth epoch settled before the answer leaves,
//!    so every instance's bearer check forgets what it just ended before the caller can use
//!    it again (`pp_auth::Verifier::settle`);
//! 5. the `RateLimit-*` headers, the request id header, the request metrics and the log line.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::response::Response;
use tower::{Layer, Service, ServiceExt};

use super::{gate::gate, headers, rate, request_log, slot::Slot};
use crate::operations::{self, Endpoint};
use crate::state::SharedState;

/// Puts [`Frame`] around a route.
#[derive(Clone)]
pub struct FrameLayer(pub SharedState);

impl<S> Layer<S> for FrameLayer {
    type Service = Frame<S>;

    fn layer(&self, inner: S) -> Frame<S> {
        Frame {
            inner,
            app: self.0.clone(),
        }
    }
}

/// A route inside the frame.
#[derive(Clone)]
pub struct Frame<S> {
    inner: S,
    app: SharedState,
}

impl<S> Service<Request> for Frame<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    /// Always ready: the route is made ready when the request reaches it.
    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request) -> Self::Future {
        let gated = req
            .extensions()
            .get::<MatchedPath>()
            .and_then(|route| operations::gated(route.as_str(), req.method()));
        let (app, inner) = (self.app.clone(), self.inner.clone());
        Box::pin(async move { Ok(frame(app, gated, req, inner).await) })
    }
}

/// Whether `req` may change what bearer checks trust (a write under `/oauth/` or `/console`).
fn may_change_auth(req: &Request) -> bool {
    let path = req.uri().path();
    !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS)
        && (path.starts_with("/oauth/") || path.starts_with("/console"))
}

async fn frame<S>(
    app: SharedState,
    gated: Option<&'static Endpoint>,
    mut req: Request,
    route: S,
) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let started = request_log::start(&req);
    // the connection gave the request its slot (`serve.rs`); a request that came another way
    // gets one here, without an address
    let slot = req.extensions().get::<Slot>().cloned().unwrap_or_else(|| {
        let slot = Slot::default();
        req.extensions_mut().insert(slot.clone());
        slot
    });
    let mut res = match headers::plan(&app, &req) {
        (plan, Some(preflight)) => headers::finish(plan, preflight).await,
        (plan, None) => {
            let epoch_before = may_change_auth(&req).then(|| app.verifier.epoch());
            let res = match gated {
                Some(e) => gate(&app, e, req, route).await,
                None => route.oneshot(req).await.unwrap_or_else(|e| match e {}),
            };
            let res = headers::finish(plan, res).await;
            if let Some(before) = epoch_before
                && let Err(e) = app.verifier.settle(before).await
            {
                tracing::error!(error = %e, "reading the auth epoch after a change failed");
            }
            res
        }
    };
    let left = slot.take();
    if let Some(budget) = &left.budget {
        rate::answer(budget, &mut res);
    }
    request_log::finish(started, left.who, &mut res);
    res
}
