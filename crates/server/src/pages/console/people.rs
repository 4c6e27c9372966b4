//! People in the console: the tenant's people, adding one (the gateway chooses a first
//! password, shown once) and disabling one (their sessions, grants and plugin credentials
//! end at once). An admin cannot disable themselves.

use askama::Template;
use axum::extract::{Path, Request, State};
use axum::response::Response;
use pp_auth::{PersonDetails, Role};
use pp_store::SessionRow;

use super::{admin_action, admin_page, operator};
use crate::pages::web::{self, Nav, render, see_other};
use crate::state::SharedState;

pub struct Row {
    id: String,
    email: String,
    display_name: String,
    role: String,
    enabled: bool,
    is_me: bool,
}

pub struct Created {
    email: String,
    password: String,
}

#[derive(Template)]
#[template(path = "console/people.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    rows: Vec<Row>,
    created: Option<Created>,
    error: Option<String>,
}

async fn page(
    app: &SharedState,
    s: &SessionRow,
    created: Option<Created>,
    error: Option<String>,
) -> Response {
    let op = match operator(s) {
        Ok(op) => op,
        Err(r) => return r,
    };
    let rows = match app.admin.people(&op).list(None).await {
        Ok(r) => r,
        Err(e) => return web::failed(&e),
    };
    let rows = rows
        .into_iter()
        .map(|p| Row {
            is_me: p.id == s.person.id,
            enabled: p.disabled_at.is_none(),
            id: p.id,
            email: p.email,
            display_name: p.display_name,
            role: p.role,
        })
        .collect();
    render(
        web::form_status(&error),
        &Page {
            nav: Nav::of(s, "people"),
            csrf: s.csrf.clone(),
            rows,
            created,
            error,
        },
    )
}

pub async fn list(State(app): State<SharedState>, req: Request) -> Response {
    match admin_page(&app, req).await {
        Ok(s) => page(&app, &s, None, None).await,
        Err(r) => r,
    }
}

pub async fn create(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, _) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let op = match operator(&s) {
        Ok(op) => op,
        Err(r) => return r,
    };
    let role = match Role::parse(form.get("role").unwrap_or("member")) {
        Ok(r) => r,
        Err(e) => return page(&app, &s, None, Some(e.message().to_owned())).await,
    };
    let details = PersonDetails {
        email: form.get("email").unwrap_or_default(),
        display_name: form.get("display_name").unwrap_or_default(),
        role,
    };
    let made = app.admin.people(&op);
    match made.create(&s.person.tenant_id, &details, None).await {
        Ok(p) => {
            tracing::info!(person = %p.row.id, by = %s.person.email, "person added in the console");
            let created = Created {
                email: p.row.email,
                password: p.generated_password.unwrap_or_default(),
            };
            page(&app, &s, Some(created), None).await
        }
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
}

pub async fn disable(
    State(app): State<SharedState>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    let (s, _, _) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let op = match operator(&s) {
        Ok(op) => op,
        Err(r) => return r,
    };
    match app.admin.people(&op).disable(&id).await {
        Ok((_, ended)) => {
            tracing::info!(person = %id, by = %s.person.email, withdrawn = ?ended.withdrawn, webhooks_disabled = ?ended.disabled_webhooks, "person disabled in the console");
            see_other("/console/people", &[])
        }
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
}
