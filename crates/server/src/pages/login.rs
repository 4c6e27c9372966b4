//! `GET /login` and `POST /login`: a person signs in with email and password and is sent on
//! to `next` (a path on this site: the console, an authorization page). `mode=direct` sends
//! them on to mint a token by hand. Attempts are limited per address and per email, and at
//! most two password hashes run at once. `POST /logout` ends the session.

use askama::Template;
use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;
use serde::Deserialize;

use super::web::{self, LOGIN_COOKIE, Nav, SESSION_COOKIE, message, render, see_other};
use crate::state::{Admission, SharedState};

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage<'a> {
    nav: Option<Nav>,
    csrf: &'a str,
    next: &'a str,
    email: &'a str,
    error: Option<&'a str>,
    purpose: Option<&'a str>,
}

#[derive(Deserialize)]
pub struct LoginQuery {
    next: Option<String>,
    mode: Option<String>,
}

/// `next` if it is a path on this site, else the console. Browsers drop tabs and newlines
/// from URLs and read `\\` as `/`, so a `next` holding any of them (`/\t/evil.example`) could
/// become `//evil.example`: refused, like `//` itself.
fn safe_next(next: Option<&str>) -> &str {
    match next {
        Some(n)
            if n.starts_with('/')
                && !n.starts_with("//")
                && !n.contains('\\')
                && !n.chars().any(|c| c.is_control() || c.is_whitespace()) =>
        {
            n
        }
        _ => "/console",
    }
}

fn purpose_of(next: &str) -> Option<&'static str> {
    if next.starts_with("/oauth/authorize") {
        Some("An application asks to use your account. Sign in to see what it asks for.")
    } else if next.starts_with("/login?mode=direct") {
        Some("Sign in to mint a token by hand.")
    } else {
        None
    }
}

/// The form with a fresh sign-in CSRF token (and its cookie).
fn form(
    app: &SharedState,
    status: StatusCode,
    next: &str,
    email: &str,
    error: Option<&str>,
) -> Response {
    let Ok(csrf) = pp_auth::sessions::new_csrf() else {
        return message(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Something went wrong",
            "Try again in a moment.",
            None,
        );
    };
    let mut res = render(
        status,
        &LoginPage {
            nav: None,
            csrf: &csrf,
            next,
            email,
            error,
            purpose: purpose_of(next),
        },
    );
    res.headers_mut().append(
        axum::http::header::SET_COOKIE,
        web::set_cookie(app, LOGIN_COOKIE, &csrf, 3_600),
    );
    res
}

pub async fn page(
    State(app): State<SharedState>,
    Query(q): Query<LoginQuery>,
    req: Request,
) -> Response {
    let (parts, _) = req.into_parts();
    let direct = q.mode.as_deref() == Some("direct");
    let next = if direct {
        "/login?mode=direct"
    } else {
        safe_next(q.next.as_deref())
    };
    match web::session(&app, &parts).await {
        Some(s) if direct => super::direct::page(&s, None),
        Some(_) => see_other(next, &[]),
        None => form(&app, StatusCode::OK, next, "", None),
    }
}

pub async fn submit(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let form_data = match web::read_form(body).await {
        Ok(f) => f,
        Err(r) => return r,
    };
    let next = safe_next(form_data.get("next")).to_owned();
    let email = form_data.get("email").unwrap_or_default().trim().to_owned();
    let cookie = web::cookie(&parts.headers, LOGIN_COOKIE);
    let csrf_ok = matches!((cookie.as_deref(), form_data.get("csrf")),
        (Some(c), Some(f)) if pp_auth::sessions::constant_eq(c.as_bytes(), f.as_bytes()));
    if !csrf_ok {
        return web::csrf_refused();
    }
    let address = crate::routes::oauth::peer(&parts)
        .map(|ip| ip.to_string())
        .unwrap_or_default();
    // only failures count (a success never locks anyone out); an email under attack slows
    // every attempt instead of refusing the person
    match app.signin.admit(&email, &address) {
        Admission::Now => {}
        Admission::After(wait) => tokio::time::sleep(wait).await,
        Admission::Refused(_) => {
            return form(
                &app,
                StatusCode::TOO_MANY_REQUESTS,
                &next,
                &email,
                Some("Too many sign-in attempts. Wait a minute and try again."),
            );
        }
    }
    let Ok(_slot) = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        app.signin.hashing.acquire(),
    )
    .await
    else {
        return form(
            &app,
            StatusCode::SERVICE_UNAVAILABLE,
            &next,
            &email,
            Some("The gateway is busy. Try again in a moment."),
        );
    };
    let password = form_data.get("password").unwrap_or_default();
    let person = match pp_auth::sign_in(&app.store, &email, password).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            app.signin.failed(&email, &address);
            return form(
                &app,
                StatusCode::UNAUTHORIZED,
                &next,
                &email,
                Some("Wrong email or password."),
            );
        }
        Err(e) => return web::failed(&e),
    };
    match pp_auth::sessions::start_session(&app.store, &person).await {
        Ok(cookie) => see_other(
            &next,
            &[
                web::set_cookie(
                    &app,
                    SESSION_COOKIE,
                    &cookie,
                    pp_auth::sessions::SESSION_TTL_SECS,
                ),
                web::set_cookie(&app, LOGIN_COOKIE, "", 0),
            ],
        ),
        Err(e) => web::failed(&e),
    }
}

pub async fn logout(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    if let Some(s) = web::session(&app, &parts).await {
        let Ok(f) = web::read_form(body).await else {
            return web::csrf_refused();
        };
        if let Err(r) = web::check_csrf(&s, &f) {
            return r;
        }
        if let Some(c) = web::cookie(&parts.headers, SESSION_COOKIE)
            && let Err(e) = pp_auth::sessions::end_session(&app.store, &c).await
        {
            return web::failed(&e);
        }
    }
    let clear: HeaderValue = web::set_cookie(&app, SESSION_COOKIE, "", 0);
    see_other("/login", &[clear])
}

#[cfg(test)]
mod tests {
    use super::safe_next;

    #[test]
    fn next_stays_on_this_site() {
        assert_eq!(
            safe_next(Some("/oauth/authorize?a=1&b=2")),
            "/oauth/authorize?a=1&b=2"
        );
        for bad in [
            "//evil.example",
            "/\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "https://evil.example",
            "evil",
            "",
        ] {
            assert_eq!(safe_next(Some(bad)), "/console", "{bad:?}");
        }
        assert_eq!(safe_next(None), "/console");
    }
}
