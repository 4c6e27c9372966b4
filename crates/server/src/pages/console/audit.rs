//! The audit log in the console: committed advertising writes, newest first (who, what,
//! which account, the result), read through the marketplace service as the admin, a page at
//! a time.

use askama::Template;
use axum::extract::{Query, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_core::Scope;
use pp_marketplace::service::requests::AuditQuery;
use serde::Deserialize;

use super::admin_page;
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct Row {
    at: String,
    actor: String,
    surface: String,
    operation: String,
    merchant: String,
    profile_id: Option<String>,
    status: String,
    approved_by: Option<String>,
}

#[derive(Template)]
#[template(path = "console/audit.html")]
struct Page {
    nav: Option<Nav>,
    rows: Vec<Row>,
    older: Option<String>,
}

#[derive(Deserialize)]
pub struct Paging {
    cursor: Option<String>,
}

pub async fn list(
    State(app): State<SharedState>,
    Query(q): Query<Paging>,
    req: Request,
) -> Response {
    let s = match admin_page(&app, req).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let read = async {
        let p = pp_auth::sessions::console_principal(&s, &[Scope::AdsRead])?;
        let query = AuditQuery {
            cursor: q.cursor,
            limit: Some("50".into()),
            ..AuditQuery::default()
        };
        app.market.audit().ads(&p, query, &app.cursors).await
    };
    let page = match read.await {
        Ok(p) => p,
        Err(e) => return web::failed(&e),
    };
    let rows = page
        .records
        .into_iter()
        .map(|r| Row {
            at: r.at,
            actor: r.actor,
            surface: r.surface,
            operation: r.operation,
            merchant: r.merchant,
            profile_id: r.profile_id,
            status: r.status,
            approved_by: r.approved_by,
        })
        .collect();
    let older = page
        .next_cursor
        .map(|c| form_urlencoded::byte_serialize(c.as_bytes()).collect());
    render(
        StatusCode::OK,
        &Page {
            nav: Nav::of(&s, "audit"),
            rows,
            older,
        },
    )
}
