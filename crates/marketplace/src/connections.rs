//! Connected accounts: for each tenant, the merchant logins the service may act for — a
//! selling-side grant and an advertising grant per merchant token — with the provider refresh
//! token (sealed), the region, and a status: `active`, `lapsed` (the provider refused the
//! grant; a person must re-connect) or `not_activated` (advertising not switched on).

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::{ConnectionRow, Store};
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
pub async fn connect(
    store: &Store,
    sealer: &Sealer,
    tenant: &TenantId,
    g: &Grant<'_>,
) -> Result<()> {
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
    check_refresh_token(refresh_token)?;
    let sealed = sealer.seal(&context(tenant, kind, merchant), refresh_token)?;
    store
        .connections()
        .upsert(
            tenant,
            kind.as_str(),
            merchant,
            region,
            status.as_str(),
            &sealed,
        )
        .await
}

/// The shortest refresh token taken: the provider's are hundreds of characters.
const MIN_REFRESH_TOKEN: usize = 20;

/// Refuses what cannot be a refresh token the provider issued: its tokens begin `Atzr|` and
/// are long runs of visible ASCII. A placeholder (`…`, `...`, `<token>`), a token cut short
/// by a shell (an unquoted `|` ends the command there) or one with spaces is refused before
/// anything is stored.
pub fn check_refresh_token(token: &str) -> Result<()> {
    let visible = token.bytes().all(|b| b.is_ascii_graphic());
    let placeholder = token.contains("...") || token.contains('<') || token.contains('>');
    if token.starts_with("Atzr|") && token.len() >= MIN_REFRESH_TOKEN && visible && !placeholder {
        return Ok(());
    }
    Err(Error::new(
        Kind::BadParams,
        "that is not a refresh token the provider issues: they begin Atzr| and run to hundreds of visible characters",
    )
    .with_fix(
        "Paste the whole token in single quotes (an unquoted | ends a shell command): PARTNER_REFRESH_TOKEN='Atzr|…'",
    ))
}

/// A stored row as a connection; a spelling that no longer parses is a failure to read,
/// never a default.
fn connection(r: &ConnectionRow) -> Result<Connection> {
    Ok(Connection {
        kind: GrantKind::parse(&r.kind)?,
        merchant: r.merchant.clone(),
        region: r.region.clone(),
        status: ConnectionStatus::parse(&r.status)?,
        updated_at: r.updated_at.clone(),
    })
}

/// One connection of `tenant`, without its token.
pub async fn get(
    store: &Store,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
) -> Result<Option<Connection>> {
    let row = store
        .connections()
        .get(tenant, kind.as_str(), merchant)
        .await?;
    row.as_ref().map(connection).transpose()
}

/// Every connection of `tenant`.
pub async fn list(store: &Store, tenant: &TenantId) -> Result<Vec<Connection>> {
    store
        .connections()
        .list(tenant)
        .await?
        .iter()
        .map(connection)
        .collect()
}

/// The connection and its opened refresh token.
pub async fn token(
    store: &Store,
    sealer: &Sealer,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
) -> Result<Option<(Connection, String)>> {
    match store
        .connections()
        .get(tenant, kind.as_str(), merchant)
        .await?
    {
        None => Ok(None),
        Some(r) => Ok(Some((
            connection(&r)?,
            sealer.open(&context(tenant, kind, merchant), &r.sealed_token)?,
        ))),
    }
}

/// Sets a connection's status (the provider refused its grant: `lapsed`).
pub async fn set_status(
    store: &Store,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
    status: ConnectionStatus,
) -> Result<()> {
    store
        .connections()
        .set_status(tenant, kind.as_str(), merchant, status.as_str())
        .await
}
