//! Service credentials in the console: the list (scopes in plain words), create with the
//! secret shown once, rotate (a new secret, shown once) and revoke (its tokens stop at once).

use askama::Template;
use axum::extract::{Path, Request, State};
use axum::response::Response;
use pp_core::{Scope, ScopeSet};
use pp_store::SessionRow;

use super::{admin_action, admin_page, all_scopes, operator};
use crate::pages::web::{self, Nav, render, see_other};
use crate::state::SharedState;

pub struct Row {
    id: String,
    client_id: String,
    label: String,
    person: Option<String>,
    scope_words: Vec<&'static str>,
    live: bool,
}

pub struct Created {
    verb: &'static str,
    label: String,
    client_id: String,
    secret: String,
}

#[derive(Template)]
#[template(path = "console/credentials.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    rows: Vec<Row>,
    created: Option<Created>,
    error: Option<String>,
    all_scopes: Vec<(&'static str, &'static str)>,
    token_url: String,
}

/// The page for `s`, with what was just created or what went wrong.
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
    let rows = match app.admin.credentials(&op).list(None).await {
        Ok(r) => r,
        Err(e) => return web::failed(&e),
    };
    let people = app.admin.people(&op).list(None).await.unwrap_or_default();
    let rows = rows
        .into_iter()
        .map(|c| Row {
            scope_words: ScopeSet::parse(&c.scopes)
                .map(|set| set.iter().map(Scope::plain).collect())
                .unwrap_or_default(),
            person: c
                .person_id
                .as_ref()
                .and_then(|id| people.iter().find(|p| &p.id == id).map(|p| p.email.clone())),
            live: c.revoked_at.is_none(),
            id: c.id,
            client_id: c.client_id,
            label: c.label,
        })
        .collect();
    let status = web::form_status(&error);
    render(
        status,
        &Page {
            nav: Nav::of(s, "credentials"),
            csrf: s.csrf.clone(),
            rows,
            created,
            error,
            all_scopes: all_scopes(),
            token_url: format!("{}/oauth/token", app.public_url),
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
    let picked = form.all("scope").join(" ");
    let scopes = if picked.is_empty() {
        None
    } else {
        match ScopeSet::parse(&picked) {
            Ok(set) if !set.contains(Scope::AppstateWrite) => Some(set),
            Ok(_) => {
                return page(
                    &app,
                    &s,
                    None,
                    Some("appstate:write is never granted here".into()),
                )
                .await;
            }
            Err(e) => return page(&app, &s, None, Some(e.message().to_owned())).await,
        }
    };
    let label = form.get("label").unwrap_or_default();
    let made = app
        .admin
        .credentials(&op)
        .create(&s.person.tenant_id, scopes, label)
        .await;
    show(&app, &s, "Created", made).await
}

/// The page after a create or a rotation: the secret shown once, or what went wrong.
async fn show(
    app: &SharedState,
    s: &SessionRow,
    verb: &'static str,
    made: pp_core::Result<pp_auth::CreatedCredential>,
) -> Response {
    match made {
        Ok(c) => {
            tracing::info!(credential = %c.row.id, by = %s.person.email, verb, "credential secret issued in the console");
            let created = Created {
                verb,
                label: c.row.label,
                client_id: c.row.client_id,
                secret: c.client_secret,
            };
            page(app, s, Some(created), None).await
        }
        Err(e) => page(app, s, None, Some(e.message().to_owned())).await,
    }
}

pub async fn rotate(
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
    let made = app.admin.credentials(&op).rotate(&id).await;
    show(&app, &s, "Rotated", made).await
}

pub async fn revoke(
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
    match app.admin.credentials(&op).revoke(&id).await {
        Ok((_, ended)) => {
            tracing::info!(credential = %id, by = %s.person.email, withdrawn = ?ended.withdrawn, webhooks_disabled = ?ended.disabled_webhooks, "credential revoked in the console");
            see_other("/console/credentials", &[])
        }
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
}
