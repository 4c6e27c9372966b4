//! The live marketplace (docs/marketplace.md, prefixed `marketplace_` as tools): the merchants, both
//! operation catalogs, the advertising profiles, and one catalogued call on each side. Calls
//! reach the provider, so their tools are open-world; plain calls refuse writes (those go
//! through the audited flow).

use axum::extract::{Extension, FromRequestParts, Path, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use pp_core::{Principal, Scope};
use pp_marketplace::service::AdsAnswer;
use pp_marketplace::service::requests::{
    AdsCall, AuditQuery, CatalogQuery, IdempotencyKey, SpapiCall,
};
use serde_json::{Map, Value, json};

use super::schema::{
    any, any_object, api, array, closed, int, nullable, object, string, text, with,
};
use super::{Ctx, Endpoint, Fut, Hints, NoArgs, Tool, args, written};
use crate::http::error::{ApiError, for_path};
use crate::http::json::Body;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

const RETAIL: &[Scope] = &[Scope::RetailRead];
const ADS: &[Scope] = &[Scope::AdsRead];
const ADS_WRITE: &[Scope] = &[Scope::AdsRead, Scope::AdsWrite];

/// Commits an audited write: it changes the advertising account and may start spend.
pub const COMMIT: Hints = Hints {
    read_only: false,
    destructive: true,
    idempotent: false,
    open_world: true,
};

/// Reads the provider's live state: nothing changes, but the answer comes from outside.
pub const LIVE: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: true,
};

/// Creates a report or query at the provider: not idempotent, never destructive.
pub const CALL: Hints = Hints {
    read_only: false,
    destructive: false,
    idempotent: false,
    open_world: true,
};

/// Reads what the service keeps (the audit log).
const LIVE_STORE: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

const CATALOG: Hints = Hints {
    read_only: true,
    destructive: false,
    idempotent: true,
    open_world: false,
};

/// The caller's `Idempotency-Key` header, if any, under the same rule as the tools'
/// `idempotencyKey` argument.
pub struct KeyHeader(pub Option<IdempotencyKey>);

impl<S: Send + Sync> FromRequestParts<S> for KeyHeader {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let Some(v) = parts.headers.get("idempotency-key") else {
            return Ok(Self(None));
        };
        let parsed = v
            .to_str()
            .map_err(|_| {
                pp_core::Error::invalid_request(
                    "the idempotency key must be 1 to 255 visible characters",
                )
            })
            .and_then(IdempotencyKey::parse);
        parsed
            .map(|k| Self(Some(k)))
            .map_err(|e| for_path(parts.uri.path(), e))
    }
}

async fn merchants(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.calls().merchants(&p).await?)?)
}

async fn spapi_operations(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<CatalogQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.calls().spapi_operations(&p, q)?)?)
}

async fn ads_operations(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<CatalogQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.calls().ads_operations(&p, q)?)?)
}

async fn spapi_call(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    KeyHeader(key): KeyHeader,
    Body(req): Body<SpapiCall>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        app.market.calls().spapi_call(&p, req, key).await?,
    )?)
}

/// An advertising answer: 202 for a commit held for a person's approval, else 200.
fn ads_answer(a: AdsAnswer) -> Result<Response, ApiError> {
    let status = match a {
        AdsAnswer::Pending(_) => StatusCode::ACCEPTED,
        _ => StatusCode::OK,
    };
    Ok((status, render::api(a)?).into_response())
}

async fn ads_call(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    KeyHeader(key): KeyHeader,
    Body(req): Body<AdsCall>,
) -> Result<Response, ApiError> {
    ads_answer(app.market.calls().ads_call(&p, req, key).await?)
}

/// `POST /api/marketplace/ads/commit`: the call with `dryRun: false` implied.
async fn ads_commit(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    KeyHeader(key): KeyHeader,
    Body(req): Body<AdsCall>,
) -> Result<Response, ApiError> {
    ads_answer(
        app.market
            .calls()
            .ads_call(&p, committing(req)?, key)
            .await?,
    )
}

/// `GET /api/marketplace/approvals/{id}`: how a held commit stands.
async fn ads_approval(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.approvals().get(&p, &id).await?)?)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ApprovalArgs {
    approval_id: String,
}

fn ads_approval_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let r: ApprovalArgs = args(a)?;
        ctx.app
            .market
            .approvals()
            .get(&ctx.principal, &r.approval_id)
            .await
    })
}

fn approval_schema() -> Value {
    object(
        &[
            ("approvalId", string()),
            ("status", string()),
            ("reason", string()),
            ("operation", string()),
            ("planId", string()),
            ("planHash", string()),
            ("requestedBy", string()),
            ("surface", string()),
            ("requestedAt", string()),
            ("expiresAt", string()),
            ("decidedBy", nullable(string())),
            ("decidedAt", nullable(string())),
            ("note", nullable(string())),
            ("auditId", nullable(string())),
            ("poll", string()),
            ("console", string()),
            ("message", string()),
        ],
        &[
            "approvalId",
            "status",
            "reason",
            "operation",
            "planId",
            "planHash",
            "poll",
            "console",
            "message",
        ],
    )
}

/// A commit request's `dryRun`: left out (then false) or false; true is refused. `what` names
/// what is committed (a plan, a change set).
pub fn commit_only(dry_run: &mut Option<bool>, what: &str) -> pp_core::Result<()> {
    if *dry_run == Some(true) {
        return Err(pp_core::Error::invalid_request(format!(
            "this commits {what}: leave dryRun out (preview through the call)"
        )));
    }
    *dry_run = Some(false);
    Ok(())
}

fn committing(mut req: AdsCall) -> pp_core::Result<AdsCall> {
    commit_only(&mut req.dry_run, "a plan")?;
    Ok(req)
}

/// A commit tool's `idempotencyKey` argument (the header's twin), taken out of its arguments.
pub fn take_key(a: &mut Map<String, Value>) -> pp_core::Result<Option<IdempotencyKey>> {
    a.remove("idempotencyKey")
        .map(|v| pp_core::wire::from_json::<IdempotencyKey>("idempotencyKey", v))
        .transpose()
}

async fn ads_audit(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<AuditQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        app.market.audit().ads(&p, q, &app.cursors).await?,
    )?)
}

async fn ads_profiles(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.market.calls().ads_profiles(&p).await?)?)
}

fn merchants_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        args::<NoArgs>(a)?;
        ctx.app.market.calls().merchants(&ctx.principal).await
    })
}

fn spapi_operations_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        ctx.app
            .market
            .calls()
            .spapi_operations(&ctx.principal, args(a)?)
    })
}

fn ads_operations_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        ctx.app
            .market
            .calls()
            .ads_operations(&ctx.principal, args(a)?)
    })
}

fn spapi_call_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let req: SpapiCall = args(a)?;
        // commits go through the destructive tool, so a client can ask its person first
        if req.dry_run == Some(false) {
            return Err(pp_core::Error::invalid_request(
                "this tool previews listing changes; commit a change set with marketplace_listings_commit",
            ));
        }
        ctx.app
            .market
            .calls()
            .spapi_call(&ctx.principal, req, None)
            .await
    })
}

fn ads_call_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let req: AdsCall = args(a)?;
        // commits go through the destructive tool, so a client can ask its person first
        if req.dry_run == Some(false) {
            return Err(pp_core::Error::invalid_request(
                "this tool previews writes; commit a plan with marketplace_ads_commit",
            ));
        }
        ctx.app
            .market
            .calls()
            .ads_call(&ctx.principal, req, None)
            .await
    })
}

/// The commit tool's arguments: the call, plus the tool's `idempotencyKey`.
fn ads_commit_tool<'a>(ctx: &'a Ctx, mut a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        let key = take_key(&mut a)?;
        let req = committing(args(a)?)?;
        ctx.app
            .market
            .calls()
            .ads_call(&ctx.principal, req, key)
            .await
    })
}

fn ads_audit_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        ctx.app
            .market
            .audit()
            .ads(&ctx.principal, args(a)?, &ctx.app.cursors)
            .await
    })
}

fn profiles_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    written(async move {
        args::<NoArgs>(a)?;
        ctx.app.market.calls().ads_profiles(&ctx.principal).await
    })
}

/// The merchant selector of docs/concepts/identifiers.md, as request fields.
pub fn selector() -> Vec<(&'static str, Value)> {
    vec![
        (
            "legacySellerId",
            json!({ "anyOf": [{ "type": "integer" }, { "type": "string" }], "description": "Preferred: the durable id of one merchant row (wins over sellerId)." }),
        ),
        (
            "sellerId",
            text("The provider's merchant token; alone only when it maps to one row."),
        ),
        (
            "marketplace",
            text("Country code (US, CA, MX) narrowing an ambiguous sellerId."),
        ),
        (
            "merchantId",
            json!({ "description": "Not a selector: ignored." }),
        ),
    ]
}

fn call_input(ads: bool) -> Value {
    let mut props = vec![
        ("operation", text("An operation id from the catalog.")),
        (
            "query",
            json!({ "type": "object", "description": "The operation's parameters by name; a request body goes under 'body'." }),
        ),
    ];
    if ads {
        props.push(("profileId", json!({ "anyOf": [{ "type": "integer" }, { "type": "string" }], "description": "Required by profile-scoped operations (see marketplace_ads_profiles)." })));
        props.extend(write_fields());
    } else {
        props.extend(super::listings::write_fields());
    }
    props.push((
        "acceptDuplicateRisk",
        super::schema::accept_duplicate_risk(),
    ));
    with(closed(&props, &["operation"]), &selector())
}

/// The audited-write fields of an advertising call (docs/writes.md).
fn write_fields() -> Vec<(&'static str, Value)> {
    vec![
        (
            "dryRun",
            json!({ "type": "boolean", "description": "Writes: absent or true previews (nothing reaches the provider's write); false commits the plan planId and planHash name." }),
        ),
        (
            "planId",
            text("Writes: the plan to commit, from the dry run's plan.planId."),
        ),
        (
            "planHash",
            text("Writes: the plan's hash, from the dry run's plan.planHash."),
        ),
        (
            "merge",
            json!({ "type": "boolean", "description": "Bid adjustments: keep the live campaign's modifiers the items leave out." }),
        ),
    ]
}

fn commit_input(tool: bool) -> Value {
    let mut props = vec![
        ("operation", text("The write operation previewed.")),
        (
            "query",
            json!({ "type": "object", "description": "The same parameters and body the dry run had." }),
        ),
        (
            "profileId",
            json!({ "anyOf": [{ "type": "integer" }, { "type": "string" }], "description": "The dry run's profileId." }),
        ),
        ("planId", text("The dry run's plan.planId.")),
        ("planHash", text("The dry run's plan.planHash.")),
        (
            "merge",
            json!({ "type": "boolean", "description": "As the dry run had it." }),
        ),
        (
            "dryRun",
            json!({ "type": "boolean", "description": "Leave out (a commit); true is refused." }),
        ),
        (
            "acceptDuplicateRisk",
            super::schema::accept_duplicate_risk(),
        ),
    ];
    if tool {
        props.push(("idempotencyKey", text(COMMIT_KEY)));
    }
    with(
        closed(&props, &["operation", "planId", "planHash"]),
        &selector(),
    )
}

const COMMIT_KEY: &str = "1 to 255 characters: a repeated commit with the same key gets the first answer and sends nothing, also after a restart";

fn audit_input(tool: bool) -> Vec<(&'static str, Value)> {
    let mut v = vec![
        (
            "merchant",
            text("The advertising login (sellerId) the writes acted as."),
        ),
        (
            "profileId",
            json!({ "anyOf": [{ "type": "integer" }, { "type": "string" }], "description": "One advertising profile." }),
        ),
        ("operation", text("One write operation id.")),
        ("actor", text("The actor as records show it.")),
        ("since", text("RFC 3339 time: records at or after it.")),
        ("until", text("RFC 3339 time: records before it.")),
        ("cursor", text("nextCursor of the previous page.")),
    ];
    v.push((
        "limit",
        if tool {
            json!({ "anyOf": [{ "type": "integer" }, { "type": "string" }], "description": "1 to 200 (default 50)." })
        } else {
            string()
        },
    ));
    v
}

fn write_answer_props() -> Vec<(&'static str, Value)> {
    vec![
        ("dryRun", super::schema::boolean()),
        ("valid", super::schema::boolean()),
        ("items", any()),
        ("policy", any_object()),
        ("outcome", string()),
        ("approval", any_object()),
        ("plan", any()),
        ("commit", any_object()),
    ]
}

fn audit_schema() -> Value {
    object(
        &[
            ("records", array(any_object())),
            ("nextCursor", nullable(string())),
        ],
        &["records", "nextCursor"],
    )
}

fn merchant() -> Value {
    object(
        &[
            ("sellerId", string()),
            ("legacySellerId", int()),
            ("marketplace", string()),
        ],
        &["sellerId", "legacySellerId", "marketplace"],
    )
}

pub fn merchant_schema() -> Value {
    merchant()
}

fn merchants_schema() -> Value {
    object(&[("merchants", array(merchant()))], &["merchants"])
}

fn catalog_schema() -> Value {
    object(
        &[
            ("operations", array(any_object())),
            ("merchantIdentifiers", any_object()),
        ],
        &["operations"],
    )
}

fn call_schema() -> Value {
    let mut props = vec![
        ("operation", string()),
        ("merchant", any_object()),
        ("status", int()),
        ("data", any()),
        (
            "report",
            object(
                &[
                    ("reportId", string()),
                    ("reused", super::schema::boolean()),
                    ("recovered", nullable(string())),
                    ("duplicateRisk", super::schema::boolean()),
                ],
                &["reportId", "reused", "duplicateRisk"],
            ),
        ),
    ];
    props.extend(write_answer_props());
    object(&props, &["operation", "merchant"])
}

fn profiles_schema() -> Value {
    object(
        &[(
            "logins",
            array(object(
                &[
                    ("sellerId", string()),
                    ("status", string()),
                    ("profiles", any()),
                    ("error", any_object()),
                ],
                &["sellerId", "status", "profiles"],
            )),
        )],
        &["logins"],
    )
}

fn prefix_input() -> Value {
    closed(
        &[(
            "prefix",
            text(
                "Only operations whose id starts with this, e.g. 'promotions.' or 'sp.'. Omit for all.",
            ),
        )],
        &[],
    )
}

const IDEMPOTENCY_KEY: &str =
    "1 to 255 characters: a retry with the same key gets the same report, also after a restart";

pub fn endpoints() -> Vec<Endpoint> {
    vec![
        Endpoint::get("/api/marketplace/merchants", "One row per connected account and marketplace: sellerId, legacySellerId, marketplace", merchants)
            .needs(RETAIL)
            .answers(200, api(merchants_schema()))
            .tool(Tool {
                name: "marketplace_list_merchants",
                title: "List the connected merchants",
                description: "One row per account and marketplace: sellerId (the provider's token), \
legacySellerId (our durable id; prefer it in calls) and marketplace. One sellerId can have several \
rows (one token in two marketplaces): name it with legacySellerId, or sellerId plus marketplace.",
                input: closed(&[], &[]),
                output: None,
                hints: LIVE,
                run: merchants_tool,
            }),
        Endpoint::get("/api/marketplace/spapi/operations", "The selling-side operation catalog, with merchantIdentifiers", spapi_operations)
            .needs(RETAIL)
            .query("prefix", false, string(), "Only operations whose id starts with this")
            .answers(200, api(catalog_schema()))
            .tool(Tool {
                name: "marketplace_spapi_operations",
                title: "Selling-side operation catalog",
                description: "Every callable selling-side operation: id, kind (read; create = makes a \
report or query and is never retried; write = only through the audited flow), parameters and where \
each goes, paging tokens, usage plan, checks and notes with the traps (promotions: exactly one \
marketplace, offset dates, revisionId for items, empty mid-stream pages; inbound: QueryType and a \
status or id list). Also merchantIdentifiers, the selector contract.",
                input: prefix_input(),
                output: None,
                hints: CATALOG,
                run: spapi_operations_tool,
            }),
        Endpoint::post("/api/marketplace/spapi/call", "Run one catalogued selling-side operation for one merchant", spapi_call)
            .needs(RETAIL)
            .param("Idempotency-Key", super::In::Header, false, string(), IDEMPOTENCY_KEY)
            .json_body(call_input(false))
            .answers(200, api(call_schema()))
            .tool(Tool {
                name: "marketplace_spapi_call",
                title: "Call a selling-side operation",
                description: "Runs one catalogued selling-side operation for one merchant (legacySellerId, \
or sellerId with marketplace) with its parameters in query. Answers { operation, merchant, status, \
data } where data is the provider's JSON. Paging is yours: pass the token back as the catalog's \
paging says until none comes. Failures carry kind, source and retryable: bad_request is the \
provider refusing your parameters (its code in marketplace_error_code); reauth_required means the \
merchant must connect again; throttled says when to retry. The guarded listing write \
(listings.patch_listings_item, needs listings:write) is only previewed here: query.items is up to \
10 existing SKUs, each { sku, patches: [{ op: replace, path: /attributes/<name>, value }] }; only \
title (item_name), highlights (special_feature), bullets (bullet_point), description \
(product_description), search keywords (generic_keyword), ingredients, item form and the nine image \
slots are editable (anything else: patch_not_allowed). The provider validates each SKU and nothing \
is applied; a valid preview answers changeSet (changeSetId, changeSetHash, 60 minutes). Commit it \
with marketplace_listings_commit.",
                input: call_input(false),
                output: None,
                hints: CALL,
                run: spapi_call_tool,
            }),
        Endpoint::get("/api/marketplace/ads/operations", "The advertising operation catalog", ads_operations)
            .needs(ADS)
            .query("prefix", false, string(), "Only operations whose id starts with this")
            .answers(200, api(catalog_schema()))
            .tool(Tool {
                name: "marketplace_ads_operations",
                title: "Advertising operation catalog",
                description: "Every advertising operation: id, kind, profileScoped, parameters, \
requiredItemFields and maxItems (200) for writes, checks and notes with the traps (Reporting v1: \
up to 5 accounts, the DSP seat id fails as profile_not_authorized, 207 answers; assets.list_recent \
ignores filters; bid adjustments replace the whole modifier object).",
                input: prefix_input(),
                output: None,
                hints: CATALOG,
                run: ads_operations_tool,
            }),
        Endpoint::get("/api/marketplace/ads/profiles", "Every advertising login with its profiles; a login's own refusal is on its row", ads_profiles)
            .needs(ADS)
            .answers(200, api(profiles_schema()))
            .tool(Tool {
                name: "marketplace_ads_profiles",
                title: "List advertising profiles",
                description: "Every advertising login (sellerId, status) with the provider's profiles \
(profileId, country, currency, account). A login that fails on its own (lapsed, not activated) \
carries error on its row; the others are still listed.",
                input: closed(&[], &[]),
                output: None,
                hints: LIVE,
                run: profiles_tool,
            }),
        Endpoint::post("/api/marketplace/ads/call", "Run one catalogued advertising operation (profileId for profile-scoped ones); a write is a dry run unless dryRun is false", ads_call)
            .needs(ADS)
            .param("Idempotency-Key", super::In::Header, false, string(), IDEMPOTENCY_KEY)
            .json_body(call_input(true))
            .answers(200, api(call_schema()))
            .answers(202, api(call_schema()))
            .tool(Tool {
                name: "marketplace_ads_call",
                title: "Call an advertising operation, or preview a write",
                description: "Runs one catalogued advertising operation: profile-scoped operations take \
profileId (from marketplace_ads_profiles), the others a merchant selector. Parameters and the \
request body (under body) go in query. Reporting v1 answers 207: a non-empty error array comes back \
as a failure. A 429 on reporting_v1.create_report is a concurrency cap (retryable false): delete a \
report or wait. A write (kind write, needs ads:write) is only previewed here: the answer checks every \
item (requiredItemFields, 1 to maxItems items, field rules), shows each entity's current values and \
what will serve and bill, and gives a plan (planId, planHash, the exact request) valid 15 minutes. \
Creates default to state PAUSED. Bid adjustments: merge true keeps live modifiers you leave out. \
Commit the plan with marketplace_ads_commit.",
                input: call_input(true),
                output: None,
                hints: CALL,
                run: ads_call_tool,
            }),
        Endpoint::post("/api/marketplace/ads/commit", "Commit the plan of an audited advertising write (the call with dryRun false)", ads_commit)
            .needs(ADS_WRITE)
            .param("Idempotency-Key", super::In::Header, false, string(), COMMIT_KEY)
            .json_body(commit_input(false))
            .answers(200, api(call_schema()))
            .answers(202, api(call_schema()))
            .tool(Tool {
                name: "marketplace_ads_commit",
                title: "Commit a previewed advertising write",
                description: "Sends exactly what a dry run of marketplace_ads_call planned: restate the \
same operation, profileId and query, with planId and planHash. A changed call, a wrong hash or an \
expired plan sends nothing. Entities that changed since the preview are not sent (outcome drifted); \
the others are. Answers each item's result (succeeded with entityId, failed with the provider's \
words under error.amazon, drifted, unknown) and the audit id. An ENABLED item serves and bills as \
soon as this lands. Pass idempotencyKey to make a retry return the first answer. When the \
account's policy has a person approve this commit, nothing is sent yet: the answer's approval \
(status pending) says why and where; read the outcome with marketplace_ads_approval.",
                input: commit_input(true),
                output: None,
                hints: COMMIT,
                run: ads_commit_tool,
            }),
        Endpoint::get("/api/marketplace/approvals/{id}", "A commit held for a person's approval: pending, rejected, expired, sent or failed", ads_approval)
            .path_param("id", string(), "The approvalId a held commit answered")
            .needs(ADS)
            .answers(200, api(approval_schema()))
            .tool(Tool {
                name: "marketplace_ads_approval",
                title: "A held write's outcome",
                description: "How a commit the account's policy held for a person's approval stands: \
status pending (waiting; a person decides in the console), rejected or expired (never sent), sent \
(auditId names the audit record with each item's result) or failed (approved, but the plan or the \
policy no longer allowed it; nothing was sent). Poll it after marketplace_ads_commit answered \
an approval.",
                input: closed(&[("approvalId", string())], &["approvalId"]),
                output: None,
                hints: super::READ,
                run: ads_approval_tool,
            }),
        Endpoint::get("/api/marketplace/audit", "The audit log of committed advertising writes, newest first", ads_audit)
            .needs(ADS)
            .query("merchant", false, string(), "The advertising login the writes acted as")
            .query("profileId", false, string(), "One advertising profile")
            .query("operation", false, string(), "One write operation id")
            .query("actor", false, string(), "The actor as records show it")
            .query("since", false, string(), "RFC 3339: records at or after it")
            .query("until", false, string(), "RFC 3339: records before it")
            .query("cursor", false, string(), "nextCursor of the previous page")
            .query("limit", false, string(), "1 to 200 (default 50)")
            .answers(200, api(audit_schema()))
            .tool(Tool {
                name: "marketplace_ads_audit",
                title: "Read the ads write audit log",
                description: "Every committed advertising write, newest first: who (credential, actor, \
surface), which operation, merchant and profile, the plan and its hash, the entities before the \
write, what was sent and the provider's answer per item, and the Idempotency-Key. Filters: \
merchant, profileId, operation, actor, since, until; page with cursor.",
                input: closed(&audit_input(true), &[]),
                output: None,
                hints: LIVE_STORE,
                run: ads_audit_tool,
            }),
    ]
}
