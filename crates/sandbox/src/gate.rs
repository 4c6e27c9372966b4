//! What happens to every provider call before and after its operation runs: it is counted,
//! its access token is checked (selling side: `x-amz-access-token`; advertising:
//! `Authorization: Bearer` and the client-id header), the caller's authorization may have
//! lapsed, its usage plan is applied, and any fault rule for the operation takes effect.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::{Family, SimError};
use crate::faults::{BEFORE, Effect};
use crate::lwa::Caller;
use crate::sim::Sim;
use crate::store::random_hex;

/// One provider operation: its name (faults, counters and buckets key on it), its family, its
/// usage plan and the media type its documents give its errors.
#[derive(Debug)]
pub struct Op {
    pub name: &'static str,
    /// The error dialect: a generic advertising error (`Family::Ads`) is answered in this one.
    pub family: Family,
    /// Requests per second (0: no plan in the model).
    pub rate: f64,
    pub burst: f64,
    /// The media type of the operation's errors when its documents give one other than
    /// `application/json` (an error that names its own keeps it).
    pub error_media: Option<&'static str>,
}

/// `e` in `op`'s own dialect and error media type.
fn in_dialect(op: &Op, mut e: SimError) -> SimError {
    if e.family == Family::Ads && !matches!(op.family, Family::Ads | Family::Sp) {
        e = e.for_family(op.family);
    }
    match (e.media, op.error_media) {
        (None, Some(m)) => e.with_media(m),
        _ => e,
    }
}

/// Calls received per operation, and those the operation's usage plan refused (429s of the
/// plan, not of a fault rule).
#[derive(Default)]
pub struct Calls(Mutex<Counts>);

#[derive(Default, Clone)]
struct Counts {
    received: BTreeMap<&'static str, u64>,
    throttled: BTreeMap<&'static str, u64>,
}

impl Calls {
    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn bump(&self, op: &'static str) {
        *self.counts().received.entry(op).or_default() += 1;
    }

    fn throttle(&self, op: &'static str) {
        *self.counts().throttled.entry(op).or_default() += 1;
    }

    /// The calls received so far.
    pub fn snapshot(&self) -> BTreeMap<&'static str, u64> {
        self.counts().received.clone()
    }

    /// The calls the usage plans refused so far.
    pub fn throttled(&self) -> BTreeMap<&'static str, u64> {
        self.counts().throttled.clone()
    }

    /// Starts counting again.
    pub fn reset(&self) {
        *self.counts() = Counts::default();
    }
}

/// Whether the operation's report should fail (a `fatal_report` rule fired).
#[derive(Clone, Copy)]
pub struct FatalReport(pub bool);

fn header_str<'a>(req: &'a Request, name: &str) -> Option<&'a str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

fn authenticate(sim: &Sim, op: &Op, req: &Request) -> Result<Caller, SimError> {
    let denied = |details: &str| match op.family {
        Family::Sp => SimError::new(
            403,
            "Unauthorized",
            "Access to requested resource is denied.",
        )
        .with_details(details),
        _ => SimError::new(401, "UNAUTHORIZED", details).for_family(op.family),
    };
    let (token, kind) = match op.family {
        Family::Sp => (header_str(req, "x-amz-access-token"), "seller"),
        _ => {
            let client = header_str(req, "amazon-advertising-api-clientid")
                .or_else(|| header_str(req, "amazon-ads-clientid"));
            if !client.is_some_and(|c| sim.is_app(c)) {
                return Err(denied(
                    "Amazon-Advertising-API-ClientId is missing or is not a registered client",
                ));
            }
            let bearer = header_str(req, "authorization").and_then(|v| {
                v.strip_prefix("Bearer ")
                    .or_else(|| v.strip_prefix("bearer "))
            });
            (bearer, "ads")
        }
    };
    let token = token.ok_or_else(|| denied("The request has no access token."))?;
    let caller = sim
        .caller(token)
        .filter(|c| c.kind == kind)
        .ok_or_else(|| {
            denied(
                "The access token you provided is revoked, malformed, expired or for another API.",
            )
        })?;
    if sim.is_lapsed(&caller.subject) {
        return Err(denied(
            "The selling partner's authorization of this application has lapsed; the selling partner must authorize it again.",
        ));
    }
    Ok(caller)
}

fn throttled(op: &Op, retry_after: Option<u32>) -> Response {
    let e = SimError::new(
        429,
        "QuotaExceeded",
        "You exceeded your quota for the requested resource.",
    )
    .for_family(op.family);
    let mut r = in_dialect(op, e).into_response();
    if let Some(s) = retry_after.and_then(|s| HeaderValue::from_str(&s.to_string()).ok()) {
        r.headers_mut().insert(header::RETRY_AFTER, s);
    }
    r
}

/// A body that fails mid-stream: hyper aborts the connection without a complete answer.
fn reset() -> Response {
    let stream = futures_util::stream::once(async {
        Err::<axum::body::Bytes, _>(std::io::Error::other("sandbox fault: connection reset"))
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_LENGTH, "1048576")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

/// The middleware around one operation.
pub async fn gate(
    State((sim, op)): State<(Arc<Sim>, &'static Op)>,
    mut req: Request,
    next: Next,
) -> Response {
    sim.calls.bump(op.name);
    let caller = match authenticate(&sim, op, &req) {
        Ok(c) => c,
        Err(e) => return finish(&sim, op, in_dialect(op, e).into_response()),
    };
    if !sim
        .limits
        .take(&caller.subject, op.name, sim.limits.rate(op.rate), op.burst)
    {
        sim.calls.throttle(op.name);
        return finish(&sim, op, throttled(op, None));
    }
    let mut garbage = false;
    let mut hang_after = false;
    if let Some(rule) = sim.faults.pick(op.name, BEFORE) {
        match rule.effect {
            Effect::Latency => {
                tokio::time::sleep(Duration::from_millis(rule.latency_ms.unwrap_or(0))).await;
            }
            Effect::Hang => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
            Effect::Status => {
                let status = rule.status.unwrap_or(500);
                let code = if status == 503 {
                    "ServiceUnavailable"
                } else {
                    "InternalFailure"
                };
                let e = SimError::new(
                    status,
                    code,
                    "The service is temporarily unable to answer (sandbox fault).",
                )
                .for_family(op.family);
                return finish(&sim, op, in_dialect(op, e).into_response());
            }
            Effect::Throttle => return finish(&sim, op, throttled(op, rule.retry_after)),
            Effect::Reset => return reset(),
            Effect::Garbage => garbage = true,
            Effect::HangAfter => hang_after = true,
            Effect::FatalReport => {}
        }
    }
    let fatal = sim.faults.pick(op.name, &[Effect::FatalReport]).is_some();
    req.extensions_mut().insert(FatalReport(fatal));
    req.extensions_mut().insert(caller);
    let mut res = next.run(req).await;
    if let Some(e) = res.extensions_mut().remove::<SimError>() {
        let (family, media) = (e.family, e.media);
        let e = in_dialect(op, e);
        if (e.family, e.media) != (family, media) {
            res = e.into_response();
        }
    }
    if hang_after {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    if garbage {
        let mut r = (
            StatusCode::OK,
            "<html>upstream proxy error: \u{0}\u{1}not json",
        )
            .into_response();
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        return finish(&sim, op, r);
    }
    finish(&sim, op, res)
}

fn finish(sim: &Sim, op: &Op, mut res: Response) -> Response {
    let h = res.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&random_hex(16)) {
        h.insert("x-amzn-requestid", v);
    }
    // the caller's plan: the published rate, tightened when a test asked for a tighter one
    let rate = sim.limits.rate(op.rate);
    if op.family == Family::Sp
        && rate > 0.0
        && let Ok(v) = HeaderValue::from_str(&format!("{rate}"))
    {
        h.insert("x-amzn-ratelimit-limit", v);
    }
    res
}
