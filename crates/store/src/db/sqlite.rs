//! SQLite: a small pool of connections to one file (WAL, a busy timeout, so the admin CLI and
//! the server share it). Every call runs on tokio's blocking threads; a transaction holds one
//! connection on one blocking thread from `BEGIN IMMEDIATE` to its end.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pp_core::{Error, Result};
use rusqlite::Connection;
use rusqlite::types::{Value as SqlValue, ValueRef};

use super::{Arg, Cell, Row, Tx, TxFuture, db_error};

const MAX_IDLE: usize = 8;

/// A pool of read-write connections to one database file.
#[derive(Clone)]
pub struct SqliteDb {
    path: Arc<PathBuf>,
    idle: Arc<Mutex<Vec<Connection>>>,
}

impl SqliteDb {
    /// A pool for `path`; nothing is opened until first use.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path: Arc::new(path),
            idle: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn open(&self) -> Result<Connection> {
        let conn = Connection::open(&*self.path).map_err(|e| {
            Error::internal(format!(
                "cannot open state store {}: {e}",
                self.path.display()
            ))
        })?;
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(db_error)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
        )
        .map_err(db_error)?;
        Ok(conn)
    }

    fn checkout(&self) -> Result<Connection> {
        let pooled = self
            .idle
            .lock()
            .map_err(|e| Error::internal(format!("state store pool: {e}")))?
            .pop();
        match pooled {
            Some(c) => Ok(c),
            None => self.open(),
        }
    }

    fn checkin(&self, conn: Connection) {
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < MAX_IDLE
        {
            idle.push(conn);
        }
    }

    /// Runs `f` on a pooled connection, on the calling thread.
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let mut conn = self.checkout()?;
        let out = f(&mut conn);
        self.checkin(conn);
        out
    }

    /// Runs `f` on a pooled connection on a blocking thread.
    pub async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let db = self.clone();
        tokio::task::spawn_blocking(move || db.with(f))
            .await
            .map_err(|e| Error::internal_with("state store task", e))?
    }

    pub async fn exec(&self, sql: String, args: Vec<Arg>) -> Result<u64> {
        self.blocking(move |c| exec(c, &sql, args)).await
    }

    pub async fn all(&self, sql: String, args: Vec<Arg>) -> Result<Vec<Row>> {
        self.blocking(move |c| all(c, &sql, args)).await
    }

    pub async fn tx<T, F>(&self, body: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'t> FnOnce(&'t mut Tx) -> TxFuture<'t, T> + Send + 'static,
    {
        let handle = tokio::runtime::Handle::current();
        let db = self.clone();
        tokio::task::spawn_blocking(move || {
            let conn = db.checkout()?;
            conn.execute_batch("BEGIN IMMEDIATE").map_err(db_error)?;
            let mut tx = Tx::Sqlite(SqliteTx { conn });
            let out = handle.block_on(body(&mut tx));
            let Tx::Sqlite(SqliteTx { conn }) = tx else {
                unreachable!("a SQLite transaction stays SQLite")
            };
            let end = match &out {
                Ok(_) => conn.execute_batch("COMMIT"),
                Err(_) => conn.execute_batch("ROLLBACK"),
            };
            end.map_err(db_error)?;
            db.checkin(conn);
            out
        })
        .await
        .map_err(|e| Error::internal_with("state store task", e))?
    }
}

/// A transaction on one connection, on the blocking thread that opened it.
pub struct SqliteTx {
    conn: Connection,
}

impl SqliteTx {
    pub fn exec(&mut self, sql: &str, args: Vec<Arg>) -> Result<u64> {
        exec(&mut self.conn, sql, args)
    }

    pub fn all(&mut self, sql: &str, args: Vec<Arg>) -> Result<Vec<Row>> {
        all(&mut self.conn, sql, args)
    }
}

fn value(a: Arg) -> SqlValue {
    match a {
        Arg::Int(Some(v)) => SqlValue::Integer(v),
        Arg::Real(Some(v)) => SqlValue::Real(v),
        Arg::Text(Some(v)) => SqlValue::Text(v),
        Arg::Blob(Some(v)) => SqlValue::Blob(v),
        _ => SqlValue::Null,
    }
}

fn exec(c: &mut Connection, sql: &str, args: Vec<Arg>) -> Result<u64> {
    let mut st = c.prepare_cached(sql).map_err(db_error)?;
    let n = st
        .execute(rusqlite::params_from_iter(args.into_iter().map(value)))
        .map_err(db_error)?;
    Ok(n as u64)
}

fn all(c: &mut Connection, sql: &str, args: Vec<Arg>) -> Result<Vec<Row>> {
    let mut st = c.prepare_cached(sql).map_err(db_error)?;
    let width = st.column_count();
    let mut rows = st
        .query(rusqlite::params_from_iter(args.into_iter().map(value)))
        .map_err(db_error)?;
    let mut out = Vec::new();
    while let Some(r) = rows.next().map_err(db_error)? {
        let mut cells = Vec::with_capacity(width);
        for i in 0..width {
            cells.push(match r.get_ref(i).map_err(db_error)? {
                ValueRef::Null => Cell::Null,
                ValueRef::Integer(v) => Cell::Int(v),
                ValueRef::Real(v) => Cell::Real(v),
                ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
            });
        }
        out.push(Row(cells));
    }
    Ok(out)
}
