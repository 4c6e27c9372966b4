//! Browser sessions: after a person signs in with their password, the cookie carries a random
//! session id (256 bits; the store keeps its SHA-256) and every form of the session carries its
//! CSRF token. Sessions last 12 hours and end at sign-out, when the person is disabled, or when
//! their password is reset.

use pp_core::principal::Surface;
use pp_core::{Actor, Principal, Result, Scope, ScopeSet, TenantId};
use pp_store::{PersonRow, SessionRow, Store, now_unix};

use crate::secret::{random_token, token_hash};

/// How long a browser session lasts.
pub const SESSION_TTL_SECS: i64 = 43_200;

/// Starts a session for a person who just signed in; the cookie's value (its CSRF token is
/// read back with the session).
pub async fn start_session(store: &Store, person: &PersonRow) -> Result<String> {
    let cookie = random_token("ppsess_")?;
    let csrf = random_token("")?;
    let expires_at = now_unix() + SESSION_TTL_SECS;
    store
        .sessions()
        .insert(&token_hash(&cookie), &person.id, &csrf, expires_at)
        .await?;
    Ok(cookie)
}

/// The live session a cookie names.
pub async fn session(store: &Store, cookie: &str) -> Result<Option<SessionRow>> {
    if !cookie.starts_with("ppsess_") || cookie.len() > 128 {
        return Ok(None);
    }
    store.sessions().live(&token_hash(cookie)).await
}

/// Ends the session a cookie names.
pub async fn end_session(store: &Store, cookie: &str) -> Result<()> {
    store.sessions().delete(&token_hash(cookie)).await
}

/// Whether a form's CSRF token is its session's (compared in constant time).
pub fn csrf_matches(session: &SessionRow, presented: &str) -> bool {
    constant_eq(session.csrf.as_bytes(), presented.as_bytes())
}

/// Byte equality that takes the same time wherever the first difference is.
pub fn constant_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A fresh CSRF token for a form that has no session yet (the sign-in form).
pub fn new_csrf() -> Result<String> {
    random_token("")
}

/// The principal a console page calls a service with: the person, in their tenant, holding
/// `scopes` (what the page reads, granted by the person's role, never by a token).
pub fn console_principal(s: &SessionRow, scopes: &[Scope]) -> Result<Principal> {
    Ok(Principal {
        tenant: TenantId::parse(&s.person.tenant_id)?,
        actor: Actor::person(&s.person.email),
        scopes: ScopeSet::from_scopes(scopes),
        credential_id: s.person.id.clone(),
        surface: Surface::Console,
        app: None,
    })
}
