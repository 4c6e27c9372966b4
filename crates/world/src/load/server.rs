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

use super::{Cell, Loader, Spelling, backticks, create_index_sql, create_table_sql};
use crate::schema::{TABLES, Table};

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

fn pg_type(ty: &str) -> String {
    match ty {
        "INT" => "INTEGER".into(),
        "DATETIME" => "TIMESTAMP".into(),
        t if t.starts_with("DECIMAL") => t.replacen("DECIMAL", "NUMERIC", 1),
        t if t.starts_with("VARCHAR") => format!("{t} COLLATE \"C\""),
        t => t.into(),
    }
}

pub(super) fn pg_name(name: &str) -> String {
    format!("\"{}\"", name.to_lowercase())
}

/// PostgreSQL: lower-case names, the spec's index names as they are, byte-order text.
pub(super) const POSTGRES: Spelling = Spelling {
    table: pg_name,
    column: pg_name,
    index: |n| format!("\"{n}\""),
    ty: pg_type,
    options: "",
};

/// MySQL/MariaDB: the spec's names and types, tables built under [`BUILDING`].
const MYSQL: Spelling = Spelling {
    table: |n| format!("`{BUILDING}{n}`"),
    column: backticks,
    index: backticks,
    ty: str::to_owned,
    options: " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
};

/// MySQL/MariaDB with the spec's names in place (a managed warehouse's tables).
pub(super) const MY_NAMES: Spelling = Spelling {
    table: backticks,
    column: backticks,
    index: backticks,
    ty: str::to_owned,
    options: " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin",
};

/// Whole cents as an exact decimal.
fn cents(v: i64) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let a = v.unsigned_abs();
    format!("{sign}{}.{:02}", a / 100, a % 100)
}

/// A cell's text for a column of type `ty` (date-times lose their `T` and `Z`).
pub(super) fn text_of(ty: &str, c: &Cell) -> Option<String> {
    match c {
        Cell::Null => None,
        Cell::Int(v) => Some(v.to_string()),
        Cell::Cents(v) => Some(cents(*v)),
        Cell::Real(v) => Some(v.to_string()),
        Cell::Text(t) if ty == "DATETIME" => Some(t.trim_end_matches('Z').replacen('T', " ", 1)),
        Cell::Text(t) => Some(t.clone()),
    }
}

/// One row in `COPY`'s text format.
pub(super) fn copy_line(t: &Table, row: &[Cell], out: &mut String) {
    for (i, (c, col)) in row.iter().zip(t.columns).enumerate() {
        if i > 0 {
            out.push('\t');
        }
        match text_of(col.ty, c) {
            None => out.push_str("\\N"),
            Some(s) => {
                for ch in s.chars() {
                    match ch {
                        '\\' => out.push_str("\\\\"),
                        '\t' => out.push_str("\\t"),
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        c => out.push(c),
                    }
                }
            }
        }
    }
    out.push('\n');
}

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
    fn values_as_the_servers_take_them() {
        assert_eq!(cents(-5), "-0.05");
        assert_eq!(cents(123_456), "1234.56");
        assert_eq!(
            text_of("DATETIME", &Cell::Text("2026-01-02T00:00:00Z".into())).unwrap(),
            "2026-01-02 00:00:00"
        );
        let t = &TABLES[0];
        let mut line = String::new();
        let mut row: Vec<Cell> = t.columns.iter().map(|_| Cell::Null).collect();
        row[0] = Cell::Int(3);
        row[2] = Cell::Text("a\tb\\c".into());
        copy_line(t, &row, &mut line);
        assert!(line.starts_with("3\t\\N\ta\\tb\\\\c\t"), "{line}");
        assert_eq!(pg_type("DECIMAL(12,2)"), "NUMERIC(12,2)");
        assert!(
            create_table_sql(t, &POSTGRES)
                .starts_with("CREATE TABLE \"seller\" (\"id\" INTEGER, \"marketplacesellerid\" VARCHAR(32) COLLATE \"C\"")
        );
        let my = create_table_sql(t, &MYSQL);
        assert!(
            my.starts_with("CREATE TABLE `pp_building_seller` (`ID` INT"),
            "{my}"
        );
        assert!(my.ends_with("COLLATE=utf8mb4_bin"), "{my}");
        assert_eq!(
            create_index_sql(t, &POSTGRES),
            [
                "CREATE INDEX \"seller_MarketplaceSellerID_IDX\" ON \"seller\" (\"marketplacesellerid\")"
            ]
        );
        assert_eq!(
            pg_name("Settlement-start-date"),
            "\"settlement-start-date\""
        );
    }
}
