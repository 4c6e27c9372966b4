//! Log setup: JSON lines on stderr, filtered by `PARTNER_LOG` (default `info`). Lines are
//! written by a thread of their own (tracing-appender), so a request never waits on stderr:
//! its log line is handed over and the answer goes. Nothing is dropped: when the thread falls
//! behind by more than its buffer, callers wait rather than lose lines.

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

/// Lines buffered for the writer thread before a caller waits.
const BUFFERED_LINES: usize = 128_000;

/// Installs the JSON log writer once; keep the guard for the life of the process (dropping it
/// writes out what is buffered).
#[must_use = "dropping the guard stops the log writer"]
pub fn init() -> Option<WorkerGuard> {
    let filter = EnvFilter::try_from_env("PARTNER_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .buffered_lines_limit(BUFFERED_LINES)
        .finish(std::io::stderr());
    tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_span_list(false)
        .with_env_filter(filter)
        .with_writer(writer)
        .try_init()
        .ok()
        .map(|()| guard)
}
