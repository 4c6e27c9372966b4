//! The HTML front door: the sign-in page, the authorization (consent) page, the page that
//! mints a token by hand, and the admin console. Server-rendered with askama (templates in
//! `crates/server/templates`), no JavaScript, usable on a phone. Like routes and tools, each
//! handler reads its form, calls a service in `pp_auth` (or the store's aggregates through
//! them) with the signed-in person, and renders the answer.
//!
//! A person's session is a cookie (`pp_session`: HttpOnly, SameSite=Lax, Secure when the
//! public URL is https) naming a session in the store; every form carries the session's CSRF
//! token and is refused without it. The sign-in form, which has no session yet, carries a
//! token that must equal its own cookie (`pp_login`). These pages are not part of the API
//! document (`/openapi.json`).

// A refusal here is the page itself, built once and returned as is: boxing it buys nothing.
#![allow(clippy::result_large_err)]

mod consent;
pub(crate) mod console;
mod direct;
mod login;
mod web;

use axum::Router;
use axum::routing::{get, post};

use crate::state::SharedState;

/// Every page.
pub fn router() -> Router<SharedState> {
    Router::new()
        .route("/login", get(login::page).post(login::submit))
        .route("/logout", post(login::logout))
        .route("/login/direct", post(direct::mint))
        .route("/oauth/authorize", get(consent::page).post(consent::decide))
        .merge(console::router())
}
