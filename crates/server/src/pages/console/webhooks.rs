//! Webhooks in the console (tenant admins): the tenant's endpoints with their state and recent
//! deliveries; add one (its signing secret shown once on the page that answers), rotate its
//! secret (the new one shown once), enable, disable, remove. Every change goes through the
//! events service as the admin, like `POST /api/webhooks` with `webhooks:write`.

use askama::Template;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_core::Scope;
use pp_events::RegisterRequest;
use pp_events::endpoints::{EndpointOut, LogRequest};

use super::{admin_action, admin_page};
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct Row {
    id: String,
    url: String,
    description: String,
    types: String,
    enabled: bool,
    /// Why it is disabled, or since when it fails.
    problem: Option<String>,
    /// The last deliveries' states, newest first.
    recent: String,
}

#[derive(Template)]
#[template(path = "console/webhooks.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    endpoints: Vec<Row>,
    /// An endpoint's id and its new secret, shown once.
    secret: Option<(String, String)>,
    notice: Option<String>,
    error: Option<String>,
}

fn principal(s: &pp_store::SessionRow) -> pp_core::Result<pp_core::Principal> {
    pp_auth::sessions::console_principal(s, &[Scope::WebhooksWrite])
}

async fn row(admin: &pp_events::EndpointAdmin<'_>, e: EndpointOut) -> pp_core::Result<Row> {
    let log = admin
        .log(
            &e.id,
            LogRequest {
                before: None,
                limit: Some(5),
            },
        )
        .await?;
    let recent = log
        .deliveries
        .iter()
        .map(|d| format!("{} {}", d.event_type.clone().unwrap_or_default(), d.status))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Row {
        problem: e.disabled_reason.clone().or_else(|| {
            e.failing_since
                .as_ref()
                .map(|t| format!("failing since {t}"))
        }),
        types: e.types.join(", "),
        id: e.id,
        url: e.url,
        description: e.description,
        enabled: e.enabled,
        recent: if recent.is_empty() {
            "none yet".into()
        } else {
            recent
        },
    })
}

async fn page(
    app: &SharedState,
    s: &pp_store::SessionRow,
    secret: Option<(String, String)>,
    notice: Option<String>,
    error: Option<String>,
) -> Response {
    let read = async {
        let p = principal(s)?;
        let admin = app.events.endpoints(&p)?;
        let mut rows = Vec::new();
        for e in admin.list().await?.endpoints {
            rows.push(row(&admin, e).await?);
        }
        Ok::<_, pp_core::Error>(rows)
    };
    let endpoints = match read.await {
        Ok(x) => x,
        Err(e) => return web::failed(&e),
    };
    let status = match error {
        Some(_) => StatusCode::BAD_REQUEST,
        None => StatusCode::OK,
    };
    render(
        status,
        &Page {
            nav: Nav::of(s, "webhooks"),
            csrf: s.csrf.clone(),
            endpoints,
            secret,
            notice,
            error,
        },
    )
}

pub async fn list(State(app): State<SharedState>, req: Request) -> Response {
    match admin_page(&app, req).await {
        Ok(s) => page(&app, &s, None, None, None).await,
        Err(r) => r,
    }
}

/// Registers an endpoint; the answer shows its secret once.
pub async fn add(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, _) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let field = |k: &str| form.get(k).unwrap_or_default().trim().to_owned();
    let req = RegisterRequest {
        url: field("url"),
        types: field("types")
            .split(',')
            .map(|t| t.trim().to_owned())
            .filter(|t| !t.is_empty())
            .collect(),
        description: Some(field("description")).filter(|d| !d.is_empty()),
    };
    let added = async { app.events.endpoints(&principal(&s)?)?.register(req).await };
    match added.await {
        Ok(w) => {
            tracing::info!(endpoint = %w.endpoint.id, by = %s.person.email, "webhook endpoint added in the console");
            page(&app, &s, Some((w.endpoint.id, w.secret)), None, None).await
        }
        Err(e) => {
            let error = format!("{} Nothing was added.", e.message());
            page(&app, &s, None, None, Some(error)).await
        }
    }
}

/// Rotates, enables, disables or removes endpoint `id`.
pub async fn act(
    State(app): State<SharedState>,
    Path((id, action)): Path<(String, String)>,
    req: Request,
) -> Response {
    let (s, _, _) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let done = async {
        let admin = app.events.endpoints(&principal(&s)?)?;
        Ok::<_, pp_core::Error>(match action.as_str() {
            "rotate" => {
                let w = admin.rotate(&id).await?;
                (Some((id.clone(), w.secret)), "A new secret signs from now on; the old one still verifies for the grace period.".to_owned())
            }
            "enable" => {
                admin.set_enabled(&id, true).await?;
                (None, format!("{id} is enabled."))
            }
            "disable" => {
                admin.set_enabled(&id, false).await?;
                (None, format!("{id} is disabled: nothing is sent to it."))
            }
            "remove" => {
                admin.remove(&id).await?;
                (None, format!("{id} is removed."))
            }
            other => {
                return Err(pp_core::Error::not_found(format!(
                    "no webhook action '{other}'"
                )));
            }
        })
    };
    match done.await {
        Ok((secret, notice)) => {
            tracing::info!(endpoint = %id, action = %action, by = %s.person.email, "webhook endpoint changed in the console");
            page(&app, &s, secret, Some(notice), None).await
        }
        Err(e) => {
            let error = format!("{} Nothing was changed.", e.message());
            page(&app, &s, None, None, Some(error)).await
        }
    }
}
