//! Service credentials as stored: the client id, the argon2id hash of the secret (never the
//! secret), label, scopes and revocation. Hashing and checking live in `pp-auth`.

use pp_core::{Error, Kind, Result};
use rusqlite::{OptionalExtension, params};
use serde::Serialize;

use crate::{Store, db_err, now_unix};

/// A credential row; `secret_hash` never leaves the store layer in a response.
#[derive(Debug, Clone, Serialize)]
pub struct CredentialRow {
    /// Stable id (`cred_…`).
    pub id: String,
    /// Owning tenant.
    pub tenant_id: String,
    /// The public OAuth client id.
    pub client_id: String,
    #[serde(skip)]
    /// argon2id PHC string of the secret.
    pub secret_hash: String,
    /// A person's label for it (`nightly-etl`); the actor reads `svc:<label>`.
    pub label: String,
    /// Space-separated scopes.
    pub scopes: String,
    /// Creation time (Unix seconds).
    pub created_at: i64,
    /// Last rotation, if any.
    pub rotated_at: Option<i64>,
    /// Revocation time, if revoked.
    pub revoked_at: Option<i64>,
}

/// What creating a credential stores.
pub struct NewCredential<'a> {
    /// Stable id.
    pub id: &'a str,
    /// Owning tenant.
    pub tenant_id: &'a str,
    /// OAuth client id.
    pub client_id: &'a str,
    /// argon2id hash of the secret.
    pub secret_hash: &'a str,
    /// Label.
    pub label: &'a str,
    /// Space-separated scopes.
    pub scopes: &'a str,
}

const COLS: &str =
    "id, tenant_id, client_id, secret_hash, label, scopes, created_at, rotated_at, revoked_at";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<CredentialRow> {
    Ok(CredentialRow {
        id: r.get(0)?,
        tenant_id: r.get(1)?,
        client_id: r.get(2)?,
        secret_hash: r.get(3)?,
        label: r.get(4)?,
        scopes: r.get(5)?,
        created_at: r.get(6)?,
        rotated_at: r.get(7)?,
        revoked_at: r.get(8)?,
    })
}

impl Store {
    /// Stores a new credential.
    pub fn insert_credential(&self, n: &NewCredential<'_>) -> Result<CredentialRow> {
        self.pool.with(|c| {
            c.execute(
                "INSERT INTO credentials (id, tenant_id, client_id, secret_hash, label, scopes, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![n.id, n.tenant_id, n.client_id, n.secret_hash, n.label, n.scopes, now_unix()],
            )
            .map_err(db_err)?;
            c.query_row(&format!("SELECT {COLS} FROM credentials WHERE id = ?1"), [n.id], row)
                .map_err(db_err)
        })
    }

    /// A credential by its OAuth client id.
    pub fn credential_by_client_id(&self, client_id: &str) -> Result<Option<CredentialRow>> {
        self.pool.with(|c| {
            c.query_row(
                &format!("SELECT {COLS} FROM credentials WHERE client_id = ?1"),
                [client_id],
                row,
            )
            .optional()
            .map_err(db_err)
        })
    }

    /// Credentials, of one tenant or all, oldest first.
    pub fn credentials(&self, tenant: Option<&str>) -> Result<Vec<CredentialRow>> {
        self.pool.with(|c| {
            let mut st = c
                .prepare(&format!(
                    "SELECT {COLS} FROM credentials WHERE ?1 IS NULL OR tenant_id = ?1
                     ORDER BY created_at, id"
                ))
                .map_err(db_err)?;
            st.query_map([tenant], row)
                .map_err(db_err)?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(db_err)
        })
    }

    /// Finds a credential by id or client id.
    pub fn find_credential(&self, id_or_client_id: &str) -> Result<CredentialRow> {
        self.pool
            .with(|c| {
                c.query_row(
                    &format!("SELECT {COLS} FROM credentials WHERE id = ?1 OR client_id = ?1"),
                    [id_or_client_id],
                    row,
                )
                .optional()
                .map_err(db_err)
            })?
            .ok_or_else(|| Error::not_found(format!("no credential '{id_or_client_id}'")))
    }

    /// Revokes a credential and deletes its tokens in one transaction. Returns whether it
    /// was active before.
    pub fn revoke_credential(&self, id: &str) -> Result<bool> {
        self.pool.with(|c| {
            let tx = c.transaction().map_err(db_err)?;
            let n = tx
                .execute(
                    "UPDATE credentials SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
                    params![id, now_unix()],
                )
                .map_err(db_err)?;
            tx.execute("DELETE FROM access_tokens WHERE credential_id = ?1", [id])
                .map_err(db_err)?;
            tx.commit().map_err(db_err)?;
            Ok(n == 1)
        })
    }

    /// Replaces a credential's secret hash with another form of the same secret, if it still
    /// holds `old` (a rotation in between wins); whether it did.
    pub fn rehash_credential(&self, id: &str, old: &str, new: &str) -> Result<bool> {
        self.pool.with(|c| {
            c.execute(
                "UPDATE credentials SET secret_hash = ?3 WHERE id = ?1 AND secret_hash = ?2",
                params![id, old, new],
            )
            .map(|n| n == 1)
            .map_err(db_err)
        })
    }

    /// Replaces a live credential's secret hash and deletes its tokens in one transaction.
    pub fn rotate_credential(&self, id: &str, new_hash: &str) -> Result<()> {
        self.pool.with(|c| {
            let tx = c.transaction().map_err(db_err)?;
            let n = tx
                .execute(
                    "UPDATE credentials SET secret_hash = ?2, rotated_at = ?3
                     WHERE id = ?1 AND revoked_at IS NULL",
                    params![id, new_hash, now_unix()],
                )
                .map_err(db_err)?;
            if n == 0 {
                return Err(Error::new(
                    Kind::BadParams,
                    format!("credential '{id}' is revoked or does not exist; create a new one"),
                ));
            }
            tx.execute("DELETE FROM access_tokens WHERE credential_id = ?1", [id])
                .map_err(db_err)?;
            tx.commit().map_err(db_err)
        })
    }
}
