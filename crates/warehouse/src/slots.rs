//! What every engine's queries share: the machine-wide query slots, the grace a caller waits
//! past its deadline for the engine to notice, and the `query_timeout` answer.

use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Kind, Result};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// How long past its deadline a query's caller waits for the engine to stop it before being
/// answered without it.
pub const GRACE: Duration = Duration::from_millis(250);

/// Waits for one of the shared query slots until `deadline`.
pub async fn slot(
    slots: &Arc<Semaphore>,
    deadline: Instant,
    running: usize,
) -> Result<OwnedSemaphorePermit> {
    match tokio::time::timeout_at(deadline, slots.clone().acquire_owned()).await {
        Ok(Ok(permit)) => Ok(permit),
        Ok(Err(closed)) => Err(Error::internal_from(closed)),
        Err(_) => Err(Error::new(
            Kind::Unavailable,
            format!("all {running} query slots stayed busy until this query's deadline"),
        )
        .with_fix("Retry shortly, or send fewer queries at once.")),
    }
}

/// The `query_timeout` a query that passed its deadline answers.
pub fn timeout_error(timeout_ms: u64, max_timeout_ms: u64) -> Error {
    Error::new(
        Kind::QueryTimeout,
        format!("the query passed its {timeout_ms} ms limit and was stopped"),
    )
    .with_fix(format!(
        "Narrow the query (filter on an indexed column such as SellerID) or raise queryTimeoutMs up to {max_timeout_ms}."
    ))
}
