//! Request ids, request logs and request metrics: every response carries `x-request-id`, and
//! every request ends in one JSON log line with its id, tenant, actor, route, status and
//! duration, and in `pp_http_requests_total` / `pp_http_request_duration_seconds` under its
//! declared route (`unmatched` for anything no route matched, so a caller cannot grow the
//! label set). Headers and bodies are never logged, so secrets and tokens cannot leak here.
//! A new id is this process's random prefix and a count, so no request waits on the system's
//! random source.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, LazyLock, Mutex};
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;

/// The request's id, readable by handlers.
#[derive(Clone)]
pub struct RequestId(pub String);

/// Who the request turned out to be (filled in by auth, read by the log line).
#[derive(Clone, Default)]
pub struct LogSlot(pub Arc<Mutex<Option<(String, String)>>>);

impl LogSlot {
    /// Records the tenant and actor.
    pub fn set(&self, tenant: &str, actor: &str) {
        if let Ok(mut s) = self.0.lock() {
            *s = Some((tenant.to_owned(), actor.to_owned()));
        }
    }
}

/// `X-Request-Id`, named once.
const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

fn incoming_id(req: &Request) -> Option<String> {
    let v = req.headers().get(REQUEST_ID)?.to_str().ok()?;
    let ok = !v.is_empty()
        && v.len() <= 64
        && v.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    ok.then(|| v.to_owned())
}

/// This process's part of every id it makes: random, so instances' ids never meet.
static PREFIX: LazyLock<String> = LazyLock::new(|| {
    let mut b = [0u8; 6];
    if let Err(e) = getrandom::fill(&mut b) {
        tracing::error!(error = %e, "no random request id prefix; using the clock's");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        b.copy_from_slice(&nanos.to_le_bytes()[..6]);
    }
    hex::encode(b)
});
static COUNT: AtomicU64 = AtomicU64::new(0);

fn new_id() -> String {
    let n = COUNT.fetch_add(1, Ordering::Relaxed) & 0xffff_ffff_ffff;
    format!("req_{}{n:012x}", *PREFIX)
}

/// What a request's log line needs from its start.
pub struct Started {
    at: Instant,
    id: String,
    method: axum::http::Method,
    /// The declared route, when one matched (its label; shared, not copied).
    matched: Option<MatchedPath>,
    /// The path itself when none did (the log line names it; the metrics do not).
    unmatched: Option<String>,
    slot: LogSlot,
}

/// Gives the request its id and log slot (read by the handlers and the bearer check).
pub fn start(req: &mut Request) -> Started {
    let at = Instant::now();
    let id = incoming_id(req).unwrap_or_else(new_id);
    let slot = LogSlot::default();
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let unmatched = matched.is_none().then(|| req.uri().path().to_owned());
    req.extensions_mut().insert(RequestId(id.clone()));
    req.extensions_mut().insert(slot.clone());
    Started {
        at,
        id,
        method: req.method().clone(),
        matched,
        unmatched,
        slot,
    }
}

/// Names the answer with the request's id, counts it, and writes its one log line.
pub fn finish(s: Started, res: &mut Response) {
    if let Ok(v) = HeaderValue::from_str(&s.id) {
        res.headers_mut().insert(REQUEST_ID, v);
    }
    let elapsed = s.at.elapsed().as_secs_f64();
    let label = s.matched.as_ref().map_or("unmatched", MatchedPath::as_str);
    let m = pp_core::metrics::get();
    m.http_requests
        .with_label_values(&[s.method.as_str(), label, res.status().as_str()])
        .inc();
    m.http_duration
        .with_label_values(&[s.method.as_str(), label])
        .observe(elapsed);
    let who = s.slot.0.lock().ok().and_then(|mut w| w.take());
    let (tenant, actor) = who.unwrap_or_default();
    tracing::info!(
        target: "request",
        request_id = %s.id,
        tenant = %tenant,
        actor = %actor,
        method = %s.method,
        route = %s.unmatched.as_deref().unwrap_or(label),
        status = res.status().as_u16(),
        duration_ms = elapsed * 1000.0,
    );
}
