//! The token endpoint's person grants: exchanging an authorization code (PKCE S256 checked,
//! the redirect URI repeated exactly, the code single-use — a second exchange revokes what the
//! first minted), rotating refresh tokens (one presented twice revokes its family), revoking a
//! token (RFC 7009), and the token a person mints by hand (`/login?mode=direct`). Access tokens
//! last 12 hours; refresh tokens 30 days, each usable once.

use pp_core::ScopeSet;
use pp_core::scope::PLUGIN_SCOPES;
use pp_store::signin::{GrantToken, NewGrant, Redeemed, Rotated};
use pp_store::{ClientRow, PersonRow, Store, now_unix};

use crate::authorize::{pkce_shaped, s256};
use crate::secret::{SecretKey, Verdict, random_id, random_token, token_hash, verify_secret};
use crate::sessions::constant_eq;
use crate::tokens::{OAuthError, TOKEN_TTL_SECS, TokenResponse, server_error};

/// How long a refresh token can be spent.
pub const REFRESH_TTL_SECS: i64 = 30 * 86_400;

/// Authenticates an application at the token or revocation endpoint: a confidential one by
/// its secret, a public one by its id alone (it must present no secret).
pub async fn authenticate_app(
    store: &Store,
    key: &SecretKey,
    client_id: &str,
    secret: Option<&str>,
) -> Result<ClientRow, OAuthError> {
    let row = store.clients().get(client_id).await.map_err(server_error)?;
    let Some(row) = row.filter(|r| r.revoked_at.is_none()) else {
        return Err(OAuthError::InvalidClient);
    };
    match (&row.secret_hash, secret) {
        (Some(hash), Some(s)) if verify_secret(key, s, hash) == Verdict::Matches => Ok(row),
        (None, None) => Ok(row),
        _ => Err(OAuthError::InvalidClient),
    }
}

/// A new access token (and refresh token, for a client's grant) for grant `grant_id`.
struct Minted {
    access: String,
    refresh: Option<String>,
}

impl Minted {
    fn new(with_refresh: bool) -> Result<Self, OAuthError> {
        Ok(Self {
            access: random_token("ppat_").map_err(server_error)?,
            refresh: if with_refresh {
                Some(random_token("pprt_").map_err(server_error)?)
            } else {
                None
            },
        })
    }

    fn hashes(&self) -> ([u8; 32], Option<[u8; 32]>) {
        (
            token_hash(&self.access),
            self.refresh.as_deref().map(token_hash),
        )
    }

    fn response(self, scopes: &str) -> TokenResponse {
        TokenResponse {
            access_token: self.access,
            token_type: "Bearer",
            expires_in: TOKEN_TTL_SECS,
            scope: scopes.to_owned(),
            refresh_token: self.refresh,
        }
    }
}

fn rows<'a>(hashes: &'a ([u8; 32], Option<[u8; 32]>), scopes: &'a str) -> Vec<GrantToken<'a>> {
    let now = now_unix();
    let mut v = vec![GrantToken {
        hash: &hashes.0,
        kind: "access",
        scopes,
        expires_at: now + TOKEN_TTL_SECS,
    }];
    if let Some(r) = &hashes.1 {
        v.push(GrantToken {
            hash: r,
            kind: "refresh",
            scopes,
            expires_at: now + REFRESH_TTL_SECS,
        });
    }
    v
}

fn invalid_grant(msg: &str) -> OAuthError {
    OAuthError::InvalidGrant(msg.to_owned())
}

/// Exchanges an authorization code for `client`'s access and refresh tokens.
pub async fn exchange_code(
    store: &Store,
    client: &ClientRow,
    code: &str,
    redirect_uri: Option<&str>,
    verifier: Option<&str>,
) -> Result<TokenResponse, OAuthError> {
    let hash = token_hash(code);
    let Some(row) = store.grants().code(&hash).await.map_err(server_error)? else {
        return Err(invalid_grant("the code is unknown or expired"));
    };
    if row.client_id != client.client_id {
        return Err(invalid_grant("the code was issued to another client"));
    }
    let verifier = verifier
        .ok_or_else(|| OAuthError::InvalidRequest("code_verifier is required (PKCE)".into()))?;
    if row.grant_id.is_none() {
        if row.expires_at <= now_unix() {
            return Err(invalid_grant(
                "the code expired; ask the person to sign in again",
            ));
        }
        if redirect_uri != Some(row.redirect_uri.as_str()) {
            return Err(invalid_grant(
                "redirect_uri must repeat the one the code was issued for, exactly",
            ));
        }
        if !pkce_shaped(verifier)
            || !constant_eq(s256(verifier).as_bytes(), row.challenge.as_bytes())
        {
            return Err(invalid_grant(
                "code_verifier does not match the code_challenge",
            ));
        }
    }
    let minted = Minted::new(true)?;
    let hashes = minted.hashes();
    let grant_id = random_id("grant_", 12).map_err(server_error)?;
    let grant = NewGrant {
        id: &grant_id,
        tenant_id: &row.tenant_id,
        person_id: &row.person_id,
        client_id: Some(&client.client_id),
        scopes: &row.scopes,
    };
    match store
        .grants()
        .redeem(&hash, &grant, &rows(&hashes, &row.scopes))
        .await
        .map_err(server_error)?
    {
        Redeemed::Minted => Ok(minted.response(&row.scopes)),
        Redeemed::Reused => Err(invalid_grant(
            "the code was already used; the tokens it minted are revoked",
        )),
        Redeemed::Gone => Err(invalid_grant("the code is unknown or expired")),
    }
}

/// Spends `client`'s refresh token for a new access and refresh token, narrowed to `scope` if
/// given. A refresh token spent before revokes its whole family.
pub async fn refresh(
    store: &Store,
    client: &ClientRow,
    refresh_token: &str,
    scope: Option<&str>,
) -> Result<TokenResponse, OAuthError> {
    let hash = token_hash(refresh_token);
    let Some(row) = store
        .grants()
        .refresh_token(&hash)
        .await
        .map_err(server_error)?
    else {
        return Err(invalid_grant(
            "the refresh token is unknown, expired or revoked",
        ));
    };
    if row.client_id.as_deref() != Some(client.client_id.as_str()) {
        return Err(invalid_grant(
            "the refresh token was issued to another client",
        ));
    }
    if row.expired && !row.used {
        return Err(invalid_grant("the refresh token expired; sign in again"));
    }
    let held = ScopeSet::parse(&row.grant_scopes).map_err(server_error)?;
    let scopes = match scope.map(str::trim).filter(|s| !s.is_empty()) {
        None => held,
        Some(s) => {
            let want =
                ScopeSet::parse(s).map_err(|e| OAuthError::InvalidScope(e.message().to_owned()))?;
            if !held.is_superset(&want) {
                return Err(OAuthError::InvalidScope(
                    "a refresh may narrow the grant's scopes, never widen them".into(),
                ));
            }
            want
        }
    }
    .to_oauth_string();
    let minted = Minted::new(true)?;
    let hashes = minted.hashes();
    match store
        .grants()
        .rotate(&hash, &row.grant_id, &rows(&hashes, &scopes))
        .await
        .map_err(server_error)?
    {
        Rotated::Rotated => Ok(minted.response(&scopes)),
        Rotated::Reused => Err(invalid_grant(
            "the refresh token was already used; every token of this sign-in is revoked",
        )),
        Rotated::Gone => Err(invalid_grant(
            "the refresh token is unknown, expired or revoked",
        )),
    }
}

/// Mints a token by hand for a signed-in person (`/login?mode=direct`): the plugin's scopes,
/// 12 hours, no refresh token.
pub async fn mint_direct(store: &Store, person: &PersonRow) -> Result<TokenResponse, OAuthError> {
    let scopes = ScopeSet::from_scopes(PLUGIN_SCOPES).to_oauth_string();
    let minted = Minted::new(false)?;
    let hashes = minted.hashes();
    let grant_id = random_id("grant_", 12).map_err(server_error)?;
    store
        .grants()
        .insert_direct(
            &NewGrant {
                id: &grant_id,
                tenant_id: &person.tenant_id,
                person_id: &person.id,
                client_id: None,
                scopes: &scopes,
            },
            &rows(&hashes, &scopes),
        )
        .await
        .map_err(server_error)?;
    Ok(minted.response(&scopes))
}

/// Revokes `token` for the client `client_id` (RFC 7009). A service credential authenticates
/// with its secret and revokes its own access tokens; an application revokes tokens of its
/// grants (a refresh token takes the whole grant with it). A token that is unknown, spent or
/// another client's is left alone, with the same answer.
pub async fn revoke_token(
    store: &Store,
    key: &SecretKey,
    client_id: &str,
    secret: Option<&str>,
    token: &str,
) -> Result<(), OAuthError> {
    let hash = token_hash(token);
    // without a secret only a public application names itself: any other id — unknown, a
    // confidential client's, a credential's — revokes nothing and is answered alike, so the
    // endpoint never tells which client ids exist
    let Some(secret) = secret else {
        match authenticate_app(store, key, client_id, None).await {
            Ok(client) => {
                store
                    .grants()
                    .revoke_token(&hash, &client.client_id)
                    .await
                    .map_err(server_error)?;
            }
            Err(OAuthError::InvalidClient) => {}
            Err(e) => return Err(e),
        }
        return Ok(());
    };
    if store
        .credentials()
        .by_client_id(client_id)
        .await
        .map_err(server_error)?
        .is_some()
    {
        let cred = crate::authenticate_client(store, key, client_id, secret).await?;
        store
            .tokens()
            .revoke(&hash, &cred.id)
            .await
            .map_err(server_error)?;
        return Ok(());
    }
    let client = authenticate_app(store, key, client_id, Some(secret)).await?;
    store
        .grants()
        .revoke_token(&hash, &client.client_id)
        .await
        .map_err(server_error)?;
    Ok(())
}
