//! Connected accounts: for each tenant, the merchant logins the service may act for — a
//! selling-side grant and an advertising grant per merchant token — with the provider refresh
//! token (sealed), the region, and a status: `active`, `lapsed` (the provider refused the
//! grant; a person must re-connect) or `not_activated` (advertising not switched on).

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::{Store, db_err, now_rfc3339};
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};

use crate::secrets::Sealer;

/// Which grant a connection holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrantKind {
    /// The selling-side API.
    Seller,
    /// The advertising API.
    Ads,
}

/// Where a connection stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConnectionStatus {
    /// The provider accepts its grant.
    Active,
    /// The provider refused the grant; a person must connect again.
    Lapsed,
    /// Advertising is not switched on for this merchant in this service.
    NotActivated,
}

pp_core::spelled!(GrantKind, "kind", Seller => "seller", Ads => "ads");
pp_core::spelled!(ConnectionStatus, "status", Active => "active", Lapsed => "lapsed", NotActivated => "not_activated");

/// One connection, without its token.
#[derive(Debug, Clone, Serialize)]
pub struct Connection {
    pub kind: GrantKind,
    pub merchant: String,
    pub region: String,
    pub status: ConnectionStatus,
    pub updated_at: String,
}

fn context(tenant: &TenantId, kind: GrantKind, merchant: &str) -> String {
    format!("{}/{}/{merchant}", tenant.as_str(), kind.as_str())
}

/// A grant to connect.
#[derive(Debug, Clone)]
pub struct Grant<'a> {
    /// `seller` or `ads`.
    pub kind: &'a str,
    /// The merchant token.
    pub merchant: &'a str,
    /// `na`, `eu` or `fe`.
    pub region: &'a str,
    pub refresh_token: &'a str,
    /// `active`, `lapsed` or `not_activated`.
    pub status: &'a str,
}

/// Connects (or re-connects) a grant of `tenant`.
pub fn connect(store: &Store, sealer: &Sealer, tenant: &TenantId, g: &Grant<'_>) -> Result<()> {
    let Grant {
        kind,
        merchant,
        region,
        refresh_token,
        status,
    } = *g;
    let kind = GrantKind::parse(kind)?;
    if !["na", "eu", "fe"].contains(&region) {
        return Err(Error::new(Kind::BadParams, "region must be na, eu or fe"));
    }
    let status = ConnectionStatus::parse(status)?;
    if merchant.is_empty() || refresh_token.is_empty() {
        return Err(Error::new(
            Kind::BadParams,
            "merchant and refresh token are required",
        ));
    }
    let sealed = sealer.seal(&context(tenant, kind, merchant), refresh_token)?;
    let now = now_rfc3339();
    store.with_conn(|c| {
        c.execute(
            "INSERT INTO marketplace_connections (tenant_id, kind, merchant, region, status, sealed_token, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
             ON CONFLICT (tenant_id, kind, merchant) DO UPDATE SET region = excluded.region, status = excluded.status,
               sealed_token = excluded.sealed_token, updated_at = excluded.updated_at",
            params![tenant.as_str(), kind.as_str(), merchant, region, status.as_str(), sealed, now],
        )
        .map_err(db_err)?;
        Ok(())
    })
}

const COLUMNS: &str = "kind, merchant, region, status, updated_at";

/// A stored spelling that no longer parses is a failure to read, never a default.
fn parsed<T>(i: usize, r: Result<T>) -> rusqlite::Result<T> {
    r.map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(
            i,
            rusqlite::types::Type::Text,
            e.message().into(),
        )
    })
}

fn row(r: &rusqlite::Row) -> rusqlite::Result<Connection> {
    Ok(Connection {
        kind: parsed(0, GrantKind::parse(&r.get::<_, String>(0)?))?,
        merchant: r.get(1)?,
        region: r.get(2)?,
        status: parsed(3, ConnectionStatus::parse(&r.get::<_, String>(3)?))?,
        updated_at: r.get(4)?,
    })
}

/// One connection of `tenant`, without its token.
pub fn get(
    store: &Store,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
) -> Result<Option<Connection>> {
    store.with_conn(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS} FROM marketplace_connections WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3"),
            params![tenant.as_str(), kind.as_str(), merchant],
            row,
        )
        .optional()
        .map_err(db_err)
    })
}

/// Every connection of `tenant`.
pub fn list(store: &Store, tenant: &TenantId) -> Result<Vec<Connection>> {
    store.with_conn(|c| {
        let mut st = c
            .prepare(&format!("SELECT {COLUMNS} FROM marketplace_connections WHERE tenant_id = ?1 ORDER BY kind, merchant"))
            .map_err(db_err)?;
        let rows = st.query_map([tenant.as_str()], row).map_err(db_err)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db_err)
    })
}

/// The connection and its opened refresh token.
pub fn token(
    store: &Store,
    sealer: &Sealer,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
) -> Result<Option<(Connection, String)>> {
    let row = store.with_conn(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS}, sealed_token FROM marketplace_connections WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3"),
            params![tenant.as_str(), kind.as_str(), merchant],
            |r| Ok((row(r)?, r.get::<_, Vec<u8>>(5)?)),
        )
        .optional()
        .map_err(db_err)
    })?;
    match row {
        None => Ok(None),
        Some((conn, sealed)) => Ok(Some((
            conn,
            sealer.open(&context(tenant, kind, merchant), &sealed)?,
        ))),
    }
}

/// Sets a connection's status (the provider refused its grant: `lapsed`).
pub fn set_status(
    store: &Store,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
    status: ConnectionStatus,
) -> Result<()> {
    store.with_conn(|c| {
        c.execute(
            "UPDATE marketplace_connections SET status = ?4, updated_at = ?5 WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3",
            params![tenant.as_str(), kind.as_str(), merchant, status.as_str(), now_rfc3339()],
        )
        .map_err(db_err)?;
        Ok(())
    })
}
