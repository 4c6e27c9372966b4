//! `POST /oauth/setup-code`: the command-line plugin exchanges a one-time setup code (made in
//! the console) for its own service credential. Form field `code`; the answer holds the
//! credential's id and secret (shown this once), its scopes and where to mint tokens. Attempts
//! are limited per source address.

use axum::Json;
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use pp_auth::OAuthError;
use serde_json::json;

use super::{charge_address, field, no_store, oauth_error, read_form};
use crate::state::SharedState;

pub async fn setup_code(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let result = async {
        charge_address(&app, &parts)?;
        let fields = read_form(body).await?;
        let code = field(&fields, "code")
            .ok_or_else(|| OAuthError::InvalidRequest("code is required".into()))?;
        pp_auth::setup::exchange_setup_code(&app.store, &app.secret_key, code)
            .await
            .map_err(|e| match e.kind {
                pp_core::Kind::InvalidToken => OAuthError::InvalidGrant(e.message().to_owned()),
                _ => OAuthError::ServerError(e.chain()),
            })
    }
    .await;
    match result {
        Ok(c) => no_store(
            Json(json!({
                "client_id": c.row.client_id,
                "client_secret": c.client_secret,
                "scope": c.row.scopes,
                "token_endpoint": format!("{}/oauth/token", app.public_url),
                "base_url": app.public_url,
            }))
            .into_response(),
        ),
        Err(e) => oauth_error(e, false),
    }
}
