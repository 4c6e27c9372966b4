//! Who may talk to the MCP server: the `Host`/`Origin` guard against DNS rebinding, the bearer
//! token (401 points at the protected-resource metadata), and the connect rule — a credential
//! connects when it holds the scopes of at least one tool. The result is a [`Caller`] whose
//! principal records `surface: mcp`.

use axum::Json;
use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pp_core::principal::Surface;
use pp_core::{Error, Kind, Principal};

use super::{jsonrpc, tools};
use crate::http::auth::{admit, bearer_token};
use crate::state::SharedState;

/// An authenticated MCP caller.
pub struct Caller(pub Principal);

/// Which `Host` and `Origin` values the MCP endpoints accept.
#[derive(Debug, Clone)]
pub struct Guard {
    hosts: Vec<String>,
    origins: Vec<String>,
    any_host: bool,
    any_origin: bool,
}

const LOOPBACK: &[&str] = &["localhost", "127.0.0.1", "[::1]", "::1"];

/// The host of an authority (`host`, `host:port`, `[v6]:port`), as written.
fn host_part(authority: &str) -> &str {
    let a = authority.trim();
    if a.starts_with('[') {
        return a.find(']').map_or(a, |end| &a[..=end]);
    }
    a.split(':').next().unwrap_or_default()
}

/// The host of an authority, lowercased.
fn host_name(authority: &str) -> String {
    host_part(authority).to_ascii_lowercase()
}

/// `scheme://authority` of a URL, lowercased.
fn origin_of(url: &str) -> String {
    let url = url.trim().to_ascii_lowercase();
    match url.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{}", rest.split('/').next().unwrap_or("")),
        None => url,
    }
}

impl Guard {
    /// Accepts the public URL's host and origin and loopback names, plus `hosts` and
    /// `origins` (`*` accepts any).
    pub fn new(public_url: &str, hosts: &[String], origins: &[String]) -> Self {
        let public_origin = origin_of(public_url);
        let public_host = host_name(public_origin.split("://").nth(1).unwrap_or(""));
        let mut h: Vec<String> = LOOPBACK.iter().map(|s| (*s).to_owned()).collect();
        h.push(public_host);
        h.extend(hosts.iter().map(|s| host_name(s)));
        let mut o = vec![public_origin];
        o.extend(origins.iter().map(|s| origin_of(s)));
        Self {
            any_host: hosts.iter().any(|s| s == "*"),
            any_origin: origins.iter().any(|s| s == "*"),
            hosts: h,
            origins: o,
        }
    }

    fn check(&self, parts: &Parts) -> Result<(), Error> {
        let refuse = |what: String| {
            Error::new(Kind::OriginNotAllowed, what).with_fix(
                "Call the server at its public URL, or ask the operator to add the host or origin \
                 to mcp_allowed_hosts / mcp_allowed_origins.",
            )
        };
        let host = parts
            .headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .or_else(|| parts.uri.authority().map(|a| a.as_str()));
        if let Some(host) = host
            && !self.any_host
            && !self.serves(host_part(host))
        {
            return Err(refuse(format!("Host '{host}' is not served here")));
        }
        if let Some(origin) = parts.headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !self.allows_origin(origin) {
                return Err(refuse(format!(
                    "Origin '{origin}' may not call this server"
                )));
            }
        }
        Ok(())
    }

    /// Whether `host` (a name, without its port) is one the server answers to.
    fn serves(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    /// Whether a browser page at `origin` may call the server (the public URL's origin,
    /// loopback, or one the operator allowed).
    pub fn allows_origin(&self, origin: &str) -> bool {
        let o = origin_of(origin);
        let loopback = LOOPBACK.contains(&host_name(o.split("://").nth(1).unwrap_or("")).as_str());
        self.any_origin || loopback || self.origins.contains(&o)
    }
}

fn metadata_url(app: &SharedState) -> String {
    format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        app.public_url
    )
}

/// Answers a refused MCP request: a JSON-RPC error for POSTs (so any client shows the reason),
/// the `/api` envelope otherwise, with the RFC 6750/9728 challenge where one applies. A
/// request that presented no token gets a challenge without an error code (RFC 6750, docs/auth.md):
/// it is an invitation to sign in, not a fault.
fn reject(app: &SharedState, method: &Method, presented: bool, e: Error) -> Response {
    let status = StatusCode::from_u16(e.kind.status()).unwrap_or(StatusCode::FORBIDDEN);
    let envelope = e.api_envelope(None);
    let body = if method == Method::POST {
        let err = jsonrpc::RpcError::new(jsonrpc::NOT_AUTHORIZED, e.message()).with_data(envelope);
        jsonrpc::error_value(&serde_json::Value::Null, &err)
    } else {
        envelope
    };
    let mut res = (status, Json(body)).into_response();
    let challenge = match e.kind {
        Kind::InvalidToken if !presented => Some(format!(
            "Bearer realm=\"partner-platform\", scope=\"{}\", resource_metadata=\"{}\"",
            super::tools::tool_scopes().to_oauth_string(),
            metadata_url(app)
        )),
        Kind::InvalidToken => Some(format!(
            "Bearer realm=\"partner-platform\", error=\"invalid_token\", error_description=\"{}\", resource_metadata=\"{}\"",
            e.message().replace('"', "'"),
            metadata_url(app)
        )),
        Kind::InsufficientScope => Some(format!(
            "Bearer realm=\"partner-platform\", error=\"insufficient_scope\", scope=\"{}\", resource_metadata=\"{}\"",
            e.required_scopes().join(" "),
            metadata_url(app)
        )),
        _ => None,
    };
    if let Some(v) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    if let Some(secs) = e.field("retryAfter").and_then(serde_json::Value::as_u64) {
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    res
}

async fn authenticate(app: &SharedState, parts: &Parts) -> Result<Principal, Error> {
    app.mcp.guard.check(parts)?;
    let token = bearer_token(&parts.headers).ok_or_else(|| {
        Error::new(
            Kind::InvalidToken,
            "send Authorization: Bearer <access token> (mint one at POST /oauth/token)",
        )
    })?;
    let mut p = app.verifier.verify(token).await?.ok_or_else(|| {
        Error::new(
            Kind::InvalidToken,
            "the access token is invalid, expired or revoked",
        )
    })?;
    if !tools::can_connect(&p) {
        let mut e = Error::new(
            Kind::InsufficientScope,
            format!(
                "this credential holds none of the scopes any MCP tool needs; it connects with any one of: {}",
                tools::connect_options().join("; ")
            ),
        )
        .with_fix("Ask a tenant admin for a credential that holds one of these, then mint a new token.");
        let options = tools::connect_options();
        // the challenge's scope= names what would do: each scope that alone connects
        let alone: Vec<String> = options
            .iter()
            .filter(|o| !o.contains(' '))
            .cloned()
            .collect();
        let would_do = if alone.is_empty() {
            options.iter().take(1).cloned().collect()
        } else {
            alone
        };
        e = e
            .with_required_scopes(would_do)
            .with_field("any_of", options);
        return Err(e);
    }
    p.surface = Surface::Mcp;
    Ok(p)
}

impl FromRequestParts<SharedState> for Caller {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &SharedState) -> Result<Self, Response> {
        match authenticate(app, parts).await {
            Ok(p) => match admit(app, &parts.extensions, &p) {
                Ok(()) => Ok(Caller(p)),
                Err(e) => Err(reject(app, &parts.method, true, e)),
            },
            Err(e) => {
                let presented = bearer_token(&parts.headers).is_some();
                Err(reject(app, &parts.method, presented, e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(host: &str, origin: Option<&str>) -> Parts {
        let mut b = axum::http::Request::builder()
            .uri("/mcp")
            .header("host", host);
        if let Some(o) = origin {
            b = b.header("origin", o);
        }
        b.body(()).unwrap().into_parts().0
    }

    #[test]
    fn refuses_rebound_hosts_and_foreign_origins() {
        let g = Guard::new("https://pp.example.com", &[], &[]);
        assert!(g.check(&parts("pp.example.com", None)).is_ok());
        assert!(g.check(&parts("127.0.0.1:8080", None)).is_ok());
        assert!(g.check(&parts("[::1]:8080", None)).is_ok());
        assert!(g.check(&parts("evil.example:8080", None)).is_err());
        assert!(
            g.check(&parts("pp.example.com", Some("https://pp.example.com")))
                .is_ok()
        );
        assert!(
            g.check(&parts("pp.example.com", Some("http://localhost:3000")))
                .is_ok()
        );
        assert!(
            g.check(&parts("pp.example.com", Some("https://evil.example")))
                .is_err()
        );
        assert!(g.check(&parts("pp.example.com", Some("null"))).is_err());
        let behind_proxy = Guard::new(
            "https://pp.example.com",
            &["gateway.internal".into()],
            &["https://app.example.com".into()],
        );
        assert!(
            behind_proxy
                .check(&parts("gateway.internal:8080", None))
                .is_ok()
        );
        assert!(
            behind_proxy
                .check(&parts("x", Some("https://app.example.com")))
                .is_err()
        );
        assert!(
            behind_proxy
                .check(&parts("pp.example.com", Some("https://app.example.com")))
                .is_ok()
        );
        assert!(
            Guard::new("http://x", &["*".into()], &[])
                .check(&parts("any", None))
                .is_ok()
        );
    }
}
