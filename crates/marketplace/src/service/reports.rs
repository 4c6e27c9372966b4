//! Selling-side reports (docs/reports-and-pricing.md, docs/errors.md): create once through the ledger (an `Idempotency-Key`
//! makes a retry safe, across restarts), status in our words with a reason on every terminal
//! report, and the provider's short-lived presigned document URL.

use pp_core::{Error, Kind, Principal, Result};
use serde_json::{Map, Value, json};

use super::answers::{ReportCreated, ReportDocument, ReportStatus};
use super::requests::{IdempotencyKey, ReportRequest};
use super::{Api, Marketplace};
use crate::calls::build;
use crate::catalog;
use crate::connections::GrantKind;
use crate::ledger::Family;
use crate::reports;

/// The provider's create body from ours; the marketplace comes from the merchant.
fn create_body(req: &ReportRequest, marketplace_id: &str) -> Result<Value> {
    let t = req.report_type.trim();
    if t.is_empty() {
        return Err(Error::invalid_request("reportType is required"));
    }
    let mut out = json!({ "reportType": t, "marketplaceIds": [marketplace_id] });
    for (k, v) in [
        ("dataStartTime", &req.data_start_time),
        ("dataEndTime", &req.data_end_time),
    ] {
        if let Some(v) = v {
            if chrono::DateTime::parse_from_rfc3339(v).is_err() {
                return Err(Error::invalid_request(format!(
                    "{k} must be an ISO 8601 date-time with an offset, such as 2026-10-01T00:00:00Z"
                )));
            }
            out[k] = v.clone().into();
        }
    }
    if let Some(o) = &req.report_options {
        out["reportOptions"] = Value::Object(o.clone());
    }
    Ok(out)
}

fn fatal(id: &str, reason: &str) -> Error {
    Error::new(
        Kind::ReportFatal,
        format!("report {id} was accepted but failed to produce ({reason})"),
    )
    .with_field("reason", reason)
    .with_fix("Check the parameters (the date range above all) before creating it again.")
}

/// A report as our status answer, with `reason` when there is one.
fn render(id: &str, r: &Value, reason: Option<&str>) -> ReportStatus {
    let (status, _) = reports::normalize(r);
    ReportStatus {
        report_id: id.to_owned(),
        report_type: r["reportType"].clone(),
        status,
        processing_status: r["processingStatus"].clone(),
        created_time: r["createdTime"].clone(),
        data_start_time: r["dataStartTime"].clone(),
        data_end_time: r["dataEndTime"].clone(),
        document_ready: status == "done" && r["reportDocumentId"].is_string(),
        reason: reason.map(str::to_owned),
        error: (status == "failed")
            .then(|| fatal(id, reason.unwrap_or("provider_fatal")).api_envelope(None)),
        checked_at: None,
    }
}

/// Selling-side reports for one principal holding `retail:read` (`Marketplace::reports`).
pub struct Reports<'a> {
    pub(super) m: &'a Marketplace,
    pub(super) p: &'a Principal,
}

impl Reports<'_> {
    /// Creates a selling-side report through the ledger (`retail:read`).
    pub async fn create(
        &self,
        req: ReportRequest,
        key: Option<IdempotencyKey>,
    ) -> Result<ReportCreated> {
        let p = self.p;
        let up = self.m.provider(Api::Spapi)?;
        let merchant = self.m.resolve(p, &req.selector()?).await?;
        let mut args = Map::new();
        args.insert("body".into(), create_body(&req, &merchant.marketplace_id)?);
        let op = catalog::find(catalog::spapi(), "reports.create_report")
            .ok_or_else(|| Error::internal("reports.create_report missing from the catalog"))?;
        let built = build(
            op,
            &args,
            &p.tenant,
            GrantKind::Seller,
            &merchant.seller_id,
            Some(&merchant),
        )?;
        let opts = reports::CreateOptions {
            key: key.as_ref().map(IdempotencyKey::as_str),
            accept_duplicate_risk: req.accept_duplicate_risk,
            fresh_since: None,
        };
        let c = reports::create(&up, &built, Family::Spapi, Some(&merchant), opts).await?;
        Ok(ReportCreated {
            poll: format!("/api/marketplace/reports/{}", c.report_id),
            report_id: c.report_id,
            merchant,
            reused: c.reused,
            recovered: c.recovered,
            duplicate_risk: c.duplicate_risk,
        })
    }

    /// The provider's view of one of the tenant's reports, and the account it belongs to.
    async fn fetch(&self, id: &str) -> Result<(String, Value)> {
        let p = self.p;
        let up = self.m.provider(Api::Spapi)?;
        let account = self
            .m
            .store
            .ledger()
            .account_of(&p.tenant, Family::Spapi.name(), id)
            .await?
            .ok_or_else(|| {
                Error::not_found(format!(
                    "no report {id} created through this service for this tenant"
                ))
            })?;
        let op = catalog::find(catalog::spapi(), "reports.get_report")
            .ok_or_else(|| Error::internal("reports.get_report missing from the catalog"))?;
        let mut args = Map::new();
        args.insert("reportId".into(), id.into());
        let req = build(op, &args, &p.tenant, GrantKind::Seller, &account, None)?;
        let reply = up.client.send(up.store, up.sealer, &req).await?;
        Ok((account, reply.body))
    }

    /// A report's status in our words (`retail:read`): from the watch's record once the
    /// report is final, else from the provider, with `stuck` when the watch gave up waiting.
    pub async fn status(&self, id: &str) -> Result<ReportStatus> {
        let p = self.p;
        let seen = self.m.store.ledger().watched(&p.tenant, id).await?;
        if let Some((report, reason, checked)) = &seen
            && reports::terminal(reports::normalize(report).0)
        {
            let mut v = render(id, report, reason.as_deref());
            v.checked_at =
                chrono::DateTime::from_timestamp_millis(*checked).map(|t| t.to_rfc3339());
            return Ok(v);
        }
        let (_, r) = self.fetch(id).await?;
        let stuck = seen
            .as_ref()
            .and_then(|(_, reason, _)| reason.as_deref())
            .filter(|r| *r == "stuck");
        Ok(render(id, &r, stuck.or(reports::normalize(&r).1)))
    }

    /// A done report's presigned document URL (`retail:read`).
    pub async fn document(&self, id: &str) -> Result<ReportDocument> {
        let p = self.p;
        let (account, r) = self.fetch(id).await?;
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
        let up = self.m.provider(Api::Spapi)?;
        let op =
            catalog::find(catalog::spapi(), "reports.get_report_document").ok_or_else(|| {
                Error::internal("reports.get_report_document missing from the catalog")
            })?;
        let mut args = Map::new();
        args.insert("reportDocumentId".into(), doc.clone().into());
        let req = build(op, &args, &p.tenant, GrantKind::Seller, &account, None)?;
        let reply = up.client.send(up.store, up.sealer, &req).await?;
        Ok(ReportDocument {
            report_id: id.to_owned(),
            report_document_id: doc,
            url: reply.body["url"].clone(),
            compression_algorithm: reply.body["compressionAlgorithm"].clone(),
            note: "The URL is presigned and short-lived: fetch it now, without an Authorization header.",
        })
    }
}
