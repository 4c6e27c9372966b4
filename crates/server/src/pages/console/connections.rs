//! Connected marketplace accounts in the console: each connection's kind, merchant, region,
//! status, what its grant reaches, who connected it and its last successful call (never its
//! token); connecting a seller account or an advertising login through the provider's consent
//! pages (the callback comes back here), reconnecting and disconnecting. The work is the
//! marketplace service's (`pp_marketplace::service::connecting`).

use askama::Template;
use axum::extract::{Query, Request, State};
use axum::response::Response;
use pp_core::TenantId;
use pp_marketplace::connections::{Connection, ConnectionStatus, GrantKind};
use pp_marketplace::service::connecting::{Callback, Connector};
use pp_store::SessionRow;

use super::{admin_action, admin_page, tenant_of};
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

/// Where the provider's consent pages send the browser back (registered at the provider).
pub const CALLBACK: &str = "/console/connections/callback";

pub struct Row {
    kind: &'static str,
    merchant: String,
    region: String,
    status: &'static str,
    reach: String,
    connected_by: String,
    last_call: String,
    since: String,
    /// Whether it holds a grant to disconnect.
    connected: bool,
}

impl From<Connection> for Row {
    fn from(c: Connection) -> Self {
        let (connected_by, connected) = match &c.disconnected_by {
            Some(by) => (format!("disconnected by {by}"), false),
            None => (c.connected_by.clone().unwrap_or_else(|| "—".into()), true),
        };
        Self {
            kind: c.kind.as_str(),
            merchant: c.merchant,
            region: c.region,
            status: c.status.as_str(),
            reach: if c.reach.is_empty() {
                "—".into()
            } else {
                c.reach.join(", ")
            },
            connected_by,
            last_call: c.last_call_at.unwrap_or_else(|| "never".into()),
            since: c.updated_at,
            connected: connected && c.status != ConnectionStatus::Lapsed,
        }
    }
}

#[derive(Template)]
#[template(path = "console/connections.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    notice: Option<String>,
    error: Option<String>,
    rows: Vec<Row>,
}

async fn page(
    app: &SharedState,
    s: &SessionRow,
    tenant: &TenantId,
    notice: Option<String>,
    error: Option<String>,
) -> Response {
    let rows = match app.market.connections().list(tenant).await {
        Ok(r) => r.into_iter().map(Row::from).collect(),
        Err(e) => return web::failed(&e),
    };
    render(
        web::form_status(&error),
        &Page {
            nav: Nav::of(s, "connections"),
            csrf: s.csrf.clone(),
            notice,
            error,
            rows,
        },
    )
}

/// The page after an action: its notice, or what went wrong in words a person can act on
/// (the provider unreachable, the API not configured); only an internal failure is logged and
/// shown as such.
async fn after(
    app: &SharedState,
    s: &SessionRow,
    tenant: &TenantId,
    done: pp_core::Result<String>,
) -> Response {
    match done {
        Ok(notice) => page(app, s, tenant, Some(notice), None).await,
        Err(e) if e.kind.status() == 500 => web::failed(&e),
        Err(e) => page(app, s, tenant, None, Some(e.message().to_owned())).await,
    }
}

fn connector<'a>(s: &'a SessionRow, tenant: &'a TenantId) -> Connector<'a> {
    Connector {
        tenant,
        person_id: &s.person.id,
        email: &s.person.email,
    }
}

fn callback_url(app: &SharedState) -> String {
    format!("{}{CALLBACK}", app.public_url)
}

pub async fn list(State(app): State<SharedState>, req: Request) -> Response {
    let s = match admin_page(&app, req).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match tenant_of(&s) {
        Ok(t) => page(&app, &s, &t, None, None).await,
        Err(r) => r,
    }
}

/// `POST /console/connections/connect` (`kind`, `region`): off to the provider's consent page.
pub async fn connect(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, tenant) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let region = form.get("region").unwrap_or_default();
    let started = match GrantKind::parse(form.get("kind").unwrap_or_default()) {
        Ok(kind) => {
            app.market
                .connections()
                .start(connector(&s, &tenant), kind, region, &callback_url(&app))
                .await
        }
        Err(e) => Err(e),
    };
    match started {
        Ok(url) => web::see_other(&url, &[]),
        Err(e) => after(&app, &s, &tenant, Err(e)).await,
    }
}

/// The provider's redirect back: `state` with `spapi_oauth_code` and `selling_partner_id`
/// (selling side) or `code` (advertising), or `error`.
#[derive(serde::Deserialize)]
pub struct Back {
    state: Option<String>,
    code: Option<String>,
    spapi_oauth_code: Option<String>,
    selling_partner_id: Option<String>,
    error: Option<String>,
}

/// `GET /console/connections/callback`.
pub async fn callback(
    State(app): State<SharedState>,
    Query(back): Query<Back>,
    req: Request,
) -> Response {
    let s = match admin_page(&app, req).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let tenant = match tenant_of(&s) {
        Ok(t) => t,
        Err(r) => return r,
    };
    let back = Callback {
        state: back.state,
        code: back.spapi_oauth_code.or(back.code),
        selling_partner_id: back.selling_partner_id,
        error: back.error,
    };
    let finished = app
        .market
        .connections()
        .finish(connector(&s, &tenant), &back, &callback_url(&app))
        .await
        .map(|done| {
            let merchants: Vec<&str> = done
                .connections
                .iter()
                .map(|c| c.merchant.as_str())
                .collect();
            let what = match done.kind {
                GrantKind::Seller => "seller account",
                GrantKind::Ads => "advertising login for",
            };
            format!("Connected the {what} {}.", merchants.join(", "))
        });
    // a managed warehouse takes the new merchants in and starts their sync; a failure here
    // is the sync status's to show, the connection stands
    if finished.is_ok()
        && let Err(e) = app.sync.adopt(&tenant).await
    {
        tracing::warn!(
            tenant = tenant.as_str(),
            error = e.message(),
            "adopting merchants after a connect failed"
        );
    }
    after(&app, &s, &tenant, finished).await
}

/// `POST /console/connections/disconnect` (`kind`, `merchant`).
pub async fn disconnect(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, tenant) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let merchant = form.get("merchant").unwrap_or_default();
    let done = match GrantKind::parse(form.get("kind").unwrap_or_default()) {
        Ok(kind) => {
            app.market
                .connections()
                .disconnect(&tenant, kind, merchant, &s.person.email)
                .await
        }
        Err(e) => Err(e),
    };
    let done = done.map(|()| {
        format!(
            "Disconnected {merchant}: its token is erased, and calls for it answer reauth_required until it is connected again."
        )
    });
    after(&app, &s, &tenant, done).await
}
