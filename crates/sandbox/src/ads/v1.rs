//! The Ads API v1 unified reporting: `create`, `retrieve` and `delete` of `/adsApi/v1/*/reports`,
//! every answer HTTP 207 with `{ error: [], success: [] }`. Not profile-scoped: a report names
//! up to five advertiser (or manager) accounts. No deduplication; at most three reports in
//! flight per login (a fourth create is a 429). Time is a field: `month.value` and
//! `week.value` carry no year, so months of different years merge. A completed report lists
//! `completedReportParts`, presigned URLs that refuse a request carrying `Authorization`.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::response::Response;
use axum::routing::post;
use chrono::{Datelike, NaiveDate};
use serde_json::{Map, Value, json};

use super::accounts::{self, Account};
use super::answer;
use crate::documents::gzip;
use crate::error::{Family, SimError};
use crate::gate::{FatalReport, Op};
use crate::lwa::Caller;
use crate::op;
use crate::reports::{Phase, ReportRow, iso, now_ms};
use crate::sim::Sim;

static CREATE: Op = Op {
    name: "reporting_v1.createReport",
    family: Family::AdsV1,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};
static RETRIEVE: Op = Op {
    name: "reporting_v1.retrieveReport",
    family: Family::AdsV1,
    rate: 10.0,
    burst: 20.0,
    error_media: None,
};
static DELETE: Op = Op {
    name: "reporting_v1.deleteReport",
    family: Family::AdsV1,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};

const FAMILY: &str = "ads_v1";
/// Reports a login may have pending or processing at once.
pub const CONCURRENCY: usize = 3;
const MAX_ACCOUNTS: usize = 5;
const DIMENSIONS: &[&str] = &[
    "campaign.id",
    "campaign.name",
    "adProduct.value",
    "date.value",
    "week.value",
    "month.value",
    "year.value",
    "budgetCurrency.value",
    "advertiserAccount.id",
    "adGroup.id",
    "adGroup.name",
];

/// The dimensions only DSP advertisers have: a DSP line item is the report's ad group.
const DSP_ONLY: &[&str] = &["adGroup.id", "adGroup.name"];
const METRICS: &[&str] = &[
    "metric.impressions",
    "metric.clicks",
    "metric.totalCost",
    "metric.sales",
    "metric.purchases",
    "metric.salesPromoted",
    "metric.purchasesPromoted",
];

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/adsApi/v1/create/reports", op(sim, &CREATE, post(create)))
        .route(
            "/adsApi/v1/retrieve/reports",
            op(sim, &RETRIEVE, post(retrieve)),
        )
        .route("/adsApi/v1/delete/reports", op(sim, &DELETE, post(remove)))
}

fn multi(success: Vec<Value>, error: Vec<Value>) -> Response {
    answer(
        207,
        "application/json",
        &json!({ "error": error, "success": success }),
    )
}

fn error(code: &str, message: impl Into<String>) -> Vec<Value> {
    vec![json!({ "index": 0, "errors": [{ "code": code, "message": message.into() }] })]
}

/// The request's accounts, or a 207 error (a DSP seat id is a 401 from [`accounts::resolve`]).
fn requested(
    sim: &Sim,
    c: &Caller,
    b: &Value,
) -> Result<Result<Vec<Account>, Vec<Value>>, SimError> {
    let list = b["accessRequestedAccounts"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut ids: Vec<String> = list
        .iter()
        .filter_map(|a| {
            a["advertiserAccountId"]
                .as_str()
                .or(a["managerAccountId"].as_str())
                .map(str::to_owned)
        })
        .collect();
    ids.sort();
    ids.dedup();
    if ids.is_empty() {
        return Ok(Err(error(
            "INVALID_INPUT",
            "accessRequestedAccounts must name at least one advertiserAccountId or managerAccountId",
        )));
    }
    if ids.len() > MAX_ACCOUNTS {
        return Ok(Err(error(
            "INVALID_INPUT",
            format!(
                "accessRequestedAccounts names {} accounts; at most {MAX_ACCOUNTS}",
                ids.len()
            ),
        )));
    }
    let mut out = Vec::new();
    for id in ids {
        if id.starts_with("amzn1.ads-account.m.") {
            out.extend(accounts::of(sim, c)?);
            continue;
        }
        match accounts::resolve(sim, c, &id)? {
            Some(a) => out.push(a),
            None => {
                return Ok(Err(error(
                    "NOT_FOUND",
                    format!("advertiser account {id} is not accessible to this login"),
                )));
            }
        }
    }
    Ok(Ok(out))
}

fn check_query(sim: &Sim, r: &Value) -> Result<(NaiveDate, NaiveDate, Vec<String>), String> {
    let period = &r["periods"][0]["datePeriod"];
    let day = |k: &str| {
        period[k]
            .as_str()
            .and_then(|s| s.parse::<NaiveDate>().ok())
            .ok_or(format!(
                "periods[0].datePeriod.{k} is required, as YYYY-MM-DD"
            ))
    };
    let (start, end) = (day("startDate")?, day("endDate")?);
    if end < start {
        return Err("endDate is before startDate".into());
    }
    let fields: Vec<String> = r["query"]["fields"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if fields.is_empty() {
        return Err("query.fields must name at least one field".into());
    }
    if fields.iter().any(|f| f == "metric.cost") {
        return Err("metric.cost is not a field: the spend metric is metric.totalCost".into());
    }
    if let Some(f) = fields
        .iter()
        .find(|f| !DIMENSIONS.contains(&f.as_str()) && !METRICS.contains(&f.as_str()))
    {
        return Err(format!("{f} is not a field of this report"));
    }
    if fields.iter().any(|f| f == "metric.sales")
        && !fields.iter().any(|f| f == "budgetCurrency.value")
    {
        return Err("metric.sales needs budgetCurrency.value in the same request".into());
    }
    let today = sim.world().today();
    let months = |n: i64| chrono::Months::new(n as u32);
    if fields.iter().any(|f| f == "date.value") && start < today - months(24) {
        return Err("daily reports reach back 24 months".into());
    }
    if fields.iter().any(|f| f == "month.value") && end > start + months(25) {
        return Err("a monthly report spans at most 25 months".into());
    }
    if !["GZIP_JSON", "CSV"].contains(&r["format"].as_str().unwrap_or("")) {
        return Err("format must be GZIP_JSON or CSV here".into());
    }
    Ok((start, end, fields))
}

async fn create(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Extension(fatal): Extension<FatalReport>,
    b: Bytes,
) -> Result<Response, SimError> {
    let body = super::body(&b)?;
    let accounts = match requested(&sim, &c, &body)? {
        Ok(a) => a,
        Err(e) => return Ok(multi(vec![], e)),
    };
    let reports = body["reports"].as_array().cloned().unwrap_or_default();
    if reports.len() != 1 {
        return Ok(multi(
            vec![],
            error("INVALID_INPUT", "send exactly one report per create call"),
        ));
    }
    if let Err(m) = check_query(&sim, &reports[0]) {
        return Ok(multi(vec![], error("INVALID_INPUT", m)));
    }
    let asks_line_items = reports[0]["query"]["fields"].as_array().is_some_and(|f| {
        f.iter()
            .any(|f| DSP_ONLY.contains(&f.as_str().unwrap_or("")))
    });
    if asks_line_items && accounts.iter().any(|a| a.dsp.is_none()) {
        return Ok(multi(
            vec![],
            error(
                "INVALID_INPUT",
                "adGroup.id and adGroup.name are DSP line items: ask for them for DSP advertisers only",
            ),
        ));
    }
    let now = now_ms();
    let running = sim
        .reports(FAMILY, &c.subject, None)?
        .iter()
        .filter(|r| r.in_flight(now))
        .count();
    if running >= CONCURRENCY {
        return Err(SimError::new(429, "TOO_MANY_REQUESTS", format!("{running} reports are in progress; at most {CONCURRENCY} at a time: wait for one to finish or delete one")).for_family(Family::AdsV1));
    }
    let id = format!("rpt-{}", crate::store::random_hex(10));
    let mut request = reports[0].clone();
    request["accounts"] = json!(accounts.iter().map(|a| a.id.clone()).collect::<Vec<_>>());
    let row = sim.create_report(FAMILY, &c.subject, &id, &id, &request, fatal.0)?;
    Ok(multi(
        vec![json!({ "index": 0, "report": describe(&sim, &c, &row)? })],
        vec![],
    ))
}

fn status(p: Phase) -> &'static str {
    match p {
        Phase::Queued => "PENDING",
        Phase::Running => "PROCESSING",
        Phase::Done => "COMPLETED",
        Phase::Fatal | Phase::Cancelled => "FAILED",
    }
}

fn describe(sim: &Sim, c: &Caller, r: &ReportRow) -> Result<Value, SimError> {
    let phase = r.phase(now_ms());
    let mut v = json!({
        "reportId": r.id, "status": status(phase), "format": r.request["format"], "periods": r.request["periods"], "query": r.request["query"],
        "creationDateTime": iso(r.created_ms), "lastUpdatedDateTime": iso(now_ms().min(r.ready_ms)),
    });
    match phase {
        Phase::Done => {
            let doc = match &r.document {
                Some(d) => d.clone(),
                None => {
                    let (ct, gz, bytes) = build(sim, c, &r.request)?;
                    let d = sim.put_document(ct, gz, &bytes)?;
                    sim.set_report_document(&r.id, &d)?
                }
            };
            let (url, expires) = sim.presign(&doc);
            let size: i64 = sim.store.with(|c| {
                c.query_row(
                    "SELECT LENGTH(body) FROM documents WHERE id = ?1",
                    [&doc],
                    |row| row.get(0),
                )
            })?;
            v["completedDateTime"] = iso(r.ready_ms).into();
            v["completedReportParts"] = json!([{ "url": url, "sizeInBytes": size, "urlExpirationDateTime": iso(expires * 1000) }]);
        }
        Phase::Fatal => {
            v["failureCode"] = "INTERNAL_ERROR".into();
            v["failureReason"] = "Report generation failed (sandbox fault rule)".into();
        }
        Phase::Cancelled => {
            v["failureCode"] = "DELETED".into();
            v["failureReason"] = "The report was deleted".into();
        }
        _ => {}
    }
    Ok(v)
}

/// One day's facts of an account: (campaign id, name, DSP line item id and name, ad product, impressions, clicks, cost, sales, purchases, sales promoted, purchases promoted).
fn facts(
    sim: &Sim,
    a: &Account,
    start: NaiveDate,
    end: NaiveDate,
) -> Result<Vec<Map<String, Value>>, SimError> {
    let (s, e) = (start.to_string(), end.to_string());
    match (a.profile, a.dsp) {
        (Some(p), _) => sim.world().rows(
            "SELECT Date, CampaignID AS cid, CampaignName AS cname, NULL AS gid, NULL AS gname, AdProduct AS product, Impressions AS imp, Clicks AS clk, Cost AS cost, Sales7d AS sales, Purchases7d AS purch, Sales7d AS sp, Purchases7d AS pp, Currency AS cur
             FROM ads_campaign_daily WHERE ProfileID = ?1 AND Date BETWEEN ?2 AND ?3",
            &[&p, &s, &e],
        ),
        (None, Some(d)) => sim.world().rows(
            "SELECT Date, OrderID AS cid, ?4 || ' order ' || OrderID AS cname, LineItemID AS gid, LineItemName AS gname, 'AMAZON_DSP' AS product, Impressions AS imp, Clicks AS clk, TotalCost AS cost, Sales AS sales, Purchases AS purch, SalesPromoted AS sp, PurchasesPromoted AS pp, Currency AS cur
             FROM dsp_daily WHERE DspAdvertiserID = ?1 AND Date BETWEEN ?2 AND ?3",
            &[&d, &s, &e, &a.name],
        ),
        _ => Ok(vec![]),
    }
}

fn build(sim: &Sim, c: &Caller, req: &Value) -> Result<(&'static str, bool, Vec<u8>), SimError> {
    let (start, end, fields) = check_query(sim, req).map_err(SimError::invalid)?;
    let ids: Vec<String> = req["accounts"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let mine = accounts::of(sim, c)?;
    let mut groups: BTreeMap<Vec<String>, [f64; 7]> = BTreeMap::new();
    for a in mine.iter().filter(|a| ids.contains(&a.id)) {
        for r in facts(sim, a, start, end)? {
            let day: NaiveDate = r["Date"]
                .as_str()
                .and_then(|d| d.parse().ok())
                .unwrap_or(start);
            let key: Vec<String> = fields
                .iter()
                .filter(|f| DIMENSIONS.contains(&f.as_str()))
                .map(|f| match f.as_str() {
                    "campaign.id" => r["cid"].to_string(),
                    "campaign.name" => r["cname"].as_str().unwrap_or("").to_owned(),
                    "adGroup.id" => r["gid"].to_string(),
                    "adGroup.name" => r["gname"].as_str().unwrap_or("").to_owned(),
                    "adProduct.value" => r["product"].as_str().unwrap_or("").to_owned(),
                    "date.value" => day.to_string(),
                    "week.value" => day.iso_week().week().to_string(),
                    "month.value" => day.month().to_string(),
                    "year.value" => day.year().to_string(),
                    "budgetCurrency.value" => r["cur"].as_str().unwrap_or("").to_owned(),
                    _ => a.id.clone(),
                })
                .collect();
            let g = groups.entry(key).or_insert([0.0; 7]);
            for (i, k) in ["imp", "clk", "cost", "sales", "purch", "sp", "pp"]
                .iter()
                .enumerate()
            {
                g[i] += r[*k].as_f64().unwrap_or(0.0);
            }
        }
    }
    let dims: Vec<&String> = fields
        .iter()
        .filter(|f| DIMENSIONS.contains(&f.as_str()))
        .collect();
    let rows: Vec<Map<String, Value>> = groups
        .into_iter()
        .map(|(key, m)| {
            let mut row = Map::new();
            for (d, v) in dims.iter().zip(key) {
                row.insert((*d).clone(), v.into());
            }
            for f in fields.iter().filter(|f| METRICS.contains(&f.as_str())) {
                let x = match f.as_str() {
                    "metric.impressions" => m[0],
                    "metric.clicks" => m[1],
                    "metric.totalCost" => (m[2] * 100.0).round() / 100.0,
                    "metric.sales" => (m[3] * 100.0).round() / 100.0,
                    "metric.purchases" => m[4],
                    "metric.salesPromoted" => (m[5] * 100.0).round() / 100.0,
                    _ => m[6],
                };
                row.insert(f.clone(), x.into());
            }
            row
        })
        .collect();
    if req["format"] == "CSV" {
        let mut out = fields.join(",") + "\n";
        for r in &rows {
            out.push_str(
                &fields
                    .iter()
                    .map(|f| match &r[f] {
                        Value::String(s) => s.clone(),
                        v => v.to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(","),
            );
            out.push('\n');
        }
        return Ok(("text/csv", false, out.into_bytes()));
    }
    Ok((
        "application/json",
        true,
        gzip(
            Value::Array(rows.into_iter().map(Value::Object).collect())
                .to_string()
                .as_bytes(),
        ),
    ))
}

fn one_id(b: &[u8]) -> Result<Result<String, Vec<Value>>, SimError> {
    let body = super::body(b)?;
    let ids = body["reportIds"].as_array().cloned().unwrap_or_default();
    if ids.len() != 1 {
        return Ok(Err(error(
            "INVALID_INPUT",
            "reportIds must hold exactly one id",
        )));
    }
    Ok(Ok(ids[0].as_str().unwrap_or_default().to_owned()))
}

async fn retrieve(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    b: Bytes,
) -> Result<Response, SimError> {
    let id = match one_id(&b)? {
        Ok(id) => id,
        Err(e) => return Ok(multi(vec![], e)),
    };
    match sim.report(FAMILY, &c.subject, &id)? {
        Some(r) => Ok(multi(
            vec![json!({ "index": 0, "report": describe(&sim, &c, &r)? })],
            vec![],
        )),
        None => Ok(multi(
            vec![],
            error("NOT_FOUND", format!("report {id} not found")),
        )),
    }
}

async fn remove(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    b: Bytes,
) -> Result<Response, SimError> {
    let id = match one_id(&b)? {
        Ok(id) => id,
        Err(e) => return Ok(multi(vec![], e)),
    };
    match sim.report(FAMILY, &c.subject, &id)? {
        Some(r) => {
            sim.cancel_report(&r)?;
            let r = sim.report(FAMILY, &c.subject, &id)?.unwrap_or(r);
            Ok(multi(
                vec![json!({ "index": 0, "report": describe(&sim, &c, &r)? })],
                vec![],
            ))
        }
        None => Ok(multi(
            vec![],
            error("NOT_FOUND", format!("report {id} not found")),
        )),
    }
}
