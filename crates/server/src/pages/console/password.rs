//! A person changes their own password (the console hands out a first one). The change ends
//! every session and application sign-in of theirs, this one included, so the page sends
//! them to sign in again.

use askama::Template;
use axum::extract::{Request, State};
use axum::response::Response;
use pp_store::SessionRow;

use crate::pages::web::{self, Nav, SESSION_COOKIE, render, see_other};
use crate::state::{Admission, SharedState};

#[derive(Template)]
#[template(path = "console/password.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    error: Option<String>,
}

fn page(s: &SessionRow, error: Option<String>) -> Response {
    let status = web::form_status(&error);
    render(
        status,
        &Page {
            nav: Nav::of(s, "password"),
            csrf: s.csrf.clone(),
            error,
        },
    )
}

pub async fn form(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    match web::signed_in(&app, &parts).await {
        Ok(s) => page(&s, None),
        Err(r) => r,
    }
}

pub async fn change(State(app): State<SharedState>, req: Request) -> Response {
    let address = crate::routes::oauth::peer_of(&req)
        .map(|ip| ip.to_string())
        .unwrap_or_default();
    let (s, form) = match web::signed_form(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    // limited like signing in: wrong current passwords count, per person and address
    match app.signin.admit(&s.person.email, &address) {
        Admission::Now => {}
        Admission::After(wait) => tokio::time::sleep(wait).await,
        Admission::Refused(_) => {
            return page(
                &s,
                Some("Too many wrong passwords. Wait a minute and try again.".into()),
            );
        }
    }
    let Ok(_slot) = app.signin.hashing.acquire().await else {
        return page(
            &s,
            Some("The gateway is busy. Try again in a moment.".into()),
        );
    };
    let (current, new) = (
        form.get("current").unwrap_or_default(),
        form.get("new").unwrap_or_default(),
    );
    match app
        .admin
        .account()
        .change_password(&s.person, current, new)
        .await
    {
        Ok(true) => {
            tracing::info!(person = %s.person.id, "password changed in the console");
            see_other("/login", &[web::set_cookie(&app, SESSION_COOKIE, "", 0)])
        }
        Ok(false) => {
            app.signin.failed(&s.person.email, &address);
            page(&s, Some("The current password is not right.".into()))
        }
        Err(e) if e.kind.status() < 500 => page(&s, Some(e.message().to_owned())),
        Err(e) => web::failed(&e),
    }
}
