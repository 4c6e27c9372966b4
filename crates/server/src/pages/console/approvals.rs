//! Writes waiting for a person's approval, in the console: each held commit with what it
//! changes (before and after, item by item), and the two decisions. Admins and approvers only;
//! the decision and the send are the service's (`Approvals::decide`).

use askama::Template;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;

use super::tenant_of;
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct Change {
    index: usize,
    entity: String,
    field: String,
    before: String,
    after: String,
}

pub struct Held {
    id: String,
    operation: String,
    requested_by: String,
    surface: String,
    reason: String,
    requested_at: String,
    expires_at: String,
    plan_hash_short: String,
    changes: Vec<Change>,
}

#[derive(Template)]
#[template(path = "console/approvals.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    held: Vec<Held>,
    notice: Option<String>,
    error: Option<String>,
}

async fn page(
    app: &SharedState,
    s: &pp_store::SessionRow,
    notice: Option<String>,
    error: Option<String>,
) -> Response {
    let tenant = match tenant_of(s) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let held = match app.market.approvals().held(&tenant).await {
        Ok(h) => h,
        Err(e) => return web::failed(&e),
    };
    let held = held
        .into_iter()
        .map(|h| Held {
            id: h.info.approval_id,
            operation: h.info.operation,
            requested_by: h.info.requested_by,
            surface: h.info.surface,
            reason: h.info.reason,
            requested_at: h.info.requested_at,
            expires_at: h.info.expires_at,
            plan_hash_short: h.info.plan_hash.chars().take(12).collect(),
            changes: h
                .items
                .into_iter()
                .flat_map(|i| {
                    let entity = i.entity_id.unwrap_or_else(|| "(new)".into());
                    i.changes
                        .into_iter()
                        .map(move |(field, before, after)| Change {
                            index: i.index,
                            entity: entity.clone(),
                            field,
                            before,
                            after,
                        })
                })
                .collect(),
        })
        .collect();
    let status = if error.is_some() {
        StatusCode::CONFLICT
    } else {
        StatusCode::OK
    };
    render(
        status,
        &Page {
            nav: Nav::of(s, "approvals"),
            csrf: s.csrf.clone(),
            held,
            notice,
            error,
        },
    )
}

pub async fn list(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    let s = match web::signed_in(&app, &parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    if let Err(r) = web::approvers_only(&s) {
        return r;
    }
    page(&app, &s, None, None).await
}

async fn decide(app: SharedState, id: String, req: Request, approve: bool) -> Response {
    let (s, _) = match web::signed_form(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    if let Err(r) = web::approvers_only(&s) {
        return r;
    }
    let tenant = match tenant_of(&s) {
        Ok(t) => t,
        Err(r) => return r,
    };
    match app
        .market
        .approvals()
        .decide(&tenant, &id, approve, &s.person.email, None)
        .await
    {
        Ok(info) => {
            tracing::info!(approval = %id, by = %s.person.email, approve, status = %info.status, "held write decided in the console");
            page(&app, &s, Some(info.message), None).await
        }
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
}

pub async fn approve(
    State(app): State<SharedState>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    decide(app, id, req, true).await
}

pub async fn reject(
    State(app): State<SharedState>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    decide(app, id, req, false).await
}
