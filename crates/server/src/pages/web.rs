//! What every page shares: rendering a template with the headers a page needs, cookies, the
//! signed-in person, reading a form, and the CSRF check.

use askama::Template;
use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pp_store::SessionRow;

use crate::http::slot::Slot;
use crate::state::SharedState;

/// The session cookie.
pub const SESSION_COOKIE: &str = "pp_session";
/// The sign-in form's CSRF cookie.
pub const LOGIN_COOKIE: &str = "pp_login";
/// Largest form a page reads.
const MAX_FORM: usize = 64 * 1024;

/// The navigation bar of a signed-in page.
pub struct Nav {
    pub here: &'static str,
    pub admin: bool,
    /// Whether the person may approve held writes (admins and approvers).
    pub approver: bool,
    pub csrf: String,
    pub email: String,
}

impl Nav {
    pub fn of(s: &SessionRow, here: &'static str) -> Option<Self> {
        Some(Self {
            here,
            admin: s.person.role == "admin",
            approver: pp_auth::Role::may_approve(&s.person.role),
            csrf: s.csrf.clone(),
            email: s.person.email.clone(),
        })
    }
}

/// A page: HTML that is never cached, framed or sent a referrer, with a policy that loads
/// nothing but the stylesheet.
pub fn html(status: StatusCode, body: String) -> Response {
    let mut res = (status, body).into_response();
    let h = res.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'",
        ),
    );
    res
}

/// Renders `t` as a page with `status`.
pub fn render<T: Template>(status: StatusCode, t: &T) -> Response {
    match t.render() {
        Ok(body) => html(status, body),
        Err(e) => {
            tracing::error!(cause = %e, "a page failed to render");
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                "<h1>The page failed</h1>".into(),
            )
        }
    }
}

#[derive(Template)]
#[template(path = "message.html")]
struct Message<'a> {
    nav: Option<Nav>,
    title: &'a str,
    message: &'a str,
    back: Option<&'a str>,
}

/// A page that only says something (an error, a refusal).
pub fn message(status: StatusCode, title: &str, text: &str, back: Option<&str>) -> Response {
    render(
        status,
        &Message {
            nav: None,
            title,
            message: text,
            back,
        },
    )
}

/// The status of a form's page: `400` when it shows what was wrong with the form.
pub fn form_status(error: &Option<String>) -> StatusCode {
    if error.is_some() {
        StatusCode::BAD_REQUEST
    } else {
        StatusCode::OK
    }
}

/// A page for a failure of the service (the cause is logged, never shown).
pub fn failed(e: &pp_core::Error) -> Response {
    match e.kind.status() {
        s if s >= 500 => {
            tracing::error!(cause = %e.chain(), "a page's service call failed");
            message(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                "The gateway could not finish this. Try again in a moment.",
                None,
            )
        }
        s => message(
            StatusCode::from_u16(s).unwrap_or(StatusCode::BAD_REQUEST),
            "That did not work",
            e.message(),
            None,
        ),
    }
}

/// `303 See Other` to `location`, with `cookies` set.
pub fn see_other(location: &str, cookies: &[HeaderValue]) -> Response {
    let mut res = Response::builder()
        .status(StatusCode::SEE_OTHER)
        .header(header::LOCATION, location)
        .header(header::CACHE_CONTROL, "no-store")
        .body(Body::empty())
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
    for c in cookies {
        res.headers_mut().append(header::SET_COOKIE, c.clone());
    }
    res
}

/// The value of cookie `name`.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_owned())
}

/// A `Set-Cookie` value: HttpOnly, SameSite=Lax, path `/`, Secure on https.
pub fn set_cookie(app: &SharedState, name: &str, value: &str, max_age: i64) -> HeaderValue {
    let secure = if app.public_url.starts_with("https://") {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}{secure}"
    ))
    .unwrap_or_else(|_| HeaderValue::from_static("pp_invalid=1"))
}

/// The signed-in person's live session, if any (and names them in the request log).
pub async fn session(app: &SharedState, parts: &axum::http::request::Parts) -> Option<SessionRow> {
    let c = cookie(&parts.headers, SESSION_COOKIE)?;
    let s = pp_auth::sessions::session(&app.store, &c)
        .await
        .ok()
        .flatten()?;
    if let Some(slot) = parts.extensions.get::<Slot>() {
        slot.name(
            &s.person.tenant_id,
            &pp_core::Actor::person(&s.person.email),
        );
    }
    Some(s)
}

/// The signed-in session, or a redirect to the sign-in page that comes back to `next`.
pub async fn signed_in(
    app: &SharedState,
    parts: &axum::http::request::Parts,
) -> Result<SessionRow, Response> {
    match session(app, parts).await {
        Some(s) => Ok(s),
        None => {
            let next = parts
                .uri
                .path_and_query()
                .map(|p| p.as_str())
                .filter(|_| parts.method == axum::http::Method::GET)
                .unwrap_or("/console");
            Err(see_other(&login_url(next), &[]))
        }
    }
}

/// The sign-in page's address, coming back to `next`.
pub fn login_url(next: &str) -> String {
    let q: String = form_urlencoded::Serializer::new(String::new())
        .append_pair("next", next)
        .finish();
    format!("/login?{q}")
}

/// A page's form fields (a repeated name keeps every value).
pub struct Form(Vec<(String, String)>);

impl Form {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }
}

/// Reads a form body.
pub async fn read_form(body: Body) -> Result<Form, Response> {
    match axum::body::to_bytes(body, MAX_FORM).await {
        Ok(b) => Ok(Form(
            form_urlencoded::parse(&b)
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )),
        Err(_) => Err(message(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Too much",
            "That form is larger than the gateway reads.",
            None,
        )),
    }
}

/// Refuses a form whose CSRF token is not its session's.
pub fn check_csrf(s: &SessionRow, form: &Form) -> Result<(), Response> {
    match form.get("csrf") {
        Some(t) if pp_auth::sessions::csrf_matches(s, t) => Ok(()),
        _ => Err(csrf_refused()),
    }
}

/// The answer to a form without its CSRF token.
pub fn csrf_refused() -> Response {
    message(
        StatusCode::FORBIDDEN,
        "This form was refused",
        "It did not come from a page of this site, or the page is too old. Reload the page and try again.",
        Some("/console"),
    )
}

/// A session and its form, CSRF-checked: the start of every console action.
pub async fn signed_form(
    app: &SharedState,
    req: axum::extract::Request,
) -> Result<(SessionRow, Form), Response> {
    let (parts, body) = req.into_parts();
    let s = signed_in(app, &parts).await?;
    let form = read_form(body).await?;
    check_csrf(&s, &form)?;
    Ok((s, form))
}

/// Refuses a member where only an admin may act.
pub fn admin_only(s: &SessionRow) -> Result<(), Response> {
    if s.person.role == "admin" {
        return Ok(());
    }
    Err(message(
        StatusCode::FORBIDDEN,
        "Admins only",
        "Only an admin of your organization can open this page.",
        Some("/console"),
    ))
}

/// Only people who may approve held writes (admins and approvers) pass.
pub fn approvers_only(s: &SessionRow) -> Result<(), Response> {
    if pp_auth::Role::may_approve(&s.person.role) {
        return Ok(());
    }
    Err(message(
        StatusCode::FORBIDDEN,
        "Approvers only",
        "Only a person with the approver role (or an admin) can approve or reject held writes.",
        Some("/console"),
    ))
}

/// The date of a Unix time (UTC), for tables.
pub fn date(unix: i64) -> String {
    chrono::DateTime::from_timestamp(unix, 0)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default()
}
