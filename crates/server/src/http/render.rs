//! Successful answers: a service's typed result rendered for its family, serialized once,
//! straight from the typed value (no `Value` tree in between). The `/api` envelope adds
//! `"ok": true` before the result's fields; `/v1` sends the result as it is.

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pp_core::{Error, Result};
use serde::Serialize;

/// A JSON answer, already serialized.
#[derive(Debug)]
pub struct Rendered(Bytes);

impl IntoResponse for Rendered {
    fn into_response(self) -> Response {
        json_response(StatusCode::OK, self.0.into())
    }
}

/// Headers an answer gets on its way out (its type, the request id, the rate budget,
/// `nosniff`, `no-store` and a spare), room made once rather than grown into.
const ANSWER_HEADERS: usize = 8;

/// `body`, JSON text, answered with `status`.
pub fn json_response(status: StatusCode, body: Body) -> Response {
    let mut res = Response::new(body);
    *res.status_mut() = status;
    let h = res.headers_mut();
    h.reserve(ANSWER_HEADERS);
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    res
}

/// JSON text written once from a typed value, or assembled from such texts: what a tool
/// answers and what MCP results are built from, never copied into a `Value` tree.
#[derive(Debug, Clone)]
pub struct JsonText(String);

impl JsonText {
    /// `t` serialized.
    pub fn of(t: &impl Serialize) -> Result<Self> {
        serde_json::to_string(t)
            .map(Self)
            .map_err(Error::internal_from)
    }

    /// Text its caller wrote as JSON itself (an envelope around other `JsonText`s).
    pub fn assembled(text: String) -> Self {
        Self(text)
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// This object with the fields of the object `more` added after its own (an internal
    /// error unless both are objects).
    pub fn merged(&self, more: &JsonText) -> Result<Self> {
        let mut out = String::with_capacity(self.0.len() + more.0.len());
        self.write_merged(more, &mut out)?;
        Ok(Self(out))
    }

    /// Writes [`merged`](Self::merged)'s text at the end of `out`, for a caller assembling
    /// a larger text around it (nothing is written when either is not an object).
    pub fn write_merged(&self, more: &JsonText, out: &mut String) -> Result<()> {
        merge_objects(&self.0, &more.0, out)
    }
}

/// Writes the JSON object `own` with the fields of the object `more` after its own at the end
/// of `out` (nothing is written when either is not an object).
pub fn merge_objects(own: &str, more: &str, out: &mut String) -> Result<()> {
    let not_objects = || Error::internal("only two JSON objects can be merged");
    let own = own
        .strip_suffix('}')
        .filter(|b| b.starts_with('{'))
        .ok_or_else(not_objects)?;
    let added = more
        .strip_prefix('{')
        .filter(|b| b.ends_with('}'))
        .ok_or_else(not_objects)?;
    out.push_str(own);
    if own.len() > 1 && added.len() > 1 {
        out.push(',');
    }
    out.push_str(added);
    Ok(())
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
    use serde_json::{Value, json};

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

    #[test]
    fn objects_merge_in_order_and_nothing_else_merges() {
        let of = |v: Value| JsonText::of(&v).unwrap();
        let merged = of(json!({"a": 1}))
            .merged(&of(json!({"b": "x\"y"})))
            .unwrap();
        assert_eq!(merged.as_str(), r#"{"a":1,"b":"x\"y"}"#);
        assert_eq!(
            of(json!({})).merged(&of(json!({"b": 2}))).unwrap().as_str(),
            r#"{"b":2}"#
        );
        assert_eq!(
            of(json!({"a": 1})).merged(&of(json!({}))).unwrap().as_str(),
            r#"{"a":1}"#
        );
        assert!(of(json!([1])).merged(&of(json!({}))).is_err());
        assert!(of(json!({})).merged(&of(json!("x"))).is_err());
    }
}
