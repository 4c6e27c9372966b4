//! The 2026-07-28 revision on `POST /mcp`: no handshake and no session; each request carries
//! its protocol version and client capabilities in `params._meta` and repeats its routing in
//! headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`). The checks run in the
//! revision's order; the first failure answers.

use std::sync::LazyLock;

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use pp_core::Principal;
use serde_json::{Map, json};

use super::jsonrpc::{HEADER_MISMATCH, INVALID_PARAMS, RpcError, UNSUPPORTED_PROTOCOL_VERSION};
use super::message::{Message, Params};
use super::streamable::{METHOD_HEADER, NAME_HEADER, VERSION_HEADER, header_str, respond_modern};
use super::{dispatch, versions};
use crate::http::render::JsonText;
use crate::state::SharedState;

/// The request's revision, or the error its envelope earns.
fn ladder(headers: &HeaderMap, method: &str, params: &Params) -> Result<&'static str, RpcError> {
    let Some(meta) = &params.meta else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!(
                "params._meta must be an object carrying '{}' and '{}'",
                versions::META_VERSION,
                versions::META_CAPABILITIES
            ),
        ));
    };
    if !(meta.has_version && meta.has_capabilities) {
        let missing: Vec<&str> = [
            (versions::META_VERSION, !meta.has_version),
            (versions::META_CAPABILITIES, !meta.has_capabilities),
        ]
        .into_iter()
        .filter_map(|(key, gone)| gone.then_some(key))
        .collect();
        return Err(RpcError::new(
            INVALID_PARAMS,
            format!("params._meta is missing {}", missing.join(", ")),
        ));
    }
    if header_str(headers, VERSION_HEADER) != meta.version.as_deref() {
        return Err(RpcError::new(
            HEADER_MISMATCH,
            "MCP-Protocol-Version header does not match params._meta's protocol version",
        ));
    }
    if header_str(headers, METHOD_HEADER) != Some(method) {
        return Err(RpcError::new(
            HEADER_MISMATCH,
            "Mcp-Method header does not match the method",
        ));
    }
    if method == "tools/call"
        && let Some(name) = &params.name
        && header_str(headers, NAME_HEADER) != Some(name.as_str())
    {
        return Err(RpcError::new(
            HEADER_MISMATCH,
            "Mcp-Name header does not match params.name",
        ));
    }
    let Some(requested) = meta.version.as_deref() else {
        return Err(RpcError::new(
            INVALID_PARAMS,
            "the protocol version must be a string",
        ));
    };
    versions::MODERN
        .iter()
        .find(|v| **v == requested)
        .copied()
        .ok_or_else(|| {
            RpcError::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
                .with_data(json!({ "supported": versions::MODERN, "requested": requested }))
        })
}

/// What every 2026-07-28 result adds to its own fields: it is complete, and which server
/// answered (`_meta`), written once.
static COMPLETE: LazyLock<JsonText> = LazyLock::new(|| {
    let mut meta = Map::new();
    meta.insert(versions::META_SERVER_INFO.into(), versions::server_info());
    let fields = json!({ "resultType": "complete", "_meta": meta });
    JsonText::of(&fields).expect("a JSON value is always written")
});

/// Answers one 2026-07-28 message.
pub async fn handle(
    app: &SharedState,
    p: Principal,
    headers: &HeaderMap,
    msg: Message,
) -> Response {
    let Message::Request { id, method, params } = msg else {
        return StatusCode::ACCEPTED.into_response();
    };
    let answer = match ladder(headers, &method, &params) {
        Err(e) => Err(e),
        Ok(version) => dispatch::request(app, p, version, &method, params).await,
    };
    respond_modern(headers, &id, answer, &COMPLETE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn headers() -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(VERSION_HEADER, "2026-07-28".parse().unwrap());
        h.insert(METHOD_HEADER, "tools/list".parse().unwrap());
        h
    }

    /// The params of a request whose `_meta` is `m`, read as a request is.
    fn meta(m: Value) -> Params {
        let body =
            json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": m } });
        match super::super::message::parse(body.to_string().as_bytes()).unwrap() {
            Message::Request { params, .. } => *params,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_envelope_names_each_key_it_lacks() {
        let version = versions::META_VERSION;
        let caps = versions::META_CAPABILITIES;
        let full = meta(json!({ version: "2026-07-28", caps: {} }));
        assert_eq!(
            ladder(&headers(), "tools/list", &full).unwrap(),
            "2026-07-28"
        );
        for (m, names) in [
            (json!({ version: "2026-07-28" }), vec![caps]),
            (json!({ caps: {} }), vec![version]),
            (json!({}), vec![version, caps]),
        ] {
            let e = ladder(&headers(), "tools/list", &meta(m)).unwrap_err();
            assert_eq!(e.code, INVALID_PARAMS);
            assert_eq!(
                e.message,
                format!("params._meta is missing {}", names.join(", "))
            );
        }
    }
}
