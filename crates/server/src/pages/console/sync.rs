//! Warehouse sync in the console: each merchant's datasets with their state, the days the
//! warehouse holds, the last load, the next run and the last error in the provider's words
//! (read through the sync service as the admin); a button that syncs now; and the tenant's own
//! schedule (daily hour, restatement windows) over the service's settings, changed through the
//! administration service like the command line's `admin tenant sync-schedule`.

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_core::Scope;
use pp_sync::{SyncStatus, TenantSchedule};

use super::{admin_action, admin_page, operator};
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct Row {
    merchant: String,
    dataset: String,
    state: String,
    covered: String,
    rows: String,
    last_success: String,
    next_run: String,
    /// The last error's message, or why the dataset cannot be read.
    problem: Option<String>,
    limits: &'static str,
}

/// The schedule form's values: in force, and whether the tenant set each.
pub struct Schedule {
    hour: u32,
    retail: i64,
    ads: i64,
    own_hour: String,
    own_retail: String,
    own_ads: String,
    set_by: Option<String>,
}

#[derive(Template)]
#[template(path = "console/sync.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    managed: bool,
    rows: Vec<Row>,
    schedule: Option<Schedule>,
    notice: Option<String>,
    error: Option<String>,
}

fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "—".into())
}

fn rows(status: &SyncStatus) -> Vec<Row> {
    status
        .datasets
        .iter()
        .map(|d| {
            let problem = d
                .last_error
                .as_ref()
                .and_then(|e| e["message"].as_str().map(str::to_owned))
                .or_else(|| d.note.clone());
            Row {
                merchant: format!(
                    "{} {}",
                    d.merchant.seller_id,
                    d.merchant.marketplace.clone().unwrap_or_default()
                ),
                dataset: d.dataset.clone(),
                state: d.state.clone(),
                covered: match (&d.covered_from, &d.data_through) {
                    (Some(f), Some(t)) => format!("{f} to {t}"),
                    _ => "nothing yet".into(),
                },
                rows: d
                    .rows_last_load
                    .map_or_else(|| "—".into(), |n| n.to_string()),
                last_success: or_dash(d.last_success.clone()),
                next_run: or_dash(d.next_run.clone()),
                problem,
                limits: d.limits,
            }
        })
        .collect()
}

fn schedule(status: &SyncStatus) -> Option<Schedule> {
    let s = status.schedule.as_ref()?;
    let own = &s.tenant_set;
    let text = |v: Option<String>| v.unwrap_or_default();
    Some(Schedule {
        hour: s.daily_hour_utc,
        retail: s.restate_retail_days,
        ads: s.restate_ads_days,
        own_hour: text(own.schedule.daily_hour_utc.map(|v| v.to_string())),
        own_retail: text(own.schedule.restate_retail_days.map(|v| v.to_string())),
        own_ads: text(own.schedule.restate_ads_days.map(|v| v.to_string())),
        set_by: match (&own.updated_by, &own.updated_at) {
            (Some(by), Some(at)) => Some(format!("{by} at {at}")),
            _ => None,
        },
    })
}

async fn page(
    app: &SharedState,
    s: &pp_store::SessionRow,
    notice: Option<String>,
    error: Option<String>,
) -> Response {
    let read = async {
        let p = pp_auth::sessions::console_principal(s, &[Scope::AccountRead])?;
        app.sync.status(&p).await
    };
    let status = match read.await {
        Ok(x) => x,
        Err(e) => return web::failed(&e),
    };
    render(
        if error.is_some() {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        },
        &Page {
            nav: Nav::of(s, "sync"),
            csrf: s.csrf.clone(),
            managed: status.warehouse == "managed",
            rows: rows(&status),
            schedule: schedule(&status),
            notice,
            error,
        },
    )
}

pub async fn show(State(app): State<SharedState>, req: Request) -> Response {
    match admin_page(&app, req).await {
        Ok(s) => page(&app, &s, None, None).await,
        Err(r) => r,
    }
}

/// Syncs now: merchants connected since the last look join, and every dataset runs.
pub async fn run(State(app): State<SharedState>, req: Request) -> Response {
    let (s, _, _) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let ran = async {
        // a tenant admin's button (admin_action checked the role)
        let p = pp_auth::sessions::console_principal(&s, &[Scope::SyncWrite, Scope::AccountRead])?;
        app.sync.run(&p, pp_sync::RunRequest::default()).await
    };
    match ran.await {
        Ok(_) => {
            let notice = "Every dataset runs now; this page shows where each is.";
            page(&app, &s, Some(notice.into()), None).await
        }
        Err(e) => page(&app, &s, None, Some(e.message().to_owned())).await,
    }
}

/// A form field as a number; empty means "the service's".
fn field<T: std::str::FromStr>(form: &web::Form, name: &str) -> Result<Option<T>, String> {
    match form.get(name).map(str::trim).unwrap_or_default() {
        "" => Ok(None),
        v => v
            .parse()
            .map(Some)
            .map_err(|_| format!("{name} is a whole number, not {v:?}. Nothing was changed.")),
    }
}

/// Saves the tenant's own schedule (an empty field takes the service's value).
pub async fn save_schedule(State(app): State<SharedState>, req: Request) -> Response {
    let (s, form, tenant) = match admin_action(&app, req).await {
        Ok(x) => x,
        Err(r) => return r,
    };
    let typed = (|| {
        Ok::<_, String>(TenantSchedule {
            daily_hour_utc: field(&form, "dailyHourUtc")?,
            restate_retail_days: field(&form, "restateRetailDays")?,
            restate_ads_days: field(&form, "restateAdsDays")?,
        })
    })();
    let schedule = match typed {
        Ok(x) => x,
        Err(e) => return page(&app, &s, None, Some(e)).await,
    };
    let op = match operator(&s) {
        Ok(op) => op,
        Err(r) => return r,
    };
    match app
        .admin
        .tenants(&op)
        .set_sync_schedule(tenant.as_str(), schedule)
        .await
    {
        Ok(_) => {
            tracing::info!(tenant = %tenant.as_str(), by = %s.person.email, "sync schedule changed in the console");
            let notice = "Saved: each dataset's next run plans with it.";
            page(&app, &s, Some(notice.into()), None).await
        }
        Err(e) => {
            let error = format!("{} Nothing was changed.", e.message());
            page(&app, &s, None, Some(error)).await
        }
    }
}
