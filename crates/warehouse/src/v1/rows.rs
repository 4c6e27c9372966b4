//! Running `/v1`'s internal SQL through the caller's engine, the scalars it binds, and the
//! typed readers of its rows.

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result};
use serde_json::{Map, Value};

use super::Ctx;
use crate::engine::QueryRequest;
use crate::params::{Params, Scalar};

/// A row of an internal query.
pub type Row = Map<String, Value>;

/// Runs internal read-only SQL against the caller's warehouse.
pub async fn rows(ctx: &Ctx<'_>, sql: &str, params: Vec<Scalar>) -> Result<Vec<Row>> {
    let req = QueryRequest {
        sql: sql.to_owned(),
        params: Params::Positional(params),
        timeout_ms: ctx.limits.max_timeout_ms,
    };
    crate::engine::timed_query(ctx.engine, req, ctx.limits)
        .await
        .map(|r| r.rows)
        .map_err(|e| match e.kind {
            Kind::SqlError | Kind::ReadOnlyViolation => Error::internal_with("v1 query failed", e),
            _ => e,
        })
}

/// A text scalar.
pub fn text(s: impl Into<String>) -> Scalar {
    Scalar::Text(s.into())
}

/// An integer scalar.
pub fn int(v: i64) -> Scalar {
    Scalar::Int(v)
}

/// A date scalar.
pub fn day(d: NaiveDate) -> Scalar {
    Scalar::Text(d.to_string())
}

/// An integer field of a row; `NULL` (an empty aggregate) is 0, any other type an error.
pub fn i(row: &Row, k: &str) -> Result<i64> {
    crate::row::Row::count(row, k)
}

/// A text field of a row that must hold text.
pub fn s<'a>(row: &'a Row, k: &str) -> Result<&'a str> {
    crate::row::Row::text(row, k)
}
