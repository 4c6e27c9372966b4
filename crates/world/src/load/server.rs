//! Filling a tenant warehouse on a database server, so `/v1` and SQL answer the same as on the
//! embedded file:
//!
//! - **PostgreSQL:** names in lower case (unquoted names in queries fold to them, so the
//!   spec's `SellerID` still reads), text columns in the byte-order `"C"` collation (as SQLite
//!   sorts), every row sent with `COPY` inside one transaction: an interrupted load leaves
//!   nothing.
//! - **MySQL/MariaDB:** the spec's names, `utf8mb4_bin` (byte order again), rows in
//!   multi-row `INSERT`s into `pp_building_*` tables that one atomic `RENAME TABLE` puts in
//!   place at the end.
//!
//! Money is written from whole cents as exact decimals; date-times (UTC) without their `Z`.
//! The loader runs its own small runtime: call it outside async code (or in `spawn_blocking`).

use std::collections::HashMap;
use std::str::FromStr;

use sqlx::mysql::{MySqlConnectOptions, MySqlConnection};
use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::{ConnectOptions, Connection, Executor};
use tokio::runtime::Runtime;

use pp_warehouse::schema::spelling::{
    MY_OPTIONS, POSTGRES, Spelling, backticks, copy_line, create_index_sql, create_table_sql,
    pg_name, text_of,
};
use pp_warehouse::schema::{Cell, TABLES, Table};

use super::Loader;

/// Rows sent to the server at a time.
const BATCH: usize = 1000;

/// The prefix MySQL tables are built under before they are renamed into place.
const BUILDING: &str = "pp_building_";

enum Conn {
    Pg(PgConnection),
    My(MySqlConnection),
}

/// Writes the world into a PostgreSQL or MySQL/MariaDB database.
pub struct ServerLoader {
    rt: Runtime,
    conn: Conn,
    pending: HashMap<&'static str, (&'static Table, Vec<Vec<Cell>>)>,
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// Whether `target` names a database server rather than a folder.
pub fn is_database_url(target: &str) -> bool {
    ["postgres://", "postgresql://", "mysql://", "mariadb://"]
        .iter()
        .any(|s| target.starts_with(s))
}

/// MySQL/MariaDB: the spec's names and types, tables built under [`BUILDING`].
const MYSQL: Spelling = Spelling {
    table: |n| format!("`{BUILDING}{n}`"),
    column: backticks,
    index: backticks,
    ty: str::to_owned,
    options: MY_OPTIONS,
};

impl ServerLoader {
    /// Connects to the database at `url` and creates every table; refuses a database that
    /// already holds a warehouse (a `seller` table).
    pub fn connect(url: &str) -> Result<Self, String> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(err)?;
        let conn = rt.block_on(Self::open(url))?;
        Ok(Self {
            rt,
            conn,
            pending: HashMap::new(),
        })
    }

    async fn open(url: &str) -> Result<Conn, String> {
        let taken =
            "already holds a warehouse (it has a seller table); load into an empty database";
        if url.starts_with("postgres") {
            let opts = PgConnectOptions::from_str(url)
                .map_err(err)?
                .disable_statement_logging();
            let mut c = PgConnection::connect_with(&opts).await.map_err(err)?;
            c.execute("BEGIN").await.map_err(err)?;
            let exists: bool = sqlx::query_scalar("SELECT to_regclass('seller') IS NOT NULL")
                .fetch_one(&mut c)
                .await
                .map_err(err)?;
            if exists {
                return Err(format!("the database {taken}"));
            }
            for t in TABLES {
                c.execute(create_table_sql(t, &POSTGRES).as_str())
                    .await
                    .map_err(err)?;
            }
            return Ok(Conn::Pg(c));
        }
        let url = url.replacen("mariadb://", "mysql://", 1);
        let opts = MySqlConnectOptions::from_str(&url)
            .map_err(err)?
            .charset("utf8mb4")
            .disable_statement_logging();
        let mut c = MySqlConnection::connect_with(&opts).await.map_err(err)?;
        let existing: Vec<String> = sqlx::query_scalar(
            "SELECT CAST(TABLE_NAME AS CHAR) FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()",
        )
        .fetch_all(&mut c)
        .await
        .map_err(err)?;
        if existing.iter().any(|t| t == "seller") {
            return Err(format!("the database {taken}"));
        }
        for t in existing.iter().filter(|t| t.starts_with(BUILDING)) {
            c.execute(format!("DROP TABLE `{t}`").as_str())
                .await
                .map_err(err)?;
        }
        for t in TABLES {
            c.execute(create_table_sql(t, &MYSQL).as_str())
                .await
                .map_err(err)?;
        }
        Ok(Conn::My(c))
    }

    fn flush(&mut self, table: &'static str) -> Result<(), String> {
        let Some((t, rows)) = self.pending.get_mut(table) else {
            return Ok(());
        };
        if rows.is_empty() {
            return Ok(());
        }
        let (t, rows) = (*t, std::mem::take(rows));
        match &mut self.conn {
            Conn::Pg(c) => self.rt.block_on(pg_copy(c, t, &rows)),
            Conn::My(c) => self.rt.block_on(my_insert(c, t, &rows)),
        }
    }
}

async fn pg_copy(c: &mut PgConnection, t: &Table, rows: &[Vec<Cell>]) -> Result<(), String> {
    let mut data = String::new();
    for r in rows {
        copy_line(t, r, &mut data);
    }
    let mut copy = c
        .copy_in_raw(&format!("COPY {} FROM STDIN", pg_name(t.name)))
        .await
        .map_err(err)?;
    copy.send(data.as_bytes()).await.map_err(err)?;
    copy.finish().await.map_err(err).map(|_| ())
}

async fn my_insert(c: &mut MySqlConnection, t: &Table, rows: &[Vec<Cell>]) -> Result<(), String> {
    let marks = format!("({})", vec!["?"; t.columns.len()].join(", "));
    let sql = format!(
        "INSERT INTO `{BUILDING}{}` VALUES {}",
        t.name,
        vec![marks; rows.len()].join(", ")
    );
    let mut q = sqlx::query(&sql);
    for r in rows {
        for (cell, col) in r.iter().zip(t.columns) {
            q = match cell {
                Cell::Int(v) => q.bind(*v),
                Cell::Real(v) => q.bind(*v),
                other => q.bind(text_of(col.ty, other)),
            };
        }
    }
    c.execute(q).await.map_err(err).map(|_| ())
}

impl Loader for ServerLoader {
    fn insert(&mut self, table: &'static Table, row: &[Cell]) -> Result<(), String> {
        let (_, rows) = self
            .pending
            .entry(table.name)
            .or_insert_with(|| (table, Vec::new()));
        rows.push(row.to_vec());
        if rows.len() >= BATCH {
            self.flush(table.name)?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(), String> {
        for t in TABLES {
            self.flush(t.name)?;
        }
        let rt = &self.rt;
        match &mut self.conn {
            Conn::Pg(c) => rt.block_on(async {
                for t in TABLES {
                    for i in create_index_sql(t, &POSTGRES) {
                        c.execute(i.as_str()).await.map_err(err)?;
                    }
                }
                c.execute("COMMIT").await.map_err(err)?;
                c.execute("ANALYZE").await.map_err(err).map(|_| ())
            }),
            Conn::My(c) => rt.block_on(async {
                for t in TABLES {
                    for i in create_index_sql(t, &MYSQL) {
                        c.execute(i.as_str()).await.map_err(err)?;
                    }
                }
                let renames: Vec<String> = TABLES
                    .iter()
                    .map(|t| format!("`{BUILDING}{0}` TO `{0}`", t.name))
                    .collect();
                c.execute(format!("RENAME TABLE {}", renames.join(", ")).as_str())
                    .await
                    .map_err(err)
                    .map(|_| ())
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_built_under_their_building_names() {
        let t = &TABLES[0];
        let my = create_table_sql(t, &MYSQL);
        assert!(
            my.starts_with("CREATE TABLE `pp_building_seller` (`ID` INT"),
            "{my}"
        );
        assert!(my.ends_with("COLLATE=utf8mb4_bin"), "{my}");
    }
}
