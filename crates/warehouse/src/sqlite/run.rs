//! Running one statement: statement-count check, prepare under the authorizer, bind, step
//! under a deadline, and convert rows to JSON within the row and byte caps.

use std::time::{Duration, Instant};

use base64::Engine as _;
use pp_core::{Error, Kind, Result};
use rusqlite::types::ValueRef;
use rusqlite::{Statement, ToSql};
use serde_json::{Map, Value, json};

use super::Guarded;
use crate::engine::{ColumnInfo, QueryRequest, QueryResult};
use crate::limits::Limits;
use crate::params::{Params, Scalar};
use crate::split::has_second_statement;

/// Runs `req` on a guarded connection.
pub fn query(g: &mut Guarded, req: &QueryRequest, limits: &Limits) -> Result<QueryResult> {
    if req.sql.trim().is_empty() {
        return Err(Error::invalid_request("sql is empty"));
    }
    if has_second_statement(&req.sql) {
        return Err(Error::new(
            Kind::MultipleStatements,
            "the sql holds more than one statement; send one statement per call",
        ));
    }
    let started = Instant::now();
    let deadline = started + Duration::from_millis(req.timeout_ms);
    g.conn
        .progress_handler(1_000, Some(move || Instant::now() > deadline))
        .map_err(|e| Error::internal(format!("progress handler: {e}")))?;
    g.denial.take();
    let out = run(g, req, limits, started);
    g.conn.progress_handler(0, None::<fn() -> bool>).ok();
    out.map_err(|e| match e.kind {
        Kind::QueryTimeout => Error::new(
            Kind::QueryTimeout,
            format!("the query passed its {} ms limit and was stopped", req.timeout_ms),
        )
        .with_fix(format!(
            "Narrow the query (filter on an indexed column such as SellerID) or raise queryTimeoutMs up to {}.",
            limits.max_timeout_ms
        )),
        _ => e,
    })
}

fn run(g: &Guarded, req: &QueryRequest, limits: &Limits, started: Instant) -> Result<QueryResult> {
    let mut stmt = g.conn.prepare(&req.sql).map_err(|e| sql_error(g, e))?;
    if !stmt.readonly() {
        return Err(Error::new(
            Kind::ReadOnlyViolation,
            "only read-only statements run here",
        ));
    }
    bind(&mut stmt, &req.params)?;
    let columns: Vec<ColumnInfo> = stmt
        .columns()
        .iter()
        .map(|c| ColumnInfo {
            name: c.name().to_owned(),
            decl_type: c.decl_type().map(str::to_owned),
        })
        .collect();
    let mut rows = Vec::new();
    let mut bytes = 0usize;
    let mut truncation = None;
    let mut raw = stmt.raw_query();
    while let Some(row) = raw.next().map_err(|e| sql_error(g, e))? {
        if rows.len() >= limits.max_rows {
            truncation = Some(json!({ "reason": "max_rows", "limit": limits.max_rows }));
            break;
        }
        let mut obj = Map::with_capacity(columns.len());
        for (i, c) in columns.iter().enumerate() {
            let v = to_json(row.get_ref(i).map_err(|e| sql_error(g, e))?);
            bytes += c.name.len() + approx_len(&v);
            obj.insert(c.name.clone(), v);
        }
        if bytes > limits.max_bytes {
            truncation = Some(json!({ "reason": "max_bytes", "limit": limits.max_bytes }));
            break;
        }
        rows.push(obj);
    }
    Ok(QueryResult {
        columns,
        row_count: rows.len(),
        rows,
        truncated: truncation.is_some(),
        truncation,
        duration_ms: started.elapsed().as_millis() as u64,
    })
}

fn bind(stmt: &mut Statement<'_>, params: &Params) -> Result<()> {
    let expected = stmt.parameter_count();
    let value = |s: &Scalar| -> Box<dyn ToSql> {
        match s {
            Scalar::Null => Box::new(rusqlite::types::Null),
            Scalar::Int(i) => Box::new(*i),
            Scalar::Real(f) => Box::new(*f),
            Scalar::Text(t) => Box::new(t.clone()),
        }
    };
    match params {
        Params::None if expected == 0 => Ok(()),
        Params::None => Err(Error::invalid_request(format!(
            "the sql has {expected} placeholder(s) but no params were sent"
        ))),
        Params::Positional(values) => {
            if values.len() != expected {
                return Err(Error::invalid_request(format!(
                    "the sql has {expected} placeholder(s) but {} params were sent",
                    values.len()
                )));
            }
            for (i, v) in values.iter().enumerate() {
                stmt.raw_bind_parameter(i + 1, value(v))
                    .map_err(Error::internal)?;
            }
            Ok(())
        }
        Params::Named(values) => bind_named(stmt, values, expected, value),
    }
}

fn bind_named(
    stmt: &mut Statement<'_>,
    values: &[(String, Scalar)],
    expected: usize,
    value: impl Fn(&Scalar) -> Box<dyn ToSql>,
) -> Result<()> {
    let mut used = vec![false; values.len()];
    for idx in 1..=expected {
        let Some(name) = stmt.parameter_name(idx).map(str::to_owned) else {
            return Err(Error::invalid_request(
                "the sql uses ? placeholders; send params as an array",
            ));
        };
        let bare = name.trim_start_matches([':', '@', '$']);
        let Some(pos) = values.iter().position(|(k, _)| k == bare) else {
            return Err(Error::invalid_request(format!(
                "params has no value for {name}"
            )));
        };
        used[pos] = true;
        stmt.raw_bind_parameter(idx, value(&values[pos].1))
            .map_err(Error::internal)?;
    }
    if let Some(pos) = used.iter().position(|u| !u) {
        return Err(Error::invalid_request(format!(
            "params.{} matches no placeholder in the sql",
            values[pos].0
        )));
    }
    Ok(())
}

fn to_json(v: ValueRef<'_>) -> Value {
    match v {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(i) => i.into(),
        ValueRef::Real(f) => serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number),
        ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
        ValueRef::Blob(b) => base64::engine::general_purpose::STANDARD.encode(b).into(),
    }
}

fn approx_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len() + 2,
        Value::Null => 4,
        _ => 12,
    }
}

/// Maps an engine error to a clear kind, using the authorizer's record for refusals.
fn sql_error(g: &Guarded, e: rusqlite::Error) -> Error {
    if let Some(why) = g.denial.take() {
        return Error::new(
            Kind::ReadOnlyViolation,
            format!("{why}: the warehouse is read-only"),
        )
        .with_fix("Send a single SELECT (or WITH … SELECT) statement.");
    }
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            Error::new(Kind::QueryTimeout, "the query was stopped")
        }
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(
                f.code,
                rusqlite::ErrorCode::ReadOnly
                    | rusqlite::ErrorCode::AuthorizationForStatementDenied
            ) =>
        {
            Error::new(
                Kind::ReadOnlyViolation,
                format!("{e}: the warehouse is read-only"),
            )
        }
        rusqlite::Error::MultipleStatement => Error::new(
            Kind::MultipleStatements,
            "the sql holds more than one statement; send one statement per call",
        ),
        rusqlite::Error::SqliteFailure(_, Some(msg)) => Error::new(Kind::SqlError, msg.clone()),
        rusqlite::Error::SqlInputError { msg, offset, .. } => {
            Error::new(Kind::SqlError, format!("{msg} (at offset {offset})"))
        }
        other => Error::new(Kind::SqlError, other.to_string()),
    }
}
