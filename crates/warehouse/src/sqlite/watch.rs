//! The watchdog around one query: a slot among the shared query slots, an interrupt at the
//! deadline or when the caller goes away, and an answer for the caller that never waits on
//! the engine longer than the deadline and a short grace.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use pp_core::{Error, Result};
use rusqlite::InterruptHandle;
use tokio::task::JoinHandle;
use tokio::time::Instant;

/// The running query's interrupt handle, present only while the query runs, so a late
/// interrupt can never reach the next query on the same connection.
#[derive(Clone, Default)]
pub struct Watch {
    handle: Arc<Mutex<Option<InterruptHandle>>>,
}

impl Watch {
    pub fn new() -> Self {
        Self::default()
    }

    /// The query has started on the connection `handle` interrupts.
    pub fn arm(&self, handle: InterruptHandle) {
        if let Ok(mut h) = self.handle.lock() {
            *h = Some(handle);
        }
    }

    /// The query has ended; interrupts no longer reach its connection.
    pub fn disarm(&self) {
        if let Ok(mut h) = self.handle.lock() {
            *h = None;
        }
    }

    /// Stops the query at its next opcode boundary, if it is still running.
    pub fn interrupt(&self) {
        if let Ok(h) = self.handle.lock()
            && let Some(h) = h.as_ref()
        {
            h.interrupt();
        }
    }

    /// A guard that interrupts the query when dropped (the caller went away).
    pub fn stop_on_drop(&self) -> StopOnDrop {
        StopOnDrop(self.clone())
    }

    /// The query's outcome: its own when it ends by `deadline` (or within `grace` of the
    /// interrupt sent then); otherwise `query_timeout` at once, the engine finishing its
    /// current step in the background while still holding its slot.
    pub async fn finish<T>(
        &self,
        mut task: JoinHandle<Result<T>>,
        deadline: Instant,
        grace: Duration,
        late: impl FnOnce() -> Error,
    ) -> Result<T> {
        let joined = match tokio::time::timeout_at(deadline, &mut task).await {
            Ok(joined) => joined,
            Err(_) => {
                self.interrupt();
                match tokio::time::timeout(grace, &mut task).await {
                    Ok(joined) => joined,
                    Err(_) => return Err(late()),
                }
            }
        };
        joined.map_err(|e| Error::internal_with("warehouse task", e))?
    }
}

/// Interrupts the watched query when dropped.
pub struct StopOnDrop(Watch);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.interrupt();
    }
}
