//! Outbound events (docs/events.md): `GET /api/events`, the feed (any read scope; each event is
//! shown only to a credential holding its surface's scope), and its tool `events_list`; the
//! webhook endpoints under `/api/webhooks` (`webhooks:write`): register, list, read, rotate
//! the secret, enable, disable, remove, the delivery log and a replay; the monitors' settings
//! and open episodes (`GET /api/monitors`, `PUT /api/monitors/settings`).

use axum::extract::{Extension, Path, State};
use pp_core::{Principal, Scope};
use pp_events::endpoints::LogRequest;
use pp_events::{FeedRequest, RegisterRequest};
use serde_json::{Map, Value, json};

use super::schema::{any_object, api, array, boolean, closed, int, nullable, object, string, text};
use super::{Ctx, Endpoint, Fut, READ, Tool, args, written};
use crate::http::error::ApiError;
use crate::http::json::Body;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

/// The feed answers any reader; what it shows depends on the reader's scopes.
const FEED: &[Scope] = &[
    Scope::AccountRead,
    Scope::RetailRead,
    Scope::AdsRead,
    Scope::IntelligenceRead,
];
const WEBHOOKS: &[Scope] = &[Scope::WebhooksWrite];

async fn feed(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(req): Query<FeedRequest>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.feed(&p, req).await?)?)
}

fn feed_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move { ctx.app.events.feed(&ctx.principal, args(a)?).await })
}

async fn register(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<RegisterRequest>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.endpoints(&p)?.register(req).await?)?)
}

async fn list(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.endpoints(&p)?.list().await?)?)
}

async fn get(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.endpoints(&p)?.get(&id).await?)?)
}

async fn remove(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.endpoints(&p)?.remove(&id).await?)?)
}

async fn rotate(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.endpoints(&p)?.rotate(&id).await?)?)
}

async fn enable(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        app.events.endpoints(&p)?.set_enabled(&id, true).await?,
    )?)
}

async fn disable(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        app.events.endpoints(&p)?.set_enabled(&id, false).await?,
    )?)
}

async fn log(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
    Query(req): Query<LogRequest>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.endpoints(&p)?.log(&id, req).await?)?)
}

async fn replay(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.events.endpoints(&p)?.replay(&id).await?)?)
}

async fn monitors(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.intelligence.monitors().view(&p).await?)?)
}

async fn monitor_settings(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(doc): Body<Map<String, Value>>,
) -> Result<render::Rendered, ApiError> {
    let m = app.intelligence.monitors();
    Ok(render::api(m.set_settings(&p, Value::Object(doc)).await?)?)
}

fn monitors_schema() -> Value {
    let episode = object(
        &[
            ("monitor", string()),
            ("subject", string()),
            ("startedOn", string()),
            ("endedOn", nullable(string())),
            ("lastSeenOn", string()),
            ("evidence", any_object()),
        ],
        &["monitor", "subject", "startedOn", "lastSeenOn", "evidence"],
    );
    object(
        &[
            ("settings", any_object()),
            ("setBy", nullable(string())),
            ("setAt", nullable(string())),
            ("open", array(episode)),
        ],
        &["settings", "open"],
    )
}

fn event_schema() -> Value {
    object(
        &[
            ("id", string()),
            ("type", string()),
            ("timestamp", string()),
            ("subject", any_object()),
            ("data", any_object()),
        ],
        &["id", "type", "timestamp", "subject", "data"],
    )
}

fn feed_schema() -> Value {
    object(
        &[
            ("events", array(event_schema())),
            ("cursor", nullable(string())),
            ("more", boolean()),
        ],
        &["events", "cursor", "more"],
    )
}

fn feed_input() -> Value {
    closed(
        &[
            (
                "after",
                text("Only events after this one: an event id, or the last answer's cursor."),
            ),
            (
                "type",
                text(
                    "Type patterns, comma-separated: a type (report.done), a family (monitor.*) or *.",
                ),
            ),
            (
                "since",
                text("Only events at or after this time (RFC 3339, or YYYY-MM-DD)."),
            ),
            (
                "until",
                text("Only events before this time (RFC 3339, or YYYY-MM-DD)."),
            ),
            (
                "limit",
                json!({ "type": "integer", "minimum": 1, "maximum": 500, "description": "At most this many (default 100)." }),
            ),
        ],
        &[],
    )
}

fn endpoint_schema() -> Value {
    object(
        &[
            ("id", string()),
            ("url", string()),
            ("description", string()),
            ("types", array(string())),
            ("enabled", boolean()),
            ("disabledReason", nullable(string())),
            ("failingSince", nullable(string())),
            ("previousSecretUntil", nullable(string())),
            ("createdBy", string()),
            ("createdAt", string()),
        ],
        &["id", "url", "types", "enabled"],
    )
}

fn with_secret_schema() -> Value {
    object(
        &[("endpoint", endpoint_schema()), ("secret", string())],
        &["endpoint", "secret"],
    )
}

fn delivery_schema() -> Value {
    let attempt = object(
        &[
            ("at", string()),
            ("status", nullable(int())),
            ("error", nullable(string())),
            ("durationMs", int()),
        ],
        &["at", "durationMs"],
    );
    object(
        &[
            ("id", string()),
            ("eventId", string()),
            ("eventType", nullable(string())),
            ("status", string()),
            ("replayOf", nullable(string())),
            ("createdAt", string()),
            ("deliveredAt", nullable(string())),
            ("attempts", array(attempt)),
        ],
        &["id", "eventId", "status", "attempts"],
    )
}

const ENDPOINT_ID: &str = "The endpoint's id (we_…).";

pub fn endpoints() -> Vec<Endpoint> {
    let register_input = closed(
        &[
            (
                "url",
                text(
                    "Where deliveries are POSTed (http or https; not a loopback, private or link-local address).",
                ),
            ),
            ("types", array(string())),
            ("description", string()),
        ],
        &["url", "types"],
    );
    let log_query = json!({ "type": "integer", "minimum": 1, "maximum": 100 });
    vec![
        Endpoint::get("/api/events", "The event feed, oldest first, after a cursor", feed)
            .needs_any(FEED)
            .query("after", false, string(), "Only events after this one (an event id, or the last answer's cursor)")
            .query("type", false, string(), "Type patterns, comma-separated: a type, a family (monitor.*) or *")
            .query("since", false, string(), "Only events at or after this time (RFC 3339 or YYYY-MM-DD)")
            .query("until", false, string(), "Only events before this time (RFC 3339 or YYYY-MM-DD)")
            .query("limit", false, json!({ "type": "integer", "minimum": 1, "maximum": 500 }), "At most this many (default 100)")
            .answers(200, api(feed_schema()))
            .tool(Tool {
                name: "events_list",
                title: "Read the event feed",
                description: "What happened in the account, oldest first: advertising writes \
committed or failed, approvals requested and decided, listing change sets and their image checks, \
pricing runs, reports done or failed, intelligence runs finished, connections lapsed or restored, \
warehouse syncs, and the monitors' alerts (stock-outs, low cover, campaigns out of budget, spend off \
plan, anomalies), each with the ids it is about and its evidence. Only events of surfaces this \
credential can read are shown. Pass the answer's cursor as after to read on; type filters by \
pattern (monitor.*).",
                input: feed_input(),
                output: None,
                hints: READ,
                run: feed_tool,
            }),
        Endpoint::get("/api/monitors", "The monitors' settings in force and their open episodes", monitors)
            .needs_any(FEED)
            .answers(200, api(monitors_schema())),
        Endpoint::put("/api/monitors/settings", "Set the account's monitor settings (over the defaults)", monitor_settings)
            .needs(WEBHOOKS)
            .json_body(any_object())
            .answers(200, api(monitors_schema())),
        Endpoint::post("/api/webhooks", "Register a webhook endpoint (its signing secret is shown once)", register)
            .needs(WEBHOOKS)
            .json_body(register_input)
            .answers(200, api(with_secret_schema())),
        Endpoint::get("/api/webhooks", "The account's webhook endpoints", list)
            .needs(WEBHOOKS)
            .answers(200, api(object(&[("endpoints", array(endpoint_schema()))], &["endpoints"]))),
        Endpoint::get("/api/webhooks/{id}", "A webhook endpoint", get)
            .needs(WEBHOOKS)
            .path_param("id", string(), ENDPOINT_ID)
            .answers(200, api(endpoint_schema())),
        Endpoint::delete("/api/webhooks/{id}", "Remove a webhook endpoint", remove)
            .needs(WEBHOOKS)
            .path_param("id", string(), ENDPOINT_ID)
            .answers(200, api(object(&[("id", string()), ("removed", boolean())], &["id", "removed"]))),
        Endpoint::post("/api/webhooks/{id}/rotate", "A new signing secret (shown once); the old one signs on through the grace period", rotate)
            .needs(WEBHOOKS)
            .path_param("id", string(), ENDPOINT_ID)
            .answers(200, api(with_secret_schema())),
        Endpoint::post("/api/webhooks/{id}/enable", "Enable a webhook endpoint (its failure record cleared)", enable)
            .needs(WEBHOOKS)
            .path_param("id", string(), ENDPOINT_ID)
            .answers(200, api(endpoint_schema())),
        Endpoint::post("/api/webhooks/{id}/disable", "Disable a webhook endpoint", disable)
            .needs(WEBHOOKS)
            .path_param("id", string(), ENDPOINT_ID)
            .answers(200, api(endpoint_schema())),
        Endpoint::get("/api/webhooks/{id}/deliveries", "A webhook endpoint's delivery log, newest first, with each attempt", log)
            .needs(WEBHOOKS)
            .path_param("id", string(), ENDPOINT_ID)
            .query("before", false, string(), "Deliveries made before this time (the last page's before)")
            .query("limit", false, log_query, "At most this many (default 20)")
            .answers(200, api(object(
                &[("endpoint", endpoint_schema()), ("deliveries", array(delivery_schema())), ("before", nullable(string()))],
                &["endpoint", "deliveries"],
            ))),
        Endpoint::post("/api/webhooks/deliveries/{id}/replay", "Send a delivery's event to its endpoint again (same webhook-id)", replay)
            .needs(WEBHOOKS)
            .path_param("id", string(), "The delivery's id (dlv_…).")
            .answers(200, api(delivery_schema())),
    ]
}
