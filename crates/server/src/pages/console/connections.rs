//! Connected marketplace accounts in the console: each connection's kind, merchant, region and
//! status (never its token).

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::{admin_page, tenant_of};
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct Row {
    kind: String,
    merchant: String,
    region: String,
    status: String,
    updated_at: String,
}

#[derive(Template)]
#[template(path = "console/connections.html")]
struct Page {
    nav: Option<Nav>,
    rows: Vec<Row>,
}

pub async fn list(State(app): State<SharedState>, req: Request) -> Response {
    let s = match admin_page(&app, req).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let tenant = match tenant_of(&s) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let rows = match app.store.connections().list(&tenant).await {
        Ok(r) => r,
        Err(e) => return web::failed(&e),
    };
    let rows = rows
        .into_iter()
        .map(|c| Row {
            kind: c.kind,
            merchant: c.merchant,
            region: c.region,
            status: c.status,
            updated_at: c.updated_at,
        })
        .collect();
    render(
        StatusCode::OK,
        &Page {
            nav: Nav::of(&s, "connections"),
            rows,
        },
    )
}
