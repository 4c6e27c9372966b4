//! The OAuth 2.0 endpoints over HTTP: `POST /oauth/token` (`token.rs`: client credentials,
//! authorization code, refresh), `POST /oauth/revoke` (`revoke.rs`, RFC 7009),
//! `POST /oauth/register` (`register.rs`, RFC 7591), `POST /oauth/setup-code` (`setup.rs`) and
//! the RFC 8414 document (`metadata.rs`). Shared here: RFC 6749 error answers and reading
//! client authentication (HTTP Basic or form fields). The logic lives in `pp_auth`; the
//! authorization page itself is in `pages`.

mod metadata;
mod register;
mod revoke;
mod setup;
mod token;

pub use metadata::metadata;
pub use register::register;
pub use revoke::revoke;
pub use setup::setup_code;
pub use token::token;

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use pp_auth::OAuthError;
use serde_json::json;

use crate::http::slot::Slot;

/// An RFC 6749 error answer (`no-store`, the Basic challenge on a 401 after Basic, and
/// `Retry-After` when rate limited).
pub(crate) fn oauth_error(e: OAuthError, basic_used: bool) -> Response {
    if let OAuthError::ServerError(cause) = &e {
        tracing::error!(cause = %cause, "token endpoint failed");
    }
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
    let retry = match &e {
        OAuthError::RateLimited(wait) => Some(wait.as_secs().max(1)),
        _ => None,
    };
    let mut res = (
        status,
        Json(json!({ "error": e.code(), "error_description": e.description() })),
    )
        .into_response();
    if status == StatusCode::UNAUTHORIZED && basic_used {
        res.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Basic realm=\"partner-platform\""),
        );
    }
    if let Some(secs) = retry {
        res.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    no_store(res)
}

pub(crate) fn no_store(mut res: Response) -> Response {
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res.headers_mut()
        .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    res
}

/// `client_id:client_secret` from an HTTP Basic header (each part form-url-decoded, RFC 6749, docs/auth.md).
fn basic_credentials(headers: &HeaderMap) -> Result<Option<(String, String)>, OAuthError> {
    let Some(v) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let v = v.to_str().map_err(|_| OAuthError::InvalidClient)?;
    let Some((scheme, b64)) = v.split_once(' ') else {
        return Err(OAuthError::InvalidClient);
    };
    if !scheme.eq_ignore_ascii_case("basic") {
        return Err(OAuthError::InvalidRequest(
            "the token endpoint takes HTTP Basic or form client authentication".into(),
        ));
    }
    let raw = STANDARD
        .decode(b64.trim())
        .map_err(|_| OAuthError::InvalidClient)?;
    let raw = String::from_utf8(raw).map_err(|_| OAuthError::InvalidClient)?;
    let (id, secret) = raw.split_once(':').ok_or(OAuthError::InvalidClient)?;
    let decode = |s: &str| {
        form_urlencoded::parse(format!("x={s}").as_bytes())
            .next()
            .map(|(_, v)| v.into_owned())
            .unwrap_or_default()
    };
    Ok(Some((decode(id), decode(secret))))
}

/// The form's fields; a repeated field is `invalid_request` (RFC 6749, docs/auth.md).
pub(crate) fn form_fields(body: &[u8]) -> Result<Vec<(String, String)>, OAuthError> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (k, v) in form_urlencoded::parse(body) {
        if out.iter().any(|(name, _)| name == &k) {
            return Err(OAuthError::InvalidRequest(format!(
                "parameter '{k}' is repeated"
            )));
        }
        out.push((k.into_owned(), v.into_owned()));
    }
    Ok(out)
}

pub(crate) fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The client id and, if one was sent, its secret: from HTTP Basic or the form's
/// `client_id`/`client_secret` (a public client sends only `client_id`).
pub(crate) fn client_auth(
    headers: &HeaderMap,
    fields: &[(String, String)],
) -> Result<(String, Option<String>), OAuthError> {
    let basic = basic_credentials(headers)?;
    let form = (field(fields, "client_id"), field(fields, "client_secret"));
    match (basic, form) {
        (Some(_), (_, Some(_))) => Err(OAuthError::InvalidRequest(
            "use one client authentication method: HTTP Basic or client_secret in the form, not both".into(),
        )),
        (Some((id, _)), (Some(form_id), None)) if form_id != id => Err(OAuthError::InvalidRequest(
            "the form's client_id differs from the one in HTTP Basic authentication".into(),
        )),
        (Some((id, secret)), _) => Ok((id, Some(secret))),
        (None, (Some(id), secret)) => Ok((id.to_owned(), secret.map(str::to_owned))),
        (None, (None, _)) => Err(OAuthError::InvalidClient),
    }
}

/// Largest form body the OAuth endpoints read (a few short fields).
pub(crate) const MAX_BODY: usize = 16 * 1024;

/// The caller's address, read from a whole request.
pub(crate) fn peer_of<B>(req: &axum::http::Request<B>) -> Option<std::net::IpAddr> {
    req.extensions()
        .get::<Slot>()
        .and_then(Slot::peer)
        .map(|a| a.ip())
}

/// The caller's address, when the server recorded it.
pub(crate) fn peer(parts: &axum::http::request::Parts) -> Option<std::net::IpAddr> {
    parts
        .extensions
        .get::<Slot>()
        .and_then(Slot::peer)
        .map(|a| a.ip())
}

/// Charges one attempt to the caller's address (the token endpoint's limit, shared by the
/// revocation and setup-code endpoints).
pub(crate) fn charge_address(
    app: &crate::state::SharedState,
    parts: &axum::http::request::Parts,
) -> Result<(), OAuthError> {
    match peer(parts) {
        Some(ip) => app
            .token_limits
            .per_address
            .take(&ip.to_string())
            .map_err(OAuthError::RateLimited),
        None => Ok(()),
    }
}

/// Reads a form body of at most [`MAX_BODY`] bytes into its fields.
pub(crate) async fn read_form(body: axum::body::Body) -> Result<Vec<(String, String)>, OAuthError> {
    let body = axum::body::to_bytes(body, MAX_BODY)
        .await
        .map_err(|_| OAuthError::TooLarge(MAX_BODY))?;
    form_fields(&body)
}
