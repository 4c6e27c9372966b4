//! Report creates through the ledger (docs/reports-and-pricing.md and beyond): at most one create reaches the
//! provider per request — identical requests share one report, an `Idempotency-Key` gets the
//! same answer on a retry, and an uncertain create is never sent again unless the gateway
//! proves the first made nothing (the selling side lists reports of that type from the first
//! send) or the caller acknowledges that a second report may be made
//! (`acceptDuplicateRisk: true`; v3's 425 then still names the original when it is in
//! flight). Also the selling side's report status, normalized, with a reason on every terminal
//! report.

use std::time::Duration;

use chrono::{DateTime, Utc};
use pp_core::{Error, Kind, Result, TenantId};
use pp_store::jobs::{BackgroundJob, Item, Job, Outcome, now_ms};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::calls::build;
use crate::catalog;
use crate::connections::GrantKind;
use crate::ledger::{self, Decision, Entry, Family};
use crate::merchants::Merchant;
use crate::upstream::{Provider, Reply, Request};

/// Report types the provider has retired: refused before anything is sent.
pub const RETIRED: &[&str] = &[
    "GET_FBA_FULFILLMENT_CURRENT_INVENTORY_DATA",
    "GET_FBA_FULFILLMENT_MONTHLY_INVENTORY_DATA",
    "GET_FBA_FULFILLMENT_INVENTORY_RECEIPTS_DATA",
    "GET_FBA_FULFILLMENT_INVENTORY_SUMMARY_DATA",
    "GET_FBA_FULFILLMENT_INVENTORY_ADJUSTMENTS_DATA",
    "GET_FBA_FULFILLMENT_INVENTORY_HEALTH_DATA",
    "GET_FLAT_FILE_OPEN_LISTINGS_DATA",
    "GET_MERCHANT_LISTINGS_DATA_BACK_COMPAT",
];

/// A create's result.
#[derive(Debug)]
pub struct Created {
    pub reply: Reply,
    pub report_id: String,
    /// The id came from an earlier create (an identical request, the same key, or a
    /// reconciled uncertain create), not from a create sent by this call.
    pub reused: bool,
    /// How an earlier create's id was recovered: `425` or `listing`.
    pub recovered: Option<&'static str>,
    /// This create was sent although an earlier identical one may have made a report (the
    /// caller acknowledged the risk).
    pub duplicate_risk: bool,
}

/// How a caller asked for a create.
#[derive(Debug, Clone, Copy, Default)]
pub struct CreateOptions<'a> {
    /// The caller's `Idempotency-Key`.
    pub key: Option<&'a str>,
    /// Send even when an earlier identical create's outcome is unknown (`acceptDuplicateRisk`).
    pub accept_duplicate_risk: bool,
    /// Reuse only a report created after this time (unix ms), not any from the last day.
    pub fresh_since: Option<i64>,
}

/// Refuses a retired selling-side report type.
pub fn check_type(body: &Value) -> Result<()> {
    let t = body["reportType"].as_str().unwrap_or_default();
    if RETIRED.contains(&t) {
        return Err(Error::new(
            Kind::ReportRetired,
            format!("report type {t} is retired by the provider; nothing was sent"),
        )
        .with_fix("Use a current report type (for FBA inventory, GET_FBA_MYI_UNSUPPRESSED_INVENTORY_DATA or the FBA inventory API)."));
    }
    Ok(())
}

fn synthetic(family: Family, id: &str) -> Reply {
    let body = match family {
        Family::AdsV1 => {
            json!({ "success": [{ "index": 0, "report": { "reportId": id } }], "error": [] })
        }
        _ => json!({ "reportId": id }),
    };
    Reply {
        status: 200,
        body,
        rate_limit: None,
    }
}

/// Creates the report `req` describes, through the ledger.
pub async fn create(
    up: &Provider<'_>,
    req: &Request<'_>,
    family: Family,
    merchant: Option<&Merchant>,
    opts: CreateOptions<'_>,
) -> Result<Created> {
    let key = opts.key;
    let body = req.body.clone().unwrap_or(Value::Null);
    if family == Family::Spapi {
        check_type(&body)?;
    }
    // the account the provider scopes the report to: the profile a profile-scoped call names
    // in its scope header, else the merchant whose grant signs it
    let account = req
        .headers
        .iter()
        .find(|(k, _)| k == "Amazon-Advertising-API-Scope")
        .map_or(req.merchant, |(_, v)| v.as_str());
    let hash = ledger::request_hash(family, account, &body);
    let lease_ms = (up.client.policy.timeout + Duration::from_secs(5)).as_millis() as i64;
    let deadline = now_ms() + 2 * lease_ms;
    loop {
        let asked = ledger::Asked {
            family,
            account,
            hash: &hash,
            key,
            lease_ms,
            fresh_since: opts.fresh_since,
        };
        let d = ledger::decide(up.store, req.tenant, asked).await?;
        match d {
            Decision::Reuse(e) => {
                let id = e.provider_id.unwrap_or_default();
                return Ok(Created {
                    reply: synthetic(family, &id),
                    report_id: id,
                    reused: true,
                    recovered: None,
                    duplicate_risk: false,
                });
            }
            Decision::Send(e) => return send(up, req, family, &e, false).await,
            Decision::Reconcile(e) => {
                return reconcile(up, req, family, merchant, &body, &e, opts).await;
            }
            Decision::Wait(e) => {
                if now_ms() > deadline {
                    return Err(Error::new(
                        Kind::Throttled,
                        "an identical report request is still being sent; retry shortly",
                    )
                    .with_field("retryAfter", 2));
                }
                wait_for(up, &e).await;
            }
        }
    }
}

/// An earlier identical create's outcome is unknown: adopt what it made, send only when the
/// listing proves it made nothing or the caller accepted the risk, and otherwise answer the
/// uncertainty again (the row goes back to `unknown`, its window unmoved).
async fn reconcile(
    up: &Provider<'_>,
    req: &Request<'_>,
    family: Family,
    merchant: Option<&Merchant>,
    body: &Value,
    e: &Entry,
    opts: CreateOptions<'_>,
) -> Result<Created> {
    let listed = match (family, merchant) {
        (Family::Spapi, Some(m)) => Some(find_listed(up, req.tenant, m, body, e).await),
        _ => None,
    };
    match listed {
        Some(Ok(Some(id))) => {
            up.store
                .ledger()
                .settle(&e.id, ledger::CREATED, Some(&id), None)
                .await?;
            watch(up, req, family, &e.id, &id).await?;
            Ok(Created {
                reply: synthetic(family, &id),
                report_id: id,
                reused: true,
                recovered: Some("listing"),
                duplicate_risk: false,
            })
        }
        // the listing is the proof: nothing was made since the first send
        Some(Ok(None)) => send(up, req, family, e, false).await,
        _ if opts.accept_duplicate_risk => send(up, req, family, e, true).await,
        Some(Err(looked)) => {
            up.store.ledger().release_unknown(&e.id).await?;
            Err(still_unknown(family, e).with_field(
                "reconcile",
                json!({ "kind": looked.kind.code(), "message": looked.message() }),
            ))
        }
        None => {
            up.store.ledger().release_unknown(&e.id).await?;
            Err(still_unknown(family, e))
        }
    }
}

/// The answer to a retry of a create whose first outcome is still unknown: nothing was sent,
/// and what the caller can do.
fn still_unknown(family: Family, e: &Entry) -> Error {
    let first = DateTime::from_timestamp_millis(e.sent_at)
        .map(|t| t.to_rfc3339())
        .unwrap_or_default();
    let (look, retryable) = match family {
        Family::Spapi => (
            "Retry later: the gateway lists this report type from the first send and adopts what it made; only a listing that shows nothing lets it create.",
            true,
        ),
        _ => (
            "The provider offers no way to look this report up; a plain retry answers the same.",
            false,
        ),
    };
    Error::new(
        Kind::UpstreamUnavailable,
        "an identical create's outcome is unknown, so nothing was sent: the provider may already have made this report",
    )
    .with_field("requestOutcome", "unknown")
    .with_field("automaticRetry", false)
    .with_field("firstSentAt", first)
    .with_field("acknowledge", "acceptDuplicateRisk")
    .with_retryable(retryable)
    .with_fix(format!(
        "{look} To create it anyway, send the same request again with \"acceptDuplicateRisk\": true; a second report may then be made."
    ))
}

async fn wait_for(up: &Provider<'_>, e: &Entry) {
    while now_ms() < e.lease_until {
        tokio::time::sleep(Duration::from_millis(100)).await;
        match up.store.ledger().get(&e.id).await {
            Ok(Some((now, _))) if now.status == ledger::SENDING => {}
            _ => return,
        }
    }
}

/// The 425's original id ("… duplicate of : <id>").
fn duplicate_of(e: &Error) -> Option<String> {
    if e.field("status").and_then(Value::as_u64) != Some(425) {
        return None;
    }
    let msg = e.field("amazon")?["message"].as_str()?;
    msg.rsplit([':', ' '])
        .find(|s| !s.is_empty())
        .map(str::to_owned)
}

async fn send(
    up: &Provider<'_>,
    req: &Request<'_>,
    family: Family,
    e: &Entry,
    duplicate_risk: bool,
) -> Result<Created> {
    match up.client.send(up.store, up.sealer, req).await {
        Ok(reply) => match family.report_id(&reply.body) {
            Some(id) => {
                up.store
                    .ledger()
                    .settle(&e.id, ledger::CREATED, Some(&id), None)
                    .await?;
                watch(up, req, family, &e.id, &id).await?;
                Ok(Created {
                    reply,
                    report_id: id,
                    reused: false,
                    recovered: None,
                    duplicate_risk,
                })
            }
            None => {
                let err = Error::new(
                    Kind::UpstreamUnavailable,
                    "the provider accepted the create but named no report",
                )
                .with_field("requestOutcome", "unknown")
                .with_field("automaticRetry", false);
                up.store
                    .ledger()
                    .settle(&e.id, ledger::UNKNOWN, None, Some(&err.api_envelope(None)))
                    .await?;
                Err(err)
            }
        },
        Err(err) => {
            if family == Family::AdsV3
                && let Some(id) = duplicate_of(&err)
            {
                up.store
                    .ledger()
                    .settle(&e.id, ledger::CREATED, Some(&id), None)
                    .await?;
                return Ok(Created {
                    reply: synthetic(family, &id),
                    report_id: id,
                    reused: true,
                    recovered: Some("425"),
                    duplicate_risk: false,
                });
            }
            let unknown = err.field("requestOutcome").and_then(Value::as_str) == Some("unknown");
            let status = if unknown {
                ledger::UNKNOWN
            } else {
                ledger::FAILED
            };
            up.store
                .ledger()
                .settle(&e.id, status, None, Some(&err.api_envelope(None)))
                .await?;
            Err(err)
        }
    }
}

/// The job that follows a selling-side report to its end.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportWatch {
    /// The ledger entry of the report's create.
    pub ledger_id: String,
    pub report_id: String,
    /// The merchant it was made for.
    pub account: String,
    /// When the watch began (unix ms).
    pub since: i64,
}

impl BackgroundJob for ReportWatch {
    const KIND: &'static str = "report_watch";

    fn merchant(&self) -> Option<String> {
        Some(self.account.clone())
    }
}

/// Starts watching a newly created selling-side report (polling is a job, not the caller's).
async fn watch(
    up: &Provider<'_>,
    req: &Request<'_>,
    family: Family,
    ledger_id: &str,
    id: &str,
) -> Result<()> {
    if family != Family::Spapi {
        return Ok(());
    }
    ReportWatch {
        ledger_id: ledger_id.to_owned(),
        report_id: id.to_owned(),
        account: req.merchant.to_owned(),
        since: now_ms(),
    }
    .enqueue(up.store, req.tenant)
    .await?;
    Ok(())
}

/// What the provider's notifications say of a selling-side report.
pub enum Noticed {
    /// It finished: the report object the notice makes (id, type, status, document).
    Said(Value),
    /// Not yet, and the partner's finished reports are notified: look again later, without
    /// asking the provider.
    Wait,
    /// Ask the provider (the partner is not subscribed, or the notice is overdue).
    Ask,
}

/// How many looks at a report wait for the provider's notice before asking after it.
pub const NOTICE_LOOKS: u64 = 12;

/// What the notifications say of report `id` of `partner`, at the `looks`-th look: a report
/// the provider said has finished is never asked after; one unheard of after
/// [`NOTICE_LOOKS`] looks is, so a lost notification costs a delay, never the report.
pub async fn noticed(
    store: &pp_store::Store,
    tenant: &TenantId,
    partner: &str,
    id: &str,
    looks: u64,
) -> Result<Noticed> {
    let streams = store.streams();
    if let Some(n) = streams.report_notice(tenant, id).await? {
        return Ok(Noticed::Said(json!({
            "reportId": id,
            "reportType": n.report_type,
            "processingStatus": n.status,
            "reportDocumentId": n.document_id,
        })));
    }
    if looks < NOTICE_LOOKS && streams.hears_reports(tenant, partner).await? {
        return Ok(Noticed::Wait);
    }
    Ok(Noticed::Ask)
}

/// Whether a normalized status is final.
pub fn terminal(status: &str) -> bool {
    matches!(status, "done" | "failed" | "cancelled")
}

/// One look at a watched report: recorded in the ledger; done when the report is final, or
/// when it has stayed unfinished past `stuck_after` (its reason becomes `stuck`).
pub async fn watch_step(
    up: &Provider<'_>,
    input: ReportWatch,
    job: &Job,
    stuck_after: Duration,
) -> (Outcome, Vec<Item>) {
    let polls = job.state["polls"].as_u64().unwrap_or(0) + 1;
    let state = json!({ "polls": polls });
    let ReportWatch {
        ledger_id,
        report_id: id,
        account,
        since,
    } = input;
    let looked = async {
        let tenant = TenantId::parse(&job.tenant)?;
        match noticed(up.store, &tenant, &account, &id, polls - 1).await? {
            Noticed::Said(report) => return Ok(Some(report)),
            Noticed::Wait => return Ok(None),
            Noticed::Ask => {}
        }
        let op = catalog::find(catalog::spapi(), "reports.get_report")
            .ok_or_else(|| Error::internal("reports.get_report missing from the catalog"))?;
        let mut args = Map::new();
        args.insert("reportId".into(), id.clone().into());
        let req = build(op, &args, &tenant, GrantKind::Seller, &account, None)?;
        Ok::<_, Error>(Some(up.client.send(up.store, up.sealer, &req).await?.body))
    };
    let backoff = now_ms() + 1_000 * 2_i64.pow(polls.min(6) as u32 - 1);
    match looked.await {
        // waiting for the provider's notice
        Ok(None) => (
            Outcome::Continue {
                state,
                done: 0,
                run_after: backoff,
            },
            Vec::new(),
        ),
        Ok(Some(report)) => {
            let (status, reason) = normalize(&report);
            let stuck = !terminal(status) && now_ms() - since > stuck_after.as_millis() as i64;
            let reason = if stuck { Some("stuck") } else { reason };
            if let Err(e) = up
                .store
                .ledger()
                .record_watch(&ledger_id, &report, reason)
                .await
            {
                return (
                    Outcome::Failed {
                        state,
                        error: e.api_envelope(None),
                    },
                    Vec::new(),
                );
            }
            if terminal(status) || stuck {
                // the end, as the report's event tells it
                let end = json!({ "polls": polls, "status": status, "reason": reason, "reportType": report["reportType"], "reportDocumentId": report["reportDocumentId"] });
                (
                    Outcome::Succeeded {
                        state: end,
                        done: 1,
                    },
                    Vec::new(),
                )
            } else {
                (
                    Outcome::Continue {
                        state,
                        done: 0,
                        run_after: backoff,
                    },
                    Vec::new(),
                )
            }
        }
        Err(e) if e.retryable() && polls < 50 => (
            Outcome::Continue {
                state,
                done: 0,
                run_after: backoff,
            },
            Vec::new(),
        ),
        Err(e) => (
            Outcome::Failed {
                state,
                error: e.api_envelope(None),
            },
            Vec::new(),
        ),
    }
}

fn time(v: &Value) -> Option<DateTime<Utc>> {
    v.as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// A report of the same type, window and marketplaces, made since the uncertain create was
/// sent and not already some other request's.
async fn find_listed(
    up: &Provider<'_>,
    tenant: &TenantId,
    merchant: &Merchant,
    body: &Value,
    e: &Entry,
) -> Result<Option<String>> {
    let op = catalog::find(catalog::spapi(), "reports.get_reports")
        .ok_or_else(|| Error::internal("reports.get_reports missing from the catalog"))?;
    let mut args = Map::new();
    args.insert("reportTypes".into(), body["reportType"].clone());
    args.insert("pageSize".into(), json!(100));
    let req = build(
        op,
        &args,
        tenant,
        GrantKind::Seller,
        &merchant.seller_id,
        Some(merchant),
    )?;
    let listed = up.client.send(up.store, up.sealer, &req).await?;
    let since = DateTime::from_timestamp_millis(e.sent_at - 60_000).unwrap_or_default();
    let same = |r: &Value, k: &str| body.get(k).is_none_or(|want| time(want) == time(&r[k]));
    let mut found: Vec<(DateTime<Utc>, String)> = Vec::new();
    for r in listed.body["reports"].as_array().into_iter().flatten() {
        let (Some(created), Some(id)) = (time(&r["createdTime"]), r["reportId"].as_str()) else {
            continue;
        };
        if created >= since
            && r["reportType"] == body["reportType"]
            && same(r, "dataStartTime")
            && same(r, "dataEndTime")
            && !up.store.ledger().adopted(tenant, id).await?
        {
            found.push((created, id.to_owned()));
        }
    }
    found.sort();
    Ok(found.into_iter().next().map(|(_, id)| id))
}

/// A selling-side report's status in our words: `queued`, `running`, `done`, `failed` or
/// `cancelled`, with a reason on every terminal report but a done one with data.
pub fn normalize(report: &Value) -> (&'static str, Option<&'static str>) {
    match report["processingStatus"].as_str().unwrap_or_default() {
        "IN_QUEUE" => ("queued", None),
        "IN_PROGRESS" => ("running", None),
        "DONE" if report["reportDocumentId"].is_string() => ("done", None),
        "DONE" => ("done", Some("no_data")),
        "CANCELLED" => ("cancelled", Some("cancelled")),
        _ => ("failed", Some(fatal_reason(report))),
    }
}

fn fatal_reason(report: &Value) -> &'static str {
    let (start, end) = (time(&report["dataStartTime"]), time(&report["dataEndTime"]));
    match (start, end) {
        (Some(s), Some(e)) if s > e => "bad_window",
        (Some(s), _) if Utc::now().signed_duration_since(s).num_days() > 2 * 365 => {
            "retention_exceeded"
        }
        _ => "provider_fatal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A watch queued by an earlier release reads as [`ReportWatch`], and one queued now is
    /// what that release wrote.
    #[test]
    fn watches_queued_before_kinds_were_types_still_read() {
        let old = json!({ "ledgerId": "led_1", "reportId": "r1", "account": "A1", "since": 5 });
        let watch: ReportWatch = serde_json::from_value(old.clone()).unwrap();
        assert_eq!((watch.report_id.as_str(), watch.since), ("r1", 5));
        assert_eq!(serde_json::to_value(&watch).unwrap(), old);
    }

    #[test]
    fn statuses_and_reasons() {
        assert_eq!(
            normalize(&json!({"processingStatus": "IN_QUEUE"})),
            ("queued", None)
        );
        assert_eq!(
            normalize(&json!({"processingStatus": "DONE", "reportDocumentId": "d"})),
            ("done", None)
        );
        assert_eq!(
            normalize(&json!({"processingStatus": "DONE"})),
            ("done", Some("no_data"))
        );
        assert_eq!(
            normalize(
                &json!({"processingStatus": "FATAL", "dataStartTime": "2026-02-01T00:00:00Z", "dataEndTime": "2026-01-01T00:00:00Z"})
            ),
            ("failed", Some("bad_window"))
        );
        assert_eq!(
            normalize(
                &json!({"processingStatus": "FATAL", "dataStartTime": "2019-01-01T00:00:00Z"})
            ),
            ("failed", Some("retention_exceeded"))
        );
        assert_eq!(
            normalize(&json!({"processingStatus": "FATAL"})),
            ("failed", Some("provider_fatal"))
        );
        assert!(
            check_type(&json!({"reportType": "GET_FBA_FULFILLMENT_INVENTORY_HEALTH_DATA"}))
                .is_err()
        );
        assert!(check_type(&json!({"reportType": "GET_SALES_AND_TRAFFIC_REPORT"})).is_ok());
    }

    #[test]
    fn the_425_names_the_original() {
        let e = Error::new(Kind::BadRequest, "x")
            .with_field("status", 425)
            .with_field("amazon", json!({"status": 425, "code": "425", "message": "The Request is a duplicate of : ab-cd-ef"}));
        assert_eq!(duplicate_of(&e).as_deref(), Some("ab-cd-ef"));
    }
}
