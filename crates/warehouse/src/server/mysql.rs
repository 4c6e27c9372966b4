//! A tenant warehouse on MySQL or MariaDB. Sessions are `SET SESSION TRANSACTION READ ONLY`;
//! every statement runs inside `START TRANSACTION READ ONLY` with the server's statement
//! timeout (`max_statement_time` on MariaDB, `max_execution_time` on MySQL) set to the
//! caller's deadline, as a prepared statement (one statement, by the protocol), and is rolled
//! back. MySQL commits implicitly before DDL and runs the inside of `/*! … */` comments, so
//! before anything is sent a statement must start like a query, hold no executable comment
//! and no `INTO` (`SELECT … INTO OUTFILE` writes a file). A statement whose caller goes away,
//! or whose rows pass the caps, is stopped with `KILL QUERY` from a second session.

use std::str::FromStr;
use std::sync::Arc;

use futures_util::TryStreamExt;
use pp_core::{Error, Kind, Result};
use serde_json::{Value, json};
use sqlx::mysql::{MySqlConnectOptions, MySqlConnection, MySqlDatabaseError, MySqlRow};
use sqlx::{Column, ConnectOptions, Connection, Executor, Row, TypeInfo, ValueRef};
use tokio::sync::Semaphore;

use super::values::{self, unsupported};
use super::{KillFuture, Ran, Server, bounded, not_a_read, starts_like_a_query, unreachable};
use crate::bind;
use crate::caps::Collected;
use crate::dialect::Dialect;
use crate::engine::{
    BoxFuture, ColumnInfo, Engine, IndexInfo, QueryRequest, QueryResult, TableDescription,
    TableSummary,
};
use crate::idle::Idle;
use crate::lex::{Kind as Lexed, code_words, one_statement, tokens};
use crate::limits::Limits;
use crate::params::Scalar;

/// An open session, its connection id (what `KILL QUERY` names) and its server's flavour.
pub(crate) struct Session {
    conn: MySqlConnection,
    id: u64,
    mariadb: bool,
}

/// A tenant warehouse in a MySQL or MariaDB database.
pub struct MySqlEngine {
    opts: MySqlConnectOptions,
    shown: String,
    idle: Idle<Session>,
    slots: Arc<Semaphore>,
}

/// Refuses what MySQL would run that is not a plain read.
fn screen(sql: &str) -> Result<()> {
    if tokens(sql, Dialect::MySql)
        .iter()
        .any(|t| t.kind == Lexed::Executable)
    {
        return Err(not_a_read("executable comments (/*! … */) are not allowed"));
    }
    if !starts_like_a_query(sql, Dialect::MySql) {
        return Err(not_a_read("only queries run here"));
    }
    if code_words(sql, Dialect::MySql).iter().any(|w| w == "INTO") {
        return Err(not_a_read("SELECT … INTO writes a file or variables"));
    }
    Ok(())
}

impl MySqlEngine {
    /// An engine over the database at `url` (connected on first use) whose queries run in
    /// `slots`.
    pub fn new(url: &str, slots: Arc<Semaphore>) -> Result<Self> {
        let shown = pp_store::redact_password(url);
        let opts = MySqlConnectOptions::from_str(url)
            .map_err(|e| Error::new(Kind::BadParams, format!("{shown} is not a MySQL URL: {e}")))?
            .charset("utf8mb4")
            .timezone(Some("+00:00".to_owned()))
            .statement_cache_capacity(32)
            .disable_statement_logging();
        Ok(Self {
            opts,
            shown,
            idle: Idle::default(),
            slots,
        })
    }

    async fn introspect(&self, sql: &str, binds: &[&str]) -> Result<Vec<MySqlRow>> {
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

/// Ends the read-only transaction and drops session locks a query may have taken.
async fn finish(conn: &mut MySqlConnection) -> std::result::Result<(), sqlx::Error> {
    conn.execute("ROLLBACK").await?;
    conn.execute("DO RELEASE_ALL_LOCKS()").await.map(|_| ())
}

impl Server for MySqlEngine {
    type Session = Session;
    /// The statement with `?` placeholders, and their values in order.
    type Statement = (String, Vec<Scalar>);

    fn idle(&self) -> &Idle<Session> {
        &self.idle
    }

    async fn connect(&self) -> Result<Session> {
        let down = |e: sqlx::Error| unreachable("mysql", format!("{}: {e}", self.shown));
        let mut conn = MySqlConnection::connect_with(&self.opts)
            .await
            .map_err(down)?;
        conn.execute("SET SESSION TRANSACTION READ ONLY")
            .await
            .map_err(down)?;
        let (id, version): (u64, String) = sqlx::query_as("SELECT CONNECTION_ID(), VERSION()")
            .fetch_one(&mut conn)
            .await
            .map_err(down)?;
        Ok(Session {
            conn,
            id,
            mariadb: version.contains("MariaDB"),
        })
    }

    fn kill(&self, session: &Session) -> KillFuture {
        let (opts, id) = (self.opts.clone(), session.id);
        Box::pin(async move {
            if let Ok(mut c) = MySqlConnection::connect_with(&opts).await {
                let _ = c.execute(format!("KILL QUERY {id}").as_str()).await;
                let _ = c.close().await;
            }
        })
    }

    async fn run<'a>(
        &'a self,
        session: &'a mut Session,
        (sql, values): &'a (String, Vec<Scalar>),
        ms: u64,
        limits: &'a Limits,
    ) -> Result<Ran> {
        run(session, sql, values, ms, limits).await
    }

    async fn reset<'a>(&'a self, session: &'a mut Session) -> bool {
        finish(&mut session.conn).await.is_ok()
    }
}

/// One statement in a read-only transaction; rows a cap left unread stay on the wire.
async fn run(
    s: &mut Session,
    sql: &str,
    values: &[Scalar],
    ms: u64,
    limits: &Limits,
) -> Result<Ran> {
    let fail = |e: sqlx::Error| error(e, sql);
    let timeout = if s.mariadb {
        format!("SET SESSION max_statement_time = {:.3}", ms as f64 / 1000.0)
    } else {
        format!("SET SESSION max_execution_time = {ms}")
    };
    let conn = &mut s.conn;
    conn.execute(timeout.as_str()).await.map_err(fail)?;
    conn.execute("START TRANSACTION READ ONLY")
        .await
        .map_err(fail)?;
    let mut q = sqlx::query(sql);
    for v in values {
        q = match v {
            Scalar::Null => q.bind(None::<i64>),
            Scalar::Int(i) => q.bind(*i),
            Scalar::Real(f) => q.bind(*f),
            Scalar::Text(t) => q.bind(t.as_str()),
        };
    }
    let mut out = Collected::new(Vec::new());
    {
        let mut rows = q.fetch(&mut *conn);
        while let Some(row) = rows.try_next().await.map_err(fail)? {
            if out.columns.is_empty() {
                out.columns = columns(row.columns());
            }
            if !out.push_values(limits, decode(&row)?) {
                return Ok(Ran {
                    result: out.finish(),
                    unread: true,
                });
            }
        }
    }
    if out.is_empty() {
        let stmt = (&mut *conn).prepare(sql).await.map_err(fail)?;
        out.columns = columns(sqlx::Statement::columns(&stmt));
    }
    finish(conn).await.map_err(fail)?;
    Ok(Ran {
        result: out.finish(),
        unread: false,
    })
}

fn columns(cols: &[sqlx::mysql::MySqlColumn]) -> Vec<ColumnInfo> {
    cols.iter()
        .map(|c| ColumnInfo {
            name: c.name().to_owned(),
            decl_type: Some(c.type_info().name().to_ascii_lowercase()),
        })
        .collect()
}

fn decode(row: &MySqlRow) -> Result<Vec<Value>> {
    (0..row.len()).map(|i| cell(row, i)).collect()
}

fn cell(row: &MySqlRow, i: usize) -> Result<Value> {
    let col = row.columns()[i].name();
    let bad = |e: sqlx::Error| Error::internal_with(format!("warehouse column {col}"), e);
    let raw = row.try_get_raw(i).map_err(bad)?;
    if raw.is_null() {
        return Ok(Value::Null);
    }
    let ty = raw.type_info().name().to_owned();
    // DECIMAL arrives as text and dates as bytes, which sqlx decodes only unchecked.
    let text = || row.try_get_unchecked::<String, _>(i).map_err(bad);
    let bytes = || row.try_get_unchecked::<Vec<u8>, _>(i).map_err(bad);
    Ok(match ty.as_str() {
        "BOOLEAN" | "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "BIGINT" => {
            row.try_get::<i64, _>(i).map_err(bad)?.into()
        }
        t if t.ends_with(" UNSIGNED") => row.try_get::<u64, _>(i).map_err(bad)?.into(),
        "FLOAT" => values::real(f64::from(row.try_get::<f32, _>(i).map_err(bad)?)),
        "DOUBLE" => values::real(row.try_get::<f64, _>(i).map_err(bad)?),
        "DECIMAL" => values::decimal(&text()?)?,
        "DATE" => values::mysql_datetime(&bytes()?, false)?,
        "DATETIME" | "TIMESTAMP" => values::mysql_datetime(&bytes()?, true)?,
        "VARCHAR" | "CHAR" | "TEXT" | "TINYTEXT" | "MEDIUMTEXT" | "LONGTEXT" | "ENUM" | "SET" => {
            row.try_get::<String, _>(i).map_err(bad)?.into()
        }
        // MySQL flags text in a `_bin` collation (the loader's byte order) as binary, and
        // sqlx does not say the character set: text that is UTF-8 reads as text.
        "VARBINARY" | "BINARY" | "BLOB" | "TINYBLOB" | "MEDIUMBLOB" | "LONGBLOB" => {
            match String::from_utf8(bytes()?) {
                Ok(t) => t.into(),
                Err(b) => values::bytes(b.as_bytes()),
            }
        }
        "JSON" => serde_json::from_str(&text()?).map_err(Error::internal_from)?,
        "NULL" => Value::Null,
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
            | sqlx::Error::PoolClosed => unreachable("mysql", &e),
            other => Error::internal_with("mysql warehouse", other),
        };
    };
    let msg = db.message().to_owned();
    let number = db
        .try_downcast_ref::<MySqlDatabaseError>()
        .map_or(0, MySqlDatabaseError::number);
    match number {
        1792 | 1290 | 1036 => not_a_read(&msg),
        1064 if super::names_a_write(sql, Dialect::MySql) => not_a_read("only queries run here"),
        1317 | 1969 | 3024 => Error::new(Kind::QueryTimeout, "the query was stopped"),
        1038 | 1041 | 1114 | 1135 => Error::new(
            Kind::TooLarge,
            format!("the query needs more than the warehouse allows: {msg}"),
        )
        .with_fix("Filter first, or aggregate before ordering."),
        2006 | 2013 => unreachable("mysql", &e),
        _ if msg.is_empty() => Error::new(Kind::SqlError, format!("{e} in {sql}")),
        _ => Error::new(Kind::SqlError, msg),
    }
}

const TABLES: &str = "SELECT TABLE_NAME AS name, \
     CASE TABLE_TYPE WHEN 'VIEW' THEN 'view' ELSE 'table' END AS kind \
     FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() \
     AND (? = '' OR TABLE_NAME = ?) ORDER BY BINARY TABLE_NAME";

const COLUMNS: &str = "SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE = 'YES' AS nullable, \
     COLUMN_DEFAULT AS dflt, COLUMN_KEY = 'PRI' AS pk FROM information_schema.COLUMNS \
     WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION";

const INDEXES: &str = "SELECT INDEX_NAME AS name, MIN(NON_UNIQUE) = 0 AS uniq, \
     GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ',') AS cols \
     FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? \
     GROUP BY INDEX_NAME ORDER BY BINARY INDEX_NAME";

/// A text column of an introspection row (information_schema answers some as bytes).
fn text_of(r: &MySqlRow, col: &str) -> String {
    r.try_get::<String, _>(col)
        .or_else(|_| {
            r.try_get::<Vec<u8>, _>(col)
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        })
        .unwrap_or_default()
}

fn flag(r: &MySqlRow, col: &str) -> bool {
    r.try_get::<i64, _>(col).unwrap_or(0) != 0
}

impl Engine for MySqlEngine {
    fn dialect(&self) -> Dialect {
        Dialect::MySql
    }

    fn query<'a>(
        &'a self,
        req: QueryRequest,
        limits: &'a Limits,
    ) -> BoxFuture<'a, Result<QueryResult>> {
        Box::pin(async move {
            let statement = one_statement(&req.sql, Dialect::MySql)?;
            screen(statement)?;
            let statement = bind::mysql(statement, &req.params)?;
            bounded(self, statement, req.timeout_ms, &self.slots, limits).await
        })
    }

    fn tables(&self) -> BoxFuture<'_, Result<Vec<TableSummary>>> {
        Box::pin(async move {
            let rows = self.introspect(TABLES, &["", ""]).await?;
            Ok(rows
                .iter()
                .map(|r| TableSummary {
                    name: text_of(r, "name"),
                    kind: text_of(r, "kind"),
                })
                .collect())
        })
    }

    fn describe<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<TableDescription>> {
        Box::pin(async move {
            let Some(t) = self
                .introspect(TABLES, &[name, name])
                .await?
                .into_iter()
                .next()
            else {
                return Err(Error::not_found(format!("no table or view named '{name}'"))
                    .with_fix("GET /api/tables lists what exists."));
            };
            let columns = self
                .introspect(COLUMNS, &[name])
                .await?
                .iter()
                .map(|r| {
                    let dflt = r.try_get::<Option<String>, _>("dflt").ok().flatten();
                    json!({
                        "name": text_of(r, "name"),
                        "type": text_of(r, "type"),
                        "nullable": flag(r, "nullable"),
                        "default": dflt,
                        "primaryKey": flag(r, "pk"),
                    })
                })
                .collect();
            let indexes = self
                .introspect(INDEXES, &[name])
                .await?
                .iter()
                .map(|r| IndexInfo {
                    name: text_of(r, "name"),
                    unique: flag(r, "uniq"),
                    columns: text_of(r, "cols").split(',').map(str::to_owned).collect(),
                })
                .collect();
            Ok(TableDescription {
                name: text_of(&t, "name"),
                kind: text_of(&t, "kind"),
                columns,
                indexes,
            })
        })
    }

    fn login_can_write(&self) -> BoxFuture<'_, Result<bool>> {
        Box::pin(async move {
            let grants = self.introspect("SHOW GRANTS", &[]).await?;
            Ok(grants.iter().any(|r| {
                let g = r
                    .try_get::<String, _>(0)
                    .unwrap_or_default()
                    .to_ascii_uppercase();
                [
                    "ALL PRIVILEGES",
                    "INSERT",
                    "UPDATE",
                    "DELETE",
                    "DROP",
                    "CREATE",
                    "FILE",
                    "SUPER",
                ]
                .iter()
                .any(|p| g.contains(p))
            }))
        })
    }
}
