//! `POST /oauth/token`: `client_credentials` for service credentials, `authorization_code`
//! (PKCE) and `refresh_token` for applications. Each attempt is charged to its source address
//! and then to the client id it names before any secret is checked; the keyed secret hash is
//! cheap, so the whole exchange runs inline.

use axum::Json;
use axum::extract::{Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use pp_auth::{OAuthError, TokenResponse};

use super::{charge_address, client_auth, field, no_store, oauth_error, read_form};
use crate::state::SharedState;

pub async fn token(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let basic_used = parts.headers.get(header::AUTHORIZATION).is_some();
    let result = async {
        charge_address(&app, &parts)?;
        let fields = read_form(body).await?;
        let grant = match field(&fields, "grant_type") {
            Some(g) => g.to_owned(),
            None => return Err(OAuthError::InvalidRequest("grant_type is required".into())),
        };
        if !matches!(
            grant.as_str(),
            "client_credentials" | "authorization_code" | "refresh_token"
        ) {
            return Err(OAuthError::UnsupportedGrantType(grant));
        }
        let (id, secret) = client_auth(&parts.headers, &fields)?;
        app.token_limits
            .per_client
            .take(&id)
            .map_err(OAuthError::RateLimited)?;
        grant_for(&app, &grant, &id, secret.as_deref(), &fields).await
    }
    .await;
    match result {
        Ok(t) => no_store(Json(t).into_response()),
        Err(e) => oauth_error(e, basic_used),
    }
}

/// Runs one grant for an authenticated client.
async fn grant_for(
    app: &SharedState,
    grant: &str,
    id: &str,
    secret: Option<&str>,
    fields: &[(String, String)],
) -> Result<TokenResponse, OAuthError> {
    if grant == "client_credentials" {
        let secret = secret.ok_or(OAuthError::InvalidClient)?;
        let cred = pp_auth::authenticate_client(&app.store, &app.secret_key, id, secret).await?;
        return pp_auth::mint_token(&app.store, &cred, field(fields, "scope")).await;
    }
    let client = pp_auth::grants::authenticate_app(&app.store, &app.secret_key, id, secret).await?;
    match grant {
        "authorization_code" => {
            let code = field(fields, "code")
                .ok_or_else(|| OAuthError::InvalidRequest("code is required".into()))?;
            pp_auth::grants::exchange_code(
                &app.store,
                &client,
                code,
                field(fields, "redirect_uri"),
                field(fields, "code_verifier"),
            )
            .await
        }
        _ => {
            let refresh = field(fields, "refresh_token")
                .ok_or_else(|| OAuthError::InvalidRequest("refresh_token is required".into()))?;
            pp_auth::grants::refresh(&app.store, &client, refresh, field(fields, "scope")).await
        }
    }
}
