//! The reference for the request benchmark: a bare hyper HTTP/1 server on the same runtime
//! settings as the gateway.
//!
//! `hello-hyper ADDR` answers "Hello, World!" on every request. `hello-hyper ADDR ANSWER`
//! reads each request's body (but a GET's) and answers with the headers and body in the file
//! ANSWER (an answer as `curl -si` prints it; its status line, `date` and `content-length` are
//! dropped, since hyper writes its own). Given the gateway's own answer, it is the fastest any
//! server could send those same bytes: what hyper's rate becomes once only the answer is the
//! gateway's, with none of the gateway's work.
//!
//! `hello-hyper ADDR ANSWER --axum` answers the same way through the stack the gateway is
//! built on and nothing more: an axum router (the answer's handler on `/v1/me` and
//! `/api/query`) served as the gateway serves it, with hyper's header-read timeout on a tokio
//! timer (the slow-client bound) and the request passed to the router with `oneshot`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tower::ServiceExt;

/// A fixed answer: its headers (a map made once, copied into each answer) and body.
struct Answer {
    headers: HeaderMap,
    body: Bytes,
}

impl Answer {
    /// Reads an answer as `curl -si` prints it, leaving out the status line, `date` and
    /// `content-length`.
    fn read(path: &str) -> Answer {
        let text = std::fs::read_to_string(path).expect("the answer file can be read");
        let text = text.replace("\r\n", "\n");
        let (head, body) = text
            .split_once("\n\n")
            .expect("the answer file has headers, a blank line and a body");
        let headers = head
            .lines()
            .skip(1)
            .filter_map(|line| line.split_once(':'))
            .filter(|(name, _)| !name.eq_ignore_ascii_case("date"))
            .filter(|(name, _)| !name.eq_ignore_ascii_case("content-length"))
            .map(|(name, value)| {
                (
                    HeaderName::try_from(name.trim()).expect("a header name"),
                    HeaderValue::try_from(value.trim()).expect("a header value"),
                )
            })
            .collect();
        Answer {
            headers,
            body: Bytes::from(body.to_owned()),
        }
    }

    /// The answer as a response, with the body type of whichever server sends it.
    fn response<B: From<Bytes>>(&self) -> Response<B> {
        let mut response = Response::new(B::from(self.body.clone()));
        *response.headers_mut() = self.headers.clone();
        response
    }
}

async fn hello(_: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    Ok(Response::new(Full::new(Bytes::from_static(
        b"Hello, World!",
    ))))
}

async fn answer(
    request: Request<Incoming>,
    answer: Arc<Answer>,
) -> Result<Response<Full<Bytes>>, hyper::Error> {
    if request.method() != hyper::Method::GET {
        request.into_body().collect().await?;
    }
    Ok(answer.response())
}

/// The router of `--axum`: the fixed answer on the two benchmarked routes.
fn router(fixed: Arc<Answer>) -> axum::Router {
    let (a, b) = (fixed.clone(), fixed);
    axum::Router::new()
        .route(
            "/v1/me",
            get(move || async move { a.response::<axum::body::Body>() }),
        )
        .route(
            "/api/query",
            post(move |_body: axum::body::Bytes| async move { b.response::<axum::body::Body>() }),
        )
}

/// Serves `router` on `listener` as the gateway's accept loop does.
async fn serve_axum(listener: TcpListener, router: axum::Router) -> std::io::Result<()> {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(Duration::from_secs(10));
    loop {
        let (stream, _) = listener.accept().await?;
        let _ = stream.set_nodelay(true);
        let (router, builder) = (router.clone(), builder.clone());
        tokio::spawn(async move {
            let service = service_fn(move |req: Request<Incoming>| {
                router.clone().oneshot(req.map(axum::body::Body::new))
            });
            let _ = builder
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    const USAGE: &str = "usage: hello-hyper [ADDR [ANSWER [--axum]]]";
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (addr, fixed, axum) = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [] => ("127.0.0.1:18090", None, false),
        [addr] => (addr, None, false),
        [addr, answer] => (addr, Some(answer), false),
        [addr, answer, "--axum"] => (addr, Some(answer), true),
        _ => panic!("{USAGE}"),
    };
    let addr: SocketAddr = addr.parse().expect(USAGE);
    let fixed = fixed.map(|path| Arc::new(Answer::read(path)));
    let listener = TcpListener::bind(addr).await?;
    println!("hello-hyper listening on {addr}");
    if let (Some(fixed), true) = (&fixed, axum) {
        return serve_axum(listener, router(fixed.clone())).await;
    }
    loop {
        let (stream, _) = listener.accept().await?;
        let fixed = fixed.clone();
        tokio::spawn(async move {
            let io = TokioIo::new(stream);
            let http = http1::Builder::new();
            let _ = match fixed {
                None => http.serve_connection(io, service_fn(hello)).await,
                Some(fixed) => {
                    let service = service_fn(move |request| answer(request, fixed.clone()));
                    http.serve_connection(io, service).await
                }
            };
        });
    }
}
