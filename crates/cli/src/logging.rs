//! Log setup: JSON lines on stderr, filtered by `PARTNER_LOG` (default `info`).

use tracing_subscriber::EnvFilter;

/// Installs the JSON log writer once.
pub fn init() {
    let filter = EnvFilter::try_from_env("PARTNER_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(false)
        .with_span_list(false)
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
