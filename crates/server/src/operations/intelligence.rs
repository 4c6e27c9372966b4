//! Intelligence (docs/intelligence.md): the catalog, a run (answered while the caller waits, or queued
//! with `async: true`), a run's status and its finished answer, and their tools
//! `intelligence_catalog`, `intelligence_run`, `intelligence_poll` and `intelligence_get`.
//! Every one needs `intelligence:read`; the requests themselves are data in
//! `pp_intelligence::registry`.

use std::time::Duration;

use axum::extract::{Extension, Path, State};
use pp_core::{Principal, Scope};
use pp_intelligence::{RunBody, RunId, RunRequest};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::schema::{any, any_object, api, array, closed, int, object, string, text};
use super::{Ctx, Endpoint, Fut, Hints, NoArgs, READ, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

const INTELLIGENCE: &[Scope] = &[Scope::IntelligenceRead];

/// A run computes over the tenant's data and is stored; it changes nothing else.
const RUN: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: false,
    open_world: false,
};

/// `?waitSeconds=` on a run's status.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Wait {
    #[serde(default)]
    wait_seconds: Option<u64>,
}

impl Wait {
    fn duration(&self) -> Duration {
        Duration::from_secs(self.wait_seconds.unwrap_or(0).min(25))
    }
}

async fn catalog(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.intelligence.catalog(&p)?)?)
}

async fn run(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(body): Body<RunBody>,
) -> Result<render::Rendered, ApiError> {
    let req = RunRequest::read(body)?;
    Ok(render::api(app.intelligence.run(&p, req).await?)?)
}

async fn status(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
    Query(w): Query<Wait>,
) -> Result<render::Rendered, ApiError> {
    let id = RunId::parse(&id)?;
    Ok(render::api(
        app.intelligence.poll(&p, &id, w.duration()).await?,
    )?)
}

async fn result(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    let id = RunId::parse(&id)?;
    Ok(render::api(app.intelligence.result(&p, &id).await?)?)
}

fn catalog_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        args::<NoArgs>(a)?;
        ctx.app.intelligence.catalog(&ctx.principal)
    })
}

fn run_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let req = RunRequest::read(args(a)?)?;
        ctx.app.intelligence.run(&ctx.principal, req).await
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PollArgs {
    run_id: RunId,
    #[serde(default)]
    wait_seconds: Option<u64>,
}

fn poll_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: PollArgs = args(a)?;
        let wait = Wait {
            wait_seconds: Some(r.wait_seconds.unwrap_or(10)),
        };
        ctx.app
            .intelligence
            .poll(&ctx.principal, &r.run_id, wait.duration())
            .await
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GetArgs {
    run_id: RunId,
}

fn get_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: GetArgs = args(a)?;
        ctx.app.intelligence.result(&ctx.principal, &r.run_id).await
    })
}

fn run_input() -> Value {
    closed(
        &[
            (
                "id",
                text("The request id from the catalog, such as INS-OPS-BRIDGE-01."),
            ),
            (
                "params",
                json!({ "type": "object", "description": "The merchant (sellerId with marketplaceId, or brand) and the request's own parameters: each catalog entry carries their schema." }),
            ),
            (
                "evidence",
                json!({ "type": "boolean", "description": "Adds \"What We Know\" statements: sentences with the figures and the warehouse rows they stand on." }),
            ),
            (
                "async",
                json!({ "type": "boolean", "description": "Queue the run and answer its runId at once; poll it. Needed for large accounts (account_too_large_use_async)." }),
            ),
        ],
        &["id", "params"],
    )
}

fn run_schema() -> Value {
    object(
        &[
            ("runId", string()),
            ("id", string()),
            ("version", string()),
            ("status", string()),
            ("mode", string()),
            ("createdAt", string()),
            ("finishedAt", string()),
            ("computeMs", int()),
            ("contentRevision", int()),
            ("service", string()),
            ("engineVersion", string()),
            ("evidenceVersion", string()),
            ("merchant", any_object()),
            ("result", result_schema()),
            ("limitations", array(string())),
            ("evidence", array(any_object())),
            ("error", any_object()),
            ("pollAfterMs", int()),
        ],
        &["runId", "id", "version", "status", "mode", "createdAt"],
    )
}

/// A finished run's `result`: the request's own result type, one schema per catalog entry
/// (titled with its id), each derived from the engine's result type; the types sit in the
/// document's `components/schemas` ([`crate::openapi`] adds them).
fn result_schema() -> Value {
    let (each, _) = pp_intelligence::registry::result_schemas();
    let each: Vec<Value> = each
        .into_iter()
        .map(|(id, mut s)| {
            s["title"] = id.into();
            s
        })
        .collect();
    json!({
        "description": "The request's own result; which one follows from the run's id.",
        "anyOf": each,
    })
}

/// A run as a tool answers it: the result is described, not spelled out (its schema is the
/// OpenAPI document's, and a tool list is read whole by every client).
fn run_tool_schema() -> Value {
    let mut s = run_schema();
    s["properties"]["result"] = json!({ "type": "object", "description": "The request's own result: its schema is the OpenAPI document's, under the request id." });
    s
}

fn catalog_schema() -> Value {
    object(
        &[
            ("engineVersion", string()),
            ("evidenceVersion", string()),
            ("services", array(any_object())),
            ("requests", array(any_object())),
            ("planned", any()),
        ],
        &["engineVersion", "evidenceVersion", "requests"],
    )
}

const RUN_ID: &str = "The run id (run_…) from intelligence_run.";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/api/intelligence/ids", "The intelligence catalog: each request's id, version, content revision, service, purpose and parameters", catalog)
            .needs(INTELLIGENCE)
            .answers(200, api(catalog_schema()))
            .tool(Tool {
                name: "intelligence_catalog",
                title: "List the intelligence requests",
                description: "The catalog of finished reads the gateway computes exactly over the \
account's own data: INS-OPS-BRIDGE-01 (why ordered sales moved between two periods, item by item: \
traffic, mix, conversion, price, summing exactly to the change), INS-ADS-BRIDGE-01 (why ad sales, \
spend and ACOS moved, by campaign, ad group, target, search term or ASIN), INS-DUO-01 (both, joined: \
TACOS, attributed share), INS-LOSTSALES-01 (sales lost to stock-outs, inventory cover), \
INS-MONTHLY-01 (a month against the month before and a year before), FCT-READINESS-01 (whether \
a merchant can be forecast), FCT-BASELINE-01 (the monthly forecast with 95% ranges and a person's \
corrections; revenue or units) and FCT-TRACK-01 (a report month against its forecast). Each entry \
carries the JSON Schema of its params. Run one with intelligence_run.",
                input: closed(&[], &[]),
                output: None,
                hints: READ,
                run: catalog_tool,
            }),
        Endpoint::post("/api/intelligence/run", "Run an intelligence request (or queue it with async: true)", run)
            .needs(INTELLIGENCE)
            .json_body(run_input())
            .answers(200, api(run_schema()))
            .tool(Tool {
                name: "intelligence_run",
                title: "Run an intelligence request",
                description: "Computes a catalog request over the account's data and answers it: \
pass id and params (the merchant as sellerId with marketplaceId, or a brand slug; periods as \
{start, end} days, YYYY-MM-DD). Results stamp engine and evidence versions and list their \
limitations; evidence: true adds plain statements with the figures and rows behind them. A large \
account answers account_too_large_use_async: send async: true and poll with intelligence_poll. \
An account computes two requests at once; a third answers busy (retry shortly).",
                input: run_input(),
                output: Some(run_tool_schema()),
                hints: RUN,
                run: run_tool,
            }),
        Endpoint::get("/api/intelligence/runs/{id}", "An intelligence run as it stands: queued, computing, or finished with its answer", status)
            .needs(INTELLIGENCE)
            .path_param("id", string(), RUN_ID)
            .query("waitSeconds", false, json!({ "type": "integer", "minimum": 0, "maximum": 25 }), "Wait up to this many seconds for a run still computing to finish (default 0)")
            .answers(200, api(run_schema()))
            .tool(Tool {
                name: "intelligence_poll",
                title: "Poll an intelligence run",
                description: "An asynchronous run's status (queued, computing, succeeded, failed), \
waiting up to waitSeconds (default 10, at most 25) for it to finish; a finished run carries its \
result. Poll again while status is queued or computing.",
                input: closed(
                    &[
                        ("runId", text(RUN_ID)),
                        ("waitSeconds", json!({ "type": "integer", "minimum": 0, "maximum": 25, "description": "Seconds to wait for the run to finish (default 10)." })),
                    ],
                    &["runId"],
                ),
                output: Some(run_tool_schema()),
                hints: READ,
                run: poll_tool,
            }),
        Endpoint::get("/api/intelligence/runs/{id}/result", "A finished intelligence run's answer (run_not_ready while it computes)", result)
            .needs(INTELLIGENCE)
            .path_param("id", string(), RUN_ID)
            .answers(200, api(run_schema()))
            .tool(Tool {
                name: "intelligence_get",
                title: "Fetch an intelligence run's answer",
                description: "A finished run's answer by runId, at once, as often as needed (synchronous \
runs are kept too). A run still queued or computing answers run_not_ready: poll it instead.",
                input: closed(&[("runId", text(RUN_ID))], &["runId"]),
                output: Some(run_tool_schema()),
                hints: READ,
                run: get_tool,
            }),
    ]
}
