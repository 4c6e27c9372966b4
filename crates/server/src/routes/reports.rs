//! Selling-side reports (§4.4, §7.4): `POST /api/marketplace/reports` creates one through the
//! ledger (an `Idempotency-Key` makes a retry safe, across restarts), `GET …/reports/{id}`
//! answers its status in our words with a reason on every terminal report, and
//! `GET …/reports/{id}/document` hands back the provider's short-lived presigned URL.

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::{HeaderMap, StatusCode};
use pp_core::{Error, Kind, Principal, Scope};
use pp_marketplace::calls::build;
use pp_marketplace::catalog;
use pp_marketplace::connections::SELLER;
use pp_marketplace::ledger::{self, Family};
use pp_marketplace::reports;
use serde_json::{Map, Value, json};

use super::marketplace::{idempotency_key, resolve_merchant};
use crate::http::error::ApiError;
use crate::http::json::JsonObject;
use crate::state::SharedState;

const SELECTOR: &[&str] = &["legacySellerId", "sellerId", "marketplace", "merchantId"];
const FIELDS: &[&str] = &[
    "reportType",
    "dataStartTime",
    "dataEndTime",
    "reportOptions",
];

/// The provider's create body from ours; the marketplace comes from the merchant.
fn create_body(body: &Map<String, Value>, marketplace_id: &str) -> Result<Value, Error> {
    if let Some(k) = body
        .keys()
        .find(|k| !SELECTOR.contains(&k.as_str()) && !FIELDS.contains(&k.as_str()))
    {
        return Err(Error::invalid_request(format!(
            "'{k}' is not a field of a report request ({}, and the merchant selector)",
            FIELDS.join(", ")
        )));
    }
    let t = body
        .get("reportType")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty());
    let mut out = json!({ "reportType": t.ok_or_else(|| Error::invalid_request("reportType is required"))?, "marketplaceIds": [marketplace_id] });
    for k in ["dataStartTime", "dataEndTime"] {
        if let Some(v) = body.get(k) {
            let ok = v
                .as_str()
                .is_some_and(|s| chrono::DateTime::parse_from_rfc3339(s).is_ok());
            if !ok {
                return Err(Error::invalid_request(format!(
                    "{k} must be an ISO 8601 date-time with an offset"
                )));
            }
            out[k] = v.clone();
        }
    }
    if let Some(o) = body.get("reportOptions") {
        if !o.is_object() {
            return Err(Error::invalid_request(
                "reportOptions must be an object of strings",
            ));
        }
        out["reportOptions"] = o.clone();
    }
    Ok(out)
}

pub async fn create(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    headers: HeaderMap,
    JsonObject(body): JsonObject,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let key = idempotency_key(&headers)?;
    Ok((
        StatusCode::ACCEPTED,
        Json(create_report(&app, &p, &body, key.as_deref()).await?),
    ))
}

/// Creates a selling-side report through the ledger (`retail:read`).
pub async fn create_report(
    app: &SharedState,
    p: &Principal,
    body: &Map<String, Value>,
    key: Option<&str>,
) -> Result<Value, Error> {
    p.require(&[Scope::RetailRead])?;
    let m = app.marketplace("spapi")?;
    let merchant = resolve_merchant(app, p, body).await?;
    let provider_body = create_body(body, &merchant.marketplace_id)?;
    let op = catalog::find(catalog::spapi(), "reports.create_report")
        .ok_or_else(|| Error::internal("reports.create_report missing from the catalog"))?;
    let mut args = Map::new();
    args.insert("body".into(), provider_body);
    let req = build(
        op,
        &args,
        &p.tenant,
        SELLER,
        &merchant.seller_id,
        Some(&merchant),
    )?;
    let up = m.provider(&app.store);
    let c = reports::create(&up, &req, Family::Spapi, Some(&merchant), key).await?;
    Ok(json!({
        "ok": true, "reportId": c.report_id, "merchant": merchant,
        "reused": c.reused, "recovered": c.recovered,
        "poll": format!("/api/marketplace/reports/{}", c.report_id),
    }))
}

/// The provider's view of one of the tenant's reports.
async fn fetch(app: &SharedState, p: &Principal, id: &str) -> Result<(String, Value), Error> {
    p.require(&[Scope::RetailRead])?;
    let m = app.marketplace("spapi")?;
    let account =
        ledger::account_of(&app.store, &p.tenant, Family::Spapi, id)?.ok_or_else(|| {
            Error::not_found(format!(
                "no report {id} created through this service for this tenant"
            ))
        })?;
    let op = catalog::find(catalog::spapi(), "reports.get_report")
        .ok_or_else(|| Error::internal("reports.get_report missing from the catalog"))?;
    let mut args = Map::new();
    args.insert("reportId".into(), id.into());
    let req = build(op, &args, &p.tenant, SELLER, &account, None)?;
    let reply = m.client.send(&app.store, &m.sealer, &req).await?;
    Ok((account, reply.body))
}

fn fatal(id: &str, reason: &str) -> Error {
    Error::new(
        Kind::ReportFatal,
        format!("report {id} was accepted but failed to produce ({reason})"),
    )
    .with_field("reason", reason)
    .with_fix("Check the parameters (the date range above all) before creating it again.")
}

pub async fn status(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(report_status(&app, &p, &id).await?))
}

/// A report's status in our words (`retail:read`): from the watch's record once the report
/// is final, else from the provider, with `stuck` when the watch gave up waiting.
pub async fn report_status(app: &SharedState, p: &Principal, id: &str) -> Result<Value, Error> {
    p.require(&[Scope::RetailRead])?;
    let seen = ledger::watched(&app.store, &p.tenant, id)?;
    if let Some((report, reason, checked)) = &seen
        && reports::terminal(reports::normalize(report).0)
    {
        let mut v = render(id, report, reason.as_deref());
        v["checkedAt"] = chrono::DateTime::from_timestamp_millis(*checked)
            .map(|t| t.to_rfc3339())
            .into();
        return Ok(v);
    }
    let (_, r) = fetch(app, p, id).await?;
    let stuck = seen
        .as_ref()
        .and_then(|(_, reason, _)| reason.as_deref())
        .filter(|r| *r == "stuck");
    Ok(render(id, &r, stuck.or(reports::normalize(&r).1)))
}

/// A report as our status answer, with `reason` when there is one.
fn render(id: &str, r: &Value, reason: Option<&str>) -> Value {
    let (status, _) = reports::normalize(r);
    let mut v = json!({
        "ok": true, "reportId": id, "reportType": r["reportType"], "status": status,
        "processingStatus": r["processingStatus"], "createdTime": r["createdTime"],
        "dataStartTime": r["dataStartTime"], "dataEndTime": r["dataEndTime"],
        "documentReady": status == "done" && r["reportDocumentId"].is_string(),
    });
    if let Some(reason) = reason {
        v["reason"] = reason.into();
    }
    if status == "failed" {
        v["error"] = fatal(id, reason.unwrap_or("provider_fatal")).api_envelope(None);
    }
    v
}

pub async fn document(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(report_document(&app, &p, &id).await?))
}

/// A done report's presigned document URL (`retail:read`).
pub async fn report_document(app: &SharedState, p: &Principal, id: &str) -> Result<Value, Error> {
    let (account, r) = fetch(app, p, id).await?;
    let (status, reason) = reports::normalize(&r);
    let doc = match (status, r["reportDocumentId"].as_str()) {
        ("done", Some(d)) => d.to_owned(),
        ("failed", _) => return Err(fatal(id, reason.unwrap_or("provider_fatal"))),
        _ => {
            return Err(Error::new(
                Kind::ReportNotReady,
                format!(
                    "report {id} is {status}: it has no document{}",
                    reason.map(|r| format!(" ({r})")).unwrap_or_default()
                ),
            )
            .with_field("status", status));
        }
    };
    let m = app.marketplace("spapi")?;
    let op = catalog::find(catalog::spapi(), "reports.get_report_document")
        .ok_or_else(|| Error::internal("reports.get_report_document missing from the catalog"))?;
    let mut args = Map::new();
    args.insert("reportDocumentId".into(), doc.clone().into());
    let req = build(op, &args, &p.tenant, SELLER, &account, None)?;
    let reply = m.client.send(&app.store, &m.sealer, &req).await?;
    Ok(json!({
        "ok": true, "reportId": id, "reportDocumentId": doc,
        "url": reply.body["url"], "compressionAlgorithm": reply.body["compressionAlgorithm"],
        "note": "The URL is presigned and short-lived: fetch it now, without an Authorization header.",
    }))
}
