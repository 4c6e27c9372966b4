//! Loading: the generator writes rows through [`Loader`]; [`SqliteLoader`] writes a tenant
//! warehouse file, and `server.rs` fills a PostgreSQL or MySQL/MariaDB database. The schema
//! and each engine's spelling of it are the warehouse crate's (`pp_warehouse::schema`).

use std::collections::HashMap;
use std::path::Path;

use rusqlite::Connection;

use pp_warehouse::schema::spelling::{SQLITE, backticks, create_index_sql, create_table_sql};
use pp_warehouse::schema::{Cell, TABLES, Table};

pub(crate) mod server;

pub use server::ServerLoader;

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
            st.raw_bind_parameter(i + 1, c).map_err(|e| e.to_string())?;
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
