//! The engine interface and the shapes it answers with.

use std::future::Future;
use std::pin::Pin;

use pp_core::Result;
use serde::Serialize;
use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::limits::Limits;
use crate::params::Params;

/// A boxed future, so engines can sit behind `dyn Engine`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One query to run.
#[derive(Debug, Clone)]
pub struct QueryRequest {
    /// Exactly one SQL statement.
    pub sql: String,
    /// Bound parameters.
    pub params: Params,
    /// Wall-clock limit for running the statement and reading its rows.
    pub timeout_ms: u64,
}

/// A result column.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnInfo {
    /// Column name as the query labels it.
    pub name: String,
    /// Declared type, when the column comes straight from a table.
    #[serde(rename = "type")]
    pub decl_type: Option<String>,
}

/// What a query returns.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryResult {
    /// Result columns in order.
    pub columns: Vec<ColumnInfo>,
    /// Rows as objects keyed by column name.
    pub rows: Vec<Map<String, Value>>,
    /// `rows.len()`.
    pub row_count: usize,
    /// Whether rows were left out because a cap was reached.
    pub truncated: bool,
    /// Which cap, when truncated (`max_rows` or `max_bytes`), and its value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncation: Option<Value>,
    /// Time spent in the engine.
    pub duration_ms: u64,
}

/// A table or view of the tenant's database.
#[derive(Debug, Clone, Serialize)]
pub struct TableSummary {
    /// Its name.
    pub name: String,
    /// `table` or `view`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// An index of a table.
#[derive(Debug, Clone, Serialize)]
pub struct IndexInfo {
    /// Index name (`MIX_MAX_Record_IDX`).
    pub name: String,
    /// Whether it enforces uniqueness.
    pub unique: bool,
    /// Indexed columns in order.
    pub columns: Vec<String>,
}

/// A table's columns and indexes.
#[derive(Debug, Clone, Serialize)]
pub struct TableDescription {
    /// Its name.
    pub name: String,
    /// `table` or `view`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Columns with their declared types.
    pub columns: Vec<Value>,
    /// Indexes.
    pub indexes: Vec<IndexInfo>,
}

/// A tenant's warehouse: read-only SQL and table introspection.
pub trait Engine: Send + Sync {
    /// The SQL this engine speaks.
    fn dialect(&self) -> Dialect;
    /// Runs one read-only statement within `limits`.
    fn query<'a>(
        &'a self,
        req: QueryRequest,
        limits: &'a Limits,
    ) -> BoxFuture<'a, Result<QueryResult>>;
    /// Lists tables and views.
    fn tables(&self) -> BoxFuture<'_, Result<Vec<TableSummary>>>;
    /// Describes one table or view; `not_found` when it does not exist.
    fn describe<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<TableDescription>>;
    /// Whether the engine's login could change the warehouse if the engine's own read-only
    /// guard failed (a login that can only read is the real guarantee).
    fn login_can_write(&self) -> BoxFuture<'_, Result<bool>> {
        Box::pin(async { Ok(false) })
    }
}

/// Runs `req` on `engine`, its time in `pp_sql_query_duration_seconds` by engine and outcome
/// (`ok`, or the failure's kind).
pub async fn timed_query(
    engine: &dyn Engine,
    req: QueryRequest,
    limits: &Limits,
) -> Result<QueryResult> {
    let started = std::time::Instant::now();
    let answer = engine.query(req, limits).await;
    let outcome = match &answer {
        Ok(_) => "ok",
        Err(e) => e.kind.code(),
    };
    pp_core::metrics::get()
        .sql_duration
        .with_label_values(&[engine.dialect().name(), outcome])
        .observe(started.elapsed().as_secs_f64());
    answer
}
