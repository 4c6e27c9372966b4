//! `POST /oauth/revoke` (RFC 7009): a client revokes a token it holds. A refresh token revokes
//! its whole sign-in; an access token stops at once. The client authenticates as at the token
//! endpoint (a service credential or a confidential application by its secret, a public
//! application by its id); the answer is 200 whether or not the token was live or the
//! client's, so it tells nothing about tokens the caller does not hold.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use pp_auth::OAuthError;

use super::{charge_address, client_auth, field, no_store, oauth_error, read_form};
use crate::state::SharedState;

pub async fn revoke(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let basic_used = parts.headers.get(header::AUTHORIZATION).is_some();
    let result = async {
        charge_address(&app, &parts)?;
        let fields = read_form(body).await?;
        let token = field(&fields, "token")
            .ok_or_else(|| OAuthError::InvalidRequest("token is required".into()))?
            .to_owned();
        let (id, secret) = client_auth(&parts.headers, &fields)?;
        app.token_limits
            .per_client
            .take(&id)
            .map_err(OAuthError::RateLimited)?;
        pp_auth::grants::revoke_token(&app.store, &app.secret_key, &id, secret.as_deref(), &token)
            .await
    }
    .await;
    match result {
        // the answer's body is ignored (RFC 7009, docs/auth.md); an empty object keeps every answer JSON
        Ok(()) => no_store((StatusCode::OK, axum::Json(serde_json::json!({}))).into_response()),
        Err(e) => oauth_error(e, basic_used),
    }
}
