//! Streamable HTTP on `/mcp`. Session-era clients (2025-03-26 … 2025-11-25) `initialize`, get an
//! `Mcp-Session-Id`, and may `GET` an event stream and `DELETE` the session; an unknown session
//! answers 404 so the client starts a new one. 2026-07-28 clients send self-contained requests
//! (see [`super::modern`]). Answers are JSON, or one SSE event when the client accepts only SSE.

use std::convert::Infallible;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::Value;

use super::caller::Caller;
use super::jsonrpc::{self, Answer, INVALID_REQUEST, RpcError};
use super::message::{self, Message};
use super::sessions::Refusal;
use super::{dispatch, modern, versions};
use crate::http::render::{JsonText, json_response};
use crate::state::SharedState;

/// `Mcp-Session-Id`.
pub const SESSION_HEADER: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub const VERSION_HEADER: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method` (2026-07-28).
pub const METHOD_HEADER: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name` (2026-07-28).
pub const NAME_HEADER: HeaderName = HeaderName::from_static("mcp-name");

/// A header's value, when it is text.
pub fn header_str(headers: &HeaderMap, name: HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Whether the client takes only SSE answers (it lists `text/event-stream` but not JSON).
fn wants_sse(headers: &HeaderMap) -> bool {
    let accept = header_str(headers, header::ACCEPT).unwrap_or("");
    // JSON first: nearly every client lists it, and that settles it
    !accept.contains("application/json")
        && !accept.contains("*/*")
        && accept.contains("text/event-stream")
}

/// One JSON-RPC answer in the session era, as JSON or as a single SSE event: an error is the
/// request's answer like a result, so both go with 200 (clients read the JSON-RPC error; a
/// 4xx would be a transport failure to them). 404 stays the "session gone" signal.
pub fn respond(headers: &HeaderMap, id: &Value, answer: Result<Answer, RpcError>) -> Response {
    answer_with(headers, id, answer, None, |_| StatusCode::OK)
}

/// One JSON-RPC answer in 2026-07-28, whose rules give an error its HTTP status; a result
/// carries the fields of `every_result` (an object) after its own.
pub fn respond_modern(
    headers: &HeaderMap,
    id: &Value,
    answer: Result<Answer, RpcError>,
    every_result: &JsonText,
) -> Response {
    answer_with(headers, id, answer, Some(every_result), |e| {
        StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::OK)
    })
}

fn answer_with(
    headers: &HeaderMap,
    id: &Value,
    answer: Result<Answer, RpcError>,
    more: Option<&JsonText>,
    status_of: impl Fn(&RpcError) -> StatusCode,
) -> Response {
    let (status, body) = match answer.and_then(|v| jsonrpc::result(id, &v, more)) {
        Ok(text) => (StatusCode::OK, text),
        Err(e) => (status_of(&e), jsonrpc::error(id, &e)),
    };
    if wants_sse(headers) && status == StatusCode::OK {
        let text = format!("event: message\ndata: {body}\n\n");
        return (
            status,
            [
                (header::CONTENT_TYPE, "text/event-stream"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            text,
        )
            .into_response();
    }
    json_answer(status, body)
}

/// A JSON-RPC message already written as text, answered as JSON.
fn json_answer(status: StatusCode, body: String) -> Response {
    json_response(status, body.into())
}

fn accepted() -> Response {
    StatusCode::ACCEPTED.into_response()
}

fn no_session(headers: &HeaderMap) -> Response {
    let e = RpcError::new(
        INVALID_REQUEST,
        "Session not found: it ended or the server restarted. Send initialize (without \
         Mcp-Session-Id) to start a new session.",
    );
    let mut r = respond(headers, &Value::Null, Err(e));
    *r.status_mut() = StatusCode::NOT_FOUND;
    r
}

/// A JSON-RPC error answer (id null) with an HTTP status: how the MCP endpoints refuse
/// anything that is not a request they can answer.
pub fn refusal(status: StatusCode, message: &str) -> Response {
    let body = jsonrpc::error(&Value::Null, &RpcError::new(INVALID_REQUEST, message));
    json_answer(status, body)
}

/// Why a session was not opened, as the client sees it.
pub fn session_refused(why: Refusal) -> Response {
    match why {
        Refusal::TenantFull => refusal(
            StatusCode::TOO_MANY_REQUESTS,
            "this account holds its most open MCP sessions; close one (DELETE /mcp) or retry later",
        ),
        Refusal::TableFull => refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "the server holds too many sessions; retry shortly",
        ),
        Refusal::Unavailable => refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            "the session could not be opened just now; retry shortly",
        ),
    }
}

/// A message the transport cannot take (400), answering request `id` when it is known.
fn bad_request(headers: &HeaderMap, id: &Value, e: RpcError) -> Response {
    let mut r = respond(headers, id, Err(e));
    *r.status_mut() = StatusCode::BAD_REQUEST;
    r
}

fn request_id(msg: &Message) -> Value {
    match msg {
        Message::Request { id, .. } => id.clone(),
        _ => Value::Null,
    }
}

/// Whether a request without a session speaks 2026-07-28 (or names another unknown revision).
fn is_modern(headers: &HeaderMap, msg: &Message) -> bool {
    match header_str(headers, VERSION_HEADER) {
        Some(v) => !versions::is_handshake(v),
        None => msg
            .params()
            .and_then(|p| p.meta.as_ref())
            .is_some_and(|m| m.has_version),
    }
}

/// `POST /mcp`.
pub async fn post(State(app): State<SharedState>, Caller(p): Caller, mut req: Request) -> Response {
    // the headers are moved out rather than copied: reading the body needs only the body
    let headers = std::mem::take(req.headers_mut());
    let body = match Bytes::from_request(req, &app).await {
        Ok(b) => b,
        Err(rejection) => return rejection.into_response(),
    };
    let msg = match message::parse(&body) {
        Ok(m) => m,
        Err(e) => return bad_request(&headers, &message::id_of(&body), e),
    };
    let Some(session) = header_str(&headers, SESSION_HEADER) else {
        if is_modern(&headers, &msg) {
            return modern::handle(&app, p, &headers, msg).await;
        }
        return initialize(&app, &p, &headers, msg).await;
    };
    let Some(version) = app.mcp.shared.touch(session, &p.credential_id).await else {
        return no_session(&headers);
    };
    // a revision we serve is accepted even when it is not the session's (the session's
    // rules still apply); only one we do not serve is refused
    if let Some(v) = header_str(&headers, VERSION_HEADER)
        && !versions::is_served(v)
    {
        let e = RpcError::new(
            INVALID_REQUEST,
            format!(
                "MCP-Protocol-Version {v} is not served here; this session speaks {version} \
                 (served: {})",
                versions::HANDSHAKE.join(", ")
            ),
        );
        return bad_request(&headers, &request_id(&msg), e);
    }
    match msg {
        Message::Request { id, method, params } => {
            let answer = dispatch::request(&app, p, version, &method, params).await;
            respond(&headers, &id, answer)
        }
        _ => accepted(),
    }
}

/// A session-less handshake-era message: only `initialize` may open a session.
async fn initialize(
    app: &SharedState,
    p: &pp_core::Principal,
    headers: &HeaderMap,
    msg: Message,
) -> Response {
    let Message::Request { id, method, params } = msg else {
        let e = RpcError::new(
            INVALID_REQUEST,
            "Mcp-Session-Id is required: send initialize first",
        );
        return bad_request(headers, &Value::Null, e);
    };
    if method != "initialize" {
        let e = RpcError::new(
            INVALID_REQUEST,
            "Mcp-Session-Id is required: send initialize first (or speak 2026-07-28, which needs no session)",
        );
        return bad_request(headers, &id, e);
    }
    let version = versions::negotiate(params.protocol_version.as_deref());
    let session = match app
        .mcp
        .shared
        .open(&p.credential_id, p.tenant.as_str(), version)
        .await
    {
        Ok(s) => s,
        Err(why) => return session_refused(why),
    };
    let result = jsonrpc::answer(&dispatch::initialize_result(version));
    let mut r = respond(headers, &id, result);
    if let Ok(v) = HeaderValue::from_str(&session) {
        r.headers_mut().insert(SESSION_HEADER, v);
    }
    r
}

/// `GET /mcp`: the session's server-to-client stream. The server sends no requests of its own,
/// so the stream carries keep-alives until the client closes it.
pub async fn get(
    State(app): State<SharedState>,
    Caller(p): Caller,
    headers: HeaderMap,
) -> Response {
    let Some(session) = header_str(&headers, SESSION_HEADER) else {
        return refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            "GET /mcp opens a session's event stream: send Mcp-Session-Id (2026-07-28 has no stream)",
        );
    };
    if app
        .mcp
        .shared
        .touch(session, &p.credential_id)
        .await
        .is_none()
    {
        return no_session(&headers);
    }
    let quiet = futures_util::stream::pending::<Result<Event, Infallible>>();
    Sse::new(quiet)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// `DELETE /mcp`: ends the session.
pub async fn delete(
    State(app): State<SharedState>,
    Caller(p): Caller,
    headers: HeaderMap,
) -> Response {
    match header_str(&headers, SESSION_HEADER) {
        Some(s) if app.mcp.shared.close(s, &p.credential_id).await => {
            StatusCode::OK.into_response()
        }
        Some(_) => no_session(&headers),
        None => bad_request(
            &headers,
            &Value::Null,
            RpcError::new(
                INVALID_REQUEST,
                "send the Mcp-Session-Id of the session to end",
            ),
        ),
    }
}
