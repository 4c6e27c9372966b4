//! `GET /metrics`: the process's metrics in the Prometheus text format (`pp_core::metrics`).
//! Public like `/health`: aggregate counts by route, operation and outcome, never a tenant or
//! a credential. The gauges kept in the state store (jobs queued and running with the oldest's
//! age, live MCP sessions of every instance, each stream dataset's messages and longest lag
//! over every tenant) are read on each scrape, every job kind the pool
//! runs answering 0 when none waits; a store that cannot be read says so in `pp_store_up`,
//! and the rest is still served.

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use pp_core::metrics;
use pp_store::jobs::JobStatus;

use crate::state::SharedState;

pub async fn metrics(State(app): State<SharedState>) -> Response {
    let m = metrics::get();
    let read = refresh_store_gauges(&app, m).await;
    if let Err(e) = &read {
        tracing::warn!(error = %e, "metrics: the state store could not be read");
    }
    m.store_up.set(i64::from(read.is_ok()));
    ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], m.render()).into_response()
}

async fn refresh_store_gauges(app: &SharedState, m: &metrics::Metrics) -> pp_core::Result<()> {
    let queue = app.store.jobs().queue().await?;
    let sessions = app.mcp.shared.live().await?;
    let now = chrono::Utc::now();
    m.jobs.reset();
    m.jobs_oldest.reset();
    // every kind the pool runs is there even with nothing waiting, so an empty queue reads
    // as 0 on a dashboard rather than as no data
    for kind in app.job_registry()?.names() {
        for status in [JobStatus::Queued, JobStatus::Running] {
            let labels = [kind, status.as_str()];
            m.jobs.with_label_values(&labels).set(0);
            m.jobs_oldest.with_label_values(&labels).set(0.0);
        }
    }
    for row in queue {
        let labels = [row.kind.as_str(), row.status.as_str()];
        m.jobs.with_label_values(&labels).set(row.count);
        let age = chrono::DateTime::parse_from_rfc3339(&row.oldest_created_at)
            .map(|t| (now - t.with_timezone(&chrono::Utc)).num_milliseconds() as f64 / 1000.0)
            .unwrap_or(0.0);
        m.jobs_oldest.with_label_values(&labels).set(age.max(0.0));
    }
    m.mcp_sessions.set(sessions);
    let streams = app.store.streams().dataset_totals().await?;
    m.stream_messages.reset();
    m.stream_lag.reset();
    let now_ms = now.timestamp_millis();
    for (dataset, received, duplicates, rejected, oldest) in streams {
        for (kind, n) in [
            ("received", received),
            ("duplicate", duplicates),
            ("rejected", rejected),
        ] {
            m.stream_messages
                .with_label_values(&[&dataset, kind])
                .set(n);
        }
        if let Some(t) = oldest {
            let lag = (now_ms - t).max(0) as f64 / 1000.0;
            m.stream_lag.with_label_values(&[&dataset]).set(lag);
        }
    }
    Ok(())
}
