//! Tenant warehouses on database servers: PostgreSQL and MySQL/MariaDB. Each engine keeps a
//! few open sessions, runs every statement inside a read-only transaction with the server's
//! own statement timeout, and kills the statement from a second session when the caller's
//! deadline passes or the caller goes away. What they share lives here: the rules a statement
//! must pass before it is sent, the row collector with the result caps, decimal text as JSON,
//! the kill switch and the idle-session stash.
//!
//! The engine's read-only transaction is what stops writes; a login that can only `SELECT`
//! the warehouse's tables is the real guarantee (docs/deployment.md).

pub mod mysql;
pub mod postgres;
mod values;

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Instant;

use pp_core::{Error, Kind, Result};
use serde_json::{Map, Value, json};

use crate::dialect::Dialect;
use crate::engine::{ColumnInfo, QueryRequest, QueryResult};
use crate::lex::{has_second_statement, is_blank, without_terminator};
use crate::limits::Limits;

/// Most sessions an engine keeps open while idle.
const MAX_IDLE: usize = 4;

/// The statement as the engine will send it, once blank and batched SQL are refused.
pub(crate) fn one_statement(req: &QueryRequest, d: Dialect) -> Result<&str> {
    if is_blank(&req.sql, d) {
        return Err(Error::invalid_request(
            "sql holds no statement (only blanks or comments)",
        ));
    }
    if has_second_statement(&req.sql, d) {
        return Err(Error::new(
            Kind::MultipleStatements,
            "the sql holds more than one statement; send one statement per call",
        ));
    }
    Ok(without_terminator(&req.sql, d))
}

/// The refusal of a statement that is not a read.
pub(crate) fn not_a_read(what: &str) -> Error {
    Error::new(
        Kind::ReadOnlyViolation,
        format!("{what}: the warehouse is read-only"),
    )
    .with_fix("Send a single SELECT (or WITH … SELECT) statement.")
}

/// Whether the statement starts like a query (`SELECT`, `WITH`, `VALUES`, `TABLE` or `(`).
pub(crate) fn starts_like_a_query(words: &[String], sql: &str) -> bool {
    let opens_with_paren = sql
        .trim_start()
        .trim_start_matches(|c: char| c.is_whitespace())
        .starts_with('(');
    opens_with_paren
        || words
            .first()
            .is_some_and(|w| matches!(w.as_str(), "SELECT" | "WITH" | "VALUES" | "TABLE"))
}

/// Whether a statement the server could not read as a query names a write (`WITH … DELETE`),
/// so its syntax error is answered as the refusal it is.
pub(crate) fn names_a_write(sql: &str, d: Dialect) -> bool {
    const WRITES: &[&str] = &[
        "INSERT", "UPDATE", "DELETE", "MERGE", "REPLACE", "TRUNCATE", "CREATE", "DROP", "ALTER",
        "GRANT", "REVOKE", "COPY", "CALL",
    ];
    crate::lex::code_words(sql, d)
        .iter()
        .any(|w| WRITES.contains(&w.as_str()))
}

/// Rows gathered within the row and byte caps.
pub(crate) struct Collected {
    pub columns: Vec<ColumnInfo>,
    pub rows: Vec<Map<String, Value>>,
    bytes: usize,
    truncation: Option<Value>,
    started: Instant,
}

impl Collected {
    pub fn new() -> Self {
        Self {
            columns: Vec::new(),
            rows: Vec::new(),
            bytes: 0,
            truncation: None,
            started: Instant::now(),
        }
    }

    /// Adds one row; false once a cap is reached (the row is then left out).
    pub fn push(&mut self, limits: &Limits, values: Vec<Value>) -> bool {
        if self.rows.len() >= limits.max_rows {
            self.truncation = Some(json!({ "reason": "max_rows", "limit": limits.max_rows }));
            return false;
        }
        let mut obj = Map::with_capacity(values.len());
        for (c, v) in self.columns.iter().zip(values) {
            self.bytes += c.name.len() + json_len(&v);
            if self.bytes > limits.max_bytes {
                self.truncation = Some(json!({ "reason": "max_bytes", "limit": limits.max_bytes }));
                return false;
            }
            obj.insert(c.name.clone(), v);
        }
        self.rows.push(obj);
        true
    }

    /// Whether a cap cut the rows.
    pub fn capped(&self) -> bool {
        self.truncation.is_some()
    }

    pub fn finish(self) -> QueryResult {
        QueryResult {
            columns: self.columns,
            row_count: self.rows.len(),
            rows: self.rows,
            truncated: self.truncation.is_some(),
            truncation: self.truncation,
            duration_ms: self.started.elapsed().as_millis() as u64,
        }
    }
}

/// About how many bytes `v` takes as JSON.
fn json_len(v: &Value) -> usize {
    match v {
        Value::String(s) => s.len() + 2,
        Value::Null => 4,
        Value::Number(_) | Value::Bool(_) => 12,
        other => other.to_string().len(),
    }
}

/// A boxed future that kills a running statement.
pub(crate) type KillFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Kills the statement it was armed for when dropped, unless disarmed: so a query whose
/// caller gives up (a deadline, a closed connection) does not run on in the server.
pub(crate) struct KillSwitch(Option<KillFuture>);

impl KillSwitch {
    pub fn armed(kill: KillFuture) -> Self {
        Self(Some(kill))
    }

    /// The statement ended by itself.
    pub fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for KillSwitch {
    fn drop(&mut self) {
        if let Some(kill) = self.0.take()
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            rt.spawn(kill);
        }
    }
}

/// Open sessions waiting for the next query.
pub(crate) struct Idle<C>(Mutex<Vec<C>>);

impl<C> Idle<C> {
    pub fn new() -> Self {
        Self(Mutex::new(Vec::new()))
    }

    pub fn take(&self) -> Option<C> {
        self.0.lock().ok()?.pop()
    }

    pub fn put(&self, c: C) {
        if let Ok(mut v) = self.0.lock()
            && v.len() < MAX_IDLE
        {
            v.push(c);
        }
    }
}

/// `warehouse_unavailable` for a server that cannot be reached or refuses the login; the
/// cause (without the password) is logged, not sent.
pub(crate) fn unreachable(engine: &str, e: impl std::fmt::Display) -> Error {
    Error::new(
        Kind::WarehouseUnavailable,
        "the tenant's warehouse cannot be reached; the operator has been told",
    )
    .with_field("_cause", format!("{engine} warehouse: {e}"))
}

/// The password of a database URL replaced by `***`, for messages and listings.
pub fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((auth, host)) = rest.split_once('@') else {
        return url.to_owned();
    };
    match auth.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        assert_eq!(
            redacted("postgres://reader:s3cret@db:5432/wh"),
            "postgres://reader:***@db:5432/wh"
        );
        assert_eq!(
            redacted("mysql://root@127.0.0.1/wh"),
            "mysql://root@127.0.0.1/wh"
        );
        assert_eq!(redacted("sqlite:/x"), "sqlite:/x");
    }

    #[test]
    fn queries_start_like_queries() {
        let w = |s: &str| crate::lex::code_words(s, Dialect::MySql);
        for ok in [
            "SELECT 1",
            " with x as (select 1) select * from x",
            "(SELECT 1)",
        ] {
            assert!(starts_like_a_query(&w(ok), ok), "{ok}");
        }
        for bad in [
            "CREATE TABLE t (x int)",
            "SET @a = 1",
            "DO SLEEP(1)",
            "CALL p()",
        ] {
            assert!(!starts_like_a_query(&w(bad), bad), "{bad}");
        }
    }
}
