//! The accept loop: HTTP/1 connections served by hyper with the router, within the
//! connection bounds (`Bounds`): at most `max_connections` open at once, a request head must
//! arrive within `header_timeout_ms` (which also closes idle keep-alive connections), and a
//! connection on which nothing moves for `idle_timeout_ms` is dropped. Each request carries
//! its slot (`http/slot.rs`) holding its peer address, for the per-address limits.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tower::ServiceExt;

use crate::http::slot::Slot;
use crate::state::SharedState;

/// How long a stopping server waits for open connections to finish.
const DRAIN: Duration = Duration::from_secs(10);

/// Serves the router over `state` on `listener` until `shutdown` resolves, then lets open
/// connections finish (up to a short drain).
pub async fn serve(
    listener: TcpListener,
    state: SharedState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let bounds = state.bounds.clone();
    let router = crate::router(state);
    let slots = Arc::new(Semaphore::new(bounds.max_connections.max(1)));
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(bounds.header_timeout());
    let idle = bounds.idle_timeout();
    tokio::pin!(shutdown);
    loop {
        let slot = tokio::select! {
            _ = &mut shutdown => break,
            slot = slots.clone().acquire_owned() => slot.map_err(std::io::Error::other)?,
        };
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of descriptors and the like: wait a moment instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let _ = stream.set_nodelay(true);
        let router = router.clone();
        let builder = builder.clone();
        let stop = stop_rx.clone();
        tokio::spawn(async move {
            let _slot = slot;
            connection(builder, stream, peer, router, idle, stop).await;
        });
    }
    let _ = stop_tx.send(true);
    let open = bounds.max_connections.max(1);
    let drained = slots.acquire_many(u32::try_from(open).unwrap_or(u32::MAX));
    let _ = tokio::time::timeout(DRAIN, drained).await;
    Ok(())
}

/// One connection, until it ends, idles past `idle`, or the server stops (then gracefully).
async fn connection(
    builder: http1::Builder,
    stream: TcpStream,
    peer: SocketAddr,
    router: axum::Router,
    idle: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let io = Activity::new(stream);
    let last = io.last.clone();
    let started = io.started;
    let service = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
        let mut req = req.map(axum::body::Body::new);
        req.extensions_mut().insert(Slot::from_peer(peer));
        router.clone().oneshot(req)
    });
    let conn = builder.serve_connection(TokioIo::new(io), service);
    tokio::pin!(conn);
    let check = (idle / 4).max(Duration::from_millis(50));
    let mut stopping = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = tokio::time::sleep(check) => {
                let quiet = started.elapsed().saturating_sub(Duration::from_millis(last.load(Ordering::Relaxed)));
                if quiet >= idle {
                    return;
                }
            }
            changed = stop.changed(), if !stopping => {
                stopping = true;
                if changed.is_ok() {
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// A stream that remembers when a byte last moved either way.
struct Activity {
    inner: TcpStream,
    started: Instant,
    last: Arc<AtomicU64>,
}

impl Activity {
    fn new(inner: TcpStream) -> Self {
        Self {
            inner,
            started: Instant::now(),
            last: Arc::new(AtomicU64::new(0)),
        }
    }

    fn touch(&self) {
        let ms = self.started.elapsed().as_millis() as u64;
        self.last.store(ms, Ordering::Relaxed);
    }
}

impl AsyncRead for Activity {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let out = Pin::new(&mut self.inner).poll_read(cx, buf);
        if matches!(out, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.touch();
        }
        out
    }
}

impl AsyncWrite for Activity {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let out = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(out, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        out
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let out = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if matches!(out, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        out
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}
