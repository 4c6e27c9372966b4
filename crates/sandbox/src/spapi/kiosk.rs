//! Data Kiosk 2023-11-15: GraphQL queries run as jobs like reports (`IN_QUEUE` →
//! `IN_PROGRESS` → `DONE`, or `FATAL` with an error document), their JSONL data document behind
//! a presigned URL. The sandbox answers `analytics_salesAndTraffic_2024_04_24`
//! `salesAndTrafficByDate` (DAY) from the world; any other query ends `FATAL`, saying so.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::q::{Q, offset, seller_in, token};
use crate::error::{Family, SimError};
use crate::gate::{FatalReport, Op};
use crate::lwa::Caller;
use crate::op;
use crate::reports::{Phase, ReportRow, iso, now_ms};
use crate::sim::Sim;

static CREATE: Op = Op {
    name: "dataKiosk.createQuery",
    family: Family::Sp,
    rate: 0.0167,
    burst: 15.0,
    error_media: None,
};
static LIST: Op = Op {
    name: "dataKiosk.getQueries",
    family: Family::Sp,
    rate: 0.0222,
    burst: 10.0,
    error_media: None,
};
static GET: Op = Op {
    name: "dataKiosk.getQuery",
    family: Family::Sp,
    rate: 2.0,
    burst: 15.0,
    error_media: None,
};
static CANCEL: Op = Op {
    name: "dataKiosk.cancelQuery",
    family: Family::Sp,
    rate: 0.0222,
    burst: 10.0,
    error_media: None,
};
static DOCUMENT: Op = Op {
    name: "dataKiosk.getDocument",
    family: Family::Sp,
    rate: 0.0167,
    burst: 15.0,
    error_media: None,
};

const FAMILY: &str = "kiosk";

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/dataKiosk/2023-11-15/queries",
            op(sim, &LIST, get(list)).merge(op(sim, &CREATE, axum::routing::post(create))),
        )
        .route(
            "/dataKiosk/2023-11-15/queries/{queryId}",
            op(sim, &GET, get(one)).merge(op(sim, &CANCEL, axum::routing::delete(cancel))),
        )
        .route(
            "/dataKiosk/2023-11-15/documents/{documentId}",
            op(sim, &DOCUMENT, get(document)),
        )
}

/// The quoted value after `name:` in a GraphQL argument list.
fn arg(query: &str, name: &str) -> Option<String> {
    let at = query.find(&format!("{name}:"))? + name.len() + 1;
    let rest = query[at..].trim_start();
    let rest = rest.strip_prefix('[').unwrap_or(rest).trim_start();
    let rest = rest.strip_prefix('"')?;
    Some(rest[..rest.find('"')?].to_owned())
}

async fn create(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Extension(fatal): Extension<FatalReport>,
    bytes: axum::body::Bytes,
) -> Result<(StatusCode, Json<Value>), SimError> {
    let b: Value =
        serde_json::from_slice(&bytes).map_err(|e| SimError::invalid(format!("body: {e}")))?;
    let query = b["query"]
        .as_str()
        .filter(|q| !q.trim().is_empty())
        .ok_or_else(|| SimError::invalid("query is required"))?;
    if query.len() > 8000 {
        return Err(SimError::invalid("query is longer than 8,000 characters"));
    }
    let id = sim.store.next("kiosk-query", 90_000_000_000)?.to_string();
    sim.create_report(
        FAMILY,
        &c.subject,
        &id,
        &id,
        &json!({ "query": query }),
        fatal.0,
    )?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "queryId": id }))))
}

/// Builds the data document (JSONL), or the error message when the query cannot run.
fn run(sim: &Sim, c: &Caller, query: &str) -> Result<Result<String, String>, SimError> {
    if !query.contains("analytics_salesAndTraffic_2024_04_24")
        || !query.contains("salesAndTrafficByDate")
    {
        return Ok(Err("The sandbox answers analytics_salesAndTraffic_2024_04_24 salesAndTrafficByDate queries only".into()));
    }
    let (Some(start), Some(end), Some(market)) = (
        arg(query, "startDate"),
        arg(query, "endDate"),
        arg(query, "marketplaceIds"),
    ) else {
        return Ok(Err(
            "salesAndTrafficByDate needs startDate, endDate and marketplaceIds".into(),
        ));
    };
    let Ok(seller) = seller_in(sim, c, &market) else {
        return Ok(Err(format!(
            "The seller does not participate in marketplace {market}"
        )));
    };
    let rows = sim.world().rows(
        "SELECT Date, OrderedProductSales, UnitsOrdered, TotalOrderItems, Sessions, PageViews FROM spapi_sales_and_traffic_by_date
         WHERE SellerID = ?1 AND Date BETWEEN ?2 AND ?3 ORDER BY Date",
        &[&seller.id, &start, &end],
    )?;
    Ok(Ok(rows
        .iter()
        .map(|r| {
            json!({
                "startDate": r["Date"], "endDate": r["Date"], "marketplaceId": market,
                "sales": { "orderedProductSales": { "amount": r["OrderedProductSales"], "currencyCode": seller.currency }, "unitsOrdered": r["UnitsOrdered"], "totalOrderItems": r["TotalOrderItems"] },
                "traffic": { "sessions": r["Sessions"], "pageViews": r["PageViews"] },
            })
            .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")))
}

fn describe(sim: &Sim, c: &Caller, r: &ReportRow) -> Result<Value, SimError> {
    let phase = r.phase(now_ms());
    let mut v = json!({ "queryId": r.id, "query": r.request["query"], "createdTime": iso(r.created_ms), "processingStatus": phase.sp_status() });
    if phase != Phase::Queued {
        v["processingStartTime"] = iso(r.created_ms + (r.ready_ms - r.created_ms) / 3).into();
    }
    if matches!(phase, Phase::Done | Phase::Fatal) {
        v["processingEndTime"] = iso(r.ready_ms).into();
        let doc = match &r.document {
            Some(d) => d.clone(),
            None => {
                let outcome = if phase == Phase::Fatal {
                    Err("The query failed (sandbox fault rule)".to_owned())
                } else {
                    run(sim, c, r.request["query"].as_str().unwrap_or(""))?
                };
                let d = match outcome {
                    Ok(jsonl) => format!(
                        "data:{}",
                        sim.put_document("application/x-ndjson", false, jsonl.as_bytes())?
                    ),
                    Err(msg) => format!(
                        "error:{}",
                        sim.put_document(
                            "application/json",
                            false,
                            json!({ "errorMessage": msg }).to_string().as_bytes()
                        )?
                    ),
                };
                sim.set_report_document(&r.id, &d)?
            }
        };
        match doc.split_once(':') {
            Some(("data", id)) => v["dataDocumentId"] = id.into(),
            Some((_, id)) => {
                v["errorDocumentId"] = id.into();
                v["processingStatus"] = "FATAL".into();
            }
            None => {}
        }
    }
    Ok(v)
}

fn find(sim: &Sim, c: &Caller, id: &str) -> Result<ReportRow, SimError> {
    sim.report(FAMILY, &c.subject, id)?
        .ok_or_else(|| SimError::not_found(format!("Query {id} not found")))
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let r = find(&sim, &c, &id)?;
    Ok(Json(describe(&sim, &c, &r)?))
}

async fn list(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let size = q.int("pageSize", 1, 100, 10)? as usize;
    let start = q
        .get("paginationToken")
        .map(|t| offset("dk.", t))
        .transpose()?
        .unwrap_or(0);
    let wanted = q.list("processingStatuses");
    let all: Vec<Value> = sim
        .reports(FAMILY, &c.subject, None)?
        .iter()
        .map(|r| describe(&sim, &c, r))
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .filter(|v| wanted.is_empty() || wanted.iter().any(|w| v["processingStatus"] == w.as_str()))
        .collect();
    let mut out =
        json!({ "queries": all.iter().skip(start).take(size).cloned().collect::<Vec<_>>() });
    if start + size < all.len() {
        out["pagination"] = json!({ "nextToken": token("dk.", start + size) });
    }
    Ok(Json(out))
}

async fn cancel(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<StatusCode, SimError> {
    let r = find(&sim, &c, &id)?;
    if !sim.cancel_report(&r)? {
        return Err(SimError::invalid(format!(
            "Query {id} is no longer in the queue and cannot be cancelled"
        )));
    }
    Ok(StatusCode::NO_CONTENT)
}

async fn document(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let mine = sim.reports(FAMILY, &c.subject, None)?.iter().any(|r| {
        r.document
            .as_deref()
            .and_then(|d| d.split_once(':'))
            .is_some_and(|(_, d)| d == id)
    });
    if !mine {
        return Err(SimError::not_found(format!("Document {id} not found")));
    }
    let (url, _) = sim.presign(&id);
    Ok(Json(json!({ "documentId": id, "documentUrl": url })))
}
