//! Pricing batches (§4.5): `POST /api/marketplace/pricing/{family}` answers inline up to the
//! family's limit; `POST …/{family}/start` takes any size and returns a run (a job) that is
//! polled at `GET …/runs/{id}` and read at `GET …/runs/{id}/result`, partial while it runs.
//! Families: `competitive-summary` (ASINs) and `featured-offer-expected-price` (SKUs).

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Extension, Path, Query, State};
use axum::http::StatusCode;
use pp_core::{Error, Principal, Scope};
use pp_marketplace::Merchant;
use pp_marketplace::pricing::{self, Family, RunInput, RunState};
use pp_store::jobs::{self, Job, now_ms};
use serde_json::{Map, Value, json};

use super::marketplace::resolve_merchant;
use crate::http::error::ApiError;
use crate::http::json::JsonObject;
use crate::state::SharedState;

fn family(segment: &str) -> Result<Family, Error> {
    Family::from_path(segment).ok_or_else(|| {
        Error::not_found(format!(
            "no pricing family '{segment}': use competitive-summary or featured-offer-expected-price"
        ))
    })
}

/// The body's merchant and items, checked before anything is sent.
async fn parse(
    app: &SharedState,
    p: &Principal,
    f: Family,
    body: &Map<String, Value>,
    max: usize,
) -> Result<(Merchant, Vec<String>), Error> {
    p.require(&[Scope::RetailRead])?;
    let (field, _) = f.field();
    let allowed = [
        "legacySellerId",
        "sellerId",
        "marketplace",
        "merchantId",
        field,
    ];
    if let Some(k) = body.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(Error::invalid_request(format!(
            "'{k}' is not a field here (the merchant selector and {field})"
        )));
    }
    let items = pricing::items(f, body, max)?;
    app.marketplace("spapi")?;
    Ok((resolve_merchant(app, p, body).await?, items))
}

/// Inline: every batch sent in turn, paced, answered in one response.
pub async fn sync(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(segment): Path<String>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let f = family(&segment)?;
    let (merchant, items) = parse(&app, &p, f, &body, f.sync_max()).await?;
    let m = app.marketplace("spapi")?;
    let up = m.provider(&app.store);
    let mut answers = Vec::with_capacity(items.len());
    for (i, batch) in items.chunks(f.batch()).enumerate() {
        if i > 0 {
            tokio::time::sleep(app.jobs.pricing_spacing.of(f)).await;
        }
        answers.extend(send_waiting(&up, &p, &merchant, f, batch).await?);
    }
    Ok(Json(json!({
        "ok": true, "family": segment, "merchant": merchant, "total": items.len(),
        "batches": items.len().div_ceil(f.batch()), "items": answers,
    })))
}

/// The longest a throttled inline batch waits (twice at most) before the call gives up.
const INLINE_WAIT_MAX: u64 = 60;

/// One inline batch; a throttled batch waits out its `Retry-After` (the caller is already
/// holding for the pace) rather than losing the batches answered before it.
async fn send_waiting(
    up: &pp_marketplace::upstream::Provider<'_>,
    p: &Principal,
    merchant: &Merchant,
    f: Family,
    batch: &[String],
) -> Result<Vec<Value>, Error> {
    let mut waited = 0;
    loop {
        match pricing::send_batch(up, &p.tenant, merchant, f, batch).await {
            Err(e) if e.kind == pp_core::Kind::Throttled && waited < 2 => {
                let wait = e.field("retryAfter").and_then(Value::as_u64).unwrap_or(1);
                if wait > INLINE_WAIT_MAX {
                    return Err(e);
                }
                waited += 1;
                tokio::time::sleep(std::time::Duration::from_secs(wait)).await;
            }
            other => return other,
        }
    }
}

/// A background run of any size.
pub async fn start(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(segment): Path<String>,
    JsonObject(body): JsonObject,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    Ok((
        StatusCode::ACCEPTED,
        Json(start_run(&app, &p, &segment, &body).await?),
    ))
}

/// Starts a background run of any size (`retail:read`); its first view.
pub async fn start_run(
    app: &SharedState,
    p: &Principal,
    segment: &str,
    body: &Map<String, Value>,
) -> Result<Value, Error> {
    let f = family(segment)?;
    let (merchant, items) = parse(app, p, f, body, pricing::RUN_MAX).await?;
    let input = RunInput {
        family: f,
        merchant: (&merchant).into(),
        spacing_ms: app.jobs.pricing_spacing.of(f).as_millis() as u64,
        items,
    };
    let total = input.items.len() as i64;
    let id = app.store.enqueue_job(
        &p.tenant,
        pricing::JOB_KIND,
        Some(&merchant.seller_id),
        total,
        &serde_json::to_value(&input).map_err(Error::internal)?,
    )?;
    app.wake.job_added();
    let job = own_run(app, p, &id)?;
    Ok(view(&job, segment))
}

fn own_run(app: &SharedState, p: &Principal, id: &str) -> Result<Job, Error> {
    p.require(&[Scope::RetailRead])?;
    app.store
        .job(&p.tenant, id)?
        .filter(|j| j.kind == pricing::JOB_KIND)
        .ok_or_else(|| Error::not_found(format!("no pricing run {id}")))
}

fn segment_of(job: &Job) -> &'static str {
    match job.input["family"].as_str() {
        Some("featured_offer_expected_price") => "featured-offer-expected-price",
        _ => "competitive-summary",
    }
}

/// A run as its poll shows it.
fn view(job: &Job, segment: &str) -> Value {
    let size = Family::from_path(segment).map_or(20, Family::batch) as i64;
    let state: RunState = serde_json::from_value(job.state.clone()).unwrap_or_default();
    let spacing_ms = job.input["spacing_ms"].as_i64().unwrap_or(0);
    let batches = (job.total + size - 1) / size;
    let left = batches - state.next_batch as i64;
    let terminal = [jobs::SUCCEEDED, jobs::FAILED, jobs::CANCELLED].contains(&job.status.as_str());
    let eta_ms = if terminal || left <= 0 {
        0
    } else {
        (job.run_after - now_ms()).max(0) + (left - 1) * spacing_ms
    };
    let mut v = json!({
        "ok": true, "runId": job.id, "family": segment, "status": job.status,
        "merchant": { "sellerId": job.input["merchant"]["seller_id"], "legacySellerId": job.input["merchant"]["legacy_seller_id"], "marketplace": job.input["merchant"]["marketplace"] },
        "done": job.done, "total": job.total,
        "batches": { "done": state.next_batch, "total": batches, "size": size },
        "spacingSeconds": spacing_ms as f64 / 1000.0,
        "estimatedSecondsLeft": (eta_ms + 999) / 1000,
        "throttledBatches": state.throttled,
        "createdAt": job.created_at, "updatedAt": job.updated_at, "finishedAt": job.finished_at,
    });
    if let Some(w) = state.waiting.filter(|_| !terminal) {
        v["waiting"] = w.into();
    }
    if let Some(e) = &job.error {
        v["error"] = e.clone();
    }
    v
}

/// A run's view (`retail:read`).
pub fn run_view(app: &SharedState, p: &Principal, id: &str) -> Result<Value, Error> {
    let job = own_run(app, p, id)?;
    Ok(view(&job, segment_of(&job)))
}

/// A run's answers so far, in input order, from `offset`, at most `limit` of them.
pub fn run_result(
    app: &SharedState,
    p: &Principal,
    id: &str,
    offset: usize,
    limit: usize,
) -> Result<Value, Error> {
    let job = own_run(app, p, id)?;
    let all = app.store.job_items(&job.id)?;
    let answered = all.len();
    let items: Vec<Value> = all
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(|(_, v)| v)
        .collect();
    let mut v = json!({
        "ok": true, "runId": job.id, "status": job.status,
        "complete": job.status == jobs::SUCCEEDED,
        "total": job.total, "answered": answered, "items": items,
    });
    let next = offset.saturating_add(limit);
    if next < answered {
        v["nextOffset"] = next.into();
    }
    Ok(v)
}

pub async fn run(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(run_view(&app, &p, &id)?))
}

/// Cancels an unfinished run (`retail:read`, like starting one); answered items stay.
pub fn cancel_run(app: &SharedState, p: &Principal, id: &str) -> Result<Value, Error> {
    let job = own_run(app, p, id)?;
    if !app.store.cancel_job(&p.tenant, &job.id)? {
        return Err(Error::new(
            pp_core::Kind::Conflict,
            format!("run {id} already ended ({})", job.status),
        )
        .with_field("status", job.status));
    }
    run_view(app, p, id)
}

pub async fn cancel(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(cancel_run(&app, &p, &id)?))
}

/// `?offset=&limit=` on a run's result.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Page {
    offset: Option<usize>,
    limit: Option<usize>,
}

/// Answers per page of a run's result: 1,000 unless asked, 5,000 at most.
const RESULT_PAGE: usize = 1_000;
const RESULT_PAGE_MAX: usize = 5_000;

pub async fn result(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
    page: Result<Query<Page>, QueryRejection>,
) -> Result<Json<Value>, ApiError> {
    let Query(page) = page.map_err(|e| Error::invalid_request(e.body_text()))?;
    let limit = page.limit.unwrap_or(RESULT_PAGE);
    if !(1..=RESULT_PAGE_MAX).contains(&limit) {
        return Err(Error::invalid_request(format!("limit must be 1 to {RESULT_PAGE_MAX}")).into());
    }
    Ok(Json(run_result(
        &app,
        &p,
        &id,
        page.offset.unwrap_or(0),
        limit,
    )?))
}
