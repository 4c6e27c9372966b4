//! Schema migrations, applied in order when the store opens: SQLite's steps tracked by
//! `PRAGMA user_version`, PostgreSQL's by the `schema_version` table under an advisory lock (so
//! instances starting together migrate once). Each step is written once (`steps.rs`) and
//! rendered per engine here: PostgreSQL gets `BIGINT`, `BYTEA`, `DOUBLE PRECISION`, identity
//! columns for `AUTOINCREMENT`, no `WITHOUT ROWID`, and `COLLATE "C"` where the source says
//! `BYTEWISE` (keys read as ranges compare bytewise, as SQLite compares them). Append new steps;
//! never edit a released one.

mod steps;

use std::borrow::Cow;

use pp_core::Result;
use rusqlite::Connection;

use crate::db::{PgDb, db_error};
use steps::STEPS;

/// One schema step.
pub(crate) enum Step {
    /// One text for both engines, rendered for each.
    Both(&'static str),
    /// What the engines cannot say in one text (triggers), kept per engine.
    Each {
        sqlite: &'static str,
        postgres: &'static str,
    },
}

impl Step {
    /// The step as SQLite runs it.
    pub(crate) fn sqlite(&self) -> Cow<'static, str> {
        match self {
            Step::Both(sql) => Cow::Owned(sql.replace(" BYTEWISE", "")),
            Step::Each { sqlite, .. } => Cow::Borrowed(sqlite),
        }
    }

    /// The step as PostgreSQL runs it.
    pub(crate) fn postgres(&self) -> Cow<'static, str> {
        match self {
            Step::Both(sql) => Cow::Owned(render_postgres(sql)),
            Step::Each { postgres, .. } => Cow::Borrowed(postgres),
        }
    }
}

/// `sql` with every whole word `from` (a run of letters, digits and `_`) made `to`.
fn replace_word(sql: &str, from: &str, to: &str) -> String {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(at) = rest.find(from) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + from.len()..].chars().next();
        out.push_str(&rest[..at]);
        if before.is_some_and(word) || after.is_some_and(word) {
            out.push_str(from);
        } else {
            out.push_str(to);
        }
        rest = &rest[at + from.len()..];
    }
    out.push_str(rest);
    out
}

/// A step in SQLite's spelling as PostgreSQL spells it.
fn render_postgres(sql: &str) -> String {
    let sql = sql.replace(
        "INTEGER PRIMARY KEY AUTOINCREMENT",
        "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    );
    let sql = replace_word(&sql, "INTEGER", "BIGINT");
    let sql = replace_word(&sql, "BLOB", "BYTEA");
    let sql = replace_word(&sql, "REAL", "DOUBLE PRECISION");
    sql.replace(") WITHOUT ROWID", ")")
        .replace("BYTEWISE", "COLLATE \"C\"")
}

/// Every step rendered for one engine (`postgres` or not), in order: for tests that build the
/// store an older release left.
pub fn rendered(postgres: bool) -> Vec<String> {
    STEPS
        .iter()
        .map(|s| match postgres {
            true => s.postgres().into_owned(),
            false => s.sqlite().into_owned(),
        })
        .collect()
}

/// Brings a SQLite schema up to the newest step, each step in its own transaction.
pub fn run_sqlite(conn: &mut Connection) -> Result<()> {
    let current: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_error)?;
    for (i, step) in STEPS.iter().enumerate().skip(current as usize) {
        let tx = conn.transaction().map_err(db_error)?;
        tx.execute_batch(&step.sqlite()).map_err(db_error)?;
        tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
            .map_err(db_error)?;
        tx.commit().map_err(db_error)?;
    }
    Ok(())
}

/// Brings a PostgreSQL schema up to the newest step, all in one transaction that holds an
/// advisory lock, so instances starting together migrate once.
pub async fn run_postgres(db: &PgDb) -> Result<()> {
    let mut tx = db.pool().begin().await.map_err(db_error)?;
    sqlx::raw_sql("SELECT pg_advisory_xact_lock(7321400001); CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
        .execute(&mut *tx)
        .await
        .map_err(db_error)?;
    let current: Option<i64> = sqlx::query_scalar("SELECT max(version) FROM schema_version")
        .fetch_one(&mut *tx)
        .await
        .map_err(db_error)?;
    let current = current.unwrap_or(0) as usize;
    for (i, step) in STEPS.iter().enumerate().skip(current) {
        sqlx::raw_sql(&step.postgres())
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
        sqlx::query("INSERT INTO schema_version (version) VALUES ($1)")
            .bind((i + 1) as i64)
            .execute(&mut *tx)
            .await
            .map_err(db_error)?;
    }
    tx.commit().await.map_err(db_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_reads_the_same_on_both_engines_but_for_their_types() {
        let step = Step::Both(
            "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT BYTEWISE NOT NULL, n INTEGER, b BLOB, r REAL, integer_ms INTEGER) WITHOUT ROWID;",
        );
        assert_eq!(
            step.sqlite(),
            "CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, key TEXT NOT NULL, n INTEGER, b BLOB, r REAL, integer_ms INTEGER) WITHOUT ROWID;"
        );
        assert_eq!(
            step.postgres(),
            "CREATE TABLE t (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, key TEXT COLLATE \"C\" NOT NULL, n BIGINT, b BYTEA, r DOUBLE PRECISION, integer_ms BIGINT);"
        );
    }
}
