//! Brand memory (docs/brand-memory.md): context documents and the manifest (`context:read`;
//! writes also `context:write`), the brand lifecycle, and the timeline (`timeline:read`;
//! appends also `timeline:write`), with their tools. Brands come from the tenant's warehouse.

use axum::extract::{Extension, Path, State};
use pp_brand::docs::DocBody;
use pp_brand::service::{DocRef, ManifestQuery, TimelineQuery};
use pp_brand::timeline::{Append, Corroboration};
use pp_core::{Error, Principal, Scope};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::schema::{
    any_object, api, array, boolean, closed, date, int, nullable, object, one_of, string, text,
};
use super::{Ctx, Endpoint, Fut, Hints, READ, Tool, args, written};
use crate::http::error::{ApiError, V1Error};
use crate::http::json::JsonObject;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

const CONTEXT_READ: &[Scope] = &[Scope::ContextRead];
const CONTEXT_WRITE: &[&[Scope]] = &[
    &[Scope::ContextRead],
    &[Scope::ContextRead, Scope::ContextWrite],
];
const TIMELINE_READ: &[Scope] = &[Scope::TimelineRead];
const TIMELINE_WRITE: &[Scope] = &[Scope::TimelineRead, Scope::TimelineWrite];
/// Timeline pages over REST: 100 events unless asked, 500 at most.
const REST_PAGE: (i64, i64) = (100, 500);
/// Timeline pages for tools: 25 events unless asked, 100 at most.
const TOOL_PAGE: (i64, i64) = (25, 100);

const APPEND: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: false,
};

async fn manifest(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<ManifestQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.brand.manifest(&p, q).await?)?)
}

/// `/v1` lists every brand: `lifecycle` is accepted and ignored (docs/brand-memory.md).
async fn v1_manifest(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(_): Query<ManifestQuery>,
) -> Result<render::Rendered, V1Error> {
    Ok(render::v1(
        app.brand.manifest(&p, ManifestQuery::default()).await?,
    )?)
}

async fn v1_doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(d): Query<DocRef>,
) -> Result<render::Rendered, V1Error> {
    Ok(render::v1(app.brand.doc(&p, d).await?)?)
}

async fn put_doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path((brand, kind)): Path<(String, String)>,
    JsonObject(body): JsonObject,
) -> Result<render::Rendered, ApiError> {
    let d = DocRef {
        brand,
        kind,
        name: None,
    };
    Ok(render::api(
        app.brand.put_doc(&p, d, DocBody::parse(&body)?).await?,
    )?)
}

async fn put_named_doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path((brand, kind, name)): Path<(String, String, String)>,
    JsonObject(body): JsonObject,
) -> Result<render::Rendered, ApiError> {
    let d = DocRef {
        brand,
        kind,
        name: Some(name),
    };
    Ok(render::api(
        app.brand.put_doc(&p, d, DocBody::parse(&body)?).await?,
    )?)
}

async fn lifecycle(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject,
) -> Result<render::Rendered, ApiError> {
    let change = pp_brand::lifecycle::parse(&body)?;
    Ok(render::api(app.brand.set_lifecycle(&p, change).await?)?)
}

async fn timeline(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<TimelineQuery>,
) -> Result<render::Rendered, V1Error> {
    let f = q.filter(REST_PAGE.0, REST_PAGE.1)?;
    Ok(render::v1(app.brand.timeline(&p, &f).await?)?)
}

async fn append(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject,
) -> Result<render::Rendered, V1Error> {
    Ok(render::v1(
        app.brand.append(&p, Append::parse(&body)?).await?,
    )?)
}

async fn corroborate(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
    JsonObject(body): JsonObject<{ crate::http::json::MAX_BODY }, true>,
) -> Result<render::Rendered, V1Error> {
    let id: i64 = id
        .parse()
        .map_err(|_| Error::not_found(format!("no timeline event {id}")))?;
    Ok(render::v1(
        app.brand
            .corroborate(&p, id, Corroboration::parse(&body)?)
            .await?,
    )?)
}

fn list_docs_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move { ctx.app.brand.manifest(&ctx.principal, args(a)?).await })
}

fn get_doc_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move { ctx.app.brand.doc(&ctx.principal, args(a)?).await })
}

fn lifecycle_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let change = pp_brand::lifecycle::parse(&a)?;
        ctx.app.brand.set_lifecycle(&ctx.principal, change).await
    })
}

fn timeline_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let q: TimelineQuery = args(a)?;
        let f = q.filter(TOOL_PAGE.0, TOOL_PAGE.1)?;
        ctx.app.brand.timeline(&ctx.principal, &f).await
    })
}

fn append_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        ctx.app
            .brand
            .append(&ctx.principal, Append::parse(&a)?)
            .await
    })
}

#[derive(Deserialize)]
struct CorroborateArgs {
    event_id: Option<i64>,
    #[serde(flatten)]
    body: Map<String, Value>,
}

fn corroborate_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let c: CorroborateArgs = args(a)?;
        let id = c
            .event_id
            .ok_or_else(|| Error::invalid_request("event_id is required (a stake's id)"))?;
        ctx.app
            .brand
            .corroborate(&ctx.principal, id, Corroboration::parse(&c.body)?)
            .await
    })
}

fn manifest_schema() -> Value {
    object(
        &[("brands", array(any_object())), ("retired_count", int())],
        &["brands", "retired_count"],
    )
}

fn doc_schema() -> Value {
    object(
        &[
            ("brand", string()),
            ("type", string()),
            ("name", nullable(string())),
            ("content", string()),
            ("revision", int()),
            ("hash", string()),
        ],
        &["brand", "type", "content", "revision", "hash"],
    )
}

fn written_schema() -> Value {
    object(
        &[
            ("brand", string()),
            ("type", string()),
            ("revision", int()),
            ("hash", string()),
            ("changed", boolean()),
        ],
        &["brand", "type", "revision", "changed"],
    )
}

fn lifecycle_schema() -> Value {
    object(
        &[
            ("brand_slug", string()),
            ("state", one_of(&["active", "retired"])),
            ("changed", boolean()),
            ("at", nullable(string())),
            ("event_id", int()),
        ],
        &["brand_slug", "state", "changed"],
    )
}

fn events_schema() -> Value {
    object(
        &[
            ("events", array(any_object())),
            ("next_cursor", nullable(string())),
        ],
        &["events"],
    )
}

fn event_schema() -> Value {
    object(
        &[("event", any_object()), ("stake", any_object())],
        &["event"],
    )
}

fn lifecycle_input() -> Value {
    closed(
        &[
            ("brand_slug", string()),
            ("action", one_of(&["retire", "restore"])),
            (
                "reason_code",
                one_of(&["client_left", "duplicate", "superseded", "other"]),
            ),
            ("note", json!({ "type": "string", "maxLength": 280 })),
            (
                "on_behalf_of",
                json!({ "type": "string", "maxLength": 254 }),
            ),
        ],
        &["brand_slug", "action"],
    )
}

fn timeline_filters(max: i64) -> Vec<(&'static str, Value)> {
    vec![
        ("brand", text("A brand slug.")),
        ("family", one_of(&["native", "ads_change", "ads_approval"])),
        (
            "kind",
            text("stake, comment, action_outcome, corroboration, structural.brand_retired …"),
        ),
        ("start_date", date()),
        ("end_date", date()),
        ("category", text("Stake category.")),
        (
            "source",
            text("Who recorded it: api, mcp, demo_world, lifecycle …"),
        ),
        ("status", one_of(&["proposed", "corroborated", "closed"])),
        ("affects", text("Stakes affecting this label.")),
        ("tag", text("Stakes carrying this tag.")),
        ("overlaps_start", date()),
        ("overlaps_end", date()),
        (
            "future",
            json!({ "type": "boolean", "description": "Only stakes starting after today." }),
        ),
        (
            "limit",
            json!({ "type": "integer", "minimum": 1, "maximum": max }),
        ),
        ("cursor", text("next_cursor from the previous page.")),
    ]
}

fn append_input() -> Value {
    closed(
        &[
            ("brand", text("The brand slug.")),
            ("kind", one_of(&["stake", "comment", "action_outcome"])),
            ("category", text("Stakes: the category.")),
            ("starts_on", date()),
            ("ends_on", date()),
            (
                "interpretation",
                text("Stakes: how to read the window's numbers."),
            ),
            ("note", text("Comments and action outcomes: the text.")),
            (
                "outcome",
                one_of(&["worked", "did_not_work", "mixed", "unknown"]),
            ),
            ("occurred_on", date()),
            ("affects", array(string())),
            ("tags", array(string())),
            (
                "on_behalf_of",
                text("The person this is recorded for, as given."),
            ),
        ],
        &["brand", "kind"],
    )
}

pub fn endpoints() -> Vec<Endpoint> {
    let mut timeline_get = Endpoint::get(
        "/v1/timeline",
        "Timeline events newest first, with filters and a cursor",
        timeline,
    )
    .needs(TIMELINE_READ);
    for (name, schema) in timeline_filters(REST_PAGE.1) {
        timeline_get = timeline_get.query(name, false, schema, "A filter (docs/brand-memory.md)");
    }
    let lifecycle_q = one_of(&["active", "all"]);
    vec![
        Endpoint::get("/api/context/manifest", "Brands with their documents, lifecycle and retired_count", manifest)
            .needs(CONTEXT_READ)
            .query("lifecycle", false, lifecycle_q.clone(), "active omits retired brands; all (default) includes them")
            .answers(200, api(manifest_schema()))
            .tool(Tool {
                name: "context_list_docs",
                title: "List brands and their context documents",
                description: "Lists the tenant's brands with their lifecycle (state active or retired, \
changed_at, changed_by, surface, reason_code) and their context documents (type, name, revision, \
hash, updated_at). lifecycle=active leaves retired brands out (retired_count still counts them); \
the default, all, lists every brand. Retired brands keep their documents: read them for history, \
but do not plan new work for them.",
                input: closed(&[("lifecycle", lifecycle_q.clone())], &[]),
                output: Some(manifest_schema()),
                hints: READ,
                run: list_docs_tool,
            }),
        Endpoint::put("/api/context/docs/{brand}/{kind}", "Write a context document replacing base_revision (0 for new); 409 conflict when stale", put_doc)
            .needs_staged(CONTEXT_WRITE)
            .path_param("brand", string(), "Brand slug")
            .path_param("kind", string(), "overview, positioning, audience, products, competitors or guidelines")
            .json_body(closed(&[("content", string()), ("base_revision", int())], &["content", "base_revision"]))
            .answers(200, api(written_schema())),
        Endpoint::put("/api/context/docs/{brand}/{kind}/{name}", "Write a named corpus document", put_named_doc)
            .needs_staged(CONTEXT_WRITE)
            .path_param("brand", string(), "Brand slug")
            .path_param("kind", string(), "corpus")
            .path_param("name", string(), "Document name")
            .json_body(closed(&[("content", string()), ("base_revision", int())], &["content", "base_revision"]))
            .answers(200, api(written_schema())),
        Endpoint::post("/api/context/lifecycle", "Retire or restore a brand", lifecycle)
            .needs_staged(CONTEXT_WRITE)
            .json_body(lifecycle_input())
            .answers(200, api(lifecycle_schema()))
            .tool(Tool {
                name: "context_set_brand_lifecycle",
                title: "Retire or restore a brand",
                description: "Retires or restores a brand (action retire or restore). Retiring hides \
nothing and deletes nothing: documents, revisions and history stay, and the brand reads retired \
in context_list_docs. A real change appends structural.brand_retired or \
structural.brand_restored to the timeline with reason_code (client_left, duplicate, superseded, \
other), note (one line, at most 280) and on_behalf_of; repeating the current state answers \
changed: false and appends nothing. Same checks and result as POST /api/context/lifecycle.",
                input: lifecycle_input(),
                output: Some(lifecycle_schema()),
                // retiring takes a brand out of clients' working set: a client should confirm
                hints: Hints {
                    read_only: false,
                    destructive: true,
                    idempotent: true,
                    open_world: false,
                },
                run: lifecycle_tool,
            }),
        Endpoint::get("/v1/context/docs", "Manifest of every brand (lifecycle is accepted and ignored)", v1_manifest)
            .needs(CONTEXT_READ)
            .query("lifecycle", false, lifecycle_q, "Ignored: /v1 lists every brand")
            .answers(200, manifest_schema()),
        Endpoint::get("/v1/context/doc", "One context document", v1_doc)
            .needs(CONTEXT_READ)
            .query("brand", true, string(), "Brand slug")
            .query("type", true, string(), "Document type")
            .query("name", false, string(), "Corpus documents only")
            .answers(200, doc_schema())
            .tool(Tool {
                name: "context_get_doc",
                title: "Read a context document",
                description: "Reads one brand context document: type is overview, positioning, audience, \
products, competitors, guidelines or corpus (corpus documents also need name). Returns content, \
revision and hash; send the revision back as base_revision when you change the document through \
the REST route. A missing document is not_found.",
                input: closed(&[("brand", text("The brand slug.")), ("type", text("Document type.")), ("name", text("Corpus documents only."))], &["brand", "type"]),
                output: Some(doc_schema()),
                hints: READ,
                run: get_doc_tool,
            }),
        timeline_get.answers(200, events_schema()).tool(Tool {
            name: "timeline_list",
            title: "Read the brand timeline",
            description: "Lists brand timeline events newest first (by occurred_on, then id): stakes \
(a claim that a window of days should be read differently — launch, promotional_window, stockout, \
price_test, media_spike, brand_migration, seasonal_peak, budget_change, listing_change, other), \
comments, action outcomes, corroborations and brand retire/restore events. Read a stake's \
interpretation before judging numbers in its window. Filters: brand, family (native or \
ads_change), kind, start_date/end_date on occurred_on, and for stakes category, source, status \
(proposed, corroborated, closed), affects, tag, overlaps_start+overlaps_end, future. Pages hold \
at most 100 events (default 25): pass next_cursor back as cursor for the next page.",
            input: closed(&timeline_filters(TOOL_PAGE.1), &[]),
            output: Some(events_schema()),
            hints: READ,
            run: timeline_tool,
        }),
        Endpoint::post("/v1/timeline/event", "Append a stake, comment or action outcome", append)
            .needs(TIMELINE_WRITE)
            .json_body(append_input())
            .answers(200, event_schema())
            .tool(Tool {
                name: "timeline_add_event",
                title: "Add a timeline event",
                description: "Appends a stake, comment or action_outcome to a brand's timeline, \
attributed to this credential (actor fields in the arguments are ignored; on_behalf_of is \
recorded as given). A stake needs category, starts_on and interpretation (plain language, how \
the window's numbers should be read; at most 2,000 characters), and may carry ends_on, affects \
and tags (up to 20 labels each). A comment needs note; an action_outcome needs note and outcome \
(worked, did_not_work, mixed, unknown). knowledge.*, structural.* and monitor.* kinds are reserved and \
refused. Nothing is written when any field is refused.",
                input: append_input(),
                output: Some(event_schema()),
                hints: APPEND,
                run: append_tool,
            }),
        Endpoint::post("/v1/timeline/event/{id}/corroborate", "Corroborate a stake", corroborate)
            .needs(TIMELINE_WRITE)
            .path_param("id", int(), "Stake id")
            .json_body(closed(&[("note", string()), ("on_behalf_of", string())], &[]))
            .answers(200, event_schema())
            .tool(Tool {
                name: "timeline_corroborate",
                title: "Corroborate a stake",
                description: "Corroborates a stake: appends a corroboration event and makes the stake \
corroborated, with its close date moved to 90 days from today (never earlier). Only stakes can \
be corroborated; an unknown id is not_found.",
                input: closed(&[("event_id", json!({ "type": "integer", "description": "The stake's id." })), ("note", text("Why it holds.")), ("on_behalf_of", text("The person this is recorded for, as given."))], &["event_id"]),
                output: Some(event_schema()),
                hints: APPEND,
                run: corroborate_tool,
            }),
    ]
}
