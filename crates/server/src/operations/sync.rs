//! Warehouse sync: `GET /api/warehouse/sync` (`account:read`), each dataset's state for the
//! caller's tenant, and `POST /api/warehouse/sync` (`sync:write` with `account:read`, an
//! admin's: it spends the provider's quota), which adopts newly connected merchants and brings
//! every dataset between runs (or one merchant's) forward to run now. The tool
//! `warehouse_sync_status` reads the same status. `GET /api/warehouse/streams` (`account:read`)
//! and `POST /api/warehouse/streams` (as a start: it makes queues and subscriptions) are the
//! Marketing Stream consumer's status and its subscribing.

use axum::extract::{Extension, State};
use pp_core::{Principal, Scope};
use pp_sync::RunRequest;
use serde_json::{Map, Value};

use super::schema::{any_object, array, closed, int, nullable, object, string};
use super::{Ctx, Endpoint, Fut, NoArgs, READ, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::render;
use crate::state::SharedState;

const SCOPES: &[Scope] = &[Scope::AccountRead];
const START: &[Scope] = &[Scope::SyncWrite, Scope::AccountRead];

async fn status(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.sync.status(&p).await?)?)
}

async fn run(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<RunRequest>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.sync.run(&p, req).await?)?)
}

async fn streams(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.sync.streams().status(&p).await?)?)
}

async fn subscribe(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(_): Body<NoArgs>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.sync.streams().subscribe(&p).await?)?)
}

/// `GET` and `POST /api/warehouse/streams`' answer.
fn streams_schema() -> Value {
    let ints = || array(int());
    let queue = object(
        &[
            ("dataset", string()),
            ("state", string()),
            ("messages", int()),
            ("duplicates", int()),
            ("rejected", int()),
            ("confirmations", int()),
            ("lastMessage", nullable(string())),
            ("lastPublished", nullable(string())),
            ("lagSeconds", nullable(int())),
            ("lastError", nullable(string())),
        ],
        &[
            "dataset",
            "state",
            "messages",
            "duplicates",
            "rejected",
            "confirmations",
        ],
    );
    let subscription = object(
        &[
            ("profileId", string()),
            ("legacySellerId", int()),
            ("dataset", string()),
            ("subscriptionId", string()),
            ("status", string()),
        ],
        &[
            "profileId",
            "legacySellerId",
            "dataset",
            "subscriptionId",
            "status",
        ],
    );
    let difference = object(
        &[
            ("legacySellerId", int()),
            ("dataset", string()),
            ("day", string()),
            ("hours", ints()),
            ("report", ints()),
        ],
        &["legacySellerId", "dataset", "day", "hours", "report"],
    );
    object(
        &[
            ("configured", super::schema::boolean()),
            ("queues", array(queue)),
            ("subscriptions", array(subscription)),
            ("daysChecked", int()),
            ("daysMatching", int()),
            ("differences", array(difference)),
        ],
        &[
            "configured",
            "queues",
            "subscriptions",
            "daysChecked",
            "daysMatching",
            "differences",
        ],
    )
}

fn status_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        args::<NoArgs>(a)?;
        ctx.app.sync.status(&ctx.principal).await
    })
}

fn status_schema() -> Value {
    let dataset = object(
        &[
            (
                "merchant",
                object(
                    &[
                        ("legacySellerId", int()),
                        ("sellerId", string()),
                        ("marketplace", nullable(string())),
                    ],
                    &["legacySellerId", "sellerId"],
                ),
            ),
            ("dataset", string()),
            ("source", string()),
            ("state", string()),
            ("coveredFrom", nullable(string())),
            ("dataThrough", nullable(string())),
            ("lastSuccess", nullable(string())),
            ("rowsLastLoad", nullable(int())),
            ("nextRun", nullable(string())),
            ("lastError", nullable(any_object())),
            ("lookbackDays", int()),
            ("restatementDays", int()),
            ("limits", string()),
            ("note", nullable(string())),
            (
                "lastRun",
                nullable(object(
                    &[("from", string()), ("through", string())],
                    &["from", "through"],
                )),
            ),
            (
                "backfill",
                nullable(object(
                    &[
                        ("reachesFrom", string()),
                        ("daysHeld", int()),
                        ("daysInReach", int()),
                        ("estimatedEnd", nullable(string())),
                    ],
                    &["reachesFrom", "daysHeld", "daysInReach", "estimatedEnd"],
                )),
            ),
        ],
        &["merchant", "dataset", "state"],
    );
    let own = object(
        &[
            ("dailyHourUtc", int()),
            ("restateRetailDays", int()),
            ("restateAdsDays", int()),
            ("historyDays", int()),
        ],
        &[],
    );
    let schedule = object(
        &[
            ("dailyHourUtc", int()),
            ("restateRetailDays", int()),
            ("restateAdsDays", int()),
            ("historyDays", int()),
            (
                "tenantSet",
                object(
                    &[
                        ("schedule", own),
                        ("updatedBy", nullable(string())),
                        ("updatedAt", nullable(string())),
                    ],
                    &["schedule"],
                ),
            ),
        ],
        &[
            "dailyHourUtc",
            "restateRetailDays",
            "restateAdsDays",
            "tenantSet",
        ],
    );
    object(
        &[
            ("warehouse", string()),
            ("schedule", nullable(schedule)),
            ("datasets", array(dataset)),
            ("notTakenIn", array(string())),
        ],
        &["warehouse", "datasets", "notTakenIn"],
    )
}

fn run_input() -> Value {
    closed(&[("legacySellerId", int())], &[])
}

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get(
            "/api/warehouse/sync",
            "The warehouse sync, dataset by dataset",
            status,
        )
        .needs(SCOPES)
        .answers(200, super::schema::api(status_schema()))
        .tool(Tool {
            name: "warehouse_sync_status",
            title: "Warehouse sync status",
            description: "How fresh the tenant's warehouse is. For a managed warehouse (one the \
gateway fills from the connected accounts), one row per merchant and dataset: its state \
(backfilling, syncing, synced, paused when the connection lapsed, failing), coveredFrom and \
dataThrough (the days the warehouse holds; a new merchant's last month comes first, then older \
days), backfill (while older days are still to come: the oldest day the provider reaches, days \
held of days in reach, and the estimated end at the pace so far), lastSuccess, rowsLastLoad, \
lastRun (the days the last run read, restated days included), nextRun, lastError (with the provider's words) and what the \
provider cannot give (limits); notTakenIn names merchants connected for the selling side whose \
datasets no start has taken in yet. An external warehouse \
(filled by someone else) answers warehouse: external and no rows. Same answer as GET \
/api/warehouse/sync.",
            input: closed(&[], &[]),
            output: None,
            hints: READ,
            run: status_tool,
        }),
        Endpoint::post("/api/warehouse/sync", "Sync the warehouse now", run)
            .needs(START)
            .json_body(run_input())
            .answers(200, super::schema::api(status_schema())),
        Endpoint::get(
            "/api/warehouse/streams",
            "Marketing Stream: each queue's lag and last message, and the hours beside the daily reports",
            streams,
        )
        .needs(SCOPES)
        .answers(200, super::schema::api(streams_schema())),
        Endpoint::post(
            "/api/warehouse/streams",
            "Subscribe the tenant's advertising profiles to Marketing Stream",
            subscribe,
        )
        .needs(START)
        .json_body(closed(&[], &[]))
        .answers(200, super::schema::api(streams_schema())),
    ]
}
