//! The two databases the state store runs on, behind one small async interface: SQLite (the
//! embedded default; its blocking calls run on tokio's blocking threads, never on the async
//! workers) and PostgreSQL (sqlx, without its macros), for several gateway instances sharing
//! one state.
//!
//! Each aggregate writes its SQL once, in the subset both engines read the same way
//! (`?1`-style placeholders, which PostgreSQL receives as `$1`; `ON CONFLICT … DO NOTHING`;
//! `IS NOT DISTINCT FROM`; `RETURNING`); where the engines differ it asks [`Db::dialect`].
//! Values cross as [`Arg`] (typed even when null, as PostgreSQL needs) and come back as [`Row`]s.

mod postgres;
mod sqlite;

use std::future::Future;
use std::pin::Pin;

use pp_core::{Error, Result};

pub use postgres::PgDb;
pub use sqlite::SqliteDb;

/// Which engine answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// One bound value; `None` is a typed NULL.
#[derive(Clone, Debug)]
pub enum Arg {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
    Blob(Option<Vec<u8>>),
}

impl From<i64> for Arg {
    fn from(v: i64) -> Self {
        Arg::Int(Some(v))
    }
}
impl From<Option<i64>> for Arg {
    fn from(v: Option<i64>) -> Self {
        Arg::Int(v)
    }
}
impl From<f64> for Arg {
    fn from(v: f64) -> Self {
        Arg::Real(Some(v))
    }
}
impl From<bool> for Arg {
    fn from(v: bool) -> Self {
        Arg::Int(Some(v as i64))
    }
}
impl From<&str> for Arg {
    fn from(v: &str) -> Self {
        Arg::Text(Some(v.to_owned()))
    }
}
impl From<String> for Arg {
    fn from(v: String) -> Self {
        Arg::Text(Some(v))
    }
}
impl From<&String> for Arg {
    fn from(v: &String) -> Self {
        Arg::Text(Some(v.clone()))
    }
}
impl From<Option<&str>> for Arg {
    fn from(v: Option<&str>) -> Self {
        Arg::Text(v.map(str::to_owned))
    }
}
impl From<Option<String>> for Arg {
    fn from(v: Option<String>) -> Self {
        Arg::Text(v)
    }
}
impl From<&[u8]> for Arg {
    fn from(v: &[u8]) -> Self {
        Arg::Blob(Some(v.to_vec()))
    }
}
impl From<Vec<u8>> for Arg {
    fn from(v: Vec<u8>) -> Self {
        Arg::Blob(Some(v))
    }
}
impl From<&Vec<u8>> for Arg {
    fn from(v: &Vec<u8>) -> Self {
        Arg::Blob(Some(v.clone()))
    }
}

/// Arguments for a statement: `args![a, b, c]`.
#[macro_export]
macro_rules! args {
    ($($v:expr),* $(,)?) => { vec![$($crate::db::Arg::from($v)),*] };
}

/// One value read back.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

/// One result row, read by column index; a value of another type than asked is an error,
/// never a default.
#[derive(Clone, Debug)]
pub struct Row(pub Vec<Cell>);

fn mistyped(i: usize, want: &str, got: &Cell) -> Error {
    Error::internal(format!(
        "state store: column {i} is {got:?}, expected {want}"
    ))
}

impl Row {
    fn cell(&self, i: usize) -> Result<&Cell> {
        self.0
            .get(i)
            .ok_or_else(|| Error::internal(format!("state store: no column {i}")))
    }

    pub fn i64(&self, i: usize) -> Result<i64> {
        self.opt_i64(i)?
            .ok_or_else(|| mistyped(i, "an integer", &Cell::Null))
    }

    pub fn opt_i64(&self, i: usize) -> Result<Option<i64>> {
        match self.cell(i)? {
            Cell::Null => Ok(None),
            Cell::Int(v) => Ok(Some(*v)),
            other => Err(mistyped(i, "an integer", other)),
        }
    }

    pub fn f64(&self, i: usize) -> Result<f64> {
        match self.cell(i)? {
            Cell::Real(v) => Ok(*v),
            Cell::Int(v) => Ok(*v as f64),
            other => Err(mistyped(i, "a number", other)),
        }
    }

    pub fn text(&self, i: usize) -> Result<String> {
        self.opt_text(i)?
            .ok_or_else(|| mistyped(i, "text", &Cell::Null))
    }

    pub fn opt_text(&self, i: usize) -> Result<Option<String>> {
        match self.cell(i)? {
            Cell::Null => Ok(None),
            Cell::Text(v) => Ok(Some(v.clone())),
            other => Err(mistyped(i, "text", other)),
        }
    }

    pub fn blob(&self, i: usize) -> Result<Vec<u8>> {
        match self.cell(i)? {
            Cell::Blob(v) => Ok(v.clone()),
            other => Err(mistyped(i, "bytes", other)),
        }
    }

    pub fn opt_blob(&self, i: usize) -> Result<Option<Vec<u8>>> {
        match self.cell(i)? {
            Cell::Null => Ok(None),
            Cell::Blob(v) => Ok(Some(v.clone())),
            other => Err(mistyped(i, "bytes", other)),
        }
    }

    /// A JSON text column, parsed.
    pub fn json(&self, i: usize) -> Result<serde_json::Value> {
        let s = self.text(i)?;
        serde_json::from_str(&s)
            .map_err(|e| Error::internal_with(format!("state store: column {i} is not JSON"), e))
    }

    /// A nullable JSON text column, parsed.
    pub fn opt_json(&self, i: usize) -> Result<Option<serde_json::Value>> {
        match self.opt_text(i)? {
            None => Ok(None),
            Some(_) => self.json(i).map(Some),
        }
    }
}

/// A future a transaction body returns.
pub type TxFuture<'t, T> = Pin<Box<dyn Future<Output = Result<T>> + Send + 't>>;

/// The state database.
#[derive(Clone)]
pub enum Db {
    Sqlite(SqliteDb),
    Postgres(PgDb),
}

impl Db {
    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite(_) => Dialect::Sqlite,
            Db::Postgres(_) => Dialect::Postgres,
        }
    }

    /// Runs one statement; the number of rows it changed.
    pub async fn exec(&self, sql: impl Into<String>, args: Vec<Arg>) -> Result<u64> {
        let sql = sql.into();
        match self {
            Db::Sqlite(d) => d.exec(sql, args).await,
            Db::Postgres(d) => d.exec(&sql, args).await,
        }
    }

    /// Every row `sql` returns.
    pub async fn all(&self, sql: impl Into<String>, args: Vec<Arg>) -> Result<Vec<Row>> {
        let sql = sql.into();
        match self {
            Db::Sqlite(d) => d.all(sql, args).await,
            Db::Postgres(d) => d.all(&sql, args).await,
        }
    }

    /// The first row `sql` returns, if any.
    pub async fn one(&self, sql: impl Into<String>, args: Vec<Arg>) -> Result<Option<Row>> {
        Ok(self.all(sql, args).await?.into_iter().next())
    }

    /// Runs `body` in one transaction: committed if it returns `Ok`, rolled back otherwise.
    /// SQLite takes its write lock at the start (`BEGIN IMMEDIATE`); PostgreSQL runs at read
    /// committed, so a body that reads before it writes locks what it read (`Tx::for_update`).
    pub async fn tx<T, F>(&self, body: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'t> FnOnce(&'t mut Tx) -> TxFuture<'t, T> + Send + 'static,
    {
        match self {
            Db::Sqlite(d) => d.tx(body).await,
            Db::Postgres(d) => d.tx(body).await,
        }
    }
}

/// An open transaction.
pub enum Tx {
    Sqlite(sqlite::SqliteTx),
    Postgres(postgres::PgTx),
}

impl Tx {
    pub fn dialect(&self) -> Dialect {
        match self {
            Tx::Sqlite(_) => Dialect::Sqlite,
            Tx::Postgres(_) => Dialect::Postgres,
        }
    }

    /// ` FOR UPDATE` on PostgreSQL (rows a transaction reads and then changes), nothing on
    /// SQLite, whose transaction already holds the write lock.
    pub fn for_update(&self) -> &'static str {
        match self {
            Tx::Sqlite(_) => "",
            Tx::Postgres(_) => " FOR UPDATE",
        }
    }

    /// Serializes this transaction with every other that names `name`, until it ends: on
    /// PostgreSQL an advisory lock (for rules over rows that may not exist yet, which
    /// `FOR UPDATE` cannot lock); SQLite's transaction already holds the write lock.
    pub async fn advisory_lock(&mut self, name: &str) -> Result<()> {
        if let Tx::Postgres(t) = self {
            t.exec(
                "SELECT pg_advisory_xact_lock(hashtextextended(?1, 0))",
                vec![Arg::from(name)],
            )
            .await?;
        }
        Ok(())
    }

    pub async fn exec(&mut self, sql: impl Into<String>, args: Vec<Arg>) -> Result<u64> {
        let sql = sql.into();
        match self {
            Tx::Sqlite(t) => t.exec(&sql, args),
            Tx::Postgres(t) => t.exec(&sql, args).await,
        }
    }

    pub async fn all(&mut self, sql: impl Into<String>, args: Vec<Arg>) -> Result<Vec<Row>> {
        let sql = sql.into();
        match self {
            Tx::Sqlite(t) => t.all(&sql, args),
            Tx::Postgres(t) => t.all(&sql, args).await,
        }
    }

    pub async fn one(&mut self, sql: impl Into<String>, args: Vec<Arg>) -> Result<Option<Row>> {
        Ok(self.all(sql, args).await?.into_iter().next())
    }

    /// Inserts `rows` (each the same width) as `{head} VALUES (…), (…) {tail}`, a hundred rows
    /// to a statement, so a large write is a few round trips, not one per row. The rows of
    /// one call must not conflict with each other.
    pub async fn insert_rows(&mut self, head: &str, tail: &str, rows: Vec<Vec<Arg>>) -> Result<()> {
        for chunk in rows.chunks(100) {
            let mut sql = format!("{head} VALUES ");
            let mut args = Vec::new();
            for (i, row) in chunk.iter().enumerate() {
                sql.push_str(if i == 0 { "(" } else { ", (" });
                for (j, a) in row.iter().enumerate() {
                    args.push(a.clone());
                    sql.push_str(&format!(
                        "{}?{}",
                        if j == 0 { "" } else { ", " },
                        args.len()
                    ));
                }
                sql.push(')');
            }
            sql.push(' ');
            sql.push_str(tail);
            self.exec(sql, args).await?;
        }
        Ok(())
    }
}

/// `?1`-style placeholders as PostgreSQL's `$1`, outside quoted text.
pub fn to_dollar(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut quote: Option<char> = None;
    for ch in sql.chars() {
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(ch),
            (None, '?') => {
                out.push('$');
                continue;
            }
            _ => {}
        }
        out.push(ch);
    }
    out
}

/// Maps a database failure to an opaque internal error (the cause is logged, not sent).
pub fn db_error(e: impl std::error::Error + Send + Sync + 'static) -> Error {
    Error::internal("state store").with_source(e)
}

#[cfg(test)]
mod tests {
    #[test]
    fn placeholders_become_dollars_outside_quotes() {
        assert_eq!(
            super::to_dollar("SELECT '?1', x FROM t WHERE a = ?1 AND b = ?12"),
            "SELECT '?1', x FROM t WHERE a = $1 AND b = $12"
        );
    }
}
