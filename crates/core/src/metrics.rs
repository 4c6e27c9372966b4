//! The process's metrics, rendered in the Prometheus text format at `GET /metrics`: requests
//! by route and status with latency, provider calls by operation and outcome, pacing waits,
//! warehouse query time, and the gauges read when scraped (jobs waiting and running, MCP
//! sessions). Labels are bounded sets (declared routes, catalogued operations, fixed
//! outcomes): never a tenant, a credential, a path as typed, or anything a caller can vary.

use std::sync::LazyLock;

use prometheus::{
    CounterVec, Encoder, GaugeVec, Histogram, HistogramOpts, HistogramVec, IntCounterVec, IntGauge,
    IntGaugeVec, Opts, Registry, TextEncoder,
};

/// Latency buckets, in seconds, from half a millisecond to two minutes.
const BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
    120.0,
];

/// Every metric the process keeps.
pub struct Metrics {
    registry: Registry,
    /// `pp_http_requests_total{method, route, status}`.
    pub http_requests: IntCounterVec,
    /// `pp_http_request_duration_seconds{method, route}`.
    pub http_duration: HistogramVec,
    /// `pp_provider_calls_total{operation, outcome}`: each attempt sent to the provider.
    pub provider_calls: IntCounterVec,
    /// `pp_provider_call_duration_seconds{operation}`.
    pub provider_duration: HistogramVec,
    /// `pp_pacing_waits_total{operation}`: calls held for the provider's usage plan.
    pub pacing_waits: IntCounterVec,
    /// `pp_pacing_wait_seconds_total{operation}`: how long they were held.
    pub pacing_wait_seconds: CounterVec,
    /// `pp_sql_query_duration_seconds{engine, outcome}`: tenant SQL and `/v1` reads.
    pub sql_duration: HistogramVec,
    /// `pp_jobs{kind, status}`: jobs queued or running, read when scraped.
    pub jobs: IntGaugeVec,
    /// `pp_jobs_oldest_age_seconds{kind, status}`: age of the oldest such job.
    pub jobs_oldest: GaugeVec,
    /// `pp_job_claim_seconds`: how long a worker's claim of the next job took (the state
    /// store's query, a claim that found nothing included).
    pub job_claim: Histogram,
    /// `pp_job_claim_delay_seconds{kind}`: how long after it was due a job was claimed.
    pub job_claim_delay: HistogramVec,
    /// `pp_mcp_sessions`: live MCP sessions (handshake era), read when scraped.
    pub mcp_sessions: IntGauge,
    /// `pp_store_up`: 1 when the last scrape could read the state store, else 0 (the jobs and
    /// sessions gauges then keep their last values).
    pub store_up: IntGauge,
    /// `pp_sync_rows_loaded_total{dataset, engine}`: rows a warehouse sync wrote.
    pub sync_rows: IntCounterVec,
    /// `pp_sync_slices_total{dataset, outcome}`: slices a sync loaded (`loaded`) or could not
    /// (`failed`).
    pub sync_slices: IntCounterVec,
    /// `pp_warehouse_load_retries_total{table, engine}`: loads into a managed warehouse the
    /// engine rolled back for a conflicting transaction (a deadlock, a serialization failure)
    /// and that were tried again.
    pub load_retries: IntCounterVec,
    /// `pp_stream_messages{dataset, kind}`: stream and notification messages every tenant's
    /// queues received (`received`, `duplicate`, `rejected`), read when scraped.
    pub stream_messages: IntGaugeVec,
    /// `pp_stream_lag_seconds{dataset}`: the longest any tenant's queue of the dataset has
    /// gone since the provider published its newest message, read when scraped.
    pub stream_lag: GaugeVec,
}

fn must<T>(r: prometheus::Result<T>) -> T {
    // the names and labels below are constants; a failure here is a bug caught by any test
    r.unwrap_or_else(|e| panic!("metric definition: {e}"))
}

impl Metrics {
    fn new() -> Self {
        let registry = Registry::new();
        let counter = |name: &str, help: &str, labels: &[&str]| {
            let c = must(IntCounterVec::new(Opts::new(name, help), labels));
            must(registry.register(Box::new(c.clone())));
            c
        };
        let histogram = |name: &str, help: &str, labels: &[&str]| {
            let opts = HistogramOpts::new(name, help).buckets(BUCKETS.to_vec());
            let h = must(HistogramVec::new(opts, labels));
            must(registry.register(Box::new(h.clone())));
            h
        };
        let http_requests = counter(
            "pp_http_requests_total",
            "HTTP requests answered, by method, declared route and status",
            &["method", "route", "status"],
        );
        let http_duration = histogram(
            "pp_http_request_duration_seconds",
            "Time to answer an HTTP request, by method and declared route",
            &["method", "route"],
        );
        let provider_calls = counter(
            "pp_provider_calls_total",
            "Attempts sent to the marketplace provider, by operation and outcome",
            &["operation", "outcome"],
        );
        let provider_duration = histogram(
            "pp_provider_call_duration_seconds",
            "Time the provider took to answer an attempt, by operation",
            &["operation"],
        );
        let pacing_waits = counter(
            "pp_pacing_waits_total",
            "Provider calls held back to keep to the operation's usage plan",
            &["operation"],
        );
        let pacing_wait_seconds = must(CounterVec::new(
            Opts::new(
                "pp_pacing_wait_seconds_total",
                "Seconds provider calls were held back for usage plans",
            ),
            &["operation"],
        ));
        must(registry.register(Box::new(pacing_wait_seconds.clone())));
        let sql_duration = histogram(
            "pp_sql_query_duration_seconds",
            "Time a warehouse query took, by engine and outcome",
            &["engine", "outcome"],
        );
        let jobs = must(IntGaugeVec::new(
            Opts::new("pp_jobs", "Jobs queued or running, by kind and status"),
            &["kind", "status"],
        ));
        must(registry.register(Box::new(jobs.clone())));
        let jobs_oldest = must(GaugeVec::new(
            Opts::new(
                "pp_jobs_oldest_age_seconds",
                "Age of the oldest job queued or running, by kind and status",
            ),
            &["kind", "status"],
        ));
        must(registry.register(Box::new(jobs_oldest.clone())));
        let job_claim = must(Histogram::with_opts(
            HistogramOpts::new(
                "pp_job_claim_seconds",
                "Time a worker's claim of the next job took in the state store",
            )
            .buckets(BUCKETS.to_vec()),
        ));
        must(registry.register(Box::new(job_claim.clone())));
        let job_claim_delay = histogram(
            "pp_job_claim_delay_seconds",
            "How long after it was due a job was claimed, by kind",
            &["kind"],
        );
        let mcp_sessions = must(IntGauge::new("pp_mcp_sessions", "Live MCP sessions"));
        must(registry.register(Box::new(mcp_sessions.clone())));
        let store_up = must(IntGauge::new(
            "pp_store_up",
            "Whether the last scrape could read the state store (1) or not (0)",
        ));
        must(registry.register(Box::new(store_up.clone())));
        let sync_rows = counter(
            "pp_sync_rows_loaded_total",
            "Rows a warehouse sync wrote, by dataset and engine",
            &["dataset", "engine"],
        );
        let sync_slices = counter(
            "pp_sync_slices_total",
            "Slices a warehouse sync loaded or could not, by dataset and outcome",
            &["dataset", "outcome"],
        );
        let load_retries = counter(
            "pp_warehouse_load_retries_total",
            "Loads into a managed warehouse rolled back for a conflicting transaction and tried again, by table and engine",
            &["table", "engine"],
        );
        let stream_messages = must(IntGaugeVec::new(
            Opts::new(
                "pp_stream_messages",
                "Messages the stream and notification queues received, by dataset and kind",
            ),
            &["dataset", "kind"],
        ));
        must(registry.register(Box::new(stream_messages.clone())));
        let stream_lag = must(GaugeVec::new(
            Opts::new(
                "pp_stream_lag_seconds",
                "The longest time any tenant's queue of the dataset has gone since its newest message was published",
            ),
            &["dataset"],
        ));
        must(registry.register(Box::new(stream_lag.clone())));
        Self {
            registry,
            http_requests,
            http_duration,
            provider_calls,
            provider_duration,
            pacing_waits,
            pacing_wait_seconds,
            sql_duration,
            jobs,
            jobs_oldest,
            job_claim,
            job_claim_delay,
            mcp_sessions,
            store_up,
            sync_rows,
            sync_slices,
            load_retries,
            stream_messages,
            stream_lag,
        }
    }

    /// Everything, in the Prometheus text format (version 0.0.4).
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        // encoding into a Vec fails only on a malformed family, which `new` cannot make
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// The process's metrics.
pub fn get() -> &'static Metrics {
    static METRICS: LazyLock<Metrics> = LazyLock::new(Metrics::new);
    &METRICS
}

/// The content type of [`Metrics::render`].
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

#[cfg(test)]
mod tests {
    #[test]
    fn families_render_with_their_help_and_type() {
        let m = super::get();
        m.http_requests
            .with_label_values(&["GET", "/v1/me", "200"])
            .inc();
        m.http_duration
            .with_label_values(&["GET", "/v1/me"])
            .observe(0.002);
        let text = m.render();
        assert!(
            text.contains("# TYPE pp_http_requests_total counter"),
            "{text}"
        );
        assert!(
            text.contains(
                "pp_http_requests_total{method=\"GET\",route=\"/v1/me\",status=\"200\"} 1"
            ),
            "{text}"
        );
        assert!(text.contains("# TYPE pp_http_request_duration_seconds histogram"));
        assert!(text.contains("# TYPE pp_mcp_sessions gauge"));
    }
}
