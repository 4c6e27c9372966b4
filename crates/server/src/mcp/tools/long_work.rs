//! Marketplace tools for long provider work: selling-side reports (create once through the
//! ledger, status, document) and pricing runs (start, poll, cancel, read answers in pages), over the
//! same functions as `/api/marketplace/reports` and `/api/marketplace/pricing`.

use pp_core::Scope;
use serde_json::{Value, json};

use super::{Args, Ctx, Fut, Hints, READ, Tool};
use crate::routes::{pricing, reports};

const RETAIL: &[Scope] = &[Scope::RetailRead];

/// Makes a report or a run at the provider: not idempotent without a key, never destructive.
const STARTS: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: true,
};

/// Reads the provider's state of a report.
const LIVE: Hints = Hints {
    open_world: true,
    ..READ
};

fn report_id_input() -> Value {
    json!({ "type": "object", "properties": { "reportId": { "type": "string" } }, "required": ["reportId"], "additionalProperties": false })
}

fn selector() -> serde_json::Map<String, Value> {
    json!({
        "legacySellerId": { "type": "integer", "minimum": 1 },
        "sellerId": { "type": "string" },
        "marketplace": { "type": "string" }
    })
    .as_object()
    .cloned()
    .unwrap_or_default()
}

pub fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "marketplace_report_create",
            title: "Create a selling-side report (once)",
            description: "Creates a selling-side report for one merchant: reportType, optional \
dataStartTime and dataEndTime (ISO 8601 with an offset) and reportOptions. An identical request \
in flight or made within a day gets the same reportId (reused: true); pass idempotencyKey to make \
a retry safe. If the answer is requestOutcome: unknown, do not create a new report: retry with \
the same idempotencyKey and the earlier report is found. Then poll marketplace_report_status.",
            needs: RETAIL,
            input: || {
                let mut p = selector();
                p.insert("reportType".into(), json!({ "type": "string" }));
                p.insert("dataStartTime".into(), json!({ "type": "string" }));
                p.insert("dataEndTime".into(), json!({ "type": "string" }));
                p.insert("reportOptions".into(), json!({ "type": "object" }));
                p.insert(
                    "idempotencyKey".into(),
                    json!({ "type": "string", "maxLength": 255 }),
                );
                json!({ "type": "object", "properties": p, "required": ["reportType"], "additionalProperties": false })
            },
            output: None,
            hints: STARTS,
            run: report_create,
        },
        Tool {
            name: "marketplace_report_status",
            title: "A report's status",
            description: "status is queued, running, done, failed or cancelled; a terminal report \
without data has a reason (no_data, cancelled, provider_fatal, bad_window, retention_exceeded). \
When documentReady, read it with marketplace_report_document.",
            needs: RETAIL,
            input: report_id_input,
            output: None,
            hints: LIVE,
            run: report_status,
        },
        Tool {
            name: "marketplace_report_document",
            title: "A report's document URL",
            description: "The done report's document as the provider's presigned URL (short-lived; \
fetch without an Authorization header) and its compressionAlgorithm.",
            needs: RETAIL,
            input: report_id_input,
            output: None,
            hints: LIVE,
            run: report_document,
        },
        Tool {
            name: "marketplace_pricing_start",
            title: "Start a pricing run",
            description: "Starts a background pricing run of any size for one merchant: family \
competitive-summary with asins (provider batches of 20, about 35 s apart: 100 ASINs take about \
two and a half minutes) or featured-offer-expected-price with skus (batches of 40). Returns runId; \
poll marketplace_pricing_run, then read answers with marketplace_pricing_result.",
            needs: RETAIL,
            input: || {
                let mut p = selector();
                p.insert("family".into(), json!({ "type": "string", "enum": ["competitive-summary", "featured-offer-expected-price"] }));
                p.insert(
                    "asins".into(),
                    json!({ "type": "array", "items": { "type": "string" } }),
                );
                p.insert(
                    "skus".into(),
                    json!({ "type": "array", "items": { "type": "string" } }),
                );
                json!({ "type": "object", "properties": p, "required": ["family"], "additionalProperties": false })
            },
            output: None,
            hints: STARTS,
            run: pricing_start,
        },
        Tool {
            name: "marketplace_pricing_run",
            title: "A pricing run's progress",
            description: "status (queued, running, succeeded, failed), done of total, batches, \
estimatedSecondsLeft, and waiting while a throttled batch waits its turn.",
            needs: RETAIL,
            input: || json!({ "type": "object", "properties": { "runId": { "type": "string" } }, "required": ["runId"], "additionalProperties": false }),
            output: None,
            hints: READ,
            run: pricing_run,
        },
        Tool {
            name: "marketplace_pricing_cancel",
            title: "Cancel a pricing run",
            description: "Cancels an unfinished run: no batch is sent after this; the answers so \
far stay readable with marketplace_pricing_result. A run that already ended answers conflict.",
            needs: RETAIL,
            input: || json!({ "type": "object", "properties": { "runId": { "type": "string" } }, "required": ["runId"], "additionalProperties": false }),
            output: None,
            hints: Hints {
                read_only: false,
                destructive: true,
                idempotent: false,
                open_world: false,
            },
            run: pricing_cancel,
        },
        Tool {
            name: "marketplace_pricing_result",
            title: "A pricing run's answers",
            description: "Per-item answers in input order, partial while the run goes on: offset \
(default 0) and limit (1 to 500, default 100); nextOffset says where the next page starts.",
            needs: RETAIL,
            input: || {
                json!({ "type": "object", "properties": {
                "runId": { "type": "string" },
                "offset": { "type": "integer", "minimum": 0 },
                "limit": { "type": "integer", "minimum": 1, "maximum": 500 }
            }, "required": ["runId"], "additionalProperties": false })
            },
            output: None,
            hints: READ,
            run: pricing_result,
        },
    ]
}

fn report_create<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        let mut body = args.map().clone();
        let key = match body.remove("idempotencyKey") {
            Some(Value::String(k)) if (1..=255).contains(&k.len()) => Some(k),
            None => None,
            Some(_) => {
                return Err(pp_core::Error::invalid_request(
                    "idempotencyKey must be 1 to 255 characters",
                ));
            }
        };
        reports::create_report(&ctx.app, &ctx.principal, &body, key.as_deref()).await
    })
}

fn report_status<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["reportId"])?;
        reports::report_status(&ctx.app, &ctx.principal, args.required("reportId")?).await
    })
}

fn report_document<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["reportId"])?;
        reports::report_document(&ctx.app, &ctx.principal, args.required("reportId")?).await
    })
}

fn pricing_start<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        let mut body = args.map().clone();
        let family = match body.remove("family") {
            Some(Value::String(f)) => f,
            _ => {
                return Err(pp_core::Error::invalid_request(
                    "family is required: competitive-summary or featured-offer-expected-price",
                ));
            }
        };
        pricing::start_run(&ctx.app, &ctx.principal, &family, &body).await
    })
}

fn pricing_run<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["runId"])?;
        pricing::run_view(&ctx.app, &ctx.principal, args.required("runId")?)
    })
}

fn pricing_result<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["runId", "offset", "limit"])?;
        let offset = args.int("offset", 0, u64::from(u32::MAX))?.unwrap_or(0) as usize;
        let limit = args.int("limit", 1, 500)?.unwrap_or(100) as usize;
        pricing::run_result(
            &ctx.app,
            &ctx.principal,
            args.required("runId")?,
            offset,
            limit,
        )
    })
}

fn pricing_cancel<'a>(ctx: &'a Ctx, args: Args) -> Fut<'a> {
    Box::pin(async move {
        args.only(&["runId"])?;
        pricing::cancel_run(&ctx.app, &ctx.principal, args.required("runId")?)
    })
}
