//! Tenants: one organisation's data, credentials and warehouse location.

use pp_core::{Error, Kind, Result, TenantId};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::{Store, db_err, now_unix};

/// One tenant as stored.
#[derive(Debug, Clone, Serialize)]
pub struct TenantRow {
    /// The tenant id.
    pub id: String,
    /// A display name.
    pub name: String,
    /// Where its warehouse lives: `sqlite:<path>` (later `mysql://…`, `postgres://…`).
    pub warehouse: String,
    /// Creation time (Unix seconds).
    pub created_at: i64,
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TenantRow> {
    Ok(TenantRow {
        id: r.get(0)?,
        name: r.get(1)?,
        warehouse: r.get(2)?,
        created_at: r.get(3)?,
    })
}

impl Store {
    /// Creates a tenant; `409`-style `bad_params` if the id is taken.
    pub fn create_tenant(&self, id: &TenantId, name: &str, warehouse: &str) -> Result<TenantRow> {
        let t = TenantRow {
            id: id.to_string(),
            name: name.to_owned(),
            warehouse: warehouse.to_owned(),
            created_at: now_unix(),
        };
        self.pool.with(|c| {
            let n = c
                .execute(
                    "INSERT INTO tenants (id, name, warehouse, created_at) VALUES (?1, ?2, ?3, ?4)
                     ON CONFLICT(id) DO NOTHING",
                    params![t.id, t.name, t.warehouse, t.created_at],
                )
                .map_err(db_err)?;
            if n == 0 {
                return Err(Error::new(
                    Kind::BadParams,
                    format!("tenant '{id}' already exists"),
                ));
            }
            Ok(())
        })?;
        Ok(t)
    }

    /// One tenant, if it exists.
    pub fn tenant(&self, id: &TenantId) -> Result<Option<TenantRow>> {
        self.pool.with(|c| {
            c.query_row(
                "SELECT id, name, warehouse, created_at FROM tenants WHERE id = ?1",
                [id.as_str()],
                row,
            )
            .optional()
            .map_err(db_err)
        })
    }

    /// Every tenant, by id.
    pub fn tenants(&self) -> Result<Vec<TenantRow>> {
        self.pool.with(|c| {
            let mut st = c
                .prepare("SELECT id, name, warehouse, created_at FROM tenants ORDER BY id")
                .map_err(db_err)?;
            st.query_map([], row)
                .map_err(db_err)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(db_err)
        })
    }
}
