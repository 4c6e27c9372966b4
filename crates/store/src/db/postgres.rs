//! PostgreSQL through sqlx (its query builder, not its macros): a connection pool, statements
//! with `$n` placeholders made from the portable `?n` ones, and rows read by their column types
//! into [`Cell`]s.

use pp_core::{Error, Result};
use sqlx::postgres::{PgArguments, PgPoolOptions, PgRow};
use sqlx::query::Query;
use sqlx::{Column, Postgres, Row as _, TypeInfo};

use super::{Arg, Cell, Row, Tx, TxFuture, db_error, to_dollar};

/// Seconds a caller is told to wait when the state store cannot be reached.
const RETRY_AFTER_SECS: u64 = 5;

/// A failure of the state store as the caller should hear it: a store that cannot be reached
/// (no connection within the pool's deadline, a connection lost, the server shutting down or
/// refusing connections) is `503 unavailable`, to retry after a few seconds, and nothing the
/// request meant to write was written (its transaction never committed); anything else is the
/// gateway's internal error. Either way the cause stays attached for the log.
fn pg_error(e: sqlx::Error) -> Error {
    let unreachable = match &e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            // connection exceptions, the server shutting down or starting up, or the
            // database not taking connections
            code.starts_with("08")
                || code.starts_with("57P")
                || (code == "55000" && db.message().contains("accepting connections"))
        }
        _ => false,
    };
    if !unreachable {
        return db_error(e);
    }
    Error::new(
        pp_core::Kind::Unavailable,
        "the service's state store cannot be reached right now; nothing was changed",
    )
    .with_field("retryAfter", RETRY_AFTER_SECS)
    .with_source(e)
}

/// A pool of connections to one PostgreSQL database.
#[derive(Clone)]
pub struct PgDb {
    pool: sqlx::PgPool,
}

impl PgDb {
    /// Connects to `url` (`postgres://…`) with at most `max` connections.
    pub async fn connect(url: &str, max: u32) -> Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(max)
            .acquire_timeout(std::time::Duration::from_secs(10))
            .connect(url)
            .await
            .map_err(|e| Error::internal_with("cannot connect to the state store", e))?;
        Ok(Self { pool })
    }

    pub fn pool(&self) -> &sqlx::PgPool {
        &self.pool
    }

    pub async fn exec(&self, sql: &str, args: Vec<Arg>) -> Result<u64> {
        let sql = to_dollar(sql);
        let r = bind(sqlx::query(&sql), args)
            .execute(&self.pool)
            .await
            .map_err(pg_error)?;
        Ok(r.rows_affected())
    }

    pub async fn all(&self, sql: &str, args: Vec<Arg>) -> Result<Vec<Row>> {
        let sql = to_dollar(sql);
        let rows = bind(sqlx::query(&sql), args)
            .fetch_all(&self.pool)
            .await
            .map_err(pg_error)?;
        rows.iter().map(read).collect()
    }

    pub async fn tx<T, F>(&self, body: F) -> Result<T>
    where
        T: Send + 'static,
        F: for<'t> FnOnce(&'t mut Tx) -> TxFuture<'t, T> + Send + 'static,
    {
        let inner = self.pool.begin().await.map_err(pg_error)?;
        let mut tx = Tx::Postgres(PgTx { inner });
        let out = body(&mut tx).await;
        let Tx::Postgres(PgTx { inner }) = tx else {
            unreachable!("a PostgreSQL transaction stays PostgreSQL")
        };
        match &out {
            Ok(_) => inner.commit().await.map_err(pg_error)?,
            Err(_) => inner.rollback().await.map_err(pg_error)?,
        }
        out
    }
}

/// An open PostgreSQL transaction.
pub struct PgTx {
    inner: sqlx::Transaction<'static, Postgres>,
}

impl PgTx {
    pub async fn exec(&mut self, sql: &str, args: Vec<Arg>) -> Result<u64> {
        let sql = to_dollar(sql);
        let r = bind(sqlx::query(&sql), args)
            .execute(&mut *self.inner)
            .await
            .map_err(pg_error)?;
        Ok(r.rows_affected())
    }

    pub async fn all(&mut self, sql: &str, args: Vec<Arg>) -> Result<Vec<Row>> {
        let sql = to_dollar(sql);
        let rows = bind(sqlx::query(&sql), args)
            .fetch_all(&mut *self.inner)
            .await
            .map_err(pg_error)?;
        rows.iter().map(read).collect()
    }
}

fn bind(
    mut q: Query<'_, Postgres, PgArguments>,
    args: Vec<Arg>,
) -> Query<'_, Postgres, PgArguments> {
    for a in args {
        q = match a {
            Arg::Int(v) => q.bind(v),
            Arg::Real(v) => q.bind(v),
            Arg::Text(v) => q.bind(v),
            Arg::Blob(v) => q.bind(v),
        };
    }
    q
}

fn read(r: &PgRow) -> Result<Row> {
    let mut cells = Vec::with_capacity(r.columns().len());
    for (i, col) in r.columns().iter().enumerate() {
        let get_err = |e: sqlx::Error| db_error(e);
        let cell = match col.type_info().name() {
            "INT8" => r
                .try_get::<Option<i64>, _>(i)
                .map_err(get_err)?
                .map(Cell::Int),
            "INT4" => r
                .try_get::<Option<i32>, _>(i)
                .map_err(get_err)?
                .map(|v| Cell::Int(v.into())),
            "INT2" => r
                .try_get::<Option<i16>, _>(i)
                .map_err(get_err)?
                .map(|v| Cell::Int(v.into())),
            "BOOL" => r
                .try_get::<Option<bool>, _>(i)
                .map_err(get_err)?
                .map(|v| Cell::Int(v.into())),
            "FLOAT8" => r
                .try_get::<Option<f64>, _>(i)
                .map_err(get_err)?
                .map(Cell::Real),
            "FLOAT4" => r
                .try_get::<Option<f32>, _>(i)
                .map_err(get_err)?
                .map(|v| Cell::Real(v.into())),
            "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" => r
                .try_get::<Option<String>, _>(i)
                .map_err(get_err)?
                .map(Cell::Text),
            "BYTEA" => r
                .try_get::<Option<Vec<u8>>, _>(i)
                .map_err(get_err)?
                .map(Cell::Blob),
            other => {
                return Err(Error::internal(format!(
                    "state store: column {} has type {other}, which the store does not read",
                    col.name()
                )));
            }
        };
        cells.push(cell.unwrap_or(Cell::Null));
    }
    Ok(Row(cells))
}
