//! Warehouse routes (full read set + `sql:query`): `POST /api/query`, `GET /api/tables`,
//! `GET /api/table/{name}`. The tenant's engine comes from the principal, never the request.

use axum::Json;
use axum::extract::{Extension, Path, State};
use pp_core::scope::sql_scopes;
use pp_core::{Error, Principal};
use pp_warehouse::{Params, QueryRequest};
use serde_json::{Map, Value, json};

use crate::http::error::ApiError;
use crate::http::json::JsonObject;
use crate::state::SharedState;

/// Reads `{ sql, params?, queryTimeoutMs? }`; any malformed field is `invalid_request`.
pub(crate) fn parse_query(
    body: &Map<String, Value>,
    app: &SharedState,
) -> Result<QueryRequest, Error> {
    let sql = match body.get("sql") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::String(_)) => return Err(Error::invalid_request("sql is empty")),
        Some(_) => return Err(Error::invalid_request("sql must be a string")),
        None => {
            return Err(
                Error::invalid_request("sql is required").with_fix(r#"Send {"sql": "SELECT …"}."#)
            );
        }
    };
    let params = Params::from_json(body.get("params"))?;
    let timeout = match body.get("queryTimeoutMs") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().ok_or_else(|| {
            Error::invalid_request("queryTimeoutMs must be a positive whole number of milliseconds")
        })?),
    };
    let timeout_ms = app.limits.timeout_for(timeout)?;
    Ok(QueryRequest {
        sql,
        params,
        timeout_ms,
    })
}

pub async fn query(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    p.require(&sql_scopes())?;
    let req = parse_query(&body, &app)?;
    let engine = app.warehouse_for(&p)?;
    let result = engine.query(req, &app.limits).await?;
    let mut out = serde_json::to_value(result).map_err(Error::internal)?;
    out["ok"] = true.into();
    Ok(Json(out))
}

pub async fn tables(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<Json<Value>, ApiError> {
    p.require(&sql_scopes())?;
    let tables = app.warehouse_for(&p)?.tables().await?;
    Ok(Json(json!({ "ok": true, "tables": tables })))
}

pub async fn describe(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(name): Path<String>,
) -> Result<Json<Value>, ApiError> {
    p.require(&sql_scopes())?;
    let table = app.warehouse_for(&p)?.describe(&name).await?;
    Ok(Json(json!({ "ok": true, "table": table })))
}
