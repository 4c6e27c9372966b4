//! `GET /oauth/authorize` shows a signed-in person what an application asks for, in plain
//! words; `POST /oauth/authorize` records their answer and sends the browser back to the
//! application with a code (or `access_denied`). The request is checked again on the post,
//! from the parameters the form carries, so nothing is kept between the two.

use askama::Template;
use axum::extract::{Query, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_auth::authorize::{
    AuthorizeError, AuthorizeParams, Consent, approve, check_authorize, deny,
};

use super::web::{self, Nav, message, render, see_other};
use crate::state::SharedState;

#[derive(Template)]
#[template(path = "consent.html")]
struct ConsentPage<'a> {
    nav: Option<Nav>,
    app_name: &'a str,
    app_kind: &'a str,
    email: &'a str,
    scopes: Vec<(&'static str, &'static str)>,
    redirect_host: String,
    csrf: &'a str,
    params: Vec<(&'static str, String)>,
}

/// The parameters the consent form carries back.
fn carried(p: &AuthorizeParams) -> Vec<(&'static str, String)> {
    [
        ("response_type", &p.response_type),
        ("client_id", &p.client_id),
        ("redirect_uri", &p.redirect_uri),
        ("scope", &p.scope),
        ("state", &p.state),
        ("code_challenge", &p.code_challenge),
        ("code_challenge_method", &p.code_challenge_method),
        ("resource", &p.resource),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.clone().map(|v| (k, v)))
    .collect()
}

/// What a refused request shows or where it sends the browser.
fn refused(e: AuthorizeError) -> Response {
    if let Some(url) = e.redirect_url() {
        return see_other(&url, &[]);
    }
    match e {
        AuthorizeError::Page(why) => message(
            StatusCode::BAD_REQUEST,
            "This sign-in cannot go on",
            &why,
            None,
        ),
        AuthorizeError::Server(err) => web::failed(&err),
        AuthorizeError::Redirect { .. } => message(
            StatusCode::BAD_REQUEST,
            "This sign-in cannot go on",
            "The request was refused.",
            None,
        ),
    }
}

fn host_of(uri: &str) -> String {
    uri.split_once("://")
        .map(|(_, rest)| rest.split(['/', '?']).next().unwrap_or(rest).to_owned())
        .unwrap_or_else(|| uri.to_owned())
}

fn kind_words(c: &Consent) -> &'static str {
    match c.client.kind.as_str() {
        "dynamic" => "An AI client that registered itself",
        _ => "A partner application",
    }
}

pub async fn page(
    State(app): State<SharedState>,
    Query(p): Query<AuthorizeParams>,
    req: Request,
) -> Response {
    let (parts, _) = req.into_parts();
    let asker = web::session(&app, &parts).await;
    let person = asker.as_ref().map(|s| &s.person);
    let consent = match check_authorize(&app.store, &p, &app.public_url, person).await {
        Ok(c) => c,
        Err(e) => return refused(e),
    };
    let s = match asker {
        Some(s) => s,
        None => match web::signed_in(&app, &parts).await {
            Ok(s) => s,
            Err(r) => return r,
        },
    };
    // a person is answering: this client waits for them, not to be evicted by a flood
    if consent.client.kind == "dynamic"
        && consent.client.tenant_id.is_none()
        && let Err(e) = app
            .store
            .clients()
            .hold_pending(
                &consent.client.client_id,
                pp_store::now_unix() + pp_auth::clients::PENDING_AUTHORIZATION_SECS,
            )
            .await
    {
        return web::failed(&e);
    }
    render(
        StatusCode::OK,
        &ConsentPage {
            nav: Nav::of(&s, "consent"),
            app_name: &consent.client.name,
            app_kind: kind_words(&consent),
            email: &s.person.email,
            scopes: consent.scope_words(),
            redirect_host: host_of(&consent.redirect_uri),
            csrf: &s.csrf,
            params: carried(&p),
        },
    )
}

pub async fn decide(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form) = match web::signed_form(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let get = |k: &str| form.get(k).map(str::to_owned);
    let p = AuthorizeParams {
        response_type: get("response_type"),
        client_id: get("client_id"),
        redirect_uri: get("redirect_uri"),
        scope: get("scope"),
        state: get("state"),
        code_challenge: get("code_challenge"),
        code_challenge_method: get("code_challenge_method"),
        resource: get("resource"),
    };
    let consent = match check_authorize(&app.store, &p, &app.public_url, Some(&s.person)).await {
        Ok(c) => c,
        Err(e) => return refused(e),
    };
    match form.get("decision") {
        Some("allow") => match approve(&app.store, &s.person, &consent).await {
            Ok(url) => see_other(&url, &[]),
            Err(e) => refused(e),
        },
        _ => see_other(&deny(&consent), &[]),
    }
}
