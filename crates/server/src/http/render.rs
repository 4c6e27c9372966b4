//! Successful answers: a service's typed result rendered for its family, serialized once,
//! straight from the typed value (no `Value` tree in between). The `/api` envelope adds
//! `"ok": true` before the result's fields; `/v1` sends the result as it is.

use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use pp_core::{Error, Result};
use serde::Serialize;
use serde_json::Value;

/// A JSON answer, already serialized.
#[derive(Debug)]
pub struct Rendered(Bytes);

impl IntoResponse for Rendered {
    fn into_response(self) -> Response {
        let mut res = self.0.into_response();
        res.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        res
    }
}

/// The result as JSON.
pub fn value(t: impl Serialize) -> Result<Value> {
    serde_json::to_value(t).map_err(Error::internal_from)
}

/// The `/api` success envelope: `{ "ok": true, …result }` (the result must be an object).
pub fn api(t: impl Serialize) -> Result<Rendered> {
    let body = serde_json::to_vec(&t).map_err(Error::internal_from)?;
    let Some(fields) = body.strip_prefix(b"{") else {
        return Err(Error::internal("an /api result must be a JSON object"));
    };
    let mut out = Vec::with_capacity(body.len() + 10);
    out.extend_from_slice(b"{\"ok\":true");
    if fields != b"}" {
        out.push(b',');
    }
    out.extend_from_slice(fields);
    Ok(Rendered(out.into()))
}

/// The `/v1` answer: the result as it is.
pub fn v1(t: impl Serialize) -> Result<Rendered> {
    serde_json::to_vec(&t)
        .map(|b| Rendered(b.into()))
        .map_err(Error::internal_from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(r: Rendered) -> String {
        String::from_utf8(r.0.to_vec()).unwrap()
    }

    #[test]
    fn the_api_envelope_puts_ok_first_and_refuses_what_is_not_an_object() {
        assert_eq!(
            text(api(json!({"a": 1, "b": [2]})).unwrap()),
            r#"{"ok":true,"a":1,"b":[2]}"#
        );
        assert_eq!(text(api(json!({})).unwrap()), r#"{"ok":true}"#);
        assert!(api(json!([1])).is_err());
        assert_eq!(text(v1(json!([1])).unwrap()), "[1]");
    }
}
