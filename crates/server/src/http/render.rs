//! Successful answers: a service's typed result rendered for its family. The `/api` envelope
//! adds `"ok": true` beside the result's fields; `/v1` sends the result as it is.

use axum::Json;
use pp_core::{Error, Result};
use serde::Serialize;
use serde_json::Value;

/// The result as JSON.
pub fn value(t: impl Serialize) -> Result<Value> {
    serde_json::to_value(t).map_err(Error::internal_from)
}

/// The `/api` success envelope: `{ "ok": true, …result }`.
pub fn api(t: impl Serialize) -> Result<Json<Value>> {
    let mut v = value(t)?;
    match v.as_object_mut() {
        Some(m) => {
            m.shift_insert(0, "ok".into(), true.into());
            Ok(Json(v))
        }
        None => Err(Error::internal("an /api result must be a JSON object")),
    }
}

/// The `/v1` answer: the result as it is.
pub fn v1(t: impl Serialize) -> Result<Json<Value>> {
    value(t).map(Json)
}
