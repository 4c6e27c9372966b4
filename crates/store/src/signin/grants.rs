//! Grants: what a person allowed — a client's consent (made by an authorization code) or a
//! token minted by hand — with its access and refresh tokens. Codes are single-use: the first
//! exchange claims the code and mints; a second finds it claimed and revokes what the first
//! minted. Refresh tokens rotate: each is spent once, and one presented again revokes its
//! whole family (the grant). A token is live only while its grant, its person and its client
//! are.

use pp_core::Result;

use crate::args;
use crate::db::{Db, Tx};
use crate::now_unix;

/// An authorization code to store (by its hash).
pub struct NewCode<'a> {
    pub code_hash: &'a [u8],
    pub client_id: &'a str,
    pub person_id: &'a str,
    pub redirect_uri: &'a str,
    pub scopes: &'a str,
    /// The PKCE S256 challenge.
    pub challenge: &'a str,
    pub expires_at: i64,
}

/// A stored code.
#[derive(Debug, Clone)]
pub struct CodeRow {
    pub client_id: String,
    pub person_id: String,
    pub tenant_id: String,
    pub redirect_uri: String,
    pub scopes: String,
    pub challenge: String,
    pub expires_at: i64,
    /// Set once the code was exchanged.
    pub grant_id: Option<String>,
}

/// A grant to create.
pub struct NewGrant<'a> {
    pub id: &'a str,
    pub tenant_id: &'a str,
    pub person_id: &'a str,
    /// `None` for a token a person minted by hand.
    pub client_id: Option<&'a str>,
    pub scopes: &'a str,
}

/// A token of a grant to store (by its hash): `access` or `refresh`.
pub struct GrantToken<'a> {
    pub hash: &'a [u8],
    pub kind: &'a str,
    pub scopes: &'a str,
    pub expires_at: i64,
}

/// What exchanging a code did.
#[derive(Debug, PartialEq, Eq)]
pub enum Redeemed {
    /// The grant and its tokens are stored.
    Minted,
    /// The code was exchanged before; what that exchange minted is now revoked.
    Reused,
    /// No such code, or it expired.
    Gone,
}

/// A refresh token and its grant, as read before rotating it.
#[derive(Debug, Clone)]
pub struct RefreshRow {
    pub grant_id: String,
    pub client_id: Option<String>,
    /// The grant's scopes (a refresh may narrow them, never widen).
    pub grant_scopes: String,
    pub used: bool,
    pub expired: bool,
}

/// What rotating a refresh token did.
#[derive(Debug, PartialEq, Eq)]
pub enum Rotated {
    /// The old token is spent and the new ones are stored.
    Rotated,
    /// The token was spent before: its grant is now revoked.
    Reused,
    /// No such live token.
    Gone,
}

/// What a live grant token lets its bearer do.
#[derive(Debug, Clone)]
pub struct GrantAccess {
    pub grant_id: String,
    pub tenant_id: String,
    pub scopes: String,
    pub person_email: String,
    pub client_id: Option<String>,
    /// How the client was registered (`dynamic`: by itself, RFC 7591).
    pub client_kind: Option<String>,
    /// When the token expires (Unix seconds).
    pub expires_at: i64,
}

/// The grants aggregate.
pub struct Grants<'a>(pub(crate) &'a Db);

async fn insert_tokens(tx: &mut Tx, grant_id: &str, tokens: &[GrantToken<'_>]) -> Result<()> {
    for t in tokens {
        tx.exec(
            "INSERT INTO grant_tokens (token_hash, grant_id, kind, scopes, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            args![t.hash, grant_id, t.kind, t.scopes, t.expires_at],
        )
        .await?;
    }
    Ok(())
}

async fn insert_grant(tx: &mut Tx, g: &OwnedGrant) -> Result<()> {
    tx.exec(
        "INSERT INTO oauth_grants (id, tenant_id, person_id, client_id, scopes, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        args![
            &g.id,
            &g.tenant_id,
            &g.person_id,
            g.client_id.as_deref(),
            &g.scopes,
            now_unix()
        ],
    )
    .await?;
    Ok(())
}

/// Revokes a grant and deletes its tokens.
async fn revoke_in(tx: &mut Tx, grant_id: &str) -> Result<bool> {
    tx.exec(
        "DELETE FROM grant_tokens WHERE grant_id = ?1",
        args![grant_id],
    )
    .await?;
    Ok(tx
        .exec(
            "UPDATE oauth_grants SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL",
            args![grant_id, now_unix()],
        )
        .await?
        == 1)
}

struct OwnedGrant {
    id: String,
    tenant_id: String,
    person_id: String,
    client_id: Option<String>,
    scopes: String,
}

impl From<&NewGrant<'_>> for OwnedGrant {
    fn from(g: &NewGrant<'_>) -> Self {
        Self {
            id: g.id.to_owned(),
            tenant_id: g.tenant_id.to_owned(),
            person_id: g.person_id.to_owned(),
            client_id: g.client_id.map(str::to_owned),
            scopes: g.scopes.to_owned(),
        }
    }
}

/// Owned copies of tokens, to move into a transaction.
fn owned(tokens: &[GrantToken<'_>]) -> Vec<(Vec<u8>, String, String, i64)> {
    tokens
        .iter()
        .map(|t| {
            (
                t.hash.to_vec(),
                t.kind.to_owned(),
                t.scopes.to_owned(),
                t.expires_at,
            )
        })
        .collect()
}

async fn insert_owned(
    tx: &mut Tx,
    grant_id: &str,
    t: &[(Vec<u8>, String, String, i64)],
) -> Result<()> {
    let tokens: Vec<GrantToken<'_>> = t
        .iter()
        .map(|(h, k, s, e)| GrantToken {
            hash: h,
            kind: k,
            scopes: s,
            expires_at: *e,
        })
        .collect();
    insert_tokens(tx, grant_id, &tokens).await
}

impl Grants<'_> {
    /// Stores an authorization code (forgetting codes expired a day ago).
    pub async fn insert_code(&self, c: &NewCode<'_>) -> Result<()> {
        self.0
            .exec(
                "DELETE FROM oauth_codes WHERE expires_at < ?1",
                args![now_unix() - 86_400],
            )
            .await?;
        self.0
            .exec(
                "INSERT INTO oauth_codes (code_hash, client_id, person_id, redirect_uri, scopes,
                                          challenge, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                args![
                    c.code_hash,
                    c.client_id,
                    c.person_id,
                    c.redirect_uri,
                    c.scopes,
                    c.challenge,
                    c.expires_at
                ],
            )
            .await?;
        Ok(())
    }

    /// The code with this hash, exchanged or not, expired or not.
    pub async fn code(&self, code_hash: &[u8]) -> Result<Option<CodeRow>> {
        let Some(r) = self
            .0
            .one(
                "SELECT c.client_id, c.person_id, p.tenant_id, c.redirect_uri, c.scopes,
                        c.challenge, c.expires_at, c.grant_id
                 FROM oauth_codes c JOIN people p ON p.id = c.person_id
                 WHERE c.code_hash = ?1",
                args![code_hash],
            )
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(CodeRow {
            client_id: r.text(0)?,
            person_id: r.text(1)?,
            tenant_id: r.text(2)?,
            redirect_uri: r.text(3)?,
            scopes: r.text(4)?,
            challenge: r.text(5)?,
            expires_at: r.i64(6)?,
            grant_id: r.opt_text(7)?,
        }))
    }

    /// Whether `person` consented to `client`: a code was issued for their consent, or a
    /// grant of theirs to it is live.
    pub async fn consented(&self, client_id: &str, person_id: &str) -> Result<bool> {
        Ok(self
            .0
            .one(
                "SELECT 1 FROM oauth_grants WHERE client_id = ?1 AND person_id = ?2 AND revoked_at IS NULL
                 UNION ALL
                 SELECT 1 FROM oauth_codes WHERE client_id = ?1 AND person_id = ?2",
                args![client_id, person_id],
            )
            .await?
            .is_some())
    }

    /// Exchanges a code: claims it for `grant` and stores the grant with `tokens`, all at
    /// once. A code claimed before revokes the grant its first exchange made.
    pub async fn redeem(
        &self,
        code_hash: &[u8],
        grant: &NewGrant<'_>,
        tokens: &[GrantToken<'_>],
    ) -> Result<Redeemed> {
        let (code_hash, grant, tokens) =
            (code_hash.to_vec(), OwnedGrant::from(grant), owned(tokens));
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let claimed = tx
                        .exec(
                            "UPDATE oauth_codes SET grant_id = ?2
                             WHERE code_hash = ?1 AND grant_id IS NULL AND expires_at > ?3",
                            args![&code_hash, &grant.id, now_unix()],
                        )
                        .await?;
                    if claimed == 1 {
                        insert_grant(tx, &grant).await?;
                        insert_owned(tx, &grant.id, &tokens).await?;
                        return Ok(Redeemed::Minted);
                    }
                    let first = tx
                        .one(
                            "SELECT grant_id FROM oauth_codes WHERE code_hash = ?1",
                            args![&code_hash],
                        )
                        .await?;
                    match first.map(|r| r.opt_text(0)).transpose()?.flatten() {
                        Some(g) => {
                            revoke_in(tx, &g).await?;
                            Ok(Redeemed::Reused)
                        }
                        None => Ok(Redeemed::Gone),
                    }
                })
            })
            .await
    }

    /// Stores a grant with no client (a token a person minted by hand) and its tokens.
    pub async fn insert_direct(
        &self,
        grant: &NewGrant<'_>,
        tokens: &[GrantToken<'_>],
    ) -> Result<()> {
        let (grant, tokens) = (OwnedGrant::from(grant), owned(tokens));
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    insert_grant(tx, &grant).await?;
                    insert_owned(tx, &grant.id, &tokens).await
                })
            })
            .await
    }

    /// The refresh token with this hash and its live grant.
    pub async fn refresh_token(&self, hash: &[u8]) -> Result<Option<RefreshRow>> {
        let Some(r) = self
            .0
            .one(
                "SELECT g.id, g.client_id, g.scopes, t.used_at, t.expires_at
                 FROM grant_tokens t JOIN oauth_grants g ON g.id = t.grant_id
                 WHERE t.token_hash = ?1 AND t.kind = 'refresh' AND g.revoked_at IS NULL",
                args![hash],
            )
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(RefreshRow {
            grant_id: r.text(0)?,
            client_id: r.opt_text(1)?,
            grant_scopes: r.text(2)?,
            used: r.opt_i64(3)?.is_some(),
            expired: r.i64(4)? <= now_unix(),
        }))
    }

    /// Spends refresh token `hash` of `grant_id` and stores `tokens` in its place, at once; a
    /// token spent before revokes the grant.
    pub async fn rotate(
        &self,
        hash: &[u8],
        grant_id: &str,
        tokens: &[GrantToken<'_>],
    ) -> Result<Rotated> {
        let (hash, grant_id, tokens) = (hash.to_vec(), grant_id.to_owned(), owned(tokens));
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let now = now_unix();
                    let spent = tx
                        .exec(
                            "UPDATE grant_tokens SET used_at = ?3
                             WHERE token_hash = ?1 AND grant_id = ?2 AND kind = 'refresh'
                               AND used_at IS NULL AND expires_at > ?3
                               AND EXISTS (SELECT 1 FROM oauth_grants g
                                           WHERE g.id = ?2 AND g.revoked_at IS NULL)",
                            args![&hash, &grant_id, now],
                        )
                        .await?;
                    if spent == 1 {
                        // the grant's tokens that can no longer be used or detected as reused
                        tx.exec(
                            "DELETE FROM grant_tokens WHERE grant_id = ?1 AND expires_at <= ?2",
                            args![&grant_id, now],
                        )
                        .await?;
                        insert_owned(tx, &grant_id, &tokens).await?;
                        return Ok(Rotated::Rotated);
                    }
                    let used = tx
                        .one(
                            "SELECT used_at FROM grant_tokens WHERE token_hash = ?1 AND grant_id = ?2",
                            args![&hash, &grant_id],
                        )
                        .await?;
                    match used.map(|r| r.opt_i64(0)).transpose()?.flatten() {
                        Some(_) => {
                            revoke_in(tx, &grant_id).await?;
                            Ok(Rotated::Reused)
                        }
                        None => Ok(Rotated::Gone),
                    }
                })
            })
            .await
    }

    /// Revokes the grant token `hash` if it belongs to `client_id` (RFC 7009): a refresh token
    /// revokes its whole grant, an access token only itself. False when nothing matched.
    pub async fn revoke_token(&self, hash: &[u8], client_id: &str) -> Result<bool> {
        let (hash, client_id) = (hash.to_vec(), client_id.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let Some(r) = tx
                        .one(
                            "SELECT t.grant_id, t.kind FROM grant_tokens t
                             JOIN oauth_grants g ON g.id = t.grant_id
                             WHERE t.token_hash = ?1 AND g.client_id = ?2",
                            args![&hash, &client_id],
                        )
                        .await?
                    else {
                        return Ok(false);
                    };
                    let (grant_id, kind) = (r.text(0)?, r.text(1)?);
                    if kind == "refresh" {
                        revoke_in(tx, &grant_id).await?;
                    } else {
                        tx.exec(
                            "DELETE FROM grant_tokens WHERE token_hash = ?1",
                            args![&hash],
                        )
                        .await?;
                    }
                    Ok(true)
                })
            })
            .await
    }

    /// What the live access token with this hash grants: unexpired, its grant unrevoked, its
    /// person enabled, its client (if any) unrevoked.
    pub async fn live_access(&self, hash: &[u8]) -> Result<Option<GrantAccess>> {
        let Some(r) = self
            .0
            .one(
                "SELECT g.id, g.tenant_id, t.scopes, p.email, g.client_id, t.expires_at, c.kind
                 FROM grant_tokens t
                 JOIN oauth_grants g ON g.id = t.grant_id
                 JOIN people p ON p.id = g.person_id
                 LEFT JOIN oauth_clients c ON c.client_id = g.client_id
                 WHERE t.token_hash = ?1 AND t.kind = 'access' AND t.expires_at > ?2
                   AND g.revoked_at IS NULL AND p.disabled_at IS NULL
                   AND (g.client_id IS NULL OR c.revoked_at IS NULL)",
                args![hash, now_unix()],
            )
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(GrantAccess {
            grant_id: r.text(0)?,
            tenant_id: r.text(1)?,
            scopes: r.text(2)?,
            person_email: r.text(3)?,
            client_id: r.opt_text(4)?,
            client_kind: r.opt_text(6)?,
            expires_at: r.i64(5)?,
        }))
    }
}
