//! Selling-side reports (docs/reports-and-pricing.md, docs/errors.md): `POST /api/marketplace/reports` creates one through the
//! ledger (an `Idempotency-Key` makes a retry safe, across restarts), `GET …/{id}` answers its
//! status in our words, `GET …/{id}/document` hands back the presigned URL; and their tools.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use pp_core::{Principal, Scope};
use pp_marketplace::service::requests::{IdempotencyKey, ReportRequest};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::marketplace::{CALL, KeyHeader, LIVE, merchant_schema, selector};
use super::schema::{any, any_object, api, boolean, closed, nullable, object, string, with};
use super::{Ctx, Endpoint, Fut, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::render;
use crate::state::SharedState;

const RETAIL: &[Scope] = &[Scope::RetailRead];

async fn create(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    KeyHeader(key): KeyHeader,
    Body(req): Body<ReportRequest>,
) -> Result<(StatusCode, render::Rendered), ApiError> {
    let created = app.market.reports(&p)?.create(req, key).await?;
    Ok((StatusCode::ACCEPTED, render::api(created)?))
}

async fn status(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.reports(&p)?.status(&id).await?)?)
}

async fn document(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.reports(&p)?.document(&id).await?)?)
}

/// The tool's arguments: the report request, and the key a REST caller sends as a header.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CreateArgs {
    #[serde(default)]
    idempotency_key: Option<IdempotencyKey>,
    #[serde(flatten)]
    report: Map<String, Value>,
}

fn create_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let CreateArgs {
            idempotency_key,
            report,
        } = args(a)?;
        let req: ReportRequest = args(report)?;
        ctx.app
            .market
            .reports(&ctx.principal)?
            .create(req, idempotency_key)
            .await
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ReportId {
    report_id: String,
}

fn status_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: ReportId = args(a)?;
        ctx.app
            .market
            .reports(&ctx.principal)?
            .status(&r.report_id)
            .await
    })
}

fn document_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: ReportId = args(a)?;
        ctx.app
            .market
            .reports(&ctx.principal)?
            .document(&r.report_id)
            .await
    })
}

fn report_fields() -> Vec<(&'static str, Value)> {
    vec![
        ("reportType", string()),
        (
            "dataStartTime",
            json!({ "type": "string", "description": "ISO 8601 with an offset" }),
        ),
        (
            "dataEndTime",
            json!({ "type": "string", "description": "ISO 8601 with an offset" }),
        ),
        ("reportOptions", any_object()),
        (
            "acceptDuplicateRisk",
            super::schema::accept_duplicate_risk(),
        ),
    ]
}

fn created_schema() -> Value {
    object(
        &[
            ("reportId", string()),
            ("merchant", merchant_schema()),
            ("reused", boolean()),
            ("recovered", nullable(string())),
            ("duplicateRisk", boolean()),
            ("poll", string()),
        ],
        &["reportId", "merchant", "reused", "duplicateRisk", "poll"],
    )
}

fn status_schema() -> Value {
    object(
        &[
            ("reportId", string()),
            ("reportType", any()),
            (
                "status",
                super::schema::one_of(&["queued", "running", "done", "failed", "cancelled"]),
            ),
            ("processingStatus", any()),
            ("documentReady", boolean()),
            ("reason", string()),
            ("error", any_object()),
            ("checkedAt", string()),
        ],
        &["reportId", "status", "documentReady"],
    )
}

fn document_schema() -> Value {
    object(
        &[
            ("reportId", string()),
            ("reportDocumentId", string()),
            ("url", any()),
            ("compressionAlgorithm", any()),
            ("note", string()),
        ],
        &["reportId", "reportDocumentId", "url"],
    )
}

fn report_id_input() -> Value {
    closed(&[("reportId", string())], &["reportId"])
}

pub fn endpoints() -> Vec<Endpoint> {
    let body = with(closed(&report_fields(), &["reportType"]), &selector());
    let tool_input = with(
        body.clone(),
        &[(
            "idempotencyKey",
            json!({ "type": "string", "maxLength": 255 }),
        )],
    );
    vec![
        Endpoint::post("/api/marketplace/reports", "Create a selling-side report once (identical requests and repeated keys get the same reportId)", create)
            .needs(RETAIL)
            .param("Idempotency-Key", super::In::Header, false, string(), "1 to 255 characters: a retry with the same key gets the same report, also after a restart")
            .json_body(body)
            .answers(202, api(created_schema()))
            .tool(Tool {
                name: "marketplace_report_create",
                title: "Create a selling-side report (once)",
                description: "Creates a selling-side report for one merchant: reportType, optional \
dataStartTime and dataEndTime (ISO 8601 with an offset) and reportOptions. An identical request \
in flight or made within a day gets the same reportId (reused: true); pass idempotencyKey to make \
a retry safe. If the answer is requestOutcome: unknown, do not create a new report: retry with \
the same idempotencyKey; the earlier report is found by listing, and nothing is sent again unless \
the listing shows none. acceptDuplicateRisk: true sends anyway when the outcome stays unknown \
(duplicateRisk: true says a second report may exist). Then poll marketplace_report_status.",
                input: tool_input,
                output: None,
                hints: CALL,
                run: create_tool,
            }),
        Endpoint::get("/api/marketplace/reports/{id}", "A report's status in our words, with a reason on every terminal report", status)
            .needs(RETAIL)
            .path_param("id", string(), "The reportId")
            .answers(200, api(status_schema()))
            .tool(Tool {
                name: "marketplace_report_status",
                title: "A report's status",
                description: "status is queued, running, done, failed or cancelled; a terminal report \
without data has a reason (no_data, cancelled, provider_fatal, bad_window, retention_exceeded). \
When documentReady, read it with marketplace_report_document.",
                input: report_id_input(),
                output: None,
                hints: LIVE,
                run: status_tool,
            }),
        Endpoint::get("/api/marketplace/reports/{id}/document", "A done report's presigned document URL", document)
            .needs(RETAIL)
            .path_param("id", string(), "The reportId")
            .answers(200, api(document_schema()))
            .tool(Tool {
                name: "marketplace_report_document",
                title: "A report's document URL",
                description: "The done report's document as the provider's presigned URL (short-lived; \
fetch without an Authorization header) and its compressionAlgorithm.",
                input: report_id_input(),
                output: None,
                hints: LIVE,
                run: document_tool,
            }),
    ]
}
