//! Reporting v3 (`/reporting/reports`): an asynchronous report of the world's daily ads facts
//! for Sponsored Products, Brands and Display, at the grains the warehouse keeps (campaign,
//! ad group, targeting; search term and advertised product for Products), for a window of at
//! most 31 days within the ad product's lookback (95, 60 and 65 days). An identical request while the first is
//! still pending answers 425 naming the original `reportId`. Reports go `PENDING` →
//! `PROCESSING` → `COMPLETED` (or `FAILED` under a fault rule); a completed report has a
//! presigned `url` to a `GZIP_JSON` document.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use chrono::NaiveDate;
use serde_json::{Value, json};

use super::{answer, media, profile};
use crate::documents::gzip;
use crate::error::{Family, SimError};
use crate::gate::{FatalReport, Op};
use crate::lwa::Caller;
use crate::op;
use crate::reports::{Phase, ReportRow, iso, now_ms};
use crate::sim::Sim;

static CREATE: Op = Op {
    name: "reporting.createAsyncReport",
    family: Family::AdsReporting,
    rate: 1.0,
    burst: 10.0,
    error_media: None,
};
static GET: Op = Op {
    name: "reporting.getAsyncReport",
    family: Family::AdsReporting,
    rate: 5.0,
    burst: 20.0,
    error_media: None,
};
static DELETE: Op = Op {
    name: "reporting.deleteAsyncReport",
    family: Family::AdsReporting,
    rate: 1.0,
    burst: 10.0,
    error_media: None,
};

const CREATE_REQUEST: &str = "application/vnd.createasyncreportrequest.v3+json";
const CREATE_RESPONSE: &str = "application/vnd.createasyncreportresponse.v3+json";
const GET_RESPONSE: &str = "application/vnd.getasyncreportresponse.v3+json";
const DELETE_RESPONSE: &str = "application/vnd.deleteasyncreportresponse.v3+json";
const FAMILY: &str = "ads_v3";

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/reporting/reports", op(sim, &CREATE, post(create)))
        .route(
            "/reporting/reports/{reportId}",
            op(sim, &GET, get(one)).merge(op(sim, &DELETE, axum::routing::delete(remove))),
        )
}

fn bad(status: u16, detail: impl Into<String>) -> SimError {
    SimError::new(status, "", detail).for_family(Family::AdsReporting)
}

/// A report type at one grain: its id and ad product, the `groupBy` set that asks for this
/// grain, the world's table it reads, whether that table mixes ad products, and its
/// dimension columns as SQL.
struct ReportType {
    id: &'static str,
    product: &'static str,
    group_by: &'static [&'static str],
    table: &'static str,
    mixed: bool,
    dims: &'static [(&'static str, &'static str)],
}

const SP: &str = "SPONSORED_PRODUCTS";
const SB: &str = "SPONSORED_BRANDS";
const SD: &str = "SPONSORED_DISPLAY";

/// The metrics every type has.
const METRICS: &[(&str, &str)] = &[
    ("impressions", "SUM(Impressions)"),
    ("clicks", "SUM(Clicks)"),
    ("cost", "ROUND(SUM(Cost), 2)"),
    ("spend", "ROUND(SUM(Cost), 2)"),
    ("costPerClick", "ROUND(SUM(Cost) / MAX(SUM(Clicks), 1), 2)"),
    (
        "clickThroughRate",
        "ROUND(100.0 * SUM(Clicks) / MAX(SUM(Impressions), 1), 4)",
    ),
];

/// The attributed metrics, as each ad product names them: Sponsored Products' carry their
/// window (`purchases7d`), Sponsored Brands' and Display's do not (`purchases`). The world
/// keeps one attribution per day (`Purchases7d`, `Sales7d`).
fn attributed(product: &str) -> &'static [(&'static str, &'static str)] {
    if product == SP {
        &[
            ("purchases7d", "SUM(Purchases7d)"),
            ("sales7d", "ROUND(SUM(Sales7d), 2)"),
        ]
    } else {
        &[
            ("purchases", "SUM(Purchases7d)"),
            ("sales", "ROUND(SUM(Sales7d), 2)"),
        ]
    }
}

/// How many days back each ad product's reports reach (the provider's retention).
fn lookback(product: &str) -> i64 {
    match product {
        SB => 60,
        SD => 65,
        _ => 95,
    }
}

const CAMPAIGN: &[(&str, &str)] = &[
    ("campaignId", "CampaignID"),
    ("campaignName", "CampaignName"),
    ("campaignBudgetAmount", "CampaignBudget"),
    ("campaignBudgetCurrencyCode", "Currency"),
];
const AD_GROUP: &[(&str, &str)] = &[("campaignId", "CampaignID"), ("adGroupId", "AdGroupID")];
const TARGETING: &[(&str, &str)] = &[
    ("campaignId", "CampaignID"),
    ("adGroupId", "AdGroupID"),
    ("keywordId", "TargetingID"),
    ("keyword", "Targeting"),
    ("matchType", "MatchType"),
];
const SD_TARGETING: &[(&str, &str)] = &[
    ("campaignId", "CampaignID"),
    ("adGroupId", "AdGroupID"),
    ("targetingId", "TargetingID"),
    ("targetingExpression", "Targeting"),
    ("targetingText", "Targeting"),
];

const fn grain(
    id: &'static str,
    product: &'static str,
    group_by: &'static [&'static str],
    table: &'static str,
    dims: &'static [(&'static str, &'static str)],
) -> ReportType {
    ReportType {
        id,
        product,
        group_by,
        table,
        mixed: true,
        dims,
    }
}

const TYPES: &[ReportType] = &[
    grain(
        "spCampaigns",
        SP,
        &["campaign"],
        "ads_campaign_daily",
        CAMPAIGN,
    ),
    grain(
        "spCampaigns",
        SP,
        &["campaign", "adGroup"],
        "ads_ad_group_daily",
        AD_GROUP,
    ),
    grain(
        "spTargeting",
        SP,
        &["targeting"],
        "ads_targeting_daily",
        TARGETING,
    ),
    ReportType {
        mixed: false,
        ..grain(
            "spSearchTerm",
            SP,
            &["searchTerm"],
            "ads_search_term_daily",
            &[
                ("campaignId", "CampaignID"),
                ("adGroupId", "AdGroupID"),
                ("keywordId", "TargetingID"),
                ("keyword", "Targeting"),
                ("matchType", "MatchType"),
                ("searchTerm", "SearchTerm"),
            ],
        )
    },
    ReportType {
        mixed: false,
        ..grain(
            "spAdvertisedProduct",
            SP,
            &["advertiser"],
            "ads_advertised_product_daily",
            &[
                ("campaignId", "CampaignID"),
                ("adGroupId", "AdGroupID"),
                ("advertisedAsin", "AdvertisedASIN"),
                ("advertisedSku", "AdvertisedSKU"),
            ],
        )
    },
    grain(
        "sbCampaigns",
        SB,
        &["campaign"],
        "ads_campaign_daily",
        CAMPAIGN,
    ),
    grain(
        "sbAdGroup",
        SB,
        &["adGroup"],
        "ads_ad_group_daily",
        AD_GROUP,
    ),
    grain(
        "sbTargeting",
        SB,
        &["targeting"],
        "ads_targeting_daily",
        TARGETING,
    ),
    grain(
        "sdCampaigns",
        SD,
        &["campaign"],
        "ads_campaign_daily",
        CAMPAIGN,
    ),
    grain(
        "sdAdGroup",
        SD,
        &["adGroup"],
        "ads_ad_group_daily",
        AD_GROUP,
    ),
    grain(
        "sdTargeting",
        SD,
        &["targeting"],
        "ads_targeting_daily",
        SD_TARGETING,
    ),
];

/// The grain of report type `id` that `groups` (in any order) asks for.
fn grain_of(id: &str, groups: &[&str]) -> Result<&'static ReportType, SimError> {
    let of_id: Vec<&ReportType> = TYPES.iter().filter(|t| t.id == id).collect();
    if of_id.is_empty() {
        let mut ids: Vec<&str> = TYPES.iter().map(|t| t.id).collect();
        ids.dedup();
        return Err(bad(
            400,
            format!("reportTypeId {id} is not one of {}", ids.join(", ")),
        ));
    }
    let same = |t: &&&ReportType| {
        t.group_by.len() == groups.len() && groups.iter().all(|g| t.group_by.contains(g))
    };
    of_id.iter().find(same).copied().ok_or_else(|| {
        let sets: Vec<String> = of_id.iter().map(|t| t.group_by.join("+")).collect();
        bad(
            400,
            format!("groupBy for {id} is one of: {}", sets.join(", ")),
        )
    })
}

fn date(v: &Value, name: &str) -> Result<NaiveDate, SimError> {
    v[name]
        .as_str()
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| bad(400, format!("{name} is required, as YYYY-MM-DD")))
}

/// Checks a create request; its report type.
fn check(sim: &Sim, b: &Value) -> Result<&'static ReportType, SimError> {
    let (start, end) = (date(b, "startDate")?, date(b, "endDate")?);
    let today = sim.world().today();
    if end < start {
        return Err(bad(400, "endDate must not be before startDate"));
    }
    if (end - start).num_days() > 30 {
        return Err(bad(400, "The date range of a report is at most 31 days"));
    }
    let c = &b["configuration"];
    for k in [
        "adProduct",
        "columns",
        "format",
        "groupBy",
        "reportTypeId",
        "timeUnit",
    ] {
        if c.get(k).is_none_or(Value::is_null) {
            return Err(bad(400, format!("configuration.{k} is required")));
        }
    }
    if c["format"] != "GZIP_JSON" {
        return Err(bad(400, "format must be GZIP_JSON"));
    }
    if !["DAILY", "SUMMARY"].contains(&c["timeUnit"].as_str().unwrap_or("")) {
        return Err(bad(400, "timeUnit must be DAILY or SUMMARY"));
    }
    let id = c["reportTypeId"].as_str().unwrap_or("");
    let groups: Vec<&str> = c["groupBy"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let t = grain_of(id, &groups)?;
    if c["adProduct"] != t.product {
        return Err(bad(
            400,
            format!("{id} is a {} report: adProduct must say so", t.product),
        ));
    }
    let reach = lookback(t.product);
    if (today - start).num_days() > reach {
        return Err(bad(
            400,
            format!("startDate is beyond the {reach}-day lookback of this report type"),
        ));
    }
    let columns = c["columns"]
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| bad(400, "columns must not be empty"))?;
    for col in columns {
        let col = col.as_str().unwrap_or("");
        let known = t.dims.iter().any(|(n, _)| *n == col)
            || METRICS.iter().any(|(n, _)| *n == col)
            || attributed(t.product).iter().any(|(n, _)| *n == col)
            || (col == "date" && c["timeUnit"] == "DAILY")
            || (["startDate", "endDate"].contains(&col) && c["timeUnit"] == "SUMMARY");
        if !known {
            return Err(bad(
                400,
                format!(
                    "column {col} is not available for {id} with timeUnit {}",
                    c["timeUnit"].as_str().unwrap_or("")
                ),
            ));
        }
    }
    Ok(t)
}

/// The identity of a request for deduplication: window and configuration, keys sorted.
fn request_key(b: &Value) -> String {
    fn canon(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), canon(&m[k])))
                        .collect(),
                )
            }
            Value::Array(a) => Value::Array(a.iter().map(canon).collect()),
            v => v.clone(),
        }
    }
    canon(&json!({ "startDate": b["startDate"], "endDate": b["endDate"], "configuration": b["configuration"] })).to_string()
}

async fn create(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Extension(fatal): Extension<FatalReport>,
    headers: HeaderMap,
    bytes: Bytes,
) -> Result<Response, SimError> {
    media(&headers, CREATE_REQUEST).map_err(|e| e.for_family(Family::AdsReporting))?;
    let p = profile(&sim, &c, &headers).map_err(|e| e.for_family(Family::AdsReporting))?;
    let b: Value = serde_json::from_slice(&bytes)
        .map_err(|e| bad(400, format!("Malformed request body: {e}")))?;
    check(&sim, &b)?;
    let key = request_key(&b);
    let owner = p.to_string();
    let now = now_ms();
    if let Some(first) = sim
        .reports(FAMILY, &owner, Some(&key))?
        .into_iter()
        .find(|r| r.in_flight(now))
    {
        return Err(bad(
            425,
            format!("The Request is a duplicate of : {}", first.id),
        ));
    }
    let id = format!(
        "{}-{}-{}",
        crate::store::random_hex(4),
        crate::store::random_hex(2),
        crate::store::random_hex(6)
    );
    let r = sim.create_report(FAMILY, &owner, &id, &key, &b, fatal.0)?;
    Ok(answer(200, CREATE_RESPONSE, &describe(&sim, p, &r)?))
}

fn status(p: Phase) -> &'static str {
    match p {
        Phase::Queued => "PENDING",
        Phase::Running => "PROCESSING",
        Phase::Done => "COMPLETED",
        Phase::Fatal | Phase::Cancelled => "FAILED",
    }
}

fn describe(sim: &Sim, profile: i64, r: &ReportRow) -> Result<Value, SimError> {
    let phase = r.phase(now_ms());
    let mut v = json!({
        "reportId": r.id,
        "name": r.request.get("name").cloned().unwrap_or(Value::Null),
        "status": status(phase),
        "startDate": r.request["startDate"],
        "endDate": r.request["endDate"],
        "configuration": r.request["configuration"],
        "createdAt": iso(r.created_ms),
        "updatedAt": iso(now_ms().min(r.ready_ms)),
        "url": Value::Null,
        "urlExpiresAt": Value::Null,
        "fileSize": Value::Null,
        "generatedAt": Value::Null,
        "failureReason": Value::Null,
    });
    match phase {
        Phase::Done => {
            let doc = match &r.document {
                Some(d) => d.clone(),
                None => {
                    let rows = build(sim, profile, &r.request)?;
                    let d = sim.put_document(
                        "application/json",
                        true,
                        &gzip(rows.to_string().as_bytes()),
                    )?;
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
            v["url"] = url.into();
            v["urlExpiresAt"] = iso(expires * 1000).into();
            v["fileSize"] = size.into();
            v["generatedAt"] = iso(r.ready_ms).into();
        }
        Phase::Fatal => v["failureReason"] = "Report generation failed (sandbox fault rule)".into(),
        Phase::Cancelled => v["failureReason"] = "Report was deleted".into(),
        _ => {}
    }
    Ok(v)
}

/// The report's rows from the world.
fn build(sim: &Sim, profile: i64, req: &Value) -> Result<Value, SimError> {
    let t = check(sim, req)?;
    let c = &req["configuration"];
    let daily = c["timeUnit"] == "DAILY";
    let columns: Vec<&str> = c["columns"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut select = Vec::new();
    let mut group = Vec::new();
    for col in &columns {
        if let Some((_, sql)) = t.dims.iter().find(|(n, _)| n == col) {
            select.push(format!("{sql} AS \"{col}\""));
            group.push((*sql).to_owned());
        } else if let Some((_, sql)) = METRICS
            .iter()
            .chain(attributed(t.product))
            .find(|(n, _)| n == col)
        {
            select.push(format!("{sql} AS \"{col}\""));
        } else if *col == "date" {
            select.push("Date AS \"date\"".into());
        } else {
            select.push(format!(
                "?{} AS \"{col}\"",
                if *col == "startDate" { 2 } else { 3 }
            ));
        }
    }
    if daily {
        group.push("Date".into());
    }
    let product = if t.mixed { " AND AdProduct = ?4" } else { "" };
    let group_sql = if group.is_empty() {
        String::new()
    } else {
        format!(" GROUP BY {}", group.join(", "))
    };
    let order = if group.is_empty() {
        String::new()
    } else {
        format!(" ORDER BY {}", group.join(", "))
    };
    let sql = format!(
        "SELECT {} FROM {} WHERE ProfileID = ?1 AND Date BETWEEN ?2 AND ?3{product}{group_sql}{order}",
        select.join(", "),
        t.table
    );
    let (s, e) = (
        req["startDate"].as_str().unwrap_or(""),
        req["endDate"].as_str().unwrap_or(""),
    );
    let rows = if t.mixed {
        sim.world().rows(&sql, &[&profile, &s, &e, &t.product])?
    } else {
        sim.world().rows(&sql, &[&profile, &s, &e])?
    };
    Ok(Value::Array(rows.into_iter().map(Value::Object).collect()))
}

/// The profile's report `id`.
fn find(
    sim: &Sim,
    c: &Caller,
    headers: &HeaderMap,
    id: &str,
) -> Result<(i64, ReportRow), SimError> {
    let p = profile(sim, c, headers).map_err(|e| e.for_family(Family::AdsReporting))?;
    let r = sim
        .report(FAMILY, &p.to_string(), id)?
        .ok_or_else(|| bad(404, format!("Report {id} not found")))?;
    Ok((p, r))
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, SimError> {
    let (p, r) = find(&sim, &c, &headers, &id)?;
    Ok(answer(200, GET_RESPONSE, &describe(&sim, p, &r)?))
}

async fn remove(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, SimError> {
    let (_, r) = find(&sim, &c, &headers, &id)?;
    sim.cancel_report(&r)?;
    Ok(answer(
        200,
        DELETE_RESPONSE,
        &json!({ "code": "200", "detail": format!("Report {id} deleted") }),
    ))
}
