//! DSP reads and DSP reports for the login's DSP advertiser, from the world's DSP facts:
//! orders are campaigns, line items are ad groups, each with two creatives. Every call names
//! the advertiser by its numeric `dspAdvertiserId` (`Amazon-Ads-AccountId` on reads, the path
//! on reports); the seat id in its place answers 401.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use super::accounts::{self, Account};
use super::{answer, body, media};
use crate::documents::gzip;
use crate::error::{Family, SimError};
use crate::gate::{FatalReport, Op};
use crate::lwa::Caller;
use crate::op;
use crate::reports::{Phase, iso, now_ms};
use crate::sim::Sim;

macro_rules! ops {
    ($($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::Ads, rate: 5.0, burst: 10.0, error_media: None };)*
    };
}

ops! {
    CAMPAIGNS = "dsp.listCampaigns"; AD_GROUPS = "dsp.listAdGroups"; CREATIVES = "dsp.listAdCreatives";
    ASSOCIATIONS = "dsp.listCreativeAssociations"; MODERATIONS = "dsp.listAssociationModerations"; ELIGIBLE = "dsp.listEligibleCreatives";
}

/// DSP reports answer their errors as `{ message, requestId }` (the lists, undocumented,
/// keep the advertising API's `{ code, details }`).
static CREATE_REPORT: Op = Op {
    name: "dsp.createReport",
    family: Family::Dsp,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};
static GET_REPORT: Op = Op {
    name: "dsp.getReport",
    family: Family::Dsp,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};

const FAMILY: &str = "dsp";

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    let read = |op_: &'static Op, what: &'static str| {
        op(
            sim,
            op_,
            get(
                move |State(s): State<Arc<Sim>>,
                      Extension(c): Extension<Caller>,
                      h: HeaderMap,
                      RawQuery(q): RawQuery| list(what, s, c, h, q),
            ),
        )
    };
    Router::new()
        .route("/dsp/campaigns", read(&CAMPAIGNS, "campaigns"))
        .route("/dsp/adGroups", read(&AD_GROUPS, "adGroups"))
        .route("/dsp/adCreatives", read(&CREATIVES, "adCreatives"))
        .route(
            "/dsp/creativeAssociations",
            read(&ASSOCIATIONS, "creativeAssociations"),
        )
        .route(
            "/dsp/associationModerations",
            read(&MODERATIONS, "associationModerations"),
        )
        .route(
            "/dsp/eligibleCreatives",
            read(&ELIGIBLE, "eligibleCreatives"),
        )
        .route(
            "/accounts/{accountId}/dsp/reports",
            op(sim, &CREATE_REPORT, post(create_report)),
        )
        .route(
            "/accounts/{accountId}/dsp/reports/{reportId}",
            op(sim, &GET_REPORT, get(get_report)),
        )
}

/// The DSP advertiser the id names (a seat id is a 401, another id a 404).
fn advertiser(sim: &Sim, c: &Caller, id: Option<&str>) -> Result<Account, SimError> {
    let id = id.ok_or_else(|| {
        SimError::new(
            400,
            "BAD_REQUEST",
            "Amazon-Ads-AccountId (the dspAdvertiserId) is required",
        )
        .for_family(Family::Ads)
    })?;
    accounts::resolve(sim, c, id)?
        .filter(|a| a.dsp.is_some())
        .ok_or_else(|| {
            SimError::new(
                404,
                "NOT_FOUND",
                format!("No DSP advertiser {id} for this login"),
            )
            .for_family(Family::Ads)
        })
}

fn line_items(sim: &Sim, a: &Account) -> Result<Vec<Map<String, Value>>, SimError> {
    sim.world().rows(
        "SELECT OrderID, LineItemID, LineItemName, MIN(Date) AS first, MAX(Date) AS last, ROUND(SUM(TotalCost), 2) AS spend
         FROM dsp_daily WHERE DspAdvertiserID = ?1 GROUP BY OrderID, LineItemID, LineItemName ORDER BY OrderID, LineItemID",
        &[&a.dsp.unwrap_or(0)],
    )
}

async fn list(
    what: &'static str,
    sim: Arc<Sim>,
    c: Caller,
    h: HeaderMap,
    q: Option<String>,
) -> Result<Response, SimError> {
    let a = advertiser(
        &sim,
        &c,
        h.get("amazon-ads-accountid").and_then(|v| v.to_str().ok()),
    )?;
    let q: Vec<(String, String)> = form_urlencoded::parse(q.unwrap_or_default().as_bytes())
        .into_owned()
        .collect();
    let get = |k: &str| q.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    let items = line_items(&sim, &a)?;
    let last = sim.world().last_day.to_string();
    let mut rows: Vec<Value> = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    for li in &items {
        let (order, line) = (
            li["OrderID"].as_i64().unwrap_or(0),
            li["LineItemID"].as_i64().unwrap_or(0),
        );
        let live = li["last"].as_str() == Some(last.as_str());
        match what {
            "campaigns" if seen.insert(order) => rows.push(json!({ "campaignId": order.to_string(), "advertiserId": a.id, "name": format!("{} order {order}", a.name), "state": if live { "DELIVERING" } else { "ENDED" }, "startDate": li["first"], "endDate": li["last"] })),
            "adGroups" => rows.push(json!({ "adGroupId": line.to_string(), "campaignId": order.to_string(), "name": li["LineItemName"], "state": if live { "DELIVERING" } else { "ENDED" }, "spend": li["spend"] })),
            "adCreatives" | "eligibleCreatives" => {
                if what == "eligibleCreatives" && get("adGroupId").is_some_and(|g| g != line.to_string()) {
                    continue;
                }
                for (k, kind) in [(1, "DISPLAY"), (2, "VIDEO")] {
                    rows.push(json!({ "creativeId": (line * 10 + k).to_string(), "advertiserId": a.id, "name": format!("{} {}", li["LineItemName"].as_str().unwrap_or(""), kind.to_lowercase()), "creativeType": kind, "moderationStatus": "APPROVED" }));
                }
            }
            "creativeAssociations" | "associationModerations" => {
                for k in [1, 2] {
                    let mut v = json!({ "associationId": format!("{line}-{k}"), "adGroupId": line.to_string(), "creativeId": (line * 10 + k).to_string() });
                    if what == "associationModerations" {
                        v["moderationStatus"] = "APPROVED".into();
                        v["moderatedAt"] = format!("{}T00:00:00Z", li["first"].as_str().unwrap_or("")).into();
                    }
                    rows.push(v);
                }
            }
            _ => {}
        }
    }
    let max: usize = get("maxResults")
        .and_then(|m| m.parse().ok())
        .unwrap_or(100)
        .clamp(1, 500);
    let start: usize = get("nextToken")
        .and_then(|t| t.strip_prefix("n.").and_then(|n| n.parse().ok()))
        .unwrap_or(0);
    let mut out = json!({ (what): rows.iter().skip(start).take(max).cloned().collect::<Vec<_>>() });
    if start + max < rows.len() {
        out["nextToken"] = format!("n.{}", start + max).into();
    }
    Ok(answer(200, "application/json", &out))
}

const CREATE_MEDIA: &str = "application/vnd.dspcreatereports.v3+json";
const GET_MEDIA: &str = "application/vnd.dspgetreports.v3+json";

async fn create_report(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Extension(fatal): Extension<FatalReport>,
    Path(account): Path<String>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    media(&h, CREATE_MEDIA)?;
    let a = advertiser(&sim, &c, Some(&account))?;
    let req = body(&b)?;
    for k in ["startDate", "endDate"] {
        if req[k]
            .as_str()
            .and_then(|d| chrono::NaiveDate::parse_from_str(d, "%Y%m%d").ok())
            .is_none()
        {
            return Err(
                SimError::new(400, "BAD_REQUEST", format!("{k} is required, as YYYYMMDD"))
                    .for_family(Family::Ads),
            );
        }
    }
    let id = format!("dsp-{}", crate::store::random_hex(8));
    let mut stored = req.clone();
    stored["advertiser"] = a.id.clone().into();
    sim.create_report(FAMILY, &c.subject, &id, &id, &stored, fatal.0)?;
    Ok(answer(
        200,
        CREATE_MEDIA,
        &json!({ "reportId": id, "format": "JSON", "status": "IN_PROGRESS", "statusDetails": "Report is being generated" }),
    ))
}

async fn get_report(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((account, id)): Path<(String, String)>,
) -> Result<Response, SimError> {
    let a = advertiser(&sim, &c, Some(&account))?;
    let r = sim.report(FAMILY, &c.subject, &id)?.ok_or_else(|| {
        SimError::new(404, "NOT_FOUND", format!("report {id} not found")).for_family(Family::Ads)
    })?;
    let mut v = json!({ "reportId": r.id, "format": "JSON" });
    match r.phase(now_ms()) {
        Phase::Queued | Phase::Running => v["status"] = "IN_PROGRESS".into(),
        Phase::Fatal | Phase::Cancelled => v["status"] = "FAILURE".into(),
        Phase::Done => {
            let doc = match &r.document {
                Some(d) => d.clone(),
                None => {
                    let day = |k: &str| {
                        chrono::NaiveDate::parse_from_str(
                            r.request[k].as_str().unwrap_or(""),
                            "%Y%m%d",
                        )
                        .unwrap_or_default()
                        .to_string()
                    };
                    let rows = sim.world().rows(
                        "SELECT Date AS date, OrderID AS orderId, LineItemID AS lineItemId, Impressions AS impressions, Clicks AS clickThroughs, TotalCost AS totalCost,
                                Purchases AS totalPurchases, Sales AS totalSales, PurchasesPromoted AS purchases, SalesPromoted AS sales
                         FROM dsp_daily WHERE DspAdvertiserID = ?1 AND Date BETWEEN ?2 AND ?3 ORDER BY Date, OrderID, LineItemID",
                        &[&a.dsp.unwrap_or(0), &day("startDate"), &day("endDate")],
                    )?;
                    let d = sim.put_document(
                        "application/json",
                        true,
                        &gzip(
                            Value::Array(rows.into_iter().map(Value::Object).collect())
                                .to_string()
                                .as_bytes(),
                        ),
                    )?;
                    sim.set_report_document(&r.id, &d)?
                }
            };
            let (url, expires) = sim.presign(&doc);
            v["status"] = "SUCCESS".into();
            v["location"] = url.into();
            v["expiration"] = iso(expires * 1000).into();
        }
    }
    Ok(answer(200, GET_MEDIA, &v))
}
