//! Pricing batches (docs/reports-and-pricing.md): `POST /api/marketplace/pricing/{family}` answers inline up to the
//! family's limit; `POST …/{family}/start` takes up to 20,000 items and returns a run (a job), polled at
//! `GET …/runs/{id}`, cancelled with `DELETE …/runs/{id}` and read at `GET …/runs/{id}/result`,
//! partial while it runs. Families: `competitive-summary` (ASINs) and
//! `featured-offer-expected-price` (SKUs).

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use pp_core::wire::scalar_text;
use pp_core::{Principal, Scope};
use pp_marketplace::pricing::PricingFamily;
use pp_marketplace::service::REST_RESULT_PAGE;
use pp_marketplace::service::requests::{PageSize, PricingRequest, ResultPage};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::marketplace::{CALL, merchant_schema, selector};
use super::schema::{
    any, any_object, api, array, boolean, closed, int, number, object, one_of, string, with,
};
use super::{Ctx, Endpoint, Fut, Hints, READ, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

const RETAIL: &[Scope] = &[Scope::RetailRead];
/// A tool's page of answers: 100 unless asked, 500 at most (REST: 1,000 and 5,000).
const TOOL_PAGE: PageSize = PageSize {
    default: 100,
    max: 500,
};

async fn inline(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(family): Path<String>,
    Body(req): Body<PricingRequest>,
) -> Result<render::Rendered, ApiError> {
    let f = PricingFamily::parse(&family)?;
    Ok(render::api(
        app.market.pricing(&p)?.price_inline(f, req).await?,
    )?)
}

async fn start(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(family): Path<String>,
    Body(req): Body<PricingRequest>,
) -> Result<(StatusCode, render::Rendered), ApiError> {
    let f = PricingFamily::parse(&family)?;
    let run = app.market.pricing(&p)?.start(f, req).await?;
    Ok((StatusCode::ACCEPTED, render::api(run)?))
}

async fn run(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.pricing(&p)?.run(&id).await?)?)
}

async fn cancel(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.pricing(&p)?.cancel(&id).await?)?)
}

async fn result(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
    Query(page): Query<ResultPage>,
) -> Result<render::Rendered, ApiError> {
    let answers = app
        .market
        .pricing(&p)?
        .result(&id, &page, REST_RESULT_PAGE)
        .await?;
    Ok(render::api(answers)?)
}

#[derive(Deserialize)]
struct StartArgs {
    family: String,
    #[serde(flatten)]
    request: Map<String, Value>,
}

fn start_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let StartArgs { family, request } = args(a)?;
        let f = PricingFamily::parse(&family)?;
        ctx.app
            .market
            .pricing(&ctx.principal)?
            .start(f, args(request)?)
            .await
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RunId {
    run_id: String,
}

fn run_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: RunId = args(a)?;
        ctx.app.market.pricing(&ctx.principal)?.run(&r.run_id).await
    })
}

fn cancel_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: RunId = args(a)?;
        ctx.app
            .market
            .pricing(&ctx.principal)?
            .cancel(&r.run_id)
            .await
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ResultArgs {
    run_id: String,
    #[serde(default, deserialize_with = "scalar_text")]
    offset: Option<String>,
    #[serde(default, deserialize_with = "scalar_text")]
    limit: Option<String>,
}

fn result_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: ResultArgs = args(a)?;
        let page = ResultPage {
            offset: r.offset,
            limit: r.limit,
        };
        let answers = ctx
            .app
            .market
            .pricing(&ctx.principal)?
            .result(&r.run_id, &page, TOOL_PAGE)
            .await?;
        Ok(answers)
    })
}

const FAMILIES: &[&str] = &["competitive-summary", "featured-offer-expected-price"];

fn items_body() -> Value {
    with(
        closed(
            &[("asins", array(string())), ("skus", array(string()))],
            &[],
        ),
        &selector(),
    )
}

fn run_schema() -> Value {
    object(
        &[
            ("runId", string()),
            ("family", one_of(FAMILIES)),
            (
                "status",
                one_of(&["queued", "running", "succeeded", "failed", "cancelled"]),
            ),
            ("merchant", merchant_schema()),
            ("done", int()),
            ("total", int()),
            (
                "batches",
                object(
                    &[("done", int()), ("total", int()), ("size", int())],
                    &["done", "total", "size"],
                ),
            ),
            ("spacingSeconds", number()),
            ("estimatedSecondsLeft", int()),
            ("throttledBatches", int()),
            ("waiting", string()),
            ("error", any_object()),
        ],
        &["runId", "family", "status", "done", "total", "batches"],
    )
}

fn result_schema() -> Value {
    object(
        &[
            ("runId", string()),
            ("status", string()),
            ("complete", boolean()),
            ("total", int()),
            ("answered", int()),
            ("items", array(any())),
            ("nextOffset", int()),
        ],
        &["runId", "status", "complete", "total", "answered", "items"],
    )
}

fn run_id_input() -> Value {
    closed(&[("runId", string())], &["runId"])
}

pub fn endpoints() -> Vec<Endpoint> {
    let family = |e: Endpoint| {
        e.path_param(
            "family",
            one_of(FAMILIES),
            "competitive-summary (asins) or featured-offer-expected-price (skus)",
        )
    };
    let run_id = |e: Endpoint| e.path_param("id", string(), "The runId");
    vec![
        family(Endpoint::post(
            "/api/marketplace/pricing/{family}",
            "Price up to 100 ASINs or 200 SKUs inline, paced in provider batches",
            inline,
        ))
        .needs(RETAIL)
        .json_body(items_body())
        .answers(
            200,
            api(object(
                &[
                    ("family", one_of(FAMILIES)),
                    ("merchant", merchant_schema()),
                    ("total", int()),
                    ("batches", int()),
                    ("items", array(any())),
                ],
                &["family", "merchant", "total", "batches", "items"],
            )),
        ),
        family(Endpoint::post(
            "/api/marketplace/pricing/{family}/start",
            "Start a background pricing run of up to 20,000 items",
            start,
        ))
        .needs(RETAIL)
        .json_body(items_body())
        .answers(202, api(run_schema()))
        .tool(Tool {
            name: "marketplace_pricing_start",
            title: "Start a pricing run",
            description: "Starts a background pricing run of up to 20,000 items for one merchant: family \
competitive-summary with asins (provider batches of 20, paced by the provider's usage plan, about \
30 s apart: 100 ASINs take about two minutes) or featured-offer-expected-price with skus (batches \
of 40). Returns runId; \
poll marketplace_pricing_run, then read answers with marketplace_pricing_result.",
            input: with(items_body(), &[("family", one_of(FAMILIES))]),
            output: None,
            hints: CALL,
            run: start_tool,
        }),
        run_id(Endpoint::get(
            "/api/marketplace/pricing/runs/{id}",
            "A pricing run's progress",
            run,
        ))
        .needs(RETAIL)
        .answers(200, api(run_schema()))
        .tool(Tool {
            name: "marketplace_pricing_run",
            title: "A pricing run's progress",
            description: "status (queued, running, succeeded, failed), done of total, batches, \
estimatedSecondsLeft, and waiting while a throttled batch waits its turn.",
            input: run_id_input(),
            output: None,
            hints: READ,
            run: run_tool,
        }),
        run_id(Endpoint::delete(
            "/api/marketplace/pricing/runs/{id}",
            "Cancel an unfinished run: nothing more is sent, answers so far stay",
            cancel,
        ))
        .needs(RETAIL)
        .answers(200, api(run_schema()))
        .tool(Tool {
            name: "marketplace_pricing_cancel",
            title: "Cancel a pricing run",
            description: "Cancels an unfinished run: no batch is sent after this; the answers so \
far stay readable with marketplace_pricing_result. A run that already ended answers conflict.",
            input: run_id_input(),
            output: None,
            hints: Hints {
                read_only: false,
                destructive: true,
                idempotent: false,
                open_world: false,
            },
            run: cancel_tool,
        }),
        run_id(Endpoint::get(
            "/api/marketplace/pricing/runs/{id}/result",
            "A run's answers in input order (offset, limit: 1,000 by default, 5,000 at most)",
            result,
        ))
        .needs(RETAIL)
        .query("offset", false, int(), "First answer (default 0)")
        .query(
            "limit",
            false,
            int(),
            "Answers per page, 1-5000 (default 1000)",
        )
        .answers(200, api(result_schema()))
        .tool(Tool {
            name: "marketplace_pricing_result",
            title: "A pricing run's answers",
            description: "Per-item answers in input order, partial while the run goes on: offset \
(default 0) and limit (1 to 500, default 100); nextOffset says where the next page starts.",
            input: closed(
                &[
                    ("runId", string()),
                    ("offset", json!({ "type": "integer", "minimum": 0 })),
                    (
                        "limit",
                        json!({ "type": "integer", "minimum": 1, "maximum": TOOL_PAGE.max }),
                    ),
                ],
                &["runId"],
            ),
            output: None,
            hints: READ,
            run: result_tool,
        }),
    ]
}
