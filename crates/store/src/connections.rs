//! Marketplace connections' rows: per tenant, kind (`seller`, `ads`) and merchant, the region,
//! the status and the provider refresh token, sealed by the caller before it gets here (the
//! store never sees a token in the clear), with who connected it, what its grant reaches and
//! its last successful call. A disconnected row keeps its history but no token. Beside them,
//! the one-time `state` of each connect a person started at the provider's consent pages. The
//! meaning of kinds and statuses lives with the marketplace (`pp_marketplace::connections`).

use pp_core::events::payloads::{ConnectionData, ConnectionSubject, ConnectionTold};
use pp_core::events::{CONNECTION_LAPSED, CONNECTION_RESTORED, EventType};
use pp_core::{Result, TenantId};

use crate::args;
use crate::db::{Db, Row, Tx};
use crate::events::NewEvent;
use crate::{now_rfc3339, now_unix};

/// One stored connection.
#[derive(Debug, Clone)]
pub struct ConnectionRow {
    pub kind: String,
    pub merchant: String,
    pub region: String,
    pub status: String,
    pub updated_at: String,
    /// Empty once disconnected.
    pub sealed_token: Vec<u8>,
    /// Who connected it (a person's email, or `admin` / `dev` for the command line).
    pub connected_by: Option<String>,
    /// What the grant reaches, comma-separated: marketplace ids (seller) or profile ids (ads).
    pub reach: String,
    /// The last call the provider answered with success (RFC 3339).
    pub last_call_at: Option<String>,
    /// Who disconnected it, while it stays disconnected.
    pub disconnected_by: Option<String>,
}

const COLUMNS: &str = "kind, merchant, region, status, updated_at, sealed_token, connected_by, reach, last_call_at, disconnected_by";

fn row(r: &Row) -> Result<ConnectionRow> {
    Ok(ConnectionRow {
        kind: r.text(0)?,
        merchant: r.text(1)?,
        region: r.text(2)?,
        status: r.text(3)?,
        updated_at: r.text(4)?,
        sealed_token: r.blob(5)?,
        connected_by: r.opt_text(6)?,
        reach: r.text(7)?,
        last_call_at: r.opt_text(8)?,
        disconnected_by: r.opt_text(9)?,
    })
}

/// A connection to store.
#[derive(Debug, Clone)]
pub struct NewConnection<'a> {
    pub kind: &'a str,
    pub merchant: &'a str,
    pub region: &'a str,
    pub status: &'a str,
    pub sealed_token: &'a [u8],
    pub connected_by: &'a str,
    pub reach: &'a str,
}

/// The connections aggregate.
pub struct Connections<'a>(pub(crate) &'a Db);

impl Connections<'_> {
    /// Stores a connection, replacing the same tenant, kind and merchant's (a reconnect: the
    /// new token, status and reach; the disconnect forgotten).
    pub async fn upsert(&self, tenant: &TenantId, c: &NewConnection<'_>) -> Result<()> {
        let tenant = tenant.as_str().to_owned();
        let a = args![
            tenant.as_str(),
            c.kind,
            c.merchant,
            c.region,
            c.status,
            c.sealed_token,
            now_rfc3339(),
            c.connected_by,
            c.reach
        ];
        let (kind, merchant, status) = (
            c.kind.to_owned(),
            c.merchant.to_owned(),
            c.status.to_owned(),
        );
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let before = status_of(tx, &tenant, &kind, &merchant).await?;
                    tx.exec(
                        "INSERT INTO marketplace_connections (tenant_id, kind, merchant, region, status, sealed_token, created_at, updated_at, connected_by, reach)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9)
                         ON CONFLICT (tenant_id, kind, merchant) DO UPDATE SET region = excluded.region, status = excluded.status,
                           sealed_token = excluded.sealed_token, updated_at = excluded.updated_at,
                           connected_by = excluded.connected_by, reach = excluded.reach, disconnected_by = NULL",
                        a,
                    )
                    .await?;
                    if before.as_deref() == Some(LAPSED) && status == ACTIVE {
                        told(tx, &tenant, &CONNECTION_RESTORED, &kind, &merchant).await?;
                    }
                    Ok(())
                })
            })
            .await
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

    /// Sets a connection's status; a connection that lapses (or comes back) says so in the
    /// event feed, once per change.
    pub async fn set_status(
        &self,
        tenant: &TenantId,
        kind: &str,
        merchant: &str,
        status: &str,
    ) -> Result<()> {
        let (tenant, kind, merchant, status) = (
            tenant.as_str().to_owned(),
            kind.to_owned(),
            merchant.to_owned(),
            status.to_owned(),
        );
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let before = status_of(tx, &tenant, &kind, &merchant).await?;
                    tx.exec(
                        "UPDATE marketplace_connections SET status = ?4, updated_at = ?5 WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3",
                        args![&tenant, &kind, &merchant, &status, now_rfc3339()],
                    )
                    .await?;
                    match (before.as_deref(), status.as_str()) {
                        (Some(ACTIVE), LAPSED) => {
                            told(tx, &tenant, &CONNECTION_LAPSED, &kind, &merchant).await
                        }
                        (Some(LAPSED), ACTIVE) => {
                            told(tx, &tenant, &CONNECTION_RESTORED, &kind, &merchant).await
                        }
                        _ => Ok(()),
                    }
                })
            })
            .await
    }

    /// Disconnects: the sealed token is erased and the status becomes `status` (a person must
    /// connect again). Whether there was such a connection.
    pub async fn disconnect(
        &self,
        tenant: &TenantId,
        kind: &str,
        merchant: &str,
        status: &str,
        by: &str,
    ) -> Result<bool> {
        let empty: &[u8] = &[];
        let n = self
            .0
            .exec(
                "UPDATE marketplace_connections SET status = ?4, sealed_token = ?5, disconnected_by = ?6, updated_at = ?7
                 WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3",
                args![tenant.as_str(), kind, merchant, status, empty, by, now_rfc3339()],
            )
            .await?;
        Ok(n > 0)
    }

    /// Records a successful call now (the row's `updated_at` stays: it dates the grant).
    pub async fn touch(&self, tenant: &TenantId, kind: &str, merchant: &str) -> Result<()> {
        self.0
            .exec(
                "UPDATE marketplace_connections SET last_call_at = ?4 WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3",
                args![tenant.as_str(), kind, merchant, now_rfc3339()],
            )
            .await?;
        Ok(())
    }
}

/// A connect a person started, as its callback finds it.
#[derive(Debug, Clone)]
pub struct ConnectStateRow {
    pub tenant_id: String,
    pub person_id: String,
    pub kind: String,
    pub region: String,
    pub expires_at: i64,
}

/// The one-time `state` values of connects in progress.
pub struct ConnectStates<'a>(pub(crate) &'a Db);

impl ConnectStates<'_> {
    /// Stores a new state (forgetting states that ended a day ago).
    pub async fn insert(
        &self,
        state_hash: &[u8],
        tenant: &TenantId,
        person_id: &str,
        kind: &str,
        region: &str,
        expires_at: i64,
    ) -> Result<()> {
        let now = now_unix();
        self.0
            .exec(
                "DELETE FROM connect_states WHERE expires_at < ?1",
                args![now - 86_400],
            )
            .await?;
        self.0
            .exec(
                "INSERT INTO connect_states (state_hash, tenant_id, person_id, kind, region, created_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                args![state_hash, tenant.as_str(), person_id, kind, region, now, expires_at],
            )
            .await?;
        Ok(())
    }

    /// Spends a state: the first call for an unspent state gets it (expired or not: the
    /// caller judges), every later one `None` — on every instance.
    pub async fn take(&self, state_hash: &[u8]) -> Result<Option<ConnectStateRow>> {
        let rows = self
            .0
            .all(
                "UPDATE connect_states SET used_at = ?2 WHERE state_hash = ?1 AND used_at IS NULL
                 RETURNING tenant_id, person_id, kind, region, expires_at",
                args![state_hash, now_unix()],
            )
            .await?;
        rows.first()
            .map(|r| {
                Ok(ConnectStateRow {
                    tenant_id: r.text(0)?,
                    person_id: r.text(1)?,
                    kind: r.text(2)?,
                    region: r.text(3)?,
                    expires_at: r.i64(4)?,
                })
            })
            .transpose()
    }
}

const ACTIVE: &str = "active";
const LAPSED: &str = "lapsed";

/// A connection's status as it stands inside `tx` (locked until the transaction ends).
async fn status_of(
    tx: &mut Tx,
    tenant: &str,
    kind: &str,
    merchant: &str,
) -> Result<Option<String>> {
    let lock = tx.for_update();
    tx.one(
        format!("SELECT status FROM marketplace_connections WHERE tenant_id = ?1 AND kind = ?2 AND merchant = ?3{lock}"),
        args![tenant, kind, merchant],
    )
    .await?
    .map(|r| r.text(0))
    .transpose()
}

/// Appends a connection's change of state to the event feed.
async fn told(
    tx: &mut Tx,
    tenant: &str,
    kind: &'static EventType,
    grant: &str,
    merchant: &str,
) -> Result<()> {
    let status = if kind.name == CONNECTION_LAPSED.name {
        LAPSED
    } else {
        ACTIVE
    };
    let e = NewEvent::of(&ConnectionTold {
        subject: ConnectionSubject {
            grant: grant.to_owned(),
            merchant: merchant.to_owned(),
        },
        data: ConnectionData {
            status: status.to_owned(),
        },
    });
    crate::events::append_in(tx, tenant, &e).await.map(drop)
}
