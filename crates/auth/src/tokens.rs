//! Client authentication, `client_credentials` access tokens, the token endpoint's errors, and
//! bearer verification for every kind of token (a service credential's, a person's grant's).

use pp_core::{Principal, Result, ScopeSet, Surface, TenantId};
use pp_store::{CredentialRow, NewToken, Store, now_unix};

use crate::secret::{SecretKey, Verdict, hash_secret, random_token, token_hash, verify_secret};

/// Access token lifetime: 12 hours (docs/limits.md).
pub const TOKEN_TTL_SECS: i64 = 43_200;

/// A token-endpoint error (RFC 6749, docs/auth.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OAuthError {
    /// Unknown client, wrong secret or revoked credential (HTTP 401).
    InvalidClient,
    /// Malformed request (HTTP 400).
    InvalidRequest(String),
    /// Requested scope not held by the client (HTTP 400).
    InvalidScope(String),
    /// A code or refresh token that is unknown, expired, spent or not the client's (HTTP 400).
    InvalidGrant(String),
    /// The client may not use this grant type (HTTP 400).
    UnauthorizedClient(String),
    /// Grant type not served (HTTP 400).
    UnsupportedGrantType(String),
    /// The service failed (HTTP 500); the cause is logged.
    ServerError(String),
    /// Too many attempts from this address or for this client; retry after the wait (429).
    RateLimited(std::time::Duration),
    /// The request body is larger than the endpoint reads (413).
    TooLarge(usize),
}

impl OAuthError {
    /// The `error` code.
    pub fn code(&self) -> &'static str {
        match self {
            OAuthError::InvalidClient => "invalid_client",
            OAuthError::InvalidRequest(_) => "invalid_request",
            OAuthError::InvalidScope(_) => "invalid_scope",
            OAuthError::InvalidGrant(_) => "invalid_grant",
            OAuthError::UnauthorizedClient(_) => "unauthorized_client",
            OAuthError::UnsupportedGrantType(_) => "unsupported_grant_type",
            OAuthError::ServerError(_) => "server_error",
            OAuthError::RateLimited(_) => "temporarily_unavailable",
            OAuthError::TooLarge(_) => "invalid_request",
        }
    }

    /// The `error_description` (never a secret, never an internal cause).
    pub fn description(&self) -> String {
        match self {
            OAuthError::InvalidClient => "client authentication failed".into(),
            OAuthError::InvalidRequest(m)
            | OAuthError::InvalidScope(m)
            | OAuthError::InvalidGrant(m)
            | OAuthError::UnauthorizedClient(m) => m.clone(),
            OAuthError::UnsupportedGrantType(g) => format!(
                "grant type '{g}' is not supported; use client_credentials, authorization_code or refresh_token"
            ),
            OAuthError::ServerError(_) => "the authorization server failed".into(),
            OAuthError::RateLimited(wait) => format!(
                "too many token requests; retry after {} s (cache tokens: they last 12 hours)",
                wait.as_secs().max(1)
            ),
            OAuthError::TooLarge(max) => {
                format!("the request body is larger than {max} bytes")
            }
        }
    }

    /// HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            OAuthError::InvalidClient => 401,
            OAuthError::ServerError(_) => 500,
            OAuthError::RateLimited(_) => 429,
            OAuthError::TooLarge(_) => 400,
            _ => 400,
        }
    }
}

pub(crate) fn server_error(e: pp_core::Error) -> OAuthError {
    let chain = e.chain();
    OAuthError::ServerError(if chain.is_empty() {
        e.message().to_owned()
    } else {
        chain
    })
}

/// Checks a client id and secret against `key` (the store's [`SecretKey`]); a revoked
/// credential or a wrong secret is `invalid_client`. An unknown client id costs the same keyed
/// hash as a known one. A credential still hashed the old way (argon2) is moved to the keyed
/// hash on its first successful use.
pub async fn authenticate_client(
    store: &Store,
    key: &SecretKey,
    client_id: &str,
    client_secret: &str,
) -> Result<CredentialRow, OAuthError> {
    let row = store
        .credentials()
        .by_client_id(client_id)
        .await
        .map_err(server_error)?;
    let Some(mut row) = row else {
        let _ = hash_secret(key, client_secret);
        return Err(OAuthError::InvalidClient);
    };
    if row.revoked_at.is_some() {
        return Err(OAuthError::InvalidClient);
    }
    match verify_secret(key, client_secret, &row.secret_hash) {
        Verdict::Matches => Ok(row),
        Verdict::MatchesLegacy => {
            let keyed = hash_secret(key, client_secret);
            if store
                .credentials()
                .rehash(&row.id, &row.secret_hash, &keyed)
                .await
                .map_err(server_error)?
            {
                row.secret_hash = keyed;
            }
            Ok(row)
        }
        Verdict::Wrong => Err(OAuthError::InvalidClient),
    }
}

/// A successful token response (RFC 6749, docs/auth.md).
#[derive(Debug, Clone, serde::Serialize)]
pub struct TokenResponse {
    /// The opaque bearer token.
    pub access_token: String,
    /// Always `Bearer`.
    pub token_type: &'static str,
    /// Seconds until expiry.
    pub expires_in: i64,
    /// The granted scopes, space-separated.
    pub scope: String,
    /// For a client's grant: the token that gets the next access token (once).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
}

/// Mints an access token for an authenticated credential. With `requested`, the token holds
/// the requested scopes the credential holds (RFC 6749, docs/auth.md: the answer's `scope` names what
/// was granted); a request naming none of them is refused, and so is an unknown scope name.
pub async fn mint_token(
    store: &Store,
    cred: &CredentialRow,
    requested: Option<&str>,
) -> Result<TokenResponse, OAuthError> {
    let held = ScopeSet::parse(&cred.scopes).map_err(server_error)?;
    let granted = match requested.map(str::trim).filter(|s| !s.is_empty()) {
        None => held,
        Some(req) => {
            let want = ScopeSet::parse(req)
                .map_err(|e| OAuthError::InvalidScope(e.message().to_owned()))?;
            let granted = held.intersection(&want);
            if granted.is_empty() {
                return Err(OAuthError::InvalidScope(format!(
                    "this client holds none of: {}",
                    want.to_oauth_string()
                )));
            }
            granted
        }
    };
    let token = random_token("ppat_").map_err(server_error)?;
    let scope = granted.to_oauth_string();
    let stored = store
        .tokens()
        .insert(&NewToken {
            token_hash: &token_hash(&token),
            credential_id: &cred.id,
            tenant_id: &cred.tenant_id,
            scopes: &scope,
            expires_at: now_unix() + TOKEN_TTL_SECS,
            secret_hash: &cred.secret_hash,
        })
        .await
        .map_err(server_error)?;
    if !stored {
        // Rotated or revoked between authentication and now: the secret is no longer good.
        return Err(OAuthError::InvalidClient);
    }
    Ok(TokenResponse {
        access_token: token,
        token_type: "Bearer",
        expires_in: TOKEN_TTL_SECS,
        scope,
        refresh_token: None,
    })
}

/// Turns a bearer token into a principal; `None` when it is unknown, expired or revoked. A
/// person's token acts under their email; a client's grant records the client as the
/// surface.
pub async fn verify_bearer(store: &Store, token: &str) -> Result<Option<Principal>> {
    Ok(live_grant(store, token).await?.map(|(p, _)| p))
}

/// The principal of a live bearer token and when the token expires (Unix seconds); none
/// for anything else.
pub(crate) async fn live_grant(store: &Store, token: &str) -> Result<Option<(Principal, i64)>> {
    if !token.starts_with("ppat_") || token.len() > 128 {
        return Ok(None);
    }
    let Some(grant) = store.tokens().live(&token_hash(token)).await? else {
        return Ok(None);
    };
    let actor = match &grant.person_email {
        Some(email) => pp_core::Actor::person(email),
        None => pp_core::Actor::service(&grant.label, &grant.credential_id),
    };
    let principal = Principal {
        tenant: TenantId::parse(&grant.tenant_id)?,
        actor,
        scopes: ScopeSet::parse(&grant.scopes)?,
        credential_id: grant.credential_id,
        surface: match &grant.client_id {
            Some(client) => Surface::Partner(client.clone()),
            None => Surface::Api,
        },
        app: grant.client_id.map(|client_id| pp_core::App {
            client_id,
            self_registered: grant.client_kind.as_deref() == Some("dynamic"),
        }),
    };
    Ok(Some((principal, grant.expires_at)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{create_credential, rotate_credential};

    async fn key(store: &Store) -> SecretKey {
        SecretKey::of(store).await.unwrap()
    }

    /// Authenticates `c` with its own secret.
    async fn login(store: &Store, c: &crate::CreatedCredential) -> CredentialRow {
        authenticate_client(store, &key(store).await, &c.row.client_id, &c.client_secret)
            .await
            .unwrap()
    }

    async fn setup() -> (tempfile::TempDir, Store, TenantId) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let t = TenantId::parse("acme").unwrap();
        store
            .tenants()
            .create(&t, "Acme", "sqlite:/dev/null")
            .await
            .unwrap();
        (dir, store, t)
    }

    /// Two credentials with the same label never read alike in a trail: the actor names the
    /// credential (it was `svc:service` for both).
    #[tokio::test]
    async fn the_actor_names_the_credential_uniquely() {
        let (_d, store, t) = setup().await;
        let actor = async |label: &str| {
            let c = create_credential(&store, &t, None, label).await.unwrap();
            let row = login(&store, &c).await;
            let tok = mint_token(&store, &row, None).await.unwrap();
            let p = verify_bearer(&store, &tok.access_token)
                .await
                .unwrap()
                .unwrap();
            (p.actor.to_string(), c.row.id)
        };
        let (a, id_a) = actor("service").await;
        let (b, _) = actor("service").await;
        assert_ne!(a, b);
        assert_eq!(a, format!("svc:service/{id_a}"));
    }

    #[tokio::test]
    async fn mint_verify_revoke() {
        let (_d, store, t) = setup().await;
        let c = create_credential(&store, &t, None, "etl").await.unwrap();
        assert!(c.row.scopes.contains("sql:query"));
        let row = login(&store, &c).await;
        assert_eq!(
            authenticate_client(&store, &key(&store).await, &c.row.client_id, "wrong")
                .await
                .unwrap_err(),
            OAuthError::InvalidClient
        );
        let tok = mint_token(&store, &row, Some("sql:query")).await.unwrap();
        assert_eq!(tok.scope, "sql:query");
        let p = verify_bearer(&store, &tok.access_token)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(p.actor.as_str(), format!("svc:etl/{}", c.row.id));
        assert_eq!(
            mint_token(&store, &row, Some("ads:write"))
                .await
                .unwrap_err()
                .code(),
            "invalid_scope"
        );
        store.credentials().revoke(&row.id).await.unwrap();
        assert!(
            verify_bearer(&store, &tok.access_token)
                .await
                .unwrap()
                .is_none()
        );
    }

    /// A token minted from the old secret while a rotation lands is never stored.
    #[tokio::test]
    async fn a_mint_racing_a_rotation_stores_nothing() {
        let (_d, store, t) = setup().await;
        let c = create_credential(&store, &t, None, "etl").await.unwrap();
        let row = login(&store, &c).await;
        rotate_credential(&store, &c.row.client_id).await.unwrap();
        assert_eq!(
            mint_token(&store, &row, None).await.unwrap_err(),
            OAuthError::InvalidClient
        );
    }

    #[tokio::test]
    async fn rotation_kills_old_secret_and_tokens() {
        let (_d, store, t) = setup().await;
        let c = create_credential(&store, &t, None, "etl").await.unwrap();
        let tok = mint_token(&store, &c.row, None).await.unwrap();
        let r = rotate_credential(&store, &c.row.client_id).await.unwrap();
        assert!(
            verify_bearer(&store, &tok.access_token)
                .await
                .unwrap()
                .is_none()
        );
        assert!(
            authenticate_client(
                &store,
                &key(&store).await,
                &c.row.client_id,
                &c.client_secret
            )
            .await
            .is_err()
        );
        assert!(
            authenticate_client(
                &store,
                &key(&store).await,
                &c.row.client_id,
                &r.client_secret
            )
            .await
            .is_ok()
        );
    }
}
