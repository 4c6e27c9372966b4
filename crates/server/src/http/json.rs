//! A JSON body extractor whose failures are `400 invalid_request` in the `/api` envelope
//! (axum's own rejection would answer in plain text).

use axum::extract::{FromRequest, Request};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use pp_core::{Error, Kind};
use serde_json::Value;

use super::error::ApiError;

/// Largest JSON body accepted, in bytes.
pub const MAX_BODY: usize = 1024 * 1024;

/// A request body parsed as a JSON object, at most `LIMIT` bytes.
pub struct JsonObject<const LIMIT: usize = MAX_BODY>(pub serde_json::Map<String, Value>);

impl<S: Send + Sync, const LIMIT: usize> FromRequest<S> for JsonObject<LIMIT> {
    type Rejection = ApiError;

    async fn from_request(req: Request, _state: &S) -> Result<Self, Self::Rejection> {
        let limited = Limited::new(req.into_body(), LIMIT);
        let bytes = match limited.collect().await {
            Ok(collected) => collected.to_bytes(),
            Err(e) if e.is::<LengthLimitError>() => {
                return Err(ApiError(Error::new(
                    Kind::TooLarge,
                    format!("the body is larger than {LIMIT} bytes"),
                )));
            }
            Err(e) => {
                return Err(ApiError(Error::invalid_request(format!(
                    "cannot read the body: {e}"
                ))));
            }
        };
        parse_object(&bytes).map(Self).map_err(ApiError)
    }
}

/// Parses a body that must be one JSON object (`400 invalid_request` otherwise).
pub fn parse_object(bytes: &[u8]) -> Result<serde_json::Map<String, Value>, Error> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(Error::invalid_request("the body must be a JSON object")),
        Err(e) => Err(Error::invalid_request(format!(
            "the body is not valid JSON: {e}"
        ))),
    }
}
