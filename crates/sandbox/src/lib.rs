//! The sandbox provider: a real HTTP server that behaves like the marketplace provider — the
//! LWA token endpoint, the selling-side API and the advertising API — over the same demo world
//! the warehouse holds, with the consent pages that connect an account. It is stateful (writes change what it serves), enforces usage plans,
//! and takes fault rules a test can switch on (`/__sandbox`). See `docs/sandbox.md`.

mod ads;
pub mod advance;
mod consent;
mod control;
mod documents;
pub mod error;
pub mod faults;
mod gate;
mod limits;
mod lwa;
mod reports;
pub mod sim;
mod spapi;
pub mod sqs;
mod store;
mod stream;
mod world;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::middleware::{from_fn_with_state, map_response};
use axum::routing::{MethodRouter, get, post, put};
use tokio::net::TcpListener;

pub use sim::{Sim, SimConfig};

use gate::Op;

/// Wraps an operation's handler in the gate (count, auth, usage plan, faults).
pub(crate) fn op(
    sim: &Arc<Sim>,
    op: &'static Op,
    mr: MethodRouter<Arc<Sim>>,
) -> MethodRouter<Arc<Sim>> {
    mr.layer(from_fn_with_state((sim.clone(), op), gate::gate))
}

async fn not_found() -> error::SimError {
    error::SimError::not_found("Resource not found: no operation is served at this path")
}

async fn no_store(mut res: axum::response::Response) -> axum::response::Response {
    res.headers_mut().insert(
        axum::http::header::CACHE_CONTROL,
        axum::http::HeaderValue::from_static("no-store"),
    );
    res
}

/// The whole sandbox.
pub fn router(sim: Arc<Sim>) -> Router {
    let control = Router::new()
        .route(
            "/__sandbox/faults",
            get(control::list_faults)
                .post(control::add_faults)
                .delete(control::clear_faults),
        )
        .route(
            "/__sandbox/calls",
            get(control::calls).delete(control::reset_calls),
        )
        .route("/__sandbox/reports", get(control::reports))
        .route("/__sandbox/grants/revoke", post(control::revoke))
        .route("/__sandbox/merchants/lapse", post(control::lapse))
        .route("/__sandbox/limits", put(control::limits))
        .route(
            "/__sandbox/streams",
            get(control::list_streams).post(control::streams),
        )
        .route("/__sandbox/streams/inject", post(control::inject))
        .route("/__sandbox/notifications/replay", post(control::replay))
        .route(
            "/__sandbox/world",
            get(control::world).post(control::advance),
        )
        .route(
            "/__sandbox/product-types/bump",
            post(control::bump_product_type),
        )
        .route_layer(from_fn_with_state(sim.clone(), control::guard));
    Router::new()
        .route("/auth/o2/token", post(lwa::token))
        .route(
            "/apps/authorize/consent",
            get(consent::seller_page).post(consent::seller_decide),
        )
        .route("/ap/oa", get(consent::ads_page).post(consent::ads_decide))
        .route("/__documents/{id}", get(documents::download))
        .route("/sqs", post(sqs::endpoint))
        .route("/sns", get(control::sns))
        .merge(control)
        .merge(spapi::routes(&sim))
        .merge(ads::routes(&sim))
        .fallback(not_found)
        .layer(map_response(no_store))
        .with_state(sim)
}

/// Serves the sandbox on `listener` until `shutdown` resolves.
pub async fn serve(
    listener: TcpListener,
    sim: Arc<Sim>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router(sim))
        .with_graceful_shutdown(shutdown)
        .await
}
