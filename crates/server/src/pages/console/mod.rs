//! The admin console: a person's home page, and for admins the tenant's service credentials,
//! applications, connected accounts (connected through the provider's consent pages), people, the write policy, the audit log of committed writes and the warehouse sync; for
//! everyone, a merchant's month of profit (`profit.rs`, its waterfall drawn by `waterfall.rs`), the costs profit needs (`costs.rs`; admins change them), its campaigns by hour of the week (`hours.rs`, the heatmaps drawn by `heatmap.rs`), setup codes for the plugin and changing their own password.
//! Every action is a form post carrying the session's CSRF token, answered by a page.

mod approvals;
mod apps;
mod audit;
pub(crate) mod connections;
pub(crate) mod costs;
mod coverage;
mod credentials;
mod heatmap;
mod hours;
mod password;
mod people;
mod policy;
mod profit;
mod setup_codes;
mod sync;
mod waterfall;
mod webhooks;

use askama::Template;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use pp_admin::{Operator, Overview};
use pp_core::{Scope, TenantId};

use super::web::{self, Nav, render};
use crate::state::SharedState;

pub fn router() -> Router<SharedState> {
    Router::new()
        .route("/console", get(home))
        .route("/console/style.css", get(style))
        .route(
            "/console/credentials",
            get(credentials::list).post(credentials::create),
        )
        .route(
            "/console/credentials/{id}/rotate",
            post(credentials::rotate),
        )
        .route(
            "/console/credentials/{id}/revoke",
            post(credentials::revoke),
        )
        .route(
            "/console/setup-codes",
            get(setup_codes::list).post(setup_codes::create),
        )
        .route("/console/apps", get(apps::list).post(apps::create))
        .route("/console/apps/{id}/revoke", post(apps::revoke))
        .route("/console/people", get(people::list).post(people::create))
        .route("/console/people/{id}/disable", post(people::disable))
        .route("/console/connections", get(connections::list))
        .route("/console/connections/connect", post(connections::connect))
        .route(connections::CALLBACK, get(connections::callback))
        .route(
            "/console/connections/disconnect",
            post(connections::disconnect),
        )
        .route("/console/policy", get(policy::show).post(policy::save))
        .route("/console/approvals", get(approvals::list))
        .route("/console/approvals/{id}/approve", post(approvals::approve))
        .route("/console/approvals/{id}/reject", post(approvals::reject))
        .route("/console/audit", get(audit::list))
        .route("/console/sync", get(sync::show))
        .route("/console/sync/run", post(sync::run))
        .route("/console/sync/schedule", post(sync::save_schedule))
        .route("/console/webhooks", get(webhooks::list).post(webhooks::add))
        .route("/console/costs", get(costs::show).post(costs::add))
        .route("/console/profit", get(profit::show))
        .route("/console/hours", get(hours::show))
        .route("/console/costs/currency", post(costs::currency))
        .route("/console/webhooks/{id}/{action}", post(webhooks::act))
        .route(
            "/console/password",
            get(password::form).post(password::change),
        )
}

/// The stylesheet (the only thing a page loads).
async fn style() -> Response {
    let mut res = include_str!("../../../templates/style.css").into_response();
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/css; charset=utf-8"),
    );
    res.headers_mut().insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("public, max-age=3600"),
    );
    res
}

/// Every scope with its plain words, for the forms that grant scopes.
fn all_scopes() -> Vec<(&'static str, &'static str)> {
    Scope::ALL
        .iter()
        .filter(|s| **s != Scope::AppstateWrite)
        .map(|s| (s.as_str(), s.plain()))
        .collect()
}

/// The tenant of a session.
fn tenant_of(s: &pp_store::SessionRow) -> Result<TenantId, Response> {
    TenantId::parse(&s.person.tenant_id).map_err(|e| web::failed(&e))
}

/// A signed-in admin opening a page.
/// The signed-in admin `s` as the administration service's operator (their tenant, their
/// email on what they change).
fn operator(s: &pp_store::SessionRow) -> Result<Operator, Response> {
    Operator::tenant_admin(&s.person).map_err(|e| web::failed(&e))
}

async fn admin_page(app: &SharedState, req: Request) -> Result<pp_store::SessionRow, Response> {
    let (parts, _) = req.into_parts();
    let s = web::signed_in(app, &parts).await?;
    web::admin_only(&s)?;
    Ok(s)
}

/// A signed-in admin's CSRF-checked form, with their tenant.
async fn admin_action(
    app: &SharedState,
    req: Request,
) -> Result<(pp_store::SessionRow, web::Form, TenantId), Response> {
    let (s, form) = web::signed_form(app, req).await?;
    web::admin_only(&s)?;
    let tenant = tenant_of(&s)?;
    Ok((s, form, tenant))
}

#[derive(Template)]
#[template(path = "console/home.html")]
struct Home {
    nav: Option<Nav>,
    name: String,
    tenant: String,
    role: String,
    admin: bool,
    credentials: usize,
    apps: usize,
    connections: usize,
    people: usize,
}

async fn home(State(app): State<SharedState>, req: Request) -> Response {
    let (parts, _) = req.into_parts();
    let s = match web::signed_in(&app, &parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let tenant = match tenant_of(&s) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let admin = s.person.role == "admin";
    let counts = match Operator::tenant_admin(&s.person) {
        Ok(op) => app.admin.account().overview(&op).await,
        Err(_) => Ok(Overview::default()),
    };
    let Overview {
        credentials,
        apps,
        connections,
        people,
    } = match counts {
        Ok(c) => c,
        Err(e) => return web::failed(&e),
    };
    render(
        StatusCode::OK,
        &Home {
            nav: Nav::of(&s, "home"),
            name: s.person.display_name.clone(),
            tenant: tenant.to_string(),
            role: s.person.role.clone(),
            admin,
            credentials,
            apps,
            connections,
            people,
        },
    )
}
