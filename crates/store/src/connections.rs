//! Marketplace connections' rows: per tenant, kind (`seller`, `ads`) and merchant, the region,
//! the status and the provider refresh token, sealed by the caller before it gets here (the
//! store never sees a token in the clear). The meaning of kinds and statuses lives with the
//! marketplace (`pp_marketplace::connections`).

use pp_core::{Result, TenantId};

use crate::args;
use crate::db::{Db, Row};
use crate::now_rfc3339;

/// One stored connection.
#[derive(Debug, Clone)]
pub struct ConnectionRow {
    pub kind: String,
    pub merchant: String,
    pub region: String,
    pub status: String,
    pub updated_at: String,
    pub sealed_token: Vec<u8>,
}

const COLUMNS: &str = "kind, merchant, region, status, updated_at, sealed_token";

fn row(r: &Row) -> Result<ConnectionRow> {
    Ok(ConnectionRow {
        kind: r.text(0)?,
        merchant: r.text(1)?,
        region: r.text(2)?,
        status: r.text(3)?,
        updated_at: r.text(4)?,
        sealed_token: r.blob(5)?,
    })
}

/// The connections aggregate.
pub struct Connections<'a>(pub(crate) &'a Db);

impl Connections<'_> {
    /// Stores a connection, replacing the same tenant, kind and merchant's.
    pub async fn upsert(
        &self,
        tenant: &TenantId,
        kind: &str,
        merchant: &str,
        region: &str,
        status: &str,
        sealed_token: &[u8],
    ) -> Result<()> {
        self.0
            .exec(
                "INSERT INTO marketplace_connections (tenant_id, kind, merchant, region, status, sealed_token, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
                 ON CONFLICT (tenant_id, kind, merchant) DO UPDATE SET region = excluded.region, status = excluded.status,
                   sealed_token = excluded.sealed_token, updated_at = excluded.updated_at",
                args![tenant.as_str(), kind, merchant, region, status, sealed_token, now_rfc3339()],
            )
            .await?;
        Ok(())
    }

    /// One connection.
    pub async fn get(
        &self,
        tenant: &TenantId,
        kind: &str,
        merchant: &str,
    ) -> Result<Option<ConnectionRow>> {
        self.0
            .one(
                format!("SELECT {COLUMNS} FROM marketplace_connections WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3"),
                args![tenant.as_str(), kind, merchant],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// Every connection of `tenant`, by kind and merchant.
    pub async fn list(&self, tenant: &TenantId) -> Result<Vec<ConnectionRow>> {
        self.0
            .all(
                format!("SELECT {COLUMNS} FROM marketplace_connections WHERE tenant_id = ?1 ORDER BY kind, merchant"),
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(row)
            .collect()
    }

    /// Sets a connection's status.
    pub async fn set_status(
        &self,
        tenant: &TenantId,
        kind: &str,
        merchant: &str,
        status: &str,
    ) -> Result<()> {
        self.0
            .exec(
                "UPDATE marketplace_connections SET status = ?4, updated_at = ?5 WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3",
                args![tenant.as_str(), kind, merchant, status, now_rfc3339()],
            )
            .await?;
        Ok(())
    }
}
