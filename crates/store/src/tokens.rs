//! Access tokens as stored: only the SHA-256 of the token, with its credential, tenant,
//! scopes and expiry. A lookup succeeds only while the token is unexpired and its credential
//! is not revoked, so revocation takes effect on the next request.

use pp_core::Result;
use rusqlite::{OptionalExtension, params};

use crate::{Store, db_err, now_unix};

/// What minting a token stores.
pub struct NewToken<'a> {
    /// SHA-256 of the token.
    pub token_hash: &'a [u8],
    /// The credential it was minted from.
    pub credential_id: &'a str,
    /// The tenant.
    pub tenant_id: &'a str,
    /// Space-separated scopes (possibly narrower than the credential's).
    pub scopes: &'a str,
    /// Expiry (Unix seconds).
    pub expires_at: i64,
    /// The credential's secret hash the caller authenticated against: the token is stored
    /// only if the credential still has it (not rotated or revoked since).
    pub secret_hash: &'a str,
}

/// What a live token grants.
#[derive(Debug, Clone)]
pub struct TokenGrant {
    /// The credential id.
    pub credential_id: String,
    /// The tenant.
    pub tenant_id: String,
    /// Space-separated scopes.
    pub scopes: String,
    /// The credential's label.
    pub label: String,
}

impl Store {
    /// Stores a token hash if its credential still holds the secret it was minted from
    /// (one statement, so a rotation either precedes it and nothing is stored, or follows it
    /// and deletes it); whether it was stored. Expired tokens of the same credential are
    /// swept on the way.
    pub fn insert_token(&self, t: &NewToken<'_>) -> Result<bool> {
        let now = now_unix();
        self.pool.with(|c| {
            c.execute(
                "DELETE FROM access_tokens WHERE credential_id = ?1 AND expires_at <= ?2",
                params![t.credential_id, now],
            )
            .map_err(db_err)?;
            let stored = c
                .execute(
                    "INSERT INTO access_tokens (token_hash, credential_id, tenant_id, scopes, issued_at, expires_at)
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6 FROM credentials
                     WHERE id = ?2 AND secret_hash = ?7 AND revoked_at IS NULL",
                    params![t.token_hash, t.credential_id, t.tenant_id, t.scopes, now, t.expires_at, t.secret_hash],
                )
                .map_err(db_err)?;
            Ok(stored == 1)
        })
    }

    /// The grant of a live token (unexpired, credential not revoked), by the token's hash.
    pub fn live_token(&self, token_hash: &[u8]) -> Result<Option<TokenGrant>> {
        self.pool.with(|c| {
            let mut st = c
                .prepare_cached(
                    "SELECT t.credential_id, t.tenant_id, t.scopes, c.label
                     FROM access_tokens t JOIN credentials c ON c.id = t.credential_id
                     WHERE t.token_hash = ?1 AND t.expires_at > ?2 AND c.revoked_at IS NULL",
                )
                .map_err(db_err)?;
            st.query_row(params![token_hash, now_unix()], |r| {
                Ok(TokenGrant {
                    credential_id: r.get(0)?,
                    tenant_id: r.get(1)?,
                    scopes: r.get(2)?,
                    label: r.get(3)?,
                })
            })
            .optional()
            .map_err(db_err)
        })
    }
}
