//! JSON body extractors whose failures are `400 invalid_request` (or `too_large`) in the
//! path's family envelope (axum's own rejection would answer in plain text): [`JsonObject`]
//! for a body read as a JSON object, [`Body`] for one deserialized into a typed request.

use axum::extract::{FromRequest, Request};
use axum::response::Response;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use pp_core::{Error, Kind};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::error::for_path;

/// Largest JSON body accepted, in bytes.
pub const MAX_BODY: usize = 1024 * 1024;

/// A request body parsed as a JSON object, at most `LIMIT` bytes; an empty body reads as `{}`
/// when `EMPTY_OK`.
pub struct JsonObject<const LIMIT: usize = MAX_BODY, const EMPTY_OK: bool = false>(
    pub Map<String, Value>,
);

async fn read(req: Request, limit: usize, empty_ok: bool) -> Result<Map<String, Value>, Error> {
    let limited = Limited::new(req.into_body(), limit);
    let bytes = match limited.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<LengthLimitError>() => {
            return Err(Error::new(
                Kind::TooLarge,
                format!("the body is larger than {limit} bytes"),
            ));
        }
        Err(e) => return Err(Error::invalid_request(format!("cannot read the body: {e}"))),
    };
    if empty_ok && bytes.is_empty() {
        return Ok(Map::new());
    }
    parse_object(&bytes)
}

impl<S: Send + Sync, const LIMIT: usize, const EMPTY_OK: bool> FromRequest<S>
    for JsonObject<LIMIT, EMPTY_OK>
{
    type Rejection = Response;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let path = req.uri().path().to_owned();
        read(req, LIMIT, EMPTY_OK)
            .await
            .map(Self)
            .map_err(|e| for_path(&path, e))
    }
}

/// A request body deserialized into the typed request `T`.
pub struct Body<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for Body<T> {
    type Rejection = Response;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let path = req.uri().path().to_owned();
        let parsed = match read(req, MAX_BODY, false).await {
            Ok(map) => typed(Value::Object(map)),
            Err(e) => Err(e),
        };
        parsed.map(Self).map_err(|e| for_path(&path, e))
    }
}

/// Deserializes a JSON value into a typed request; a wrong shape is `invalid_request` naming
/// the field.
pub fn typed<T: DeserializeOwned>(v: Value) -> Result<T, Error> {
    pp_core::wire::from_json("this request", v)
}

/// Parses a body that must be one JSON object (`400 invalid_request` otherwise).
pub fn parse_object(bytes: &[u8]) -> Result<Map<String, Value>, Error> {
    match pp_core::strict_json::parse(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Error::invalid_request("the body must be a JSON object")),
        Err(e) => Err(Error::invalid_request(format!(
            "the body is not valid JSON: {e}"
        ))),
    }
}
