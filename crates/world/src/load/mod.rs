//! Loading: the generator writes rows through [`Loader`]; [`SqliteLoader`] writes a tenant
//! warehouse file, and `server.rs` fills a PostgreSQL or MySQL/MariaDB database.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;

use crate::schema::{TABLES, Table};

pub(crate) mod managed;
pub(crate) mod server;

pub use managed::{Managed, Slice};

pub use server::ServerLoader;

/// One cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// SQL NULL.
    Null,
    /// Integer.
    Int(i64),
    /// Money in cents, written as a two-decimal number.
    Cents(i64),
    /// Other real numbers.
    Real(f64),
    /// Text.
    Text(String),
}

impl From<i64> for Cell {
    fn from(v: i64) -> Self {
        Cell::Int(v)
    }
}
impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_owned())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}
impl From<Option<String>> for Cell {
    fn from(v: Option<String>) -> Self {
        v.map_or(Cell::Null, Cell::Text)
    }
}

/// Where generated rows go.
pub trait Loader {
    /// Appends one row (cells in the table's column order).
    fn insert(&mut self, table: &'static Table, row: &[Cell]) -> Result<(), String>;
    /// Builds indexes and makes the load durable.
    fn finish(self: Box<Self>) -> Result<(), String>;
}

/// Writes a SQLite warehouse file: tables first, rows in one transaction, indexes last,
/// rollback-journal mode so read-only opens never create side files.
pub struct SqliteLoader {
    conn: Connection,
    sql: HashMap<&'static str, String>,
}

/// How an engine spells the schema: its table, column and index names, its types, and what
/// follows a `CREATE TABLE`.
pub struct Spelling {
    pub table: fn(&str) -> String,
    pub column: fn(&str) -> String,
    pub index: fn(&str) -> String,
    pub ty: fn(&str) -> String,
    pub options: &'static str,
}

/// A name in backticks (SQLite and MySQL).
pub fn backticks(name: &str) -> String {
    format!("`{name}`")
}

/// SQLite takes the schema's MySQL-flavoured types as they are (it maps them by affinity).
pub const SQLITE: Spelling = Spelling {
    table: backticks,
    column: backticks,
    index: backticks,
    ty: str::to_owned,
    options: "",
};

/// `CREATE TABLE` for one table in an engine's spelling.
pub fn create_table_sql(t: &Table, s: &Spelling) -> String {
    let cols: Vec<String> = t
        .columns
        .iter()
        .map(|c| format!("{} {}", (s.column)(c.name), (s.ty)(c.ty)))
        .collect();
    format!(
        "CREATE TABLE {} ({}){}",
        (s.table)(t.name),
        cols.join(", "),
        s.options
    )
}

/// `CREATE INDEX` statements for one table in an engine's spelling.
pub fn create_index_sql(t: &Table, s: &Spelling) -> Vec<String> {
    t.indexes
        .iter()
        .map(|i| {
            let cols: Vec<String> = i.columns.iter().map(|c| (s.column)(c)).collect();
            format!(
                "CREATE INDEX {} ON {} ({})",
                (s.index)(i.name),
                (s.table)(t.name),
                cols.join(", ")
            )
        })
        .collect()
}

impl SqliteLoader {
    /// Creates the file (which must not exist) with every table.
    pub fn create(path: &Path) -> Result<Self, String> {
        let conn = Connection::open(path).map_err(|e| e.to_string())?;
        let mut ddl = String::from(
            "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 4096; BEGIN;",
        );
        for t in TABLES {
            ddl.push_str(&create_table_sql(t, &SQLITE));
            ddl.push(';');
        }
        conn.execute_batch(&ddl).map_err(|e| e.to_string())?;
        let sql = TABLES
            .iter()
            .map(|t| {
                let marks = vec!["?"; t.columns.len()].join(", ");
                (
                    t.name,
                    format!("INSERT INTO {} VALUES ({marks})", backticks(t.name)),
                )
            })
            .collect();
        Ok(Self { conn, sql })
    }
}

impl Loader for SqliteLoader {
    fn insert(&mut self, table: &'static Table, row: &[Cell]) -> Result<(), String> {
        debug_assert_eq!(row.len(), table.columns.len(), "{}", table.name);
        let mut st = self
            .conn
            .prepare_cached(&self.sql[table.name])
            .map_err(|e| e.to_string())?;
        for (i, c) in row.iter().enumerate() {
            let r = match c {
                Cell::Null => st.raw_bind_parameter(i + 1, rusqlite::types::Null),
                Cell::Int(v) => st.raw_bind_parameter(i + 1, v),
                Cell::Cents(v) => st.raw_bind_parameter(i + 1, *v as f64 / 100.0),
                Cell::Real(v) => st.raw_bind_parameter(i + 1, v),
                Cell::Text(v) => st.raw_bind_parameter(i + 1, v),
            };
            r.map_err(|e| e.to_string())?;
        }
        st.raw_execute().map_err(|e| e.to_string())?;
        Ok(())
    }

    fn finish(self: Box<Self>) -> Result<(), String> {
        let mut sql = String::new();
        for t in TABLES {
            for s in create_index_sql(t, &SQLITE) {
                sql.push_str(&s);
                sql.push(';');
            }
        }
        sql.push_str("COMMIT; PRAGMA journal_mode = DELETE;");
        self.conn.execute_batch(&sql).map_err(|e| e.to_string())
    }
}
