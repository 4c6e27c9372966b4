//! `/login?mode=direct`: a signed-in person mints a token by hand for an AI client or script
//! that cannot sign in by itself. The token holds exactly the interactive sign-in's scopes,
//! acts as the person, lasts 12 hours and is shown once.

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_core::ScopeSet;
use pp_core::scope::PLUGIN_SCOPES;
use pp_store::SessionRow;

use super::web::{self, Nav, render};
use crate::state::SharedState;

#[derive(Template)]
#[template(path = "direct.html")]
struct DirectPage {
    nav: Option<Nav>,
    csrf: String,
    token: Option<String>,
    scopes: Vec<(&'static str, &'static str)>,
}

/// The page, with the token just minted if there is one.
pub fn page(s: &SessionRow, token: Option<String>) -> Response {
    let scopes = ScopeSet::from_scopes(PLUGIN_SCOPES)
        .iter()
        .map(|s| (s.as_str(), s.plain()))
        .collect();
    render(
        StatusCode::OK,
        &DirectPage {
            nav: Nav::of(s, "direct"),
            csrf: s.csrf.clone(),
            token,
            scopes,
        },
    )
}

/// `POST /login/direct`: mints the token.
pub async fn mint(State(app): State<SharedState>, req: Request) -> Response {
    let (s, _) = match web::signed_form(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    match pp_auth::grants::mint_direct(&app.store, &s.person).await {
        Ok(t) => page(&s, Some(t.access_token)),
        Err(e) => {
            tracing::error!(cause = ?e, "minting a token by hand failed");
            web::message(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "The token could not be minted. Try again in a moment.",
                None,
            )
        }
    }
}
