//! OAuth clients: partner applications (registered by the operator for every tenant, or by a
//! tenant admin for their own tenant; confidential with a secret shown once, or public) and
//! MCP clients registering themselves (RFC 7591), which are always public, get at most the
//! documented default scopes, and are bounded: a limited number may wait unbound for a first
//! consent, and a tenant holds a limited number once its people consent.

use pp_core::{Error, Kind, Result, Scope, ScopeSet, TenantId};
use pp_store::signin::NewClient;
use pp_store::{ClientRow, Store};

use crate::secret::{SecretKey, hash_secret, random_id, random_token};

/// The scopes a dynamically registered client may ask for: what an interactive sign-in holds.
pub const DYNAMIC_CLIENT_SCOPES: &[Scope] = pp_core::scope::PLUGIN_SCOPES;
/// Dynamic clients that may wait for a first consent at once (older than a day are dropped).
pub const MAX_UNBOUND_DYNAMIC: i64 = 1_000;
/// How long a dynamic client whose consent page a signed-in person opened is kept from
/// eviction while it waits for their answer.
pub const PENDING_AUTHORIZATION_SECS: i64 = 30 * 60;
/// Dynamic clients one tenant may hold (revoke one in the console to make room).
pub const MAX_DYNAMIC_PER_TENANT: i64 = 50;
/// Redirect URIs one client may register.
pub const MAX_REDIRECT_URIS: usize = 10;

/// A registered client and, for a confidential one, its secret (shown once).
pub struct CreatedClient {
    pub row: ClientRow,
    pub client_secret: Option<String>,
}

/// What a partner application is registered with.
pub struct PartnerApp<'a> {
    pub name: &'a str,
    pub redirect_uris: &'a [String],
    pub scopes: &'a str,
    pub confidential: bool,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

/// Checks a redirect URI: at most 2,000 characters, read as a browser reads it (the WHATWG
/// URL rules, through the `url` crate) and written exactly as that reading writes it back —
/// so no character or host is read one way here and another way by the browser —, with a
/// host and no user or fragment, and `https`, or `http` on a loopback host (`127.0.0.1`,
/// `[::1]`, `localhost`) for native and local clients.
pub fn check_redirect_uri(uri: &str) -> Result<()> {
    if uri.len() > 2_000 || uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad(format!(
            "redirect URI '{uri}' is too long or holds spaces"
        )));
    }
    let url = url::Url::parse(uri)
        .map_err(|e| bad(format!("redirect URI '{uri}' is not an absolute URL ({e})")))?;
    if url.as_str() != uri {
        return Err(bad(format!(
            "redirect URI '{uri}' reads differently to a browser, as '{url}': register it in that form"
        )));
    }
    if url.fragment().is_some() {
        return Err(bad(format!("redirect URI '{uri}' may not hold a fragment")));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(bad(format!("redirect URI '{uri}' may not name a user")));
    }
    // port 0 is no port a browser can be sent to
    if url.port() == Some(0) {
        return Err(bad(format!("redirect URI '{uri}' names port 0")));
    }
    let loopback = match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback() && ip == std::net::Ipv4Addr::LOCALHOST,
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(d)) => d == "localhost",
        None => return Err(bad(format!("redirect URI '{uri}' names no host"))),
    };
    match url.scheme() {
        "https" => Ok(()),
        "http" if loopback => Ok(()),
        _ => Err(bad(format!(
            "redirect URI '{uri}' must use https, or http on a loopback address (127.0.0.1, [::1], localhost)"
        ))),
    }
}

fn check_uris(uris: &[String]) -> Result<()> {
    if uris.is_empty() || uris.len() > MAX_REDIRECT_URIS {
        return Err(bad(format!(
            "a client registers 1 to {MAX_REDIRECT_URIS} redirect URIs"
        )));
    }
    uris.iter().try_for_each(|u| check_redirect_uri(u))
}

fn check_name(name: &str) -> Result<&str> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 80 {
        return Err(bad("an application name is 1-80 characters"));
    }
    pp_core::text::check_one_line("application name", name)?;
    Ok(name)
}

/// Registers a partner application: for every tenant (`tenant` `None`, the operator's
/// command) or for one tenant (its admin, in the console). `appstate:write` is never granted
/// to an application.
pub async fn register_partner_app(
    store: &Store,
    tenant: Option<&TenantId>,
    app: &PartnerApp<'_>,
    created_by: &str,
) -> Result<CreatedClient> {
    let name = check_name(app.name)?;
    check_uris(app.redirect_uris)?;
    let scopes = ScopeSet::parse(app.scopes)?;
    scopes.validate_grant()?;
    if scopes.contains(Scope::AppstateWrite) {
        return Err(bad(
            "appstate:write is minted only for the app's own credential, never for an application",
        ));
    }
    let client_secret = if app.confidential {
        Some(random_token("ppas_")?)
    } else {
        None
    };
    let key = SecretKey::of(store).await?;
    let secret_hash = client_secret.as_deref().map(|s| hash_secret(&key, s));
    let row = store
        .clients()
        .insert(&NewClient {
            client_id: &random_id("ppapp_", 12)?,
            tenant_id: tenant.map(|t| t.as_str()),
            kind: "partner",
            name,
            secret_hash: secret_hash.as_deref(),
            redirect_uris: app.redirect_uris,
            scopes: &scopes.to_oauth_string(),
            created_by,
        })
        .await?;
    Ok(CreatedClient { row, client_secret })
}

/// What an MCP client asks for when it registers itself (RFC 7591, docs/auth.md, the fields read).
pub struct DynamicRequest<'a> {
    pub client_name: Option<&'a str>,
    pub redirect_uris: &'a [String],
    /// Space-separated; absent means the default set.
    pub scope: Option<&'a str>,
    pub token_endpoint_auth_method: Option<&'a str>,
    pub grant_types: Option<&'a [String]>,
    pub response_types: Option<&'a [String]>,
}

/// Why a registration was refused (RFC 7591, docs/auth.md).
#[derive(Debug)]
pub enum RegisterError {
    /// `invalid_redirect_uri`.
    RedirectUri(String),
    /// `invalid_client_metadata`.
    Metadata(String),
    /// Every client waiting for a first consent is in a pending authorization: nothing can
    /// make room now (`temporarily_unavailable`).
    Full,
    /// The store failed.
    Server(Error),
}

impl RegisterError {
    /// The RFC 7591 error code.
    pub fn code(&self) -> &'static str {
        match self {
            RegisterError::RedirectUri(_) => "invalid_redirect_uri",
            RegisterError::Metadata(_) => "invalid_client_metadata",
            RegisterError::Full => "temporarily_unavailable",
            RegisterError::Server(_) => "server_error",
        }
    }

    /// The description (never an internal cause).
    pub fn description(&self) -> String {
        match self {
            RegisterError::RedirectUri(m) | RegisterError::Metadata(m) => m.clone(),
            RegisterError::Full => {
                "too many clients are waiting for a person's consent right now; retry later".into()
            }
            RegisterError::Server(_) => "the authorization server failed".into(),
        }
    }
}

fn metadata(e: Error) -> RegisterError {
    RegisterError::Metadata(e.message().to_owned())
}

/// Checks what a dynamic client asks for; the scopes it gets.
fn check_dynamic(req: &DynamicRequest<'_>) -> Result<ScopeSet, RegisterError> {
    check_uris(req.redirect_uris)
        .map_err(|e| RegisterError::RedirectUri(e.message().to_owned()))?;
    if let Some(m) = req.token_endpoint_auth_method
        && m != "none"
    {
        return Err(RegisterError::Metadata(format!(
            "token_endpoint_auth_method '{m}' is not offered to registered clients; use none (PKCE protects the code)"
        )));
    }
    if let Some(g) = req.grant_types
        && let Some(other) = g
            .iter()
            .find(|g| !matches!(g.as_str(), "authorization_code" | "refresh_token"))
    {
        return Err(RegisterError::Metadata(format!(
            "grant type '{other}' is not offered to registered clients; use authorization_code and refresh_token"
        )));
    }
    if let Some(r) = req.response_types
        && r.iter().any(|r| r != "code")
    {
        return Err(RegisterError::Metadata(
            "registered clients use response type 'code' only".into(),
        ));
    }
    // what it asks for beyond what a registered client may hold is left out (RFC 7591, docs/auth.md:
    // the answer names the scopes registered); asking for none of those is refused
    let allowed = ScopeSet::from_scopes(DYNAMIC_CLIENT_SCOPES);
    let scopes = match req.scope.map(str::trim).filter(|s| !s.is_empty()) {
        None => allowed,
        Some(s) => allowed.intersection(&ScopeSet::parse(s).map_err(metadata)?),
    };
    if scopes.is_empty() {
        return Err(RegisterError::Metadata(format!(
            "a registered client may ask only for: {}",
            allowed.to_oauth_string()
        )));
    }
    scopes.validate_grant().map_err(metadata)?;
    Ok(scopes)
}

/// Registers a public client for an MCP client (RFC 7591). It may ask for at most
/// [`DYNAMIC_CLIENT_SCOPES`] (the default when it names none), authenticates with no secret
/// (`none`), and uses the authorization code and refresh grants only. `from` records who
/// registered it (the source address) and `network` the network it is counted under (a full
/// table makes room from the network with the most clients waiting first).
pub async fn register_dynamic(
    store: &Store,
    req: &DynamicRequest<'_>,
    from: &str,
    network: &str,
) -> Result<ClientRow, RegisterError> {
    let name = check_name(req.client_name.unwrap_or("MCP client")).map_err(metadata)?;
    let scopes = check_dynamic(req)?;
    let client_id = random_id("ppapp_", 12).map_err(RegisterError::Server)?;
    let evicted = store
        .clients()
        .insert_dynamic(
            &NewClient {
                client_id: &client_id,
                tenant_id: None,
                kind: "dynamic",
                name,
                secret_hash: None,
                redirect_uris: req.redirect_uris,
                scopes: &scopes.to_oauth_string(),
                created_by: from,
            },
            network,
            MAX_UNBOUND_DYNAMIC,
        )
        .await
        .map_err(RegisterError::Server)?
        .ok_or(RegisterError::Full)?;
    if evicted > 0 {
        tracing::info!(
            evicted,
            "the table of clients waiting for a first consent was full: the network with the most made room"
        );
    }
    store
        .clients()
        .get(&client_id)
        .await
        .map_err(RegisterError::Server)?
        .ok_or_else(|| RegisterError::Server(Error::internal("a registered client vanished")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_or_loopback() {
        for ok in [
            "https://app.example/cb",
            "http://127.0.0.1:33418/callback",
            "http://localhost/cb?x=1",
            "http://[::1]:9/cb",
        ] {
            check_redirect_uri(ok).unwrap();
        }
        for bad in [
            "http://app.example/cb",
            "https://app.example/cb#frag",
            "cb",
            "javascript://x",
            "https:///cb",
            "http://127.0.0.1.evil.example/cb",
            "http://user@127.0.0.1/cb",
            // issue 52, finding 4: each accepted on the old main, and each read by a browser
            // otherwise than the check read it
            "https://app.example/cb?x=\"<>",
            "http://[::1]evil.example/cb",
            // issue 66, finding 9: accepted on the old main
            "http://127.0.0.1:0/cb",
            "https://app.example:0/cb",
            "http://localhost:80\\.evil.example/cb",
            "https://APP.example/cb",
            "http://127.0.0.2/cb",
        ] {
            assert!(check_redirect_uri(bad).is_err(), "{bad}");
        }
    }
}
