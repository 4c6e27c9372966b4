//! The OAuth 2.0 endpoints: `POST /oauth/token` (grant `client_credentials`, client
//! authentication by HTTP Basic or form fields, RFC 6749 errors) and the RFC 8414 discovery
//! document describing what exists.

use std::net::SocketAddr;

use axum::Json;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use pp_auth::OAuthError;
use pp_core::Scope;
use serde_json::{Value, json};

use crate::state::SharedState;

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

fn no_store(mut res: Response) -> Response {
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res.headers_mut()
        .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    res
}

/// `client_id:client_secret` from an HTTP Basic header (each part form-url-decoded, RFC 6749 §2.3.1).
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

/// The form's fields; a repeated field is `invalid_request` (RFC 6749 §3.2).
fn form_fields(body: &[u8]) -> Result<Vec<(String, String)>, OAuthError> {
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

fn field<'a>(fields: &'a [(String, String)], name: &str) -> Option<&'a str> {
    fields
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn client_credentials(
    headers: &HeaderMap,
    fields: &[(String, String)],
) -> Result<(String, String), OAuthError> {
    let basic = basic_credentials(headers)?;
    let form = (field(fields, "client_id"), field(fields, "client_secret"));
    match (basic, form) {
        (Some(_), (_, Some(_))) => Err(OAuthError::InvalidRequest(
            "use one client authentication method: HTTP Basic or client_secret in the form, not both".into(),
        )),
        (Some((id, _)), (Some(form_id), None)) if form_id != id => Err(OAuthError::InvalidRequest(
            "the form's client_id differs from the one in HTTP Basic authentication".into(),
        )),
        (Some(b), _) => Ok(b),
        (None, (Some(id), Some(secret))) => Ok((id.to_owned(), secret.to_owned())),
        (None, _) => Err(OAuthError::InvalidClient),
    }
}

/// Largest token request body read (a form of a few short fields).
const MAX_BODY: usize = 16 * 1024;

/// `POST /oauth/token`. Each attempt is charged to its source address and then to the client
/// id it names before any secret is checked; the keyed secret hash is cheap, so the whole
/// exchange runs inline.
pub async fn token(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let basic_used = parts.headers.get(header::AUTHORIZATION).is_some();
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let result = async {
        if let Some(ip) = peer {
            app.token_limits
                .per_address
                .take(&ip.to_string())
                .map_err(OAuthError::RateLimited)?;
        }
        let body = axum::body::to_bytes(body, MAX_BODY)
            .await
            .map_err(|_| OAuthError::TooLarge(MAX_BODY))?;
        let fields = form_fields(&body)?;
        match field(&fields, "grant_type") {
            Some("client_credentials") => {}
            Some(other) => return Err(OAuthError::UnsupportedGrantType(other.to_owned())),
            None => return Err(OAuthError::InvalidRequest("grant_type is required".into())),
        }
        let (id, secret) = client_credentials(&parts.headers, &fields)?;
        app.token_limits
            .per_client
            .take(&id)
            .map_err(OAuthError::RateLimited)?;
        let cred = pp_auth::authenticate_client(&app.store, &app.secret_key, &id, &secret).await?;
        pp_auth::mint_token(&app.store, &cred, field(&fields, "scope")).await
    }
    .await;
    match result {
        Ok(t) => no_store(Json(t).into_response()),
        Err(e) => oauth_error(e, basic_used),
    }
}

pub async fn metadata(State(app): State<SharedState>) -> Json<Value> {
    let base = &app.public_url;
    Json(json!({
        "issuer": base,
        "token_endpoint": format!("{base}/oauth/token"),
        "grant_types_supported": ["client_credentials"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "response_types_supported": [],
        "scopes_supported": Scope::ALL.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
    }))
}
