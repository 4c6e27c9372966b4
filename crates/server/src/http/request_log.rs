//! Request ids, request logs and request metrics: every response carries `x-request-id`, and
//! every request ends in one JSON log line with its id, tenant, actor, route, status and
//! duration, and in `pp_http_requests_total` / `pp_http_request_duration_seconds` under its
//! declared route (`unmatched` for anything no route matched, so a caller cannot grow the
//! label set). Headers and bodies are never logged, so secrets and tokens cannot leak here.
//! A new id is this process's random prefix and a count, so no request waits on the system's
//! random source.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;

/// `X-Request-Id`, named once.
const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The caller's own id for the request, when it is a short run of letters, digits, `-`
/// and `_` (shared with the request's header, not copied).
fn incoming_id(req: &Request) -> Option<HeaderValue> {
    let v = req.headers().get(REQUEST_ID)?;
    let b = v.as_bytes();
    let ok = !b.is_empty()
        && b.len() <= 64
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_');
    ok.then(|| v.clone())
}

/// This process's part of every id it makes, as twelve hex digits: random, so instances' ids
/// never meet.
static PREFIX: LazyLock<[u8; 12]> = LazyLock::new(|| {
    let mut b = [0u8; 6];
    if let Err(e) = getrandom::fill(&mut b) {
        tracing::error!(error = %e, "no random request id prefix; using the clock's");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        b.copy_from_slice(&nanos.to_le_bytes()[..6]);
    }
    let mut digits = [0u8; 12];
    hex::encode_to_slice(b, &mut digits).expect("six bytes are twelve hex digits");
    digits
});
static COUNT: AtomicU64 = AtomicU64::new(0);

/// `req_`, the prefix and the count's low 48 bits, each as twelve hex digits (written in
/// place: no formatting machinery on every request).
fn new_id() -> HeaderValue {
    let n = COUNT.fetch_add(1, Ordering::Relaxed);
    let mut id = *b"req_000000000000000000000000";
    id[4..16].copy_from_slice(&*PREFIX);
    hex::encode_to_slice(&n.to_be_bytes()[2..], &mut id[16..])
        .expect("six bytes are twelve hex digits");
    HeaderValue::from_bytes(&id).expect("an id of hex digits is a header value")
}

/// What a request's log line needs from its start.
pub struct Started {
    at: Instant,
    id: HeaderValue,
    method: axum::http::Method,
    /// The declared route, when one matched (its label; shared, not copied).
    matched: Option<MatchedPath>,
    /// The path itself when none did (the log line names it; the metrics do not).
    unmatched: Option<String>,
}

/// Gives the request its id, and notes what its log line needs from the start.
pub fn start(req: &Request) -> Started {
    let at = Instant::now();
    let id = incoming_id(req).unwrap_or_else(new_id);
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let unmatched = matched.is_none().then(|| req.uri().path().to_owned());
    Started {
        at,
        id,
        method: req.method().clone(),
        matched,
        unmatched,
    }
}

/// An internal error's cause chain, left on the answer by the error renderer and written in
/// the request's log line (at error level); taken off the answer before it is sent.
#[derive(Debug, Clone)]
pub struct Cause(pub String);

/// Names the answer with the request's id, counts it, and writes its one log line, naming
/// `who` made it (the tenant and actor the request's slot was given, if any).
pub fn finish(s: Started, who: Option<(String, String)>, res: &mut Response) {
    let elapsed = s.at.elapsed().as_secs_f64();
    let label = s.matched.as_ref().map_or("unmatched", MatchedPath::as_str);
    let m = pp_core::metrics::get();
    m.http_requests
        .with_label_values(&[s.method.as_str(), label, res.status().as_str()])
        .inc();
    m.http_duration
        .with_label_values(&[s.method.as_str(), label])
        .observe(elapsed);
    let (tenant, actor) = who.unwrap_or_default();
    let cause = res.extensions_mut().remove::<Cause>();
    // the id is written into the answer after the line, so it is not copied for it
    macro_rules! line {
        ($level:ident $(, $cause:expr)?) => {
            tracing::$level!(
                target: "request",
                request_id = s.id.to_str().unwrap_or_default(),
                tenant = %tenant,
                actor = %actor,
                method = %s.method,
                route = %s.unmatched.as_deref().unwrap_or(label),
                status = res.status().as_u16(),
                duration_ms = elapsed * 1000.0,
                $(cause = %$cause,)?
            )
        };
    }
    match cause {
        None => line!(info),
        Some(Cause(chain)) => line!(error, chain),
    }
    res.headers_mut().insert(REQUEST_ID, s.id);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_id_is_the_process_prefix_and_a_count_in_hex() {
        let (a, b) = (new_id(), new_id());
        for id in [&a, &b] {
            let id = id.to_str().unwrap();
            assert_eq!(id.len(), 28, "{id}");
            assert!(id.starts_with("req_"), "{id}");
            assert!(id[4..].bytes().all(|c| c.is_ascii_hexdigit()), "{id}");
        }
        let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
        assert_eq!(a[..16], b[..16], "one process, one prefix");
        let count = |id: &str| u64::from_str_radix(&id[16..], 16).unwrap();
        assert!(count(b) > count(a), "{a} then {b}");
    }

    /// A writer the test reads back.
    #[derive(Clone, Default)]
    struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn an_internal_errors_chain_is_in_its_request_line_and_not_in_the_answer() {
        use axum::response::IntoResponse;
        let logs = Captured::default();
        let writer = logs.clone();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_writer(move || writer.clone())
            .finish();
        let req = Request::builder()
            .uri("/api/query")
            .body(axum::body::Body::empty())
            .unwrap();
        let mut res = tracing::subscriber::with_default(subscriber, || {
            let started = start(&req);
            let io = std::io::Error::other("disk full at /var/secret");
            let e = pp_core::Error::internal_with("writing the checkpoint", io);
            let mut res = super::super::error::ApiError(e).into_response();
            finish(started, None, &mut res);
            res
        });
        let text = String::from_utf8(logs.0.lock().unwrap().clone()).unwrap();
        let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(line["level"], "ERROR", "{line}");
        assert_eq!(line["target"], "request", "{line}");
        assert_eq!(
            line["fields"]["cause"], "writing the checkpoint: disk full at /var/secret",
            "{line}"
        );
        assert!(
            res.extensions_mut().remove::<Cause>().is_none(),
            "taken off the answer"
        );
        assert_eq!(res.status(), 500);
    }
}
