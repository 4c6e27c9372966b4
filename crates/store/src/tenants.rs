//! Tenants: an id, a display name, and where the tenant's warehouse is.

use pp_core::{Error, Kind, Result, TenantId};
use serde::Serialize;

use crate::args;
use crate::db::{Db, Row};
use crate::now_unix;

/// A stored tenant.
#[derive(Debug, Clone, Serialize)]
pub struct TenantRow {
    pub id: String,
    pub name: String,
    pub warehouse: String,
    pub created_at: i64,
}

fn row(r: &Row) -> Result<TenantRow> {
    Ok(TenantRow {
        id: r.text(0)?,
        name: r.text(1)?,
        warehouse: r.text(2)?,
        created_at: r.i64(3)?,
    })
}

/// The tenants aggregate.
pub struct Tenants<'a>(pub(crate) &'a Db);

impl Tenants<'_> {
    /// Creates a tenant; `bad_params` if the id is taken.
    pub async fn create(&self, id: &TenantId, name: &str, warehouse: &str) -> Result<TenantRow> {
        let t = TenantRow {
            id: id.to_string(),
            name: name.to_owned(),
            warehouse: warehouse.to_owned(),
            created_at: now_unix(),
        };
        let n = self
            .0
            .exec(
                "INSERT INTO tenants (id, name, warehouse, created_at) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (id) DO NOTHING",
                args![&t.id, &t.name, &t.warehouse, t.created_at],
            )
            .await?;
        if n == 0 {
            return Err(Error::new(
                Kind::BadParams,
                format!("tenant '{id}' already exists"),
            ));
        }
        Ok(t)
    }

    /// One tenant, if it exists.
    pub async fn get(&self, id: &TenantId) -> Result<Option<TenantRow>> {
        self.0
            .one(
                "SELECT id, name, warehouse, created_at FROM tenants WHERE id = ?1",
                args![id.as_str()],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// Every tenant, by id.
    pub async fn list(&self) -> Result<Vec<TenantRow>> {
        self.0
            .all(
                "SELECT id, name, warehouse, created_at FROM tenants ORDER BY id",
                vec![],
            )
            .await?
            .iter()
            .map(row)
            .collect()
    }
}
