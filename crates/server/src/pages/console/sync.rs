//! Warehouse sync in the console: the datasets grouped by merchant, each merchant's coverage
//! drawn (`coverage.rs`: held, re-read every run, still to come) above its datasets' state,
//! days held, backfill progress and estimated end, last load, next run and the last error in
//! the provider's words (read through the sync service as the admin); the accounts connected
//! but not yet taken in, with the button that takes them in (sync now); and the tenant's own
//! schedule (daily hour, restatement windows) over the service's settings, changed through the
//! administration service like the command line's `admin tenant sync-schedule`; and each
//! Marketing Stream and notifications queue's state, messages, last message and lag.

use askama::Template;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use pp_core::Scope;
use pp_sync::{DatasetStatus, SyncStatus, TenantSchedule};

use super::{admin_action, admin_page, coverage, operator};
use crate::pages::web::{self, Nav, render};
use crate::state::SharedState;

pub struct Row {
    dataset: String,
    state: String,
    covered: String,
    /// How far a backfill has come and when it should end.
    progress: Option<String>,
    last_success: String,
    next_run: String,
    /// The last error's message, or why the dataset cannot be read.
    problem: Option<String>,
    limits: &'static str,
}

/// One stream or notifications queue: its state, counts, last message and lag.
pub struct Stream {
    dataset: String,
    state: &'static str,
    messages: i64,
    duplicates: i64,
    rejected: i64,
    last_message: String,
    /// Since the provider published the newest message (`3 h 12 min`).
    lag: String,
    last_error: Option<String>,
}

/// A lag in seconds, as the page says it.
fn lag(seconds: Option<i64>) -> String {
    match seconds {
        None => "—".into(),
        Some(s) if s < 120 => format!("{s} s"),
        Some(s) if s < 7_200 => format!("{} min", s / 60),
        Some(s) => format!("{} h {} min", s / 3_600, s % 3_600 / 60),
    }
}

/// The tenant's queues, when it subscribed to the streams.
fn streams(queues: &[pp_sync::stream::status::QueueStatus]) -> Vec<Stream> {
    queues
        .iter()
        .map(|q| Stream {
            dataset: q.dataset.clone(),
            state: q.state,
            messages: q.messages,
            duplicates: q.duplicates,
            rejected: q.rejected,
            last_message: short(&q.last_message),
            lag: lag(q.lag_seconds),
            last_error: q.last_error.clone(),
        })
        .collect()
}

/// One merchant's datasets and their coverage chart.
pub struct Group {
    merchant: String,
    chart: Option<String>,
    rows: Vec<Row>,
}

/// The schedule form's values: in force, and whether the tenant set each.
pub struct Schedule {
    hour: u32,
    retail: i64,
    ads: i64,
    history: Option<i64>,
    own_hour: String,
    own_retail: String,
    own_ads: String,
    own_history: String,
    set_by: Option<String>,
}

#[derive(Template)]
#[template(path = "console/sync.html")]
struct Page {
    nav: Option<Nav>,
    csrf: String,
    managed: bool,
    groups: Vec<Group>,
    /// Accounts connected but not taken in yet.
    not_taken_in: Vec<String>,
    schedule: Option<Schedule>,
    /// The Marketing Stream and notification queues (docs/streams.md).
    streams: Vec<Stream>,
    notice: Option<String>,
    error: Option<String>,
}

fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "—".into())
}

/// An RFC 3339 instant as the page shows it (`2026-12-02 14:05 UTC`).
fn short(at: &Option<String>) -> String {
    match at {
        Some(t) if t.len() >= 16 => format!("{} {} UTC", &t[..10], &t[11..16]),
        other => or_dash(other.clone()),
    }
}

fn row(d: &DatasetStatus) -> Row {
    let problem = d
        .last_error
        .as_ref()
        .and_then(|e| e["message"].as_str().map(str::to_owned))
        .or_else(|| d.note.clone());
    let progress = d.backfill.as_ref().map(|b| {
        let end = match &b.estimated_end {
            Some(_) => format!(", ends about {}", short(&b.estimated_end)),
            None => String::new(),
        };
        format!(
            "{} of {} days back to {}{end}",
            b.days_held, b.days_in_reach, b.reaches_from
        )
    });
    Row {
        dataset: d.dataset.clone(),
        state: d.state.clone(),
        covered: match (&d.covered_from, &d.data_through) {
            (Some(f), Some(t)) if f == t => f.clone(),
            (Some(f), Some(t)) => format!("{f} to {t}"),
            _ => "nothing yet".into(),
        },
        progress,
        last_success: short(&d.last_success),
        next_run: short(&d.next_run),
        problem,
        limits: d.limits,
    }
}

/// The datasets by merchant (in the status's order), each merchant's coverage drawn.
fn groups(status: &SyncStatus) -> Vec<Group> {
    let mut out: Vec<(String, Vec<&DatasetStatus>)> = Vec::new();
    for d in &status.datasets {
        let name = format!(
            "{} {}",
            d.merchant.seller_id,
            d.merchant.marketplace.clone().unwrap_or_default()
        );
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some((_, ds)) => ds.push(d),
            None => out.push((name, vec![d])),
        }
    }
    let day = |d: &Option<String>| d.as_deref().and_then(|d| d.parse().ok());
    out.into_iter()
        .map(|(merchant, ds)| {
            let bars: Vec<coverage::Bar> = ds
                .iter()
                .filter(|d| d.state != "unavailable")
                .map(|d| coverage::Bar {
                    dataset: d.dataset.clone(),
                    reach: day(&d.backfill.as_ref().map(|b| b.reaches_from.clone()))
                        .or(day(&d.covered_from)),
                    covered: day(&d.covered_from),
                    through: day(&d.data_through),
                    restate_days: d.restatement_days,
                })
                .collect();
            let chart = coverage::svg(&bars).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "the sync page's coverage chart could not be drawn");
                None
            });
            Group {
                merchant,
                chart,
                rows: ds.into_iter().map(row).collect(),
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
        history: s.history_days,
        own_hour: text(own.schedule.daily_hour_utc.map(|v| v.to_string())),
        own_retail: text(own.schedule.restate_retail_days.map(|v| v.to_string())),
        own_ads: text(own.schedule.restate_ads_days.map(|v| v.to_string())),
        own_history: text(own.schedule.history_days.map(|v| v.to_string())),
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
        let queues = app.sync.streams().queues(&p).await?;
        Ok::<_, pp_core::Error>((app.sync.status(&p).await?, streams(&queues)))
    };
    let (status, streams) = match read.await {
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
            groups: groups(&status),
            not_taken_in: status.not_taken_in.clone(),
            schedule: schedule(&status),
            streams,
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
            history_days: field(&form, "historyDays")?,
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
