//! The authorization endpoint's logic (the OAuth code flow with PKCE, RFC 6749 and RFC 7636; docs/auth.md): checking a request,
//! what the consent page shows, and the code a consent issues. Only `response_type=code` with
//! an S256 challenge is served; the redirect URI must equal a registered one exactly. Errors
//! about the client or its redirect URI are shown to the person (never sent to an unchecked
//! URI); the rest go back to the client's redirect URI with its `state`.

use pp_core::{Error, Scope, ScopeSet};
use pp_store::signin::NewCode;
use pp_store::{ClientRow, PersonRow, Store, now_unix};
use sha2::{Digest, Sha256};

use crate::clients::MAX_DYNAMIC_PER_TENANT;
use crate::secret::{random_token, token_hash};

/// How long an authorization code can be exchanged.
pub const CODE_TTL_SECS: i64 = 120;

/// The authorization request's parameters, as received.
#[derive(Debug, Clone, Default, serde::Deserialize, serde::Serialize)]
pub struct AuthorizeParams {
    pub response_type: Option<String>,
    pub client_id: Option<String>,
    pub redirect_uri: Option<String>,
    pub scope: Option<String>,
    pub state: Option<String>,
    pub code_challenge: Option<String>,
    pub code_challenge_method: Option<String>,
    /// RFC 8707: the resource the token is for (this service or its MCP endpoint).
    pub resource: Option<String>,
}

/// Why an authorization request cannot go on.
#[derive(Debug)]
pub enum AuthorizeError {
    /// Shown to the person: the client or redirect URI cannot be trusted with an answer.
    Page(String),
    /// Sent back to the client (`error`, `error_description`, `state` on the redirect URI).
    Redirect {
        redirect_uri: String,
        error: &'static str,
        description: String,
        state: Option<String>,
    },
    /// The store failed.
    Server(Error),
}

impl AuthorizeError {
    /// The URL the browser is sent to for a `Redirect` error.
    pub fn redirect_url(&self) -> Option<String> {
        match self {
            AuthorizeError::Redirect {
                redirect_uri,
                error,
                description,
                state,
            } => {
                let mut q = vec![
                    ("error", *error),
                    ("error_description", description.as_str()),
                ];
                if let Some(s) = state {
                    q.push(("state", s));
                }
                Some(with_query(redirect_uri, &q))
            }
            _ => None,
        }
    }
}

/// `uri` with `pairs` appended to its query string.
pub fn with_query(uri: &str, pairs: &[(&str, &str)]) -> String {
    let mut ser = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        ser.append_pair(k, v);
    }
    let sep = if uri.contains('?') { '&' } else { '?' };
    format!("{uri}{sep}{}", ser.finish())
}

/// A checked request: what the consent page names and what approving it issues.
#[derive(Debug, Clone)]
pub struct Consent {
    pub client: ClientRow,
    pub redirect_uri: String,
    pub scopes: ScopeSet,
    pub state: Option<String>,
    pub challenge: String,
}

impl Consent {
    /// Each scope with what it lets the application do, in plain words.
    pub fn scope_words(&self) -> Vec<(&'static str, &'static str)> {
        self.scopes
            .iter()
            .map(|s| (s.as_str(), s.plain()))
            .collect()
    }
}

fn page(msg: impl Into<String>) -> AuthorizeError {
    AuthorizeError::Page(msg.into())
}

/// A PKCE value: 43-128 characters of `A-Z a-z 0-9 - . _ ~` (RFC 7636, docs/auth.md).
pub fn pkce_shaped(v: &str) -> bool {
    (43..=128).contains(&v.len())
        && v.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// The S256 challenge of a verifier.
pub fn s256(verifier: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Checks an authorization request against the registered client, for `asker` (the person
/// signed in, if anyone is). `resource_base` is the service's public URL: a `resource` must be
/// it or a URL under it.
pub async fn check_authorize(
    store: &Store,
    p: &AuthorizeParams,
    resource_base: &str,
    asker: Option<&PersonRow>,
) -> Result<Consent, AuthorizeError> {
    let client_id = p
        .client_id
        .as_deref()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| page("The application did not say who it is (client_id is missing)."))?;
    let client = store
        .clients()
        .get(client_id)
        .await
        .map_err(AuthorizeError::Server)?
        .filter(|c| c.revoked_at.is_none())
        .ok_or_else(|| page("This application is not registered here, or it was revoked."))?;
    let redirect_uri = match p.redirect_uri.as_deref() {
        Some(u) if client.redirect_uris.iter().any(|r| r == u) => u.to_owned(),
        Some(_) => {
            return Err(page(
                "The application asked to send you to an address it did not register. Nothing was shared.",
            ));
        }
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        None => {
            return Err(page(
                "The application did not say where to send you back (redirect_uri).",
            ));
        }
    };
    let state = p.state.clone();
    // an error goes back to the application only at an address someone vouched for: an
    // application an operator or admin registered; a client that registered itself only for
    // the signed-in person who consented to it (anyone can register a client and consent to
    // it once, so its consent vouches for nobody else). To any other the browser is shown the
    // error here, so the endpoint cannot send people to an address anyone registered
    // (RFC 9700, docs/auth.md)
    let trusted = client.kind != "dynamic"
        || match asker {
            Some(person) => store
                .grants()
                .consented(&client.client_id, &person.id)
                .await
                .map_err(AuthorizeError::Server)?,
            None => false,
        };
    let fail = |error: &'static str, description: String| {
        if !trusted {
            return page(format!(
                "The application's request was refused: {description}."
            ));
        }
        AuthorizeError::Redirect {
            redirect_uri: redirect_uri.clone(),
            error,
            description,
            state: state.clone(),
        }
    };
    if state.as_ref().is_some_and(|s| s.len() > 2_000) {
        return Err(fail(
            "invalid_request",
            "state is longer than 2000 characters".into(),
        ));
    }
    match p.response_type.as_deref() {
        Some("code") => {}
        Some(other) => {
            return Err(fail(
                "unsupported_response_type",
                format!("response_type '{other}' is not served; use code"),
            ));
        }
        None => {
            return Err(fail(
                "invalid_request",
                "response_type is required (code)".into(),
            ));
        }
    }
    match p.code_challenge_method.as_deref() {
        Some("S256") => {}
        Some(m) => {
            return Err(fail(
                "invalid_request",
                format!("code_challenge_method '{m}' is refused; use S256"),
            ));
        }
        None => {
            return Err(fail(
                "invalid_request",
                "PKCE is required: send code_challenge with code_challenge_method=S256".into(),
            ));
        }
    }
    let challenge = match p.code_challenge.as_deref() {
        Some(c) if pkce_shaped(c) => c.to_owned(),
        _ => {
            return Err(fail(
                "invalid_request",
                "code_challenge must be 43-128 characters of A-Z a-z 0-9 - . _ ~".into(),
            ));
        }
    };
    if let Some(r) = p.resource.as_deref()
        && r != resource_base
        && !r.starts_with(&format!("{resource_base}/"))
    {
        return Err(fail(
            "invalid_target",
            format!("resource '{r}' is not served here; use {resource_base}/mcp"),
        ));
    }
    let allowed = ScopeSet::parse(&client.scopes).map_err(AuthorizeError::Server)?;
    // a request beyond what the application may hold is narrowed to it (RFC 6749, docs/auth.md): the
    // consent page shows, and the token holds, only those; one naming none of them is refused
    let scopes = match p.scope.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => allowed,
        Some(s) => allowed.intersection(
            &ScopeSet::parse(s).map_err(|e| fail("invalid_scope", e.message().to_owned()))?,
        ),
    };
    if scopes.is_empty() {
        return Err(fail(
            "invalid_scope",
            format!(
                "this application may ask only for: {}",
                allowed.to_oauth_string()
            ),
        ));
    }
    scopes
        .validate_grant()
        .map_err(|e| fail("invalid_scope", e.message().to_owned()))?;
    Ok(Consent {
        client,
        redirect_uri,
        scopes,
        state,
        challenge,
    })
}

/// Why `person` may not approve `consent`, if they may not.
async fn refusal(store: &Store, person: &PersonRow, c: &Consent) -> Result<Option<String>, Error> {
    if let Some(t) = &c.client.tenant_id
        && t != &person.tenant_id
    {
        return Ok(Some(
            "This application belongs to another organization; you cannot sign in to it.".into(),
        ));
    }
    let admin_only: Vec<&str> = c
        .scopes
        .iter()
        .filter(|s| s.admin_only())
        .map(Scope::as_str)
        .collect();
    if !admin_only.is_empty() && person.role != "admin" {
        return Ok(Some(format!(
            "Only an admin of your organization can grant {}.",
            admin_only.join(", ")
        )));
    }
    if c.client.kind == "dynamic"
        && c.client.tenant_id.is_none()
        && !store
            .clients()
            .bind(
                &c.client.client_id,
                &person.tenant_id,
                MAX_DYNAMIC_PER_TENANT,
            )
            .await?
    {
        return Ok(Some(format!(
            "Your organization already has {MAX_DYNAMIC_PER_TENANT} connected AI clients. An admin can remove one in the console."
        )));
    }
    Ok(None)
}

/// Issues a code for `person`'s consent; the URL the browser goes back to with it.
pub async fn approve(
    store: &Store,
    person: &PersonRow,
    c: &Consent,
) -> Result<String, AuthorizeError> {
    if let Some(why) = refusal(store, person, c)
        .await
        .map_err(AuthorizeError::Server)?
    {
        return Err(page(why));
    }
    let code = random_token("ppcode_").map_err(AuthorizeError::Server)?;
    store
        .grants()
        .insert_code(&NewCode {
            code_hash: &token_hash(&code),
            client_id: &c.client.client_id,
            person_id: &person.id,
            redirect_uri: &c.redirect_uri,
            scopes: &c.scopes.to_oauth_string(),
            challenge: &c.challenge,
            expires_at: now_unix() + CODE_TTL_SECS,
        })
        .await
        .map_err(AuthorizeError::Server)?;
    let mut q = vec![("code", code.as_str())];
    if let Some(s) = &c.state {
        q.push(("state", s));
    }
    Ok(with_query(&c.redirect_uri, &q))
}

/// The URL the browser goes back to when the person declines.
pub fn deny(c: &Consent) -> String {
    AuthorizeError::Redirect {
        redirect_uri: c.redirect_uri.clone(),
        error: "access_denied",
        description: "the person declined".into(),
        state: c.state.clone(),
    }
    .redirect_url()
    .unwrap_or_else(|| c.redirect_uri.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_is_the_unpadded_base64url_sha256() {
        // computed apart, with Python's hashlib and base64
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFQEjXk"),
            "WNwgvE_QrWuiw_M54Xy59-BKkDufmw600G-KZVtRqWc"
        );
        assert!(pkce_shaped("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFQEjXk"));
        assert!(!pkce_shaped("short"));
        assert!(!pkce_shaped(&"a b".repeat(20)));
    }
}
