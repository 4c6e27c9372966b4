//! Table listing and description, read from the schema catalogue and introspection pragmas.

use pp_core::{Error, Result};
use rusqlite::{Connection, OptionalExtension};
use serde_json::json;

use crate::engine::{IndexInfo, TableDescription, TableSummary};

fn err(e: rusqlite::Error) -> Error {
    if super::damaged(&e) {
        return super::unavailable(&e);
    }
    Error::internal_with("introspection", e)
}

/// Tables and views, by name; SQLite's own tables are left out.
pub fn tables(conn: &Connection) -> Result<Vec<TableSummary>> {
    let mut st = conn
        .prepare(
            "SELECT name, type FROM sqlite_schema
             WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
             ORDER BY name",
        )
        .map_err(err)?;
    st.query_map([], |r| {
        Ok(TableSummary {
            name: r.get(0)?,
            kind: r.get(1)?,
        })
    })
    .map_err(err)?
    .collect::<rusqlite::Result<_>>()
    .map_err(err)
}

/// Columns (name, type, nullability, default, primary-key position) and indexes of one table.
pub fn describe(conn: &Connection, name: &str) -> Result<TableDescription> {
    let kind: Option<String> = conn
        .query_row(
            "SELECT type FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ?1
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'",
            [name],
            |r| r.get(0),
        )
        .optional()
        .map_err(err)?;
    let Some(kind) = kind else {
        return Err(Error::not_found(format!("no table or view named '{name}'"))
            .with_fix("GET /api/tables lists what exists."));
    };
    let mut st = conn
        .prepare("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid")
        .map_err(err)?;
    let columns = st
        .query_map([name], |r| {
            Ok(json!({
                "name": r.get::<_, String>(0)?,
                "type": r.get::<_, String>(1)?,
                "nullable": r.get::<_, i64>(2)? == 0,
                "default": r.get::<_, Option<String>>(3)?,
                "primaryKey": r.get::<_, i64>(4)? > 0,
            }))
        })
        .map_err(err)?
        .collect::<rusqlite::Result<Vec<_>>>()
        .map_err(err)?;
    let mut st = conn
        .prepare("SELECT name, \"unique\" FROM pragma_index_list(?1) ORDER BY name")
        .map_err(err)?;
    let idx: Vec<(String, bool)> = st
        .query_map([name], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? == 1)))
        .map_err(err)?
        .collect::<rusqlite::Result<_>>()
        .map_err(err)?;
    let mut indexes = Vec::with_capacity(idx.len());
    for (iname, unique) in idx {
        let mut st = conn
            .prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")
            .map_err(err)?;
        let cols = st
            .query_map([&iname], |r| r.get::<_, Option<String>>(0))
            .map_err(err)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(err)?
            .into_iter()
            .map(|c| c.unwrap_or_else(|| "<expression>".into()))
            .collect();
        indexes.push(IndexInfo {
            name: iname,
            unique,
            columns: cols,
        });
    }
    Ok(TableDescription {
        name: name.to_owned(),
        kind,
        columns,
        indexes,
    })
}
