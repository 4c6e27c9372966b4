//! Connected accounts: for each tenant, the merchant logins the service may act for — a
//! selling-side grant and an advertising grant per merchant token — with the provider refresh
//! token (sealed), the region, and a status: `active`, `lapsed` (the provider refused the
//! grant, or a person disconnected it; a person must connect again) or `not_activated`
//! (advertising not switched on). Connecting through the provider's consent pages lives in
//! `service::connecting`; this module stores and reads what any path connects.

use std::sync::Arc;

use pp_core::{Epoch, Error, Kind, Remembered, Result, TenantId};
use pp_store::{ConnectionRow, Store};
use serde::{Deserialize, Serialize};

use crate::Sealer;

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
    /// When its grant (or status) last changed.
    pub updated_at: String,
    /// Who connected it: a person's email, or `admin` / `dev` from the command line.
    pub connected_by: Option<String>,
    /// What the grant reaches: marketplace ids (seller) or advertising profile ids (ads).
    pub reach: Vec<String>,
    /// The last call the provider answered with success.
    pub last_call_at: Option<String>,
    /// Who disconnected it, while it stays disconnected.
    pub disconnected_by: Option<String>,
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
    /// Who connects it (a person's email, `admin` or `dev`).
    pub connected_by: &'a str,
    /// Marketplace ids (seller) or profile ids (ads) the grant reaches, when known.
    pub reach: &'a [String],
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
        connected_by,
        reach,
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
    let reach = reach.join(",");
    let row = pp_store::NewConnection {
        kind: kind.as_str(),
        merchant,
        region,
        status: status.as_str(),
        sealed_token: &sealed,
        connected_by,
        reach: &reach,
    };
    store.connections().upsert(tenant, &row).await
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
        connected_by: r.connected_by.clone(),
        reach: r
            .reach
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        last_call_at: r.last_call_at.clone(),
        disconnected_by: r.disconnected_by.clone(),
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

/// A connection read for a call: the connection, and its sealed token (empty once
/// disconnected) to open only when a new access token is needed.
#[derive(Clone)]
pub struct ForCall {
    pub connection: Connection,
    sealed: Vec<u8>,
}

impl ForCall {
    /// What identifies the grant: its sealed token, new (a fresh nonce) at every connect.
    pub fn grant_id(&self) -> &[u8] {
        &self.sealed
    }

    /// The refresh token in the clear.
    pub fn refresh_token(&self, sealer: &Sealer, tenant: &TenantId) -> Result<String> {
        let c = &self.connection;
        sealer.open(&context(tenant, c.kind, &c.merchant), &self.sealed)
    }
}

/// The most tenants whose connections one instance remembers.
const MAX_REMEMBERED: usize = 10_000;

/// Each tenant's connections as calls read them, remembered while the auth epoch stands still:
/// a connect, reconnect, disconnect or lapse moves the epoch in the same transaction (the
/// `auth_epoch_connections` triggers), so every instance forgets within the epoch's watch, and
/// a change made through the gateway's own pages is settled before its answer leaves. The
/// instance that makes a change also forgets the tenant at once.
pub struct Memory(Remembered<String, Arc<Vec<ForCall>>>);

impl Memory {
    /// A memory trusting `epoch` (the auth epoch).
    pub fn new(epoch: Epoch) -> Self {
        Self(Remembered::new(epoch, MAX_REMEMBERED))
    }

    /// `tenant`'s connections: remembered, or read and remembered.
    async fn rows(&self, store: &Store, tenant: &TenantId) -> Result<Arc<Vec<ForCall>>> {
        let seen = self.0.now();
        if let Some(rows) = self.0.get(tenant.as_str()) {
            return Ok(rows);
        }
        let rows = Arc::new(read_for_calls(store, tenant).await?);
        self.0.keep(tenant.as_str().to_owned(), seen, rows.clone());
        Ok(rows)
    }

    /// Forgets `tenant`'s connections (this instance just changed one).
    pub fn forget(&self, tenant: &TenantId) {
        self.0.forget(tenant.as_str());
    }
}

async fn read_for_calls(store: &Store, tenant: &TenantId) -> Result<Vec<ForCall>> {
    store
        .connections()
        .list(tenant)
        .await?
        .into_iter()
        .map(|r| {
            Ok(ForCall {
                connection: connection(&r)?,
                sealed: r.sealed_token,
            })
        })
        .collect()
}

/// `tenant`'s connections as calls read them: from `memory` when given, else from the store.
pub async fn for_calls(
    store: &Store,
    memory: Option<&Memory>,
    tenant: &TenantId,
) -> Result<Arc<Vec<ForCall>>> {
    match memory {
        Some(m) => m.rows(store, tenant).await,
        None => Ok(Arc::new(read_for_calls(store, tenant).await?)),
    }
}

/// The connection a call signs with (a disconnect anywhere shows by the next call).
pub async fn for_call(
    store: &Store,
    memory: Option<&Memory>,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
) -> Result<Option<ForCall>> {
    Ok(for_calls(store, memory, tenant)
        .await?
        .iter()
        .find(|c| c.connection.kind == kind && c.connection.merchant == merchant)
        .cloned())
}

/// Disconnects a connection: its sealed token is erased and it stands `lapsed` until a person
/// connects it again. Whether there was one.
pub async fn disconnect(
    store: &Store,
    tenant: &TenantId,
    kind: GrantKind,
    merchant: &str,
    by: &str,
) -> Result<bool> {
    store
        .connections()
        .disconnect(
            tenant,
            kind.as_str(),
            merchant,
            ConnectionStatus::Lapsed.as_str(),
            by,
        )
        .await
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
