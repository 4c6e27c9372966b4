//! The tenant's write policy in the console: the bounds in force, readable, and a form that
//! replaces the policy with a JSON document (checked by `pp_marketplace::policy::set`; a
//! document that cannot mean anything is refused and the policy in force kept).

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_marketplace::policy::{Bounds, Policy};

use super::{admin_action, admin_page, operator, tenant_of};
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct BoundsRow {
    currency: String,
    bid_min: String,
    bid_max: String,
    budget_min: String,
    budget_max: String,
}

#[derive(Template)]
#[template(path = "console/policy.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    source: String,
    bounds: Vec<BoundsRow>,
    max_raise: f64,
    max_cut: f64,
    max_items: usize,
    max_campaigns: usize,
    forbidden: Vec<String>,
    enabled_creates: bool,
    /// What the policy holds for a person, in words (empty: nothing).
    approval: String,
    json: String,
    notice: Option<String>,
    error: Option<String>,
}

fn amount(v: Option<f64>) -> String {
    v.map_or_else(|| "none".to_owned(), |v| v.to_string())
}

/// The approval rules in words.
fn held(a: &pp_marketplace::policy::ApprovalRules) -> String {
    let mut parts = Vec::new();
    if a.mcp {
        parts.push("every commit of an AI client (an MCP session or a self-registered application), whichever door commits its plan".to_owned());
    }
    if !a.credentials.is_empty() {
        parts.push(format!(
            "every commit of a plan credential {} previewed or commits",
            a.credentials.join(", ")
        ));
    }
    if !a.applications.is_empty() {
        parts.push(format!(
            "every commit of a plan previewed or committed through application {}",
            a.applications.join(", ")
        ));
    }
    if let Some(n) = a.over_items {
        parts.push(format!("commits of more than {n} items"));
    }
    if !a.operations.is_empty() {
        parts.push(format!("every commit of {}", a.operations.join(", ")));
    }
    if parts.is_empty() {
        return String::new();
    }
    let who = if a.self_approval {
        "the requester may approve their own"
    } else {
        "another person than the requester approves"
    };
    format!(
        "{}; each waits {} hours, and {who}",
        parts.join("; "),
        a.hours
    )
}

fn rows(p: &Policy) -> Vec<BoundsRow> {
    let mut currencies: Vec<&String> = p.bids.keys().chain(p.budgets.keys()).collect();
    currencies.sort();
    currencies.dedup();
    let none = Bounds {
        min: None,
        max: None,
    };
    currencies
        .into_iter()
        .map(|c| {
            let bid = p.bids.get(c).unwrap_or(&none);
            let budget = p.budgets.get(c).unwrap_or(&none);
            BoundsRow {
                currency: c.clone(),
                bid_min: amount(bid.min),
                bid_max: amount(bid.max),
                budget_min: amount(budget.min),
                budget_max: amount(budget.max),
            }
        })
        .collect()
}

async fn page(
    app: &SharedState,
    s: &pp_store::SessionRow,
    tenant: &pp_core::TenantId,
    notice: Option<String>,
    error: Option<String>,
    typed: Option<String>,
) -> Response {
    let op = match operator(s) {
        Ok(op) => op,
        Err(r) => return r,
    };
    let shown = match app.admin.policies(&op).show(tenant.as_str()).await {
        Ok(x) => x,
        Err(e) => return web::failed(&e),
    };
    let source = match (&shown.updated_by, &shown.updated_at) {
        (Some(by), Some(at)) => format!("Set by {by} at {at}."),
        _ => "The defaults every new tenant gets: nobody has changed them.".to_owned(),
    };
    let p = shown.policy;
    let json = typed.unwrap_or_else(|| serde_json::to_string_pretty(&p).unwrap_or_default());
    render(
        if error.is_some() {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        },
        &Page {
            nav: Nav::of(s, "policy"),
            csrf: s.csrf.clone(),
            source,
            bounds: rows(&p),
            max_raise: p.max_raise,
            max_cut: p.max_cut,
            max_items: p.max_items,
            max_campaigns: p.max_campaigns,
            forbidden: p.forbidden_operations.clone(),
            enabled_creates: p.enabled_creates,
            approval: held(&p.approval),
            json,
            notice,
            error,
        },
    )
}

pub async fn show(State(app): State<SharedState>, req: Request) -> Response {
    let s = match admin_page(&app, req).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let tenant = match tenant_of(&s) {
        Ok(t) => t,
        Err(r) => return r,
    };
    page(&app, &s, &tenant, None, None, None).await
}

pub async fn save(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, tenant) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let typed = form.get("policy").unwrap_or_default().to_owned();
    let doc = match serde_json::from_str::<serde_json::Value>(&typed) {
        Ok(d) => d,
        Err(e) => {
            let error = Some(format!("That is not JSON: {e}. Nothing was changed."));
            return page(&app, &s, &tenant, None, error, Some(typed)).await;
        }
    };
    let op = match operator(&s) {
        Ok(op) => op,
        Err(r) => return r,
    };
    match app.admin.policies(&op).set(tenant.as_str(), &doc).await {
        Ok(_) => {
            tracing::info!(tenant = %tenant.as_str(), by = %s.person.email, "write policy changed in the console");
            page(
                &app,
                &s,
                &tenant,
                Some("Saved: the next dry run and commit use it.".into()),
                None,
                None,
            )
            .await
        }
        Err(e) => {
            let error = Some(format!("{} Nothing was changed.", e.message()));
            page(&app, &s, &tenant, None, error, Some(typed)).await
        }
    }
}
