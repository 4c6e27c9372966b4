//! Access tokens: stored by the hash of the bearer value, tied to the credential that minted
//! them. A token is stored only while its credential still holds the secret it was
//! authenticated with (a rotation in between wins), and it is live only while unexpired and
//! its credential unrevoked, so a revocation through any instance is seen by all at once.
//! A bearer token not found here may be one of a person's grants (`signin::grants`); [`Tokens::live`]
//! answers for both.

use pp_core::Result;

use crate::args;
use crate::db::Db;
use crate::now_unix;

/// A token to store.
pub struct NewToken<'a> {
    pub token_hash: &'a [u8],
    pub credential_id: &'a str,
    pub tenant_id: &'a str,
    pub scopes: &'a str,
    pub expires_at: i64,
    /// The secret hash the caller authenticated against.
    pub secret_hash: &'a str,
}

/// What a live token grants.
#[derive(Debug, Clone)]
pub struct TokenGrant {
    /// The service credential, or the grant, the token was minted from.
    pub credential_id: String,
    pub tenant_id: String,
    pub scopes: String,
    /// The credential's label (empty for a grant).
    pub label: String,
    /// The person the token acts for: a grant's, or a setup code's credential's.
    pub person_email: Option<String>,
    /// The OAuth client of a grant made by consent.
    pub client_id: Option<String>,
    /// How that client was registered (`dynamic`: by itself, RFC 7591).
    pub client_kind: Option<String>,
    /// When the token expires (Unix seconds).
    pub expires_at: i64,
}

/// The store's epochs ([`Tokens::epochs`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Epochs {
    pub auth: i64,
    pub sessions: i64,
}

/// The tokens aggregate.
pub struct Tokens<'a>(pub(crate) &'a Db);

impl Tokens<'_> {
    /// Stores a token (dropping the credential's expired ones); false when the credential no
    /// longer holds `secret_hash` or is revoked.
    pub async fn insert(&self, t: &NewToken<'_>) -> Result<bool> {
        let now = now_unix();
        self.0
            .exec(
                "DELETE FROM access_tokens WHERE credential_id = ?1 AND expires_at <= ?2",
                args![t.credential_id, now],
            )
            .await?;
        let stored = self
            .0
            .exec(
                "INSERT INTO access_tokens (token_hash, credential_id, tenant_id, scopes, issued_at, expires_at)
                 SELECT ?1, ?2, ?3, ?4, ?5, ?6 FROM credentials
                 WHERE id = ?2 AND secret_hash = ?7 AND revoked_at IS NULL",
                args![t.token_hash, t.credential_id, t.tenant_id, t.scopes, now, t.expires_at, t.secret_hash],
            )
            .await?;
        Ok(stored == 1)
    }

    /// The grant of a live token: a service credential's (unrevoked, and its person, if it
    /// acts for one, enabled) or a person's grant's.
    pub async fn live(&self, token_hash: &[u8]) -> Result<Option<TokenGrant>> {
        let row = self
            .0
            .one(
                "SELECT t.credential_id, t.tenant_id, t.scopes, c.label, p.email, t.expires_at
                 FROM access_tokens t JOIN credentials c ON c.id = t.credential_id
                 LEFT JOIN people p ON p.id = c.person_id
                 WHERE t.token_hash = ?1 AND t.expires_at > ?2 AND c.revoked_at IS NULL
                   AND (c.person_id IS NULL OR p.disabled_at IS NULL)",
                args![token_hash, now_unix()],
            )
            .await?;
        if let Some(r) = row {
            return Ok(Some(TokenGrant {
                credential_id: r.text(0)?,
                tenant_id: r.text(1)?,
                scopes: r.text(2)?,
                label: r.text(3)?,
                person_email: r.opt_text(4)?,
                client_id: None,
                client_kind: None,
                expires_at: r.i64(5)?,
            }));
        }
        let access = crate::signin::Grants(self.0)
            .live_access(token_hash)
            .await?;
        Ok(access.map(|a| TokenGrant {
            credential_id: a.grant_id,
            tenant_id: a.tenant_id,
            scopes: a.scopes,
            label: String::new(),
            person_email: Some(a.person_email),
            client_id: a.client_id,
            client_kind: a.client_kind,
            expires_at: a.expires_at,
        }))
    }

    /// The epochs (migrations 16 and 17): `auth` moves with every change that may end a live
    /// token, `sessions` whenever an MCP session ends, so an instance that remembers tokens or
    /// sessions and saw its epoch unmoved may trust what it holds. One read for both.
    pub async fn epochs(&self) -> Result<Epochs> {
        let rows = self
            .0
            .all(
                "SELECT id, epoch FROM auth_epoch WHERE id IN (1, 2)",
                args![],
            )
            .await?;
        let mut e = Epochs::default();
        for r in rows {
            match r.i64(0)? {
                1 => e.auth = r.i64(1)?,
                _ => e.sessions = r.i64(1)?,
            }
        }
        Ok(e)
    }

    /// Deletes the service-credential access token `token_hash` if credential
    /// `credential_id` minted it (RFC 7009 revocation); false when it did not.
    pub async fn revoke(&self, token_hash: &[u8], credential_id: &str) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "DELETE FROM access_tokens WHERE token_hash = ?1 AND credential_id = ?2",
                args![token_hash, credential_id],
            )
            .await?
            == 1)
    }
}
