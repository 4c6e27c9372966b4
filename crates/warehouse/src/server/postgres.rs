//! A tenant warehouse on PostgreSQL. Every session starts with `default_transaction_read_only`
//! and `standard_conforming_strings` on; every statement runs in `BEGIN READ ONLY` with
//! `SET LOCAL statement_timeout` at the caller's deadline, as a `NO SCROLL` cursor: PostgreSQL
//! itself refuses a cursor over anything but a query, or over a `WITH` that modifies data. Rows
//! are fetched in batches until the caps, so a huge result is never read to its end, and the
//! transaction is rolled back. A statement whose caller goes away is cancelled with
//! `pg_cancel_backend` from a second session.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Kind, Result};
use serde_json::{Value, json};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgRow};
use sqlx::{Column, ConnectOptions, Connection, Executor, Row, TypeInfo, ValueRef};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use super::values::{self, unsupported};
use super::{Collected, Idle, KillFuture, KillSwitch, not_a_read, one_statement, unreachable};
use crate::bind;
use crate::dialect::Dialect;
use crate::engine::{
    BoxFuture, ColumnInfo, Engine, IndexInfo, QueryRequest, QueryResult, TableDescription,
    TableSummary,
};
use crate::limits::Limits;
use crate::slots::{GRACE, slot, timeout_error};

/// Rows fetched from the cursor at a time.
const BATCH: usize = 500;

/// An open session and its server process id (what a cancel names).
struct Session {
    conn: PgConnection,
    pid: i32,
}

/// A tenant warehouse in a PostgreSQL database.
pub struct PgEngine {
    opts: PgConnectOptions,
    shown: String,
    idle: Arc<Idle<Session>>,
    slots: Arc<Semaphore>,
}

impl PgEngine {
    /// An engine over the database at `url` (connected on first use) whose queries run in
    /// `slots`.
    pub fn new(url: &str, slots: Arc<Semaphore>) -> Result<Self> {
        let shown = super::redacted(url);
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
            idle: Arc::new(Idle::new()),
            slots,
        })
    }

    async fn session(&self) -> Result<Session> {
        if let Some(s) = self.idle.take() {
            return Ok(s);
        }
        let down = |e: sqlx::Error| unreachable("postgres", format!("{}: {e}", self.shown));
        let mut conn = PgConnection::connect_with(&self.opts).await.map_err(down)?;
        let pid: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(&mut conn)
            .await
            .map_err(down)?;
        Ok(Session { conn, pid })
    }

    /// Cancels whatever the session `pid` is running, from a session of its own.
    fn kill(&self, pid: i32) -> KillFuture {
        let opts = self.opts.clone();
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

    async fn bounded(&self, req: QueryRequest, limits: Limits) -> Result<QueryResult> {
        let sql = bind::postgres(one_statement(&req, Dialect::Postgres)?, &req.params)?;
        let deadline = Instant::now() + Duration::from_millis(req.timeout_ms);
        let late = || timeout_error(req.timeout_ms, limits.max_timeout_ms);
        let _slot = slot(&self.slots, deadline, limits.max_running).await?;
        let mut s = tokio::time::timeout_at(deadline, self.session())
            .await
            .map_err(|_| late())??;
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_millis()
            .max(1) as u64;
        let switch = KillSwitch::armed(self.kill(s.pid));
        let run = run(&mut s.conn, &sql, left, &limits);
        // Past the deadline (and a grace for the server's own timeout to answer) the switch
        // is dropped, which cancels the statement, and the session is closed.
        let out = tokio::time::timeout_at(deadline + GRACE, run)
            .await
            .map_err(|_| late())?;
        switch.disarm();
        match out {
            Ok(r) => {
                self.idle.put(s);
                Ok(r)
            }
            Err(e) => {
                if s.conn.execute("ROLLBACK").await.is_ok() {
                    self.idle.put(s);
                }
                Err(match e.kind {
                    Kind::QueryTimeout => late(),
                    _ => e,
                })
            }
        }
    }

    /// Runs an introspection query on an idle session.
    async fn introspect(&self, sql: &str, binds: &[&str]) -> Result<Vec<PgRow>> {
        let mut s = self.session().await?;
        let mut q = sqlx::query(sql);
        for b in binds {
            q = q.bind(*b);
        }
        let rows = q
            .fetch_all(&mut s.conn)
            .await
            .map_err(|e| Error::internal(format!("introspection: {e}")))?;
        self.idle.put(s);
        Ok(rows)
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
    let mut out = Collected::new();
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
            if !out.push(limits, decode(row)?) {
                break 'fetch;
            }
        }
        if rows.len() < BATCH {
            break;
        }
    }
    if out.rows.is_empty() && !out.capped() {
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
    let bad = |e: sqlx::Error| Error::internal(format!("warehouse column {col}: {e}"));
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
            serde_json::from_slice(text).map_err(Error::internal)?
        }
        _ => return Err(unsupported(col, &ty)),
    })
}

/// An engine error as the kind a caller can act on.
fn error(e: sqlx::Error, sql: &str) -> Error {
    let sqlx::Error::Database(db) = &e else {
        return match e {
            sqlx::Error::Io(_) | sqlx::Error::Tls(_) => unreachable("postgres", &e),
            other => Error::internal(format!("postgres warehouse: {other}")),
        };
    };
    let msg = db.message().to_owned();
    let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
    match code.as_str() {
        "25006" => not_a_read(&msg),
        "0A000" if msg.contains("data-modifying") => not_a_read(&msg),
        "42601" if !query_like(sql) || super::names_a_write(sql, Dialect::Postgres) => {
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

fn query_like(sql: &str) -> bool {
    super::starts_like_a_query(&crate::lex::code_words(sql, Dialect::Postgres), sql)
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
        Box::pin(self.bounded(req, limits.clone()))
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
