//! The legacy HTTP+SSE transport (2024-11-05) on `/mcp/sse`: `GET` opens the event stream, whose
//! first event (`endpoint`) names where to POST messages — the same path with the session id
//! in the query. Answers travel down the stream; the POST is acknowledged with 202. The session
//! lives as long as the stream.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::mpsc;

use super::caller::Caller;
use super::jsonrpc;
use super::message::{self, Message};
use super::sessions::Forget;
use super::streamable::{refusal, session_refused};
use super::{dispatch, versions};
use crate::state::SharedState;

/// Answers a session may have waiting before the client reads them.
const QUEUE: usize = 64;

/// `GET /mcp/sse`.
pub async fn open(State(app): State<SharedState>, Caller(p): Caller) -> Response {
    let (tx, rx) = mpsc::channel::<String>(QUEUE);
    let id = match app.mcp.sessions.open(
        &p.credential_id,
        p.tenant.as_str(),
        versions::HANDSHAKE[0],
        tx,
    ) {
        Ok(id) => id,
        Err(why) => return session_refused(why),
    };
    let endpoint = Event::default()
        .event("endpoint")
        .data(format!("/mcp/sse?session_id={id}"));
    let forget = Forget {
        sessions: Arc::clone(&app.mcp.sessions),
        id,
    };
    let messages = futures_util::stream::unfold((rx, forget), |(mut rx, forget)| async move {
        let m = rx.recv().await?;
        Some((
            Ok::<_, Infallible>(Event::default().event("message").data(m)),
            (rx, forget),
        ))
    });
    let stream = futures_util::stream::once(async move { Ok(endpoint) }).chain(messages);
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// `?session_id=` on a message, read like every query string (other parameters are ignored:
/// the transport's clients add their own).
#[derive(serde::Deserialize)]
struct MessageQuery {
    session_id: Option<String>,
}

fn session_id(query: Option<&str>) -> Option<String> {
    crate::http::query::parse::<MessageQuery>(query?)
        .ok()?
        .session_id
}

/// `POST /mcp/sse?session_id=…`.
pub async fn message(
    State(app): State<SharedState>,
    Caller(p): Caller,
    RawQuery(query): RawQuery,
    _headers: HeaderMap,
    body: Bytes,
) -> Response {
    let Some(id) = session_id(query.as_deref()) else {
        return refusal(
            StatusCode::BAD_REQUEST,
            "session_id is required: POST to the endpoint the stream named",
        );
    };
    let Some(live) = app.mcp.sessions.touch(&id, &p.credential_id) else {
        return refusal(
            StatusCode::NOT_FOUND,
            "Session not found: open a new stream at GET /mcp/sse",
        );
    };
    let tx = live.channel;
    let msg = match message::parse(&body) {
        Ok(m) => m,
        Err(e) => {
            let _ = tx.send(jsonrpc::error(&Value::Null, &e)).await;
            return refusal(StatusCode::BAD_REQUEST, &e.message);
        }
    };
    let Message::Request {
        id: rid,
        method,
        params,
    } = msg
    else {
        return (StatusCode::ACCEPTED, "Accepted").into_response();
    };
    let answer = if method == "initialize" {
        let version = versions::negotiate(params.protocol_version.as_deref());
        app.mcp.sessions.set_version(&id, version);
        jsonrpc::answer(&dispatch::initialize_result(version))
    } else {
        dispatch::request(&app, p, live.version, &method, params).await
    };
    let text = match answer.and_then(|v| jsonrpc::result(&rid, &v, None)) {
        Ok(text) => text,
        Err(e) => jsonrpc::error(&rid, &e),
    };
    if tx.send(text).await.is_err() {
        return refusal(
            StatusCode::NOT_FOUND,
            "Session not found: the stream has closed",
        );
    }
    (StatusCode::ACCEPTED, "Accepted").into_response()
}
