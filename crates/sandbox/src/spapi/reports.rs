//! Reports 2021-06-30: `createReport` → `IN_QUEUE` → `IN_PROGRESS` → `DONE` (or `FATAL` under
//! a fault rule, or `CANCELLED`), `getReport(s)`, `cancelReport` and `getReportDocument`, whose
//! presigned URL serves a gzip document built from the world for the requested window.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::documents::gzip;
use crate::error::{Family, SimError};
use crate::gate::{FatalReport, Op};
use crate::lwa::Caller;
use crate::op;
use crate::reports::{Phase, ReportRow, iso, now_ms};
use crate::sim::Sim;

use super::{ledger, returns, settlements, sqp, vendor};

static CREATE: Op = Op {
    name: "reports.createReport",
    family: Family::Sp,
    rate: 0.0167,
    burst: 15.0,
    error_media: None,
};
static GET_REPORTS: Op = Op {
    name: "reports.getReports",
    family: Family::Sp,
    rate: 0.0222,
    burst: 10.0,
    error_media: None,
};
static GET_REPORT: Op = Op {
    name: "reports.getReport",
    family: Family::Sp,
    rate: 2.0,
    burst: 15.0,
    error_media: None,
};
static CANCEL: Op = Op {
    name: "reports.cancelReport",
    family: Family::Sp,
    rate: 0.0222,
    burst: 10.0,
    error_media: None,
};
static DOCUMENT: Op = Op {
    name: "reports.getReportDocument",
    family: Family::Sp,
    rate: 0.0167,
    burst: 15.0,
    error_media: None,
};

/// The report types the sandbox builds.
pub const TYPES: &[&str] = &[
    "GET_SALES_AND_TRAFFIC_REPORT",
    "GET_MERCHANT_LISTINGS_ALL_DATA",
    "GET_FBA_MYI_UNSUPPRESSED_INVENTORY_DATA",
    vendor::SALES,
    vendor::TRAFFIC,
    sqp::SQP,
    ledger::LEDGER,
    returns::RETURNS,
];

pub(super) const FAMILY: &str = "sp";

/// How far back sales and traffic reach (two years).
const SALES_TRAFFIC_DAYS: u64 = 730;

/// Refuses a window that starts more than `days` before the world's today (a report type's
/// lookback).
pub(super) fn within(sim: &Sim, start: NaiveDate, days: u64) -> Result<(), SimError> {
    if start < sim.world().today() - chrono::Days::new(days) {
        return Err(SimError::invalid(format!(
            "dataStartTime is more than {days} days ago: the report reaches back {days} days"
        )));
    }
    Ok(())
}

/// Refuses a request without a start, or one that starts more than `days` ago.
pub(super) fn started_within(
    sim: &Sim,
    start: Option<NaiveDate>,
    days: u64,
) -> Result<(), SimError> {
    let Some(start) = start else {
        return Err(SimError::invalid("dataStartTime is required"));
    };
    within(sim, start, days)
}

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/reports/2021-06-30/reports",
            op(sim, &GET_REPORTS, get(list)).merge(op(sim, &CREATE, axum::routing::post(create))),
        )
        .route(
            "/reports/2021-06-30/reports/{reportId}",
            op(sim, &GET_REPORT, get(one)).merge(op(sim, &CANCEL, axum::routing::delete(cancel))),
        )
        .route(
            "/reports/2021-06-30/documents/{reportDocumentId}",
            op(sim, &DOCUMENT, get(document)),
        )
}

fn day(v: Option<&Value>, name: &str) -> Result<Option<NaiveDate>, SimError> {
    match v.and_then(Value::as_str) {
        None => Ok(None),
        Some(s) => chrono::DateTime::parse_from_rfc3339(s)
            .map(|d| Some(d.date_naive()))
            .or_else(|_| s.parse::<NaiveDate>().map(Some))
            .map_err(|_| SimError::invalid(format!("{name} must be an ISO 8601 date-time"))),
    }
}

async fn create(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Extension(fatal): Extension<FatalReport>,
    body: axum::body::Bytes,
) -> Result<(StatusCode, Json<Value>), SimError> {
    let spec: Value =
        serde_json::from_slice(&body).map_err(|e| SimError::invalid(format!("body: {e}")))?;
    checked(&sim, &c.subject, &spec)?;
    let id = sim.store.next("sp-report", 50_000_000_000)?.to_string();
    sim.create_report(FAMILY, &c.subject, &id, &id, &spec, fatal.0)?;
    super::notifications::report_created(&sim, &c.subject, &id);
    Ok((StatusCode::ACCEPTED, Json(json!({ "reportId": id }))))
}

/// Refuses a report request as the provider does: an unknown or scheduled type, a
/// marketplace the seller is not in, a window backwards, and each type's own rules about who
/// may ask and for which window.
fn checked(sim: &Sim, subject: &str, spec: &Value) -> Result<(), SimError> {
    let kind = spec["reportType"]
        .as_str()
        .ok_or_else(|| SimError::invalid("reportType is required"))?;
    if kind == settlements::SETTLEMENT {
        return Err(SimError::invalid(format!(
            "{kind} reports are scheduled by Amazon and cannot be requested: list them with getReports"
        )));
    }
    if !TYPES.contains(&kind) {
        return Err(SimError::invalid(format!(
            "reportType {kind} is not available in the sandbox (it builds {})",
            TYPES.join(", ")
        )));
    }
    let ids: Vec<&str> = spec["marketplaceIds"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows = sim.world().seller_rows(subject)?;
    let Some(first) = ids.first() else {
        return Err(SimError::invalid("marketplaceIds is required"));
    };
    if let Some(id) = ids
        .iter()
        .find(|id| !rows.iter().any(|s| s.marketplace_id == **id))
    {
        return Err(SimError::invalid(format!(
            "The seller does not participate in marketplace {id}"
        )));
    }
    let start = day(spec.get("dataStartTime"), "dataStartTime")?;
    let end = day(spec.get("dataEndTime"), "dataEndTime")?;
    if let (Some(a), Some(b)) = (start, end)
        && a > b
    {
        return Err(SimError::invalid(
            "dataStartTime must be before dataEndTime",
        ));
    }
    let seller = rows
        .iter()
        .find(|s| s.marketplace_id == *first)
        .ok_or_else(|| SimError::invalid("no seller in that marketplace"))?;
    match kind {
        vendor::SALES | vendor::TRAFFIC => vendor::check(sim, seller, start, end, spec),
        sqp::SQP => sqp::check(sim, seller, start, end, spec),
        ledger::LEDGER => ledger::check(sim, start, spec),
        returns::RETURNS => returns::check(sim, start),
        "GET_SALES_AND_TRAFFIC_REPORT" => {
            start.map_or(Ok(()), |s| within(sim, s, SALES_TRAFFIC_DAYS))
        }
        _ => Ok(()),
    }
}

pub(super) fn describe(sim: &Sim, owner: &str, r: &ReportRow) -> Result<Value, SimError> {
    let now = now_ms();
    let phase = r.phase(now);
    let mut v = json!({
        "reportId": r.id,
        "reportType": r.request["reportType"],
        "marketplaceIds": r.request["marketplaceIds"],
        "createdTime": iso(r.created_ms),
        "processingStatus": phase.sp_status(),
    });
    for k in ["dataStartTime", "dataEndTime"] {
        if let Some(s) = r.request.get(k) {
            v[k] = s.clone();
        }
    }
    if phase != Phase::Queued {
        v["processingStartTime"] = iso(r.created_ms + (r.ready_ms - r.created_ms) / 3).into();
    }
    if matches!(phase, Phase::Done | Phase::Fatal) {
        v["processingEndTime"] = iso(r.ready_ms).into();
    }
    if phase == Phase::Done {
        let doc = match &r.document {
            Some(d) => d.clone(),
            None => {
                let (ct, body) = build(sim, owner, &r.request)?;
                let d = sim.put_document(ct, true, &gzip(body.as_bytes()))?;
                sim.set_report_document(&r.id, &d)?
            }
        };
        v["reportDocumentId"] = doc.into();
    }
    Ok(v)
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let r = sim
        .report(FAMILY, &c.subject, &id)?
        .ok_or_else(|| SimError::not_found(format!("Report {id} not found")))?;
    Ok(Json(describe(&sim, &c.subject, &r)?))
}

async fn list(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(q): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q: Vec<(String, String)> = form_urlencoded::parse(q.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let (types, offset) = match get("nextToken") {
        Some(t) => {
            if q.len() > 1 {
                return Err(SimError::invalid("nextToken must be the only parameter"));
            }
            let (types, off) = t
                .split_once('~')
                .ok_or_else(|| SimError::invalid("nextToken is not valid"))?;
            (
                types.to_owned(),
                off.parse::<usize>()
                    .map_err(|_| SimError::invalid("nextToken is not valid"))?,
            )
        }
        None => (
            get("reportTypes")
                .ok_or_else(|| SimError::invalid("reportTypes or nextToken is required"))?
                .to_owned(),
            0,
        ),
    };
    let page: usize = match get("pageSize") {
        None => 10,
        Some(s) => s
            .parse()
            .ok()
            .filter(|n| (1..=100).contains(n))
            .ok_or_else(|| SimError::invalid("pageSize must be from 1 to 100"))?,
    };
    let wanted: Vec<&str> = types.split(',').collect();
    if wanted.contains(&settlements::SETTLEMENT) {
        settlements::schedule(&sim, &c.subject)?;
    }
    let all: Vec<ReportRow> = sim
        .reports(FAMILY, &c.subject, None)?
        .into_iter()
        .filter(|r| {
            r.request["reportType"]
                .as_str()
                .is_some_and(|t| wanted.contains(&t))
                && (r.request["reportType"] != settlements::SETTLEMENT
                    || settlements::kept(&sim, &r.request))
        })
        .collect();
    let mut out = Vec::new();
    for r in all.iter().skip(offset).take(page) {
        out.push(describe(&sim, &c.subject, r)?);
    }
    let mut v = json!({ "reports": out });
    if offset + page < all.len() {
        v["nextToken"] = format!("{types}~{}", offset + page).into();
    }
    Ok(Json(v))
}

async fn cancel(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<StatusCode, SimError> {
    let r = sim
        .report(FAMILY, &c.subject, &id)?
        .ok_or_else(|| SimError::not_found(format!("Report {id} not found")))?;
    if !sim.cancel_report(&r)? {
        return Err(SimError::invalid(format!(
            "Report {id} is no longer in progress and cannot be cancelled"
        )));
    }
    Ok(StatusCode::OK)
}

async fn document(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let mine = sim
        .reports(FAMILY, &c.subject, None)?
        .into_iter()
        .any(|r| r.document.as_deref() == Some(id.as_str()));
    if !mine {
        return Err(SimError::not_found(format!(
            "Report document {id} not found"
        )));
    }
    let (url, _) = sim.presign(&id);
    Ok(Json(
        json!({ "reportDocumentId": id, "url": url, "compressionAlgorithm": "GZIP" }),
    ))
}

/// The document of a report request, from the world.
fn build(sim: &Sim, owner: &str, req: &Value) -> Result<(&'static str, String), SimError> {
    let market = req["marketplaceIds"][0].as_str().unwrap_or_default();
    let seller = sim
        .world()
        .seller_rows(owner)?
        .into_iter()
        .find(|s| s.marketplace_id == market)
        .ok_or_else(|| SimError::invalid("no seller in that marketplace"))?;
    let last = sim.world().last_day;
    let end = day(req.get("dataEndTime"), "dataEndTime")?
        .unwrap_or(last)
        .min(last);
    let start =
        day(req.get("dataStartTime"), "dataStartTime")?.unwrap_or(end - chrono::Days::new(29));
    match req["reportType"].as_str().unwrap_or_default() {
        "GET_SALES_AND_TRAFFIC_REPORT" => {
            super::report_docs::sales_and_traffic(sim, &seller, start, end, req)
                .map(|v| ("application/json", v.to_string()))
        }
        kind @ (vendor::SALES | vendor::TRAFFIC) => {
            vendor::document(sim, &seller, kind, (start, end), req)
                .map(|v| ("application/json", v.to_string()))
        }
        ledger::LEDGER => {
            ledger::document(sim, &seller, (start, end)).map(|t| ("text/tab-separated-values", t))
        }
        returns::RETURNS => {
            returns::document(sim, &seller, (start, end)).map(|t| ("text/tab-separated-values", t))
        }
        sqp::SQP => sqp::document(sim, &seller, (start, end), req)
            .map(|v| ("application/json", v.to_string())),
        settlements::SETTLEMENT => {
            settlements::document(sim, &seller, req).map(|t| ("text/tab-separated-values", t))
        }
        "GET_MERCHANT_LISTINGS_ALL_DATA" => {
            super::report_docs::listings(sim, &seller).map(|t| ("text/tab-separated-values", t))
        }
        _ => super::report_docs::inventory(sim, &seller).map(|t| ("text/tab-separated-values", t)),
    }
}
