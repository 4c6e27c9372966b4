//! OAuth clients: partner applications an operator or a tenant admin registers, and MCP
//! clients that register themselves (RFC 7591). A dynamic client belongs to no tenant until a
//! person first consents to it; then it is bound to that person's tenant, which holds a
//! bounded number of them. Revoking a client revokes every grant made to it.

use pp_core::{Error, Kind, Result};
use serde::Serialize;

use crate::args;
use crate::db::{Db, Row};
use crate::now_unix;

/// A stored client (the secret's hash is never serialized).
#[derive(Debug, Clone, Serialize)]
pub struct ClientRow {
    pub client_id: String,
    /// The tenant whose people may use it; `None` for a gateway-wide partner application or
    /// a dynamic client no one has consented to yet.
    pub tenant_id: Option<String>,
    /// `partner` or `dynamic`.
    pub kind: String,
    pub name: String,
    #[serde(skip)]
    pub secret_hash: Option<String>,
    pub redirect_uris: Vec<String>,
    pub scopes: String,
    pub created_at: i64,
    pub created_by: String,
    pub revoked_at: Option<i64>,
}

impl ClientRow {
    /// Whether the client authenticates with a secret.
    pub fn confidential(&self) -> bool {
        self.secret_hash.is_some()
    }
}

/// What a new client is made of.
pub struct NewClient<'a> {
    pub client_id: &'a str,
    pub tenant_id: Option<&'a str>,
    pub kind: &'a str,
    pub name: &'a str,
    pub secret_hash: Option<&'a str>,
    pub redirect_uris: &'a [String],
    pub scopes: &'a str,
    pub created_by: &'a str,
}

const COLS: &str = "client_id, tenant_id, kind, name, secret_hash, redirect_uris, scopes, \
                    created_at, created_by, revoked_at";

fn row(r: &Row) -> Result<ClientRow> {
    Ok(ClientRow {
        client_id: r.text(0)?,
        tenant_id: r.opt_text(1)?,
        kind: r.text(2)?,
        name: r.text(3)?,
        secret_hash: r.opt_text(4)?,
        redirect_uris: r.text(5)?.lines().map(str::to_owned).collect(),
        scopes: r.text(6)?,
        created_at: r.i64(7)?,
        created_by: r.text(8)?,
        revoked_at: r.opt_i64(9)?,
    })
}

/// A client stored (`insert_args` binds its values).
const INSERT: &str = "INSERT INTO oauth_clients (client_id, tenant_id, kind, name, secret_hash,
                                                 redirect_uris, scopes, created_at, created_by)
                      VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";

fn insert_args(n: &NewClient<'_>) -> Vec<crate::db::Arg> {
    args![
        n.client_id,
        n.tenant_id,
        n.kind,
        n.name,
        n.secret_hash,
        n.redirect_uris.join("\n"),
        n.scopes,
        now_unix(),
        n.created_by
    ]
}

/// Makes room for `?1` dynamic clients among those waiting for a first consent: none in a
/// pending authorization (`pending_until` after `?2`), first from the network holding the most
/// of them, oldest first.
const EVICT: &str = "DELETE FROM oauth_clients WHERE client_id IN (
     SELECT c.client_id FROM oauth_clients c
     JOIN (SELECT coalesce(network, '') AS net, count(*) AS n FROM oauth_clients
           WHERE kind = 'dynamic' AND tenant_id IS NULL GROUP BY coalesce(network, '')) w
       ON w.net = coalesce(c.network, '')
     WHERE c.kind = 'dynamic' AND c.tenant_id IS NULL
       AND (c.pending_until IS NULL OR c.pending_until < ?2)
     ORDER BY w.n DESC, c.created_at, c.client_id LIMIT ?1)";

/// The clients aggregate.
pub struct Clients<'a>(pub(crate) &'a Db);

impl Clients<'_> {
    /// Stores a client.
    pub async fn insert(&self, n: &NewClient<'_>) -> Result<ClientRow> {
        let rows = self
            .0
            .all(format!("{INSERT} RETURNING {COLS}"), insert_args(n))
            .await?;
        row(rows
            .first()
            .ok_or_else(|| Error::internal("client insert returned nothing"))?)
    }

    /// Stores a dynamic client registered from `network`. At most `max_unbound` dynamic
    /// clients no one has consented to are kept: those registered more than a day ago are
    /// forgotten, and when the table is still full one makes room — never a client whose
    /// authorization a person has started ([`Clients::hold_pending`]) and is still pending,
    /// and first from the network with the most clients waiting, its oldest: a flood of
    /// registrations evicts its own before anyone else's. How many were forgotten to make room,
    /// or `None` when every waiting client is in a pending authorization (nothing stored).
    pub async fn insert_dynamic(
        &self,
        n: &NewClient<'_>,
        network: &str,
        max_unbound: i64,
    ) -> Result<Option<u64>> {
        let now = now_unix();
        let args = insert_args(n);
        let (id, network) = (n.client_id.to_owned(), network.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    // one registration at a time, across instances, so the cap holds
                    tx.advisory_lock("dynamic-clients:unbound").await?;
                    tx.exec(
                        "DELETE FROM oauth_clients
                         WHERE kind = 'dynamic' AND tenant_id IS NULL AND created_at < ?1
                           AND (pending_until IS NULL OR pending_until < ?2)",
                        args![now - 86_400, now],
                    )
                    .await?;
                    let waiting = tx
                        .one(
                            "SELECT count(*) FROM oauth_clients
                             WHERE kind = 'dynamic' AND tenant_id IS NULL",
                            args![],
                        )
                        .await?
                        .map(|r| r.i64(0))
                        .transpose()?
                        .unwrap_or(0);
                    let over = (waiting - max_unbound + 1).max(0);
                    let evicted = if over > 0 {
                        tx.exec(EVICT, args![over, now]).await?
                    } else {
                        0
                    };
                    if (evicted as i64) < over {
                        return Ok(None);
                    }
                    tx.exec(INSERT, args).await?;
                    tx.exec(
                        "UPDATE oauth_clients SET network = ?2 WHERE client_id = ?1",
                        args![id, network],
                    )
                    .await?;
                    Ok(Some(evicted))
                })
            })
            .await
    }

    /// Holds dynamic client `client_id`, still waiting for a first consent, until `until`
    /// (unix seconds): a person has opened its consent page, and it is not evicted meanwhile.
    pub async fn hold_pending(&self, client_id: &str, until: i64) -> Result<()> {
        self.0
            .exec(
                "UPDATE oauth_clients SET pending_until = ?2
                 WHERE client_id = ?1 AND kind = 'dynamic' AND tenant_id IS NULL",
                args![client_id, until],
            )
            .await?;
        Ok(())
    }

    /// The client with this id, revoked or not.
    pub async fn get(&self, client_id: &str) -> Result<Option<ClientRow>> {
        self.0
            .one(
                format!("SELECT {COLS} FROM oauth_clients WHERE client_id = ?1"),
                args![client_id],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// The clients of `tenant` (its partner applications and the dynamic clients bound to
    /// it), or with `None` the gateway-wide partner applications; newest first.
    pub async fn list(&self, tenant: Option<&str>) -> Result<Vec<ClientRow>> {
        self.0
            .all(
                format!(
                    "SELECT {COLS} FROM oauth_clients
                     WHERE (?1 IS NULL AND tenant_id IS NULL AND kind = 'partner') OR tenant_id = ?1
                     ORDER BY created_at DESC, client_id"
                ),
                args![tenant],
            )
            .await?
            .iter()
            .map(row)
            .collect()
    }

    /// Binds an unbound dynamic client to `tenant` unless the tenant already holds `max`
    /// live dynamic clients. True when the client is (now or already) the tenant's.
    pub async fn bind(&self, client_id: &str, tenant: &str, max: i64) -> Result<bool> {
        let (client_id, tenant) = (client_id.to_owned(), tenant.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.advisory_lock(&format!("dynamic-clients:{tenant}"))
                        .await?;
                    let n = tx
                        .exec(
                            "UPDATE oauth_clients SET tenant_id = ?2
                             WHERE client_id = ?1 AND kind = 'dynamic' AND tenant_id IS NULL
                               AND (SELECT count(*) FROM oauth_clients
                                    WHERE tenant_id = ?2 AND kind = 'dynamic'
                                      AND revoked_at IS NULL) < ?3",
                            args![&client_id, &tenant, max],
                        )
                        .await?;
                    if n == 1 {
                        return Ok(true);
                    }
                    let owner = tx
                        .one(
                            "SELECT tenant_id FROM oauth_clients WHERE client_id = ?1",
                            args![&client_id],
                        )
                        .await?;
                    Ok(match owner {
                        Some(r) => r.opt_text(0)?.as_deref() == Some(tenant.as_str()),
                        None => false,
                    })
                })
            })
            .await
    }

    /// Revokes a client with every grant made to it and their tokens; false if it already
    /// was revoked. `tenant` (when given) must own it.
    pub async fn revoke(&self, client_id: &str, tenant: Option<&str>) -> Result<bool> {
        let (client_id, tenant) = (client_id.to_owned(), tenant.map(str::to_owned));
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let now = now_unix();
                    let owner = tx
                        .one(
                            "SELECT tenant_id FROM oauth_clients WHERE client_id = ?1",
                            args![&client_id],
                        )
                        .await?;
                    let owned = match (&owner, &tenant) {
                        (None, _) => false,
                        (Some(_), None) => true,
                        (Some(r), Some(t)) => r.opt_text(0)?.as_deref() == Some(t.as_str()),
                    };
                    if !owned {
                        return Err(Error::new(
                            Kind::NotFound,
                            format!("no application '{client_id}'"),
                        ));
                    }
                    let n = tx
                        .exec(
                            "UPDATE oauth_clients SET revoked_at = ?2
                             WHERE client_id = ?1 AND revoked_at IS NULL",
                            args![&client_id, now],
                        )
                        .await?;
                    tx.exec(
                        "DELETE FROM grant_tokens WHERE grant_id IN
                             (SELECT id FROM oauth_grants WHERE client_id = ?1)",
                        args![&client_id],
                    )
                    .await?;
                    tx.exec(
                        "UPDATE oauth_grants SET revoked_at = ?2
                         WHERE client_id = ?1 AND revoked_at IS NULL",
                        args![&client_id, now],
                    )
                    .await?;
                    Ok(n == 1)
                })
            })
            .await
    }
}
