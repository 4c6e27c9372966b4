//! Service credentials: a client id and a keyed hash of its secret, the tenant it acts for, its
//! scopes, and when it was rotated or revoked. Revoking or rotating deletes the credential's
//! tokens in the same transaction, so every instance refuses them on the next request.

use pp_core::{Error, Kind, Result};
use serde::Serialize;

use crate::args;
use crate::db::{Db, Row};
use crate::now_unix;

/// A stored credential (the secret's hash is never serialized).
#[derive(Debug, Clone, Serialize)]
pub struct CredentialRow {
    pub id: String,
    pub tenant_id: String,
    pub client_id: String,
    #[serde(skip)]
    pub secret_hash: String,
    pub label: String,
    pub scopes: String,
    pub created_at: i64,
    pub rotated_at: Option<i64>,
    pub revoked_at: Option<i64>,
    /// The person the credential acts for (one a setup code made), whose email is then the
    /// actor of what it does.
    pub person_id: Option<String>,
}

/// What a new credential is made of.
pub struct NewCredential<'a> {
    pub id: &'a str,
    pub tenant_id: &'a str,
    pub client_id: &'a str,
    pub secret_hash: &'a str,
    pub label: &'a str,
    pub scopes: &'a str,
    pub person_id: Option<&'a str>,
}

pub(crate) const COLS: &str = "id, tenant_id, client_id, secret_hash, label, scopes, created_at, rotated_at, \
                    revoked_at, person_id";

pub(crate) fn row(r: &Row) -> Result<CredentialRow> {
    Ok(CredentialRow {
        id: r.text(0)?,
        tenant_id: r.text(1)?,
        client_id: r.text(2)?,
        secret_hash: r.text(3)?,
        label: r.text(4)?,
        scopes: r.text(5)?,
        created_at: r.i64(6)?,
        rotated_at: r.opt_i64(7)?,
        revoked_at: r.opt_i64(8)?,
        person_id: r.opt_text(9)?,
    })
}

/// The credentials aggregate.
pub struct Credentials<'a>(pub(crate) &'a Db);

impl Credentials<'_> {
    /// Stores a new credential.
    pub async fn insert(&self, n: &NewCredential<'_>) -> Result<CredentialRow> {
        let rows = self
            .0
            .all(
                format!(
                    "INSERT INTO credentials (id, tenant_id, client_id, secret_hash, label, scopes, created_at,
                                              person_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING {COLS}"
                ),
                args![n.id, n.tenant_id, n.client_id, n.secret_hash, n.label, n.scopes, now_unix(), n.person_id],
            )
            .await?;
        row(rows
            .first()
            .ok_or_else(|| Error::internal("credential insert returned nothing"))?)
    }

    /// The credential with this client id, revoked or not.
    pub async fn by_client_id(&self, client_id: &str) -> Result<Option<CredentialRow>> {
        self.0
            .one(
                format!("SELECT {COLS} FROM credentials WHERE client_id = ?1"),
                args![client_id],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// Every credential (of `tenant`, when given), oldest first.
    pub async fn list(&self, tenant: Option<&str>) -> Result<Vec<CredentialRow>> {
        self.0
            .all(
                format!(
                    "SELECT {COLS} FROM credentials WHERE ?1 IS NULL OR tenant_id = ?1
                     ORDER BY created_at, id"
                ),
                args![tenant],
            )
            .await?
            .iter()
            .map(row)
            .collect()
    }

    /// The credential named by its id or its client id; `not_found` otherwise.
    pub async fn find(&self, id_or_client_id: &str) -> Result<CredentialRow> {
        self.0
            .one(
                format!("SELECT {COLS} FROM credentials WHERE id = ?1 OR client_id = ?1"),
                args![id_or_client_id],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()?
            .ok_or_else(|| Error::not_found(format!("no credential '{id_or_client_id}'")))
    }

    /// Revokes a credential and deletes its tokens; false if it was already revoked.
    pub async fn revoke(&self, id: &str) -> Result<bool> {
        let id = id.to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let n = tx
                        .exec(
                            "UPDATE credentials SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                            args![&id, now_unix()],
                        )
                        .await?;
                    tx.exec(
                        "DELETE FROM access_tokens WHERE credential_id = ?1",
                        args![&id],
                    )
                    .await?;
                    Ok(n == 1)
                })
            })
            .await
    }

    /// Replaces the secret's hash `old` by `new` (a legacy hash upgraded on use); false if the
    /// secret changed meanwhile.
    pub async fn rehash(&self, id: &str, old: &str, new: &str) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "UPDATE credentials SET secret_hash = ?3 WHERE id = ?1 AND secret_hash = ?2",
                args![id, old, new],
            )
            .await?
            == 1)
    }

    /// Gives a live credential a new secret and deletes its tokens; `bad_params` if it is
    /// revoked or unknown.
    pub async fn rotate(&self, id: &str, new_hash: &str) -> Result<()> {
        let (id, new_hash) = (id.to_owned(), new_hash.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let n = tx
                        .exec(
                            "UPDATE credentials SET secret_hash = ?2, rotated_at = ?3
                             WHERE id = ?1 AND revoked_at IS NULL",
                            args![&id, &new_hash, now_unix()],
                        )
                        .await?;
                    if n == 0 {
                        return Err(Error::new(
                            Kind::BadParams,
                            format!(
                                "credential '{id}' is revoked or does not exist; create a new one"
                            ),
                        ));
                    }
                    tx.exec(
                        "DELETE FROM access_tokens WHERE credential_id = ?1",
                        args![&id],
                    )
                    .await?;
                    Ok(())
                })
            })
            .await
    }
}
