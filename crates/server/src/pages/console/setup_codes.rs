//! Setup codes in the console: any signed-in person makes a one-time code for the
//! command-line plugin (shown once) and sees their codes' status.

use askama::Template;
use axum::extract::{Request, State};
use axum::response::Response;
use pp_core::ScopeSet;
use pp_core::scope::PLUGIN_SCOPES;
use pp_store::SessionRow;
use pp_store::now_unix;

use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct Row {
    label: String,
    made: String,
    status: String,
}

#[derive(Template)]
#[template(path = "console/setup_codes.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    created: Option<String>,
    error: Option<String>,
    rows: Vec<Row>,
    scopes: Vec<(&'static str, &'static str)>,
    exchange_url: String,
}

async fn page(
    app: &SharedState,
    s: &SessionRow,
    created: Option<String>,
    error: Option<String>,
) -> Response {
    let codes = match app.admin.account().setup_codes(&s.person).await {
        Ok(c) => c,
        Err(e) => return web::failed(&e),
    };
    let now = now_unix();
    let rows = codes
        .into_iter()
        .map(|c| Row {
            made: web::date(c.created_at),
            status: match (c.used_at, c.expires_at > now) {
                (Some(t), _) => format!("used {}", web::date(t)),
                (None, true) => "waiting for the plugin".into(),
                (None, false) => "expired unused".into(),
            },
            label: c.label,
        })
        .collect();
    render(
        web::form_status(&error),
        &Page {
            nav: Nav::of(s, "setup"),
            csrf: s.csrf.clone(),
            created,
            error,
            rows,
            scopes: ScopeSet::from_scopes(PLUGIN_SCOPES)
                .iter()
                .map(|s| (s.as_str(), s.plain()))
                .collect(),
            exchange_url: format!("{}/oauth/setup-code", app.public_url),
        },
    )
}

pub async fn list(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    match web::signed_in(&app, &parts).await {
        Ok(s) => page(&app, &s, None, None).await,
        Err(r) => r,
    }
}

pub async fn create(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form) = match web::signed_form(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let label = form.get("label").unwrap_or_default();
    match app.admin.account().new_setup_code(&s.person, label).await {
        Ok(c) => page(&app, &s, Some(c.code), None).await,
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
}
