//! Running one statement: statement-count check, prepare under the authorizer (or reuse of the
//! connection's prepared statement), bind, step
//! (the watchdog in `watch.rs` interrupts it at its deadline), and convert rows to JSON within
//! the row and byte caps.
//!
//! One SQLite step can run a single function call (a `LIKE`, an `instr`, a `json_patch`)
//! that no deadline interrupts; its work grows with the lengths of its arguments, so the
//! engine's length limits (value length, pattern length, column count) are what bound it.
//! Temporary files are charged to the query's budget (`tempspace.rs`).
//!
//! A statement is first tried [`quick`]ly, on the async worker that received it: it runs there
//! only if it calls no function that may take long and ends within [`QUICK_STEPS`] engine
//! steps (well under a millisecond); otherwise it is stopped and runs again on the blocking
//! pool (it only reads, so running it twice changes nothing). Most lookups end far within
//! that, and skip two thread hops. The budget is counted in steps, not time, so a busy machine
//! that preempts the worker never moves a statement that is short.

use std::sync::atomic::Ordering;
use std::time::Duration;

use base64::Engine as _;
use pp_core::{Error, Kind, Result};
use rusqlite::limits::Limit;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, Statement, ToSql};
use serde_json::{Map, Value};

use super::Guarded;
use super::tempspace;
use crate::caps::Collected;
use crate::dialect::Dialect;
use crate::engine::{ColumnInfo, QueryRequest, QueryResult};
use crate::lex::one_statement;
use crate::limits::Limits;
use crate::params::{Params, Scalar};
use crate::slots::timeout_error;

/// The most engine steps a statement takes on an async worker before it is moved to the
/// blocking pool (the connection's progress handler looks every this many steps).
pub const QUICK_STEPS: i32 = 10_000;

/// How a quick attempt ended.
pub enum Quick {
    /// The statement's own outcome.
    Done(Result<QueryResult>),
    /// It calls a function that may take long, or ran past [`QUICK_STEPS`]: run it on the
    /// pool.
    Elsewhere,
}

/// How long a statement on the pool waits for a writer's lock on the file.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Runs `req` for at most [`QUICK_STEPS`] engine steps on the calling thread. It does not
/// wait for a writer's lock: a locked file sends the statement to the pool, which waits.
pub fn quick(g: &mut Guarded, req: &QueryRequest, limits: &Limits) -> Quick {
    g.quick.store(true, Ordering::Release);
    let not_waiting = g.conn.busy_timeout(Duration::ZERO);
    let out = match not_waiting {
        Ok(()) => query_as(g, req, limits, true),
        Err(e) => Err(Error::internal_with("warehouse lock wait", e)),
    };
    g.quick.store(false, Ordering::Release);
    if let Err(e) = g.conn.busy_timeout(LOCK_WAIT) {
        return Quick::Done(Err(Error::internal_with("warehouse lock wait", e)));
    }
    match out {
        Ok(Some(result)) => Quick::Done(Ok(result)),
        Ok(None) => Quick::Elsewhere,
        Err(e) if e.kind == Kind::QueryTimeout => Quick::Elsewhere,
        Err(e) => Quick::Done(Err(e)),
    }
}

/// Runs `req` on a guarded connection.
pub fn query(g: &mut Guarded, req: &QueryRequest, limits: &Limits) -> Result<QueryResult> {
    query_as(g, req, limits, false)?
        .ok_or_else(|| Error::internal("a statement was refused a run it was owed"))
}

/// Runs `req`; when `quick`, a statement that calls a function that may take long is not run
/// (`None`).
fn query_as(
    g: &mut Guarded,
    req: &QueryRequest,
    limits: &Limits,
    quick: bool,
) -> Result<Option<QueryResult>> {
    let sql = one_statement(&req.sql, Dialect::Sqlite)?;
    g.begin_reading()?;
    // the deadline is the watchdog's (`watch.rs`): it interrupts the statement
    apply_limits(&g.conn, limits)?;
    g.denial.take();
    let budget = tempspace::Budget::new(limits.max_temp_bytes);
    let armed = tempspace::arm(budget.clone());
    let out = run(g, sql, &req.params, limits, quick);
    drop(armed);
    out.map_err(|e| match e.kind {
        Kind::QueryTimeout => timeout_error(req.timeout_ms, limits.max_timeout_ms),
        Kind::SqlError if budget.exhausted() => Error::new(
            Kind::TooLarge,
            format!(
                "the query needed more than {} MiB of temporary space and was stopped",
                limits.max_temp_bytes >> 20
            ),
        )
        .with_fix(
            "Sort, group or de-duplicate fewer rows: filter first, or aggregate before ordering.",
        ),
        _ => e,
    })
}

/// SQLite's own limits for this query: they bound what one step can build or scan.
fn apply_limits(conn: &Connection, limits: &Limits) -> Result<()> {
    let int = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    for (limit, value) in [
        (Limit::SQLITE_LIMIT_LENGTH, int(limits.max_value_bytes)),
        (Limit::SQLITE_LIMIT_SQL_LENGTH, int(limits.max_value_bytes)),
        (
            Limit::SQLITE_LIMIT_LIKE_PATTERN_LENGTH,
            int(limits.max_pattern_bytes),
        ),
        (Limit::SQLITE_LIMIT_COLUMN, int(limits.max_columns)),
    ] {
        conn.set_limit(limit, value)
            .map_err(|e| Error::internal_with("warehouse limits", e))?;
    }
    Ok(())
}

fn run(
    g: &Guarded,
    sql: &str,
    params: &Params,
    limits: &Limits,
    quick: bool,
) -> Result<Option<QueryResult>> {
    g.calls.take();
    // Prepared statements are kept per connection; the authorizer sees only a fresh prepare,
    // so the connection also remembers which of its statements call a long function.
    let mut stmt = g.conn.prepare_cached(sql).map_err(|e| sql_error(g, e))?;
    if !stmt.readonly() {
        return Err(Error::new(
            Kind::ReadOnlyViolation,
            "only read-only statements run here",
        ));
    }
    if g.calls.take() {
        g.calls_long(sql);
    }
    if quick && g.long.borrow().contains(sql) {
        return Ok(None);
    }
    bind(&mut stmt, params)?;
    let columns: Vec<ColumnInfo> = stmt
        .columns()
        .iter()
        .map(|c| ColumnInfo {
            name: c.name().to_owned(),
            decl_type: c.decl_type().map(str::to_owned),
        })
        .collect();
    let names: Vec<String> = columns.iter().map(|c| c.name.clone()).collect();
    let mut out = Collected::new(columns);
    let mut raw = stmt.raw_query();
    'rows: while let Some(row) = raw.next().map_err(|e| sql_error(g, e))? {
        if !out.room_for_row(limits) {
            break;
        }
        let mut obj = Map::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            // Sized before it is copied, so a row over the cap is never built.
            let value = row.get_ref(i).map_err(|e| sql_error(g, e))?;
            if !out.charge(limits, name.len() + json_len(&value)) {
                break 'rows;
            }
            obj.insert(name.clone(), to_json(value));
        }
        out.push(obj);
    }
    Ok(Some(out.finish()))
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
                    .map_err(Error::internal_from)?;
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
            .map_err(Error::internal_from)?;
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

/// About how many bytes `v` takes as JSON.
fn json_len(v: &ValueRef<'_>) -> usize {
    match v {
        ValueRef::Text(t) => t.len() + 2,
        ValueRef::Blob(b) => b.len().div_ceil(3) * 4 + 2,
        ValueRef::Null => 4,
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
    if super::damaged(&e) {
        return super::unavailable(&e);
    }
    match &e {
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::OperationInterrupted =>
        {
            Error::new(Kind::QueryTimeout, "the query was stopped")
        }
        // only a quick run meets this at once (it does not wait): it goes to the pool, which does
        rusqlite::Error::SqliteFailure(f, _)
            if f.code == rusqlite::ErrorCode::DatabaseBusy && g.quick.load(Ordering::Acquire) =>
        {
            Error::new(Kind::QueryTimeout, "the file is locked by a writer")
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
        rusqlite::Error::SqliteFailure(f, _) if f.code == rusqlite::ErrorCode::TooBig => {
            Error::new(
                Kind::TooLarge,
                "a value in this query would be longer than the warehouse allows",
            )
            .with_fix("Build shorter strings: values are capped (see docs/security.md).")
        }
        rusqlite::Error::SqliteFailure(_, Some(msg)) if msg.contains("pattern too complex") => {
            Error::new(
                Kind::TooLarge,
                "the LIKE or GLOB pattern is longer than the warehouse allows",
            )
            .with_fix("Use a shorter pattern (see docs/security.md).")
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
