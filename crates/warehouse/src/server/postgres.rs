//! A tenant warehouse on PostgreSQL. Every session starts with `default_transaction_read_only`
//! and `standard_conforming_strings` on; every statement runs in `BEGIN READ ONLY` with
//! `SET LOCAL statement_timeout` at the caller's deadline, as a `NO SCROLL` cursor: PostgreSQL
//! itself refuses a cursor over anything but a query, or over a `WITH` that modifies data. Rows
//! are fetched in batches until the caps, so a huge result is never read to its end, and the
//! transaction is rolled back. A statement whose caller goes away is cancelled with
//! `pg_cancel_backend` from a second session.

use std::str::FromStr;
use std::sync::Arc;

use pp_core::{Error, Kind, Result};
use serde_json::{Value, json};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgRow};
use sqlx::{Column, ConnectOptions, Connection, Executor, Row, TypeInfo, ValueRef};
use tokio::sync::Semaphore;

use super::values::{self, unsupported};
use super::{KillFuture, Ran, Server, bounded, not_a_read, unreachable};
use crate::bind;
use crate::caps::Collected;
use crate::dialect::Dialect;
use crate::engine::{
    BoxFuture, ColumnInfo, Engine, IndexInfo, QueryRequest, QueryResult, TableDescription,
    TableSummary,
};
use crate::idle::Idle;
use crate::lex::one_statement;
use crate::limits::Limits;

/// Rows fetched from the cursor at a time.
const BATCH: usize = 500;

/// An open session and its server process id (what a cancel names).
pub(crate) struct Session {
    conn: PgConnection,
    pid: i32,
}

/// A tenant warehouse in a PostgreSQL database.
pub struct PgEngine {
    opts: PgConnectOptions,
    shown: String,
    idle: Idle<Session>,
    slots: Arc<Semaphore>,
}

impl PgEngine {
    /// An engine over the database at `url` (connected on first use) whose queries run in
    /// `slots`.
    pub fn new(url: &str, slots: Arc<Semaphore>) -> Result<Self> {
        let shown = pp_store::redact_password(url);
        let opts = PgConnectOptions::from_str(url)
            .map_err(|e| {
                Error::new(
                    Kind::BadParams,
                    format!("{shown} is not a PostgreSQL URL: {e}"),
                )
            })?
            .application_name("partner-platform")
            .statement_cache_capacity(32)
            .options([
                ("default_transaction_read_only", "on"),
                ("standard_conforming_strings", "on"),
                ("DateStyle", "ISO"),
                ("TimeZone", "UTC"),
            ])
            .disable_statement_logging();
        Ok(Self {
            opts,
            shown,
            idle: Idle::default(),
            slots,
        })
    }

    /// Runs an introspection query on an idle session.
    async fn introspect(&self, sql: &str, binds: &[&str]) -> Result<Vec<PgRow>> {
        let mut s = Server::session(self).await?;
        let mut q = sqlx::query(sql);
        for b in binds {
            q = q.bind(*b);
        }
        let rows = q
            .fetch_all(&mut s.conn)
            .await
            .map_err(|e| Error::internal_with("introspection", e))?;
        self.idle.put(s);
        Ok(rows)
    }
}

impl Server for PgEngine {
    type Session = Session;
    /// The statement with its params written in.
    type Statement = String;

    fn idle(&self) -> &Idle<Session> {
        &self.idle
    }

    async fn connect(&self) -> Result<Session> {
        let down = |e: sqlx::Error| unreachable("postgres", format!("{}: {e}", self.shown));
        let mut conn = PgConnection::connect_with(&self.opts).await.map_err(down)?;
        let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(&mut conn)
            .await
            .map_err(down)?;
        Ok(Session { conn, pid })
    }

    fn kill(&self, session: &Session) -> KillFuture {
        let (opts, pid) = (self.opts.clone(), session.pid);
        Box::pin(async move {
            if let Ok(mut c) = PgConnection::connect_with(&opts).await {
                let _ = sqlx::query("SELECT pg_cancel_backend($1)")
                    .bind(pid)
                    .execute(&mut c)
                    .await;
                let _ = c.close().await;
            }
        })
    }

    async fn run<'a>(
        &'a self,
        session: &'a mut Session,
        sql: &'a String,
        ms: u64,
        limits: &'a Limits,
    ) -> Result<Ran> {
        // The cursor is read in batches, so a cap never leaves rows on the wire.
        let result = run(&mut session.conn, sql, ms, limits).await?;
        Ok(Ran {
            result,
            unread: false,
        })
    }

    async fn reset<'a>(&'a self, session: &'a mut Session) -> bool {
        session.conn.execute("ROLLBACK").await.is_ok()
    }
}

/// One statement in a read-only transaction, as a cursor fetched within the caps.
async fn run(conn: &mut PgConnection, sql: &str, ms: u64, limits: &Limits) -> Result<QueryResult> {
    let fail = |e: sqlx::Error| error(e, sql);
    let begin = format!("BEGIN READ ONLY; SET LOCAL statement_timeout = {ms}");
    conn.execute(begin.as_str()).await.map_err(fail)?;
    sqlx::query(&format!("DECLARE pp_query NO SCROLL CURSOR FOR {sql}"))
        .persistent(false)
        .execute(&mut *conn)
        .await
        .map_err(fail)?;
    let mut out = Collected::new(Vec::new());
    let fetch = format!("FETCH FORWARD {BATCH} FROM pp_query");
    'fetch: loop {
        let rows = sqlx::query(&fetch)
            .persistent(false)
            .fetch_all(&mut *conn)
            .await
            .map_err(fail)?;
        for row in &rows {
            if out.columns.is_empty() {
                out.columns = columns(row.columns());
            }
            if !out.push_values(limits, decode(row)?) {
                break 'fetch;
            }
        }
        if rows.len() < BATCH {
            break;
        }
    }
    if out.is_empty() && !out.capped() {
        let stmt = (&mut *conn).prepare(sql).await.map_err(fail)?;
        out.columns = columns(sqlx::Statement::columns(&stmt));
    }
    conn.execute("ROLLBACK").await.map_err(fail)?;
    Ok(out.finish())
}

fn columns(cols: &[sqlx::postgres::PgColumn]) -> Vec<ColumnInfo> {
    cols.iter()
        .map(|c| ColumnInfo {
            name: c.name().to_owned(),
            decl_type: Some(c.type_info().name().to_ascii_lowercase()),
        })
        .collect()
}

/// One row as JSON values, by each column's type.
fn decode(row: &PgRow) -> Result<Vec<Value>> {
    (0..row.len()).map(|i| cell(row, i)).collect()
}

fn cell(row: &PgRow, i: usize) -> Result<Value> {
    let col = row.columns()[i].name();
    let bad = |e: sqlx::Error| Error::internal_with(format!("warehouse column {col}"), e);
    let raw = row.try_get_raw(i).map_err(bad)?;
    if raw.is_null() {
        return Ok(Value::Null);
    }
    let ty = raw.type_info().name().to_owned();
    let bytes = || {
        raw.as_bytes()
            .map_err(|e| Error::internal(format!("warehouse column {col}: {e}")))
    };
    Ok(match ty.as_str() {
        "BOOL" => row.try_get::<bool, _>(i).map_err(bad)?.into(),
        "INT2" => row.try_get::<i16, _>(i).map_err(bad)?.into(),
        "INT4" => row.try_get::<i32, _>(i).map_err(bad)?.into(),
        "INT8" => row.try_get::<i64, _>(i).map_err(bad)?.into(),
        "FLOAT4" => values::real(f64::from(row.try_get::<f32, _>(i).map_err(bad)?)),
        "FLOAT8" => values::real(row.try_get::<f64, _>(i).map_err(bad)?),
        "NUMERIC" => match values::pg_numeric(bytes()?)? {
            Some(text) => values::decimal(&text)?,
            None => Value::Null,
        },
        "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" | "UNKNOWN" => {
            row.try_get::<String, _>(i).map_err(bad)?.into()
        }
        "DATE" => values::pg_date(bytes()?)?,
        "TIMESTAMP" | "TIMESTAMPTZ" => values::pg_timestamp(bytes()?)?,
        "BYTEA" => values::bytes(&row.try_get::<Vec<u8>, _>(i).map_err(bad)?),
        "JSON" | "JSONB" => {
            let b = bytes()?;
            let text = if ty == "JSONB" {
                b.get(1..).unwrap_or(b)
            } else {
                b
            };
            serde_json::from_slice(text).map_err(Error::internal_from)?
        }
        _ => return Err(unsupported(col, &ty)),
    })
}

/// An engine error as the kind a caller can act on.
fn error(e: sqlx::Error, sql: &str) -> Error {
    let sqlx::Error::Database(db) = &e else {
        return match e {
            sqlx::Error::Io(_)
            | sqlx::Error::Tls(_)
            | sqlx::Error::PoolTimedOut
            | sqlx::Error::PoolClosed => unreachable("postgres", &e),
            other => Error::internal_with("postgres warehouse", other),
        };
    };
    let msg = db.message().to_owned();
    let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
    match code.as_str() {
        "25006" => not_a_read(&msg),
        "0A000" if msg.contains("data-modifying") => not_a_read(&msg),
        "42601"
            if !super::starts_like_a_query(sql, Dialect::Postgres)
                || super::names_a_write(sql, Dialect::Postgres) =>
        {
            not_a_read("only queries run here")
        }
        "57014" => Error::new(Kind::QueryTimeout, "the query was stopped"),
        "53100" | "53200" | "54000" | "54001" => Error::new(
            Kind::TooLarge,
            format!("the query needs more than the warehouse allows: {msg}"),
        )
        .with_fix("Filter first, or aggregate before ordering."),
        c if c.starts_with("08") => unreachable("postgres", &e),
        _ => Error::new(Kind::SqlError, msg),
    }
}

const TABLES: &str = "SELECT table_name::text AS name, \
     CASE table_type WHEN 'VIEW' THEN 'view' ELSE 'table' END AS kind \
     FROM information_schema.tables WHERE table_schema = current_schema() \
     AND ($1 = '' OR table_name = $1) ORDER BY table_name COLLATE \"C\"";

const COLUMNS: &str = "SELECT a.attname::text AS name, format_type(a.atttypid, a.atttypmod) AS type, \
     NOT a.attnotnull AS nullable, pg_get_expr(d.adbin, d.adrelid) AS dflt, \
     EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = a.attrelid AND i.indisprimary \
             AND a.attnum = ANY(i.indkey)) AS pk \
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum \
     WHERE a.attrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1)) \
     AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum";

const INDEXES: &str = "SELECT c.relname::text AS name, i.indisunique AS uniq, \
     ARRAY(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(n, o) \
           JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o) AS cols \
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid \
     WHERE i.indrelid = to_regclass(quote_ident(current_schema()) || '.' || quote_ident($1)) \
     ORDER BY c.relname";

impl Engine for PgEngine {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn query<'a>(
        &'a self,
        req: QueryRequest,
        limits: &'a Limits,
    ) -> BoxFuture<'a, Result<QueryResult>> {
        Box::pin(async move {
            let sql = bind::postgres(one_statement(&req.sql, Dialect::Postgres)?, &req.params)?;
            bounded(self, sql, req.timeout_ms, &self.slots, limits).await
        })
    }

    fn tables(&self) -> BoxFuture<'_, Result<Vec<TableSummary>>> {
        Box::pin(async move {
            let rows = self.introspect(TABLES, &[""]).await?;
            Ok(rows
                .iter()
                .map(|r| TableSummary {
                    name: r.get("name"),
                    kind: r.get("kind"),
                })
                .collect())
        })
    }

    fn describe<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<TableDescription>> {
        Box::pin(async move {
            let Some(t) = self.introspect(TABLES, &[name]).await?.into_iter().next() else {
                return Err(Error::not_found(format!("no table or view named '{name}'"))
                    .with_fix("GET /api/tables lists what exists."));
            };
            let columns = self
                .introspect(COLUMNS, &[name])
                .await?
                .iter()
                .map(|r| {
                    json!({
                        "name": r.get::<String, _>("name"),
                        "type": r.get::<String, _>("type"),
                        "nullable": r.get::<bool, _>("nullable"),
                        "default": r.get::<Option<String>, _>("dflt"),
                        "primaryKey": r.get::<bool, _>("pk"),
                    })
                })
                .collect();
            let indexes = self
                .introspect(INDEXES, &[name])
                .await?
                .iter()
                .map(|r| IndexInfo {
                    name: r.get("name"),
                    unique: r.get("uniq"),
                    columns: r.get("cols"),
                })
                .collect();
            Ok(TableDescription {
                name: t.get("name"),
                kind: t.get("kind"),
                columns,
                indexes,
            })
        })
    }

    fn login_can_write(&self) -> BoxFuture<'_, Result<bool>> {
        Box::pin(async move {
            let rows = self
                .introspect(
                    "SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) \
                     OR COALESCE(bool_or(has_table_privilege(c.oid, 'INSERT,UPDATE,DELETE,TRUNCATE')), false) AS w \
                     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
                     WHERE n.nspname = current_schema() AND c.relkind = 'r'",
                    &[],
                )
                .await?;
            Ok(rows.first().is_some_and(|r| r.get::<bool, _>("w")))
        })
    }
}
