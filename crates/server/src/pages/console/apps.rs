//! Applications in the console: the tenant's partner applications and the AI clients its
//! people connected, registration of a partner application for the tenant (the secret of a
//! confidential one shown once), and revocation (every sign-in to it ends).

use askama::Template;
use axum::extract::{Path, Request, State};
use axum::response::Response;
use pp_auth::clients::PartnerApp;
use pp_store::SessionRow;

use super::{admin_action, admin_page, all_scopes, operator};
use crate::pages::web::{self, Nav, render, see_other};
use crate::state::SharedState;

pub struct Row {
    client_id: String,
    name: String,
    kind: &'static str,
    redirect_uris: Vec<String>,
    live: bool,
}

pub struct Created {
    name: String,
    client_id: String,
    secret: Option<String>,
}

#[derive(Template)]
#[template(path = "console/apps.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    rows: Vec<Row>,
    created: Option<Created>,
    error: Option<String>,
    all_scopes: Vec<(&'static str, &'static str)>,
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
    let rows = match app.admin.apps(&op).list(None).await {
        Ok(r) => r,
        Err(e) => return web::failed(&e),
    };
    let rows = rows
        .into_iter()
        .map(|c| Row {
            kind: if c.kind == "dynamic" {
                "AI client (registered itself)"
            } else if c.confidential() {
                "Partner application (confidential)"
            } else {
                "Partner application (public)"
            },
            live: c.revoked_at.is_none(),
            client_id: c.client_id,
            name: c.name,
            redirect_uris: c.redirect_uris,
        })
        .collect();
    render(
        web::form_status(&error),
        &Page {
            nav: Nav::of(s, "apps"),
            csrf: s.csrf.clone(),
            rows,
            created,
            error,
            all_scopes: all_scopes(),
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
    let uris: Vec<String> = form
        .get("redirect_uris")
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    let scopes = form.all("scope").join(" ");
    let spec = PartnerApp {
        name: form.get("name").unwrap_or_default(),
        redirect_uris: &uris,
        scopes: &scopes,
        confidential: form.get("confidential") == Some("yes"),
    };
    match app.admin.apps(&op).register(None, &spec).await {
        Ok(c) => {
            tracing::info!(client = %c.row.client_id, by = %s.person.email, "application registered in the console");
            let created = Created {
                name: c.row.name,
                client_id: c.row.client_id,
                secret: c.client_secret,
            };
            page(&app, &s, Some(created), None).await
        }
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
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
    match app.admin.apps(&op).revoke(&id).await {
        Ok(ended) => {
            tracing::info!(client = %id, by = %s.person.email, withdrawn = ?ended.withdrawn, webhooks_disabled = ?ended.disabled_webhooks, "application revoked in the console");
            see_other("/console/apps", &[])
        }
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
}
