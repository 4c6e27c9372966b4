//! The marketing clean room: accounts, instances, data sources (paged at 100, with
//! `isPremium`), workflow executions (`timeWindowType` required, `dryRun` validates only,
//! results as short-lived CSV download URLs) and audiences (PROCESSING → ACTIVE, or FAILED;
//! only a FAILED audience may be updated or deleted). Results come from the world's ads facts.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{answer, body};
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
    ACCOUNTS = "amc.listAccounts"; INSTANCES = "amc.listInstances"; INSTANCE = "amc.getInstance";
    DATA_SOURCES = "amc.listDataSources"; DATA_SOURCE = "amc.getDataSource";
    CREATE_EXECUTION = "amc.createWorkflowExecution"; GET_EXECUTION = "amc.getWorkflowExecution"; DOWNLOADS = "amc.getDownloadUrls";
    CREATE_AUDIENCE = "amc.createAudience"; LIST_AUDIENCES = "amc.listAudiences"; GET_AUDIENCE = "amc.getAudience";
    UPDATE_AUDIENCE = "amc.updateAudience"; DELETE_AUDIENCE = "amc.deleteAudience";
}

const MEDIA: &str = "application/vnd.amcinstances.v1+json";
const DATA_PAGE: usize = 100;

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/amc/accounts", op(sim, &ACCOUNTS, get(accounts)))
        .route("/amc/instances", op(sim, &INSTANCES, get(instances)))
        .route(
            "/amc/instances/{instanceId}",
            op(sim, &INSTANCE, get(instance)),
        )
        .route(
            "/amc/reporting/{instanceId}/dataSources",
            op(sim, &DATA_SOURCES, get(data_sources)),
        )
        .route(
            "/amc/reporting/{instanceId}/dataSources/{dataSourceId}",
            op(sim, &DATA_SOURCE, get(data_source)),
        )
        .route(
            "/amc/reporting/{instanceId}/workflowExecutions",
            op(sim, &CREATE_EXECUTION, post(create_execution)),
        )
        .route(
            "/amc/reporting/{instanceId}/workflowExecutions/{executionId}",
            op(sim, &GET_EXECUTION, get(get_execution)),
        )
        .route(
            "/amc/reporting/{instanceId}/workflowExecutions/{executionId}/downloadUrls",
            op(sim, &DOWNLOADS, get(download_urls)),
        )
        .route(
            "/amc/audiences/query",
            op(sim, &CREATE_AUDIENCE, post(create_audience)).merge(op(
                sim,
                &LIST_AUDIENCES,
                get(list_audiences),
            )),
        )
        .route(
            "/amc/audiences/query/{audienceExecutionId}",
            op(sim, &GET_AUDIENCE, get(get_audience))
                .merge(op(
                    sim,
                    &UPDATE_AUDIENCE,
                    axum::routing::put(update_audience),
                ))
                .merge(op(
                    sim,
                    &DELETE_AUDIENCE,
                    axum::routing::delete(delete_audience),
                )),
        )
}

fn err(status: u16, message: impl Into<String>) -> SimError {
    SimError::new(
        status,
        if status == 404 {
            "NOT_FOUND"
        } else {
            "BAD_REQUEST"
        },
        message,
    )
    .for_family(Family::Ads)
}

fn entity(c: &Caller) -> String {
    format!("ENTITY{}", c.subject.trim_start_matches("ENTITY"))
}

fn instance_id(c: &Caller) -> String {
    format!(
        "amcdemo{}",
        c.subject
            .to_lowercase()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .take(8)
            .collect::<String>()
    )
}

fn check_instance(c: &Caller, id: &str) -> Result<(), SimError> {
    if id == instance_id(c) {
        Ok(())
    } else {
        Err(err(404, format!("instance {id} not found")))
    }
}

async fn accounts(Extension(c): Extension<Caller>) -> Response {
    answer(
        200,
        "application/vnd.amcaudiencesconnections.v1+json",
        &json!({ "amcAccounts": [{ "accountId": entity(&c), "accountName": format!("{} clean room", c.subject), "marketplaceId": "ATVPDKIKX0DER" }] }),
    )
}

/// An instance as the AMC administration documents describe one (their required fields
/// included), with the optional datasets the clean-room tools read.
fn instance_body(c: &Caller) -> Value {
    let id = instance_id(c);
    json!({
        "instanceId": id, "instanceName": format!("{} AMC", c.subject), "instanceType": "STANDARD", "creationStatus": "COMPLETED",
        "creationDatetime": "2026-01-15T00:00:00Z",
        "apiEndpoint": format!("https://{id}.amc.sandbox.invalid"),
        "awsAccountId": "000000000000", "dataUploadAwsAccountId": "000000000001",
        "s3BucketName": format!("amc-{id}"), "s3BucketRegion": "us-east-1",
        "entities": [entity(c)], "advertiserTypes": ["SPONSORED_ADS", "DISPLAY"],
        "customerCanonicalName": c.subject.clone(),
        "optionalDatasets": PAID_DATASETS.iter().filter(|d| d.2).map(|d| json!({ "label": d.0, "activationTime": "2026-01-15T00:00:00.000Z" })).collect::<Vec<_>>(),
    })
}

async fn instances(Extension(c): Extension<Caller>, h: HeaderMap) -> Result<Response, SimError> {
    let adv = h
        .get("amazon-advertising-api-advertiserid")
        .and_then(|v| v.to_str().ok());
    let market = h
        .get("amazon-advertising-api-marketplaceid")
        .and_then(|v| v.to_str().ok());
    if adv.is_none() || market.is_none() {
        return Err(err(
            400,
            "Amazon-Advertising-API-AdvertiserId and Amazon-Advertising-API-MarketplaceId name one entity and marketplace pair",
        )
        .with_media(MEDIA));
    }
    let list = if adv == Some(entity(&c).as_str()) && market == Some("ATVPDKIKX0DER") {
        vec![instance_body(&c)]
    } else {
        vec![]
    };
    Ok(answer(200, MEDIA, &json!({ "instances": list })))
}

async fn instance(
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, SimError> {
    check_instance(&c, &id).map_err(|e| e.with_media(MEDIA))?;
    Ok(answer(
        200,
        MEDIA,
        &json!({ "instance": instance_body(&c) }),
    ))
}

/// The paid datasets: label, the prefix of their tables, and whether the sandbox's instances
/// have activated them (`optionalDatasets`).
const PAID_DATASETS: &[(&str, &str, bool)] = &[
    ("AUDIENCE_SEGMENTS", "audience_segments_", true),
    ("SEGMENT_METADATA", "segment_metadata_", false),
];

/// Whether the paid table `name` belongs to a dataset the instance activated.
fn activated(name: &str) -> bool {
    PAID_DATASETS
        .iter()
        .any(|(_, prefix, on)| *on && name.starts_with(prefix))
}

/// The data sources: the standard tables, their `_for_audiences` twins and the paid ones.
fn tables() -> Vec<Value> {
    let mut out = Vec::new();
    let base = [
        "dsp_impressions",
        "dsp_clicks",
        "sponsored_ads_traffic",
        "amazon_attributed_events_by_conversion_time",
        "amazon_attributed_events_by_traffic_time",
        "conversions",
        "conversions_with_relevance",
    ];
    for (i, t) in base.iter().enumerate() {
        for variant in ["", "_for_audiences"] {
            out.push(json!({ "dataSourceId": format!("{t}{variant}"), "isPremium": false, "columns": [
                { "name": "campaign_id", "dataType": "LONG", "aggregationThreshold": "NONE" },
                { "name": "user_id", "dataType": "STRING", "aggregationThreshold": "INTERNAL" },
                { "name": "impressions", "dataType": "LONG", "aggregationThreshold": "NONE" },
                { "name": "event_dt", "dataType": "TIMESTAMP", "aggregationThreshold": "NONE" }] , "order": i }));
        }
    }
    for variant in ["", "_for_audiences"] {
        out.push(json!({ "dataSourceId": format!("audience_segments_inmarket{variant}"), "isPremium": true, "columns": [
            { "name": "segment_id", "dataType": "LONG", "aggregationThreshold": "NONE" },
            { "name": "user_id", "dataType": "STRING", "aggregationThreshold": "INTERNAL" }] }));
    }
    for n in 0..120 {
        out.push(json!({ "dataSourceId": format!("segment_metadata_{n:03}"), "isPremium": n % 3 == 0, "columns": [{ "name": "segment_id", "dataType": "LONG", "aggregationThreshold": "NONE" }] }));
    }
    out
}

async fn data_sources(
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
    RawQuery(q): RawQuery,
) -> Result<Response, SimError> {
    check_instance(&c, &id)?;
    let start: usize = form_urlencoded::parse(q.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "nextToken")
        .and_then(|(_, v)| v.strip_prefix("ds.").and_then(|n| n.parse().ok()))
        .unwrap_or(0);
    let all = tables();
    let mut out = json!({ "dataSources": all.iter().skip(start).take(DATA_PAGE).cloned().collect::<Vec<_>>() });
    if start + DATA_PAGE < all.len() {
        out["nextToken"] = format!("ds.{}", start + DATA_PAGE).into();
    }
    Ok(answer(200, MEDIA, &out))
}

async fn data_source(
    Extension(c): Extension<Caller>,
    Path((id, ds)): Path<(String, String)>,
) -> Result<Response, SimError> {
    check_instance(&c, &id)?;
    let t = tables()
        .into_iter()
        .find(|t| t["dataSourceId"] == ds.as_str())
        .ok_or_else(|| err(404, format!("data source {ds} not found")))?;
    Ok(answer(200, MEDIA, &t))
}

const EXEC: &str = "amc_exec";
const AUDIENCE: &str = "amc_audience";

/// Why a query cannot run, in the provider's words (a paid table says nothing of subscriptions).
fn query_problem(sql: &str) -> Option<String> {
    let lower = sql.to_lowercase();
    if !lower.trim_start().starts_with("select") && !lower.trim_start().starts_with("with") {
        return Some("Query must be a SELECT statement".into());
    }
    tables()
        .iter()
        .filter(|t| t["isPremium"] == true)
        .filter(|t| !activated(t["dataSourceId"].as_str().unwrap_or("")))
        .find(|t| lower.contains(t["dataSourceId"].as_str().unwrap_or("")))
        .map(|t| {
            format!(
                "Table or view not found: {}",
                t["dataSourceId"].as_str().unwrap_or("")
            )
        })
}

async fn create_execution(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Extension(fatal): Extension<FatalReport>,
    Path(id): Path<String>,
    b: Bytes,
) -> Result<Response, SimError> {
    check_instance(&c, &id)?;
    let req = body(&b)?;
    let kind = req["timeWindowType"].as_str().ok_or_else(|| {
        err(
            400,
            "timeWindowType is required: EXPLICIT, MOST_RECENT_DAY or MOST_RECENT_WEEK",
        )
    })?;
    if !["EXPLICIT", "MOST_RECENT_DAY", "MOST_RECENT_WEEK"].contains(&kind) {
        return Err(err(
            400,
            "timeWindowType must be EXPLICIT, MOST_RECENT_DAY or MOST_RECENT_WEEK",
        ));
    }
    let sql = req["workflow"]["sqlQuery"]
        .as_str()
        .ok_or_else(|| err(400, "workflow.sqlQuery is required"))?;
    let problem = query_problem(sql);
    if req["dryRun"] == true {
        return Ok(answer(
            200,
            "application/json",
            &json!({ "workflowExecutionId": format!("dry-{}", crate::store::random_hex(6)), "status": if problem.is_some() { "FAILED" } else { "SUCCEEDED" }, "statusReason": problem, "dryRun": true }),
        ));
    }
    let eid = format!("wfe-{}", crate::store::random_hex(8));
    sim.create_report(
        EXEC,
        &c.subject,
        &eid,
        &eid,
        &json!({ "sql": sql, "problem": problem }),
        fatal.0 || problem.is_some(),
    )?;
    Ok(answer(
        200,
        "application/json",
        &json!({ "workflowExecutionId": eid, "status": "PENDING" }),
    ))
}

async fn get_execution(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((id, eid)): Path<(String, String)>,
) -> Result<Response, SimError> {
    check_instance(&c, &id)?;
    let r = sim
        .report(EXEC, &c.subject, &eid)?
        .ok_or_else(|| err(404, format!("execution {eid} not found")))?;
    let status = match r.phase(now_ms()) {
        Phase::Queued => "PENDING",
        Phase::Running => "RUNNING",
        Phase::Done => "SUCCEEDED",
        _ => "FAILED",
    };
    let mut v =
        json!({ "workflowExecutionId": eid, "status": status, "createdTime": iso(r.created_ms) });
    if status == "FAILED" {
        v["statusReason"] = r.request["problem"]
            .as_str()
            .unwrap_or("The execution failed")
            .into();
    }
    Ok(answer(200, "application/json", &v))
}

async fn download_urls(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((id, eid)): Path<(String, String)>,
) -> Result<Response, SimError> {
    check_instance(&c, &id)?;
    let r = sim
        .report(EXEC, &c.subject, &eid)?
        .ok_or_else(|| err(404, format!("execution {eid} not found")))?;
    if r.phase(now_ms()) != Phase::Done {
        return Err(err(400, "the execution has not succeeded"));
    }
    let doc = match &r.document {
        Some(d) => d.clone(),
        None => {
            let rows = sim.world().rows(
                "SELECT CampaignID, SUM(Impressions) AS imp, SUM(Clicks) AS clk FROM ads_campaign_daily WHERE MarketplaceSellerID = ?1 GROUP BY CampaignID ORDER BY CampaignID",
                &[&c.subject],
            )?;
            let mut csv = "campaign_id,impressions,clicks\n".to_owned();
            for row in rows {
                csv.push_str(&format!(
                    "{},{},{}\n",
                    row["CampaignID"], row["imp"], row["clk"]
                ));
            }
            let d = sim.put_document("text/csv", false, csv.as_bytes())?;
            sim.set_report_document(&r.id, &d)?
        }
    };
    Ok(answer(
        200,
        "application/json",
        &json!({ "downloadUrls": [sim.presign(&doc).0] }),
    ))
}

fn audience_view(r: &crate::reports::ReportRow) -> Value {
    let status = match r.phase(now_ms()) {
        Phase::Queued | Phase::Running => "PROCESSING",
        Phase::Done => "ACTIVE",
        _ => "FAILED",
    };
    let mut v = r.request.clone();
    v["audienceExecutionId"] = r.id.clone().into();
    v["status"] = status.into();
    v
}

async fn create_audience(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Extension(fatal): Extension<FatalReport>,
    b: Bytes,
) -> Result<Response, SimError> {
    let req = body(&b)?;
    check_instance(&c, req["instanceId"].as_str().unwrap_or(""))?;
    for k in ["audienceName", "query", "destination"] {
        if req.get(k).is_none_or(Value::is_null) {
            return Err(err(400, format!("{k} is required")));
        }
    }
    let refresh = req["refreshRateDays"].as_i64().unwrap_or(1);
    if !(0..=21).contains(&refresh) {
        return Err(err(400, "refreshRateDays must be from 0 to 21"));
    }
    let sql = req["query"].as_str().unwrap_or("");
    if !sql.contains("_for_audiences") {
        return Err(err(400, "an audience query reads _for_audiences tables"));
    }
    let id = format!("aud-{}", crate::store::random_hex(8));
    let problem = query_problem(sql);
    sim.create_report(AUDIENCE, &c.subject, &id, &id, &json!({ "instanceId": req["instanceId"], "audienceName": req["audienceName"], "query": sql, "refreshRateDays": refresh, "destination": req["destination"], "statusReason": problem }), fatal.0 || problem.is_some())?;
    Ok(answer(
        200,
        "application/json",
        &json!({ "audienceExecutionId": id, "status": "PROCESSING" }),
    ))
}

async fn list_audiences(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
) -> Result<Response, SimError> {
    let list: Vec<Value> = sim
        .reports(AUDIENCE, &c.subject, None)?
        .iter()
        .filter(|r| r.outcome != "cancelled")
        .map(audience_view)
        .collect();
    Ok(answer(
        200,
        "application/json",
        &json!({ "audiences": list }),
    ))
}

fn find_audience(sim: &Sim, c: &Caller, id: &str) -> Result<crate::reports::ReportRow, SimError> {
    sim.report(AUDIENCE, &c.subject, id)?
        .filter(|r| r.outcome != "cancelled")
        .ok_or_else(|| err(404, format!("audience {id} not found")))
}

async fn get_audience(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, SimError> {
    Ok(answer(
        200,
        "application/json",
        &audience_view(&find_audience(&sim, &c, &id)?),
    ))
}

fn only_failed(r: &crate::reports::ReportRow) -> Result<(), SimError> {
    match r.phase(now_ms()) {
        Phase::Fatal => Ok(()),
        _ => Err(SimError::new(
            409,
            "CONFLICT",
            "only a FAILED audience can be updated or deleted",
        )
        .for_family(Family::Ads)),
    }
}

async fn update_audience(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
    b: Bytes,
) -> Result<Response, SimError> {
    let r = find_audience(&sim, &c, &id)?;
    only_failed(&r)?;
    let req = body(&b)?;
    let sql = req["query"]
        .as_str()
        .unwrap_or(r.request["query"].as_str().unwrap_or(""));
    let problem = query_problem(sql);
    let mut request = r.request.clone();
    request["query"] = sql.into();
    request["statusReason"] = problem.clone().into();
    sim.store.with(|conn| {
        conn.execute(
            "UPDATE reports SET request = ?2, created_at = ?3, ready_at = ?4, outcome = ?5 WHERE id = ?1",
            rusqlite::params![id, request.to_string(), now_ms(), now_ms() + sim.config.report_ms as i64, if problem.is_some() { "fatal" } else { "done" }],
        )
    })?;
    Ok(answer(
        200,
        "application/json",
        &json!({ "audienceExecutionId": id, "status": "PROCESSING" }),
    ))
}

async fn delete_audience(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Response, SimError> {
    let r = find_audience(&sim, &c, &id)?;
    only_failed(&r)?;
    sim.store.with(|conn| {
        conn.execute(
            "UPDATE reports SET outcome = 'cancelled' WHERE id = ?1",
            [&id],
        )
    })?;
    Ok(answer(
        200,
        "application/json",
        &json!({ "audienceExecutionId": id, "deleted": true }),
    ))
}
