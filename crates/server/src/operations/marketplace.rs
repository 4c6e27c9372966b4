//! The live marketplace (§4.2, prefixed `marketplace_` as tools): the merchants, both
//! operation catalogs, the advertising profiles, and one catalogued call on each side. Calls
//! reach the provider, so their tools are open-world; plain calls refuse writes (those go
//! through the audited flow).

use axum::Json;
use axum::extract::{Extension, FromRequestParts, State};
use axum::http::request::Parts;
use axum::response::Response;
use pp_core::{Principal, Scope};
use pp_marketplace::service::requests::{AdsCall, CatalogQuery, IdempotencyKey, SpapiCall};
use serde_json::{Map, Value, json};

use super::schema::{
    any, any_object, api, array, closed, int, nullable, object, string, text, with,
};
use super::{Ctx, Endpoint, Fut, Hints, Tool, args};
use crate::http::error::{ApiError, for_path};
use crate::http::json::Body;
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

const RETAIL: &[Scope] = &[Scope::RetailRead];
const ADS: &[Scope] = &[Scope::AdsRead];

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
) -> Result<Json<Value>, ApiError> {
    Ok(render::api(app.market.merchants(&p).await?)?)
}

async fn spapi_operations(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<CatalogQuery>,
) -> Result<Json<Value>, ApiError> {
    Ok(render::api(app.market.spapi_operations(&p, q)?)?)
}

async fn ads_operations(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<CatalogQuery>,
) -> Result<Json<Value>, ApiError> {
    Ok(render::api(app.market.ads_operations(&p, q)?)?)
}

async fn spapi_call(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    KeyHeader(key): KeyHeader,
    Body(req): Body<SpapiCall>,
) -> Result<Json<Value>, ApiError> {
    Ok(render::api(app.market.spapi_call(&p, req, key).await?)?)
}

async fn ads_call(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    KeyHeader(key): KeyHeader,
    Body(req): Body<AdsCall>,
) -> Result<Json<Value>, ApiError> {
    Ok(render::api(app.market.ads_call(&p, req, key).await?)?)
}

async fn ads_profiles(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<Json<Value>, ApiError> {
    Ok(render::api(app.market.ads_profiles(&p).await?)?)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

fn merchants_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    Box::pin(async move {
        args::<Empty>(a)?;
        render::value(ctx.app.market.merchants(&ctx.principal).await?)
    })
}

fn spapi_operations_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    Box::pin(
        async move { render::value(ctx.app.market.spapi_operations(&ctx.principal, args(a)?)?) },
    )
}

fn ads_operations_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    Box::pin(async move { render::value(ctx.app.market.ads_operations(&ctx.principal, args(a)?)?) })
}

fn spapi_call_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    Box::pin(async move {
        render::value(
            ctx.app
                .market
                .spapi_call(&ctx.principal, args(a)?, None)
                .await?,
        )
    })
}

fn ads_call_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    Box::pin(async move {
        render::value(
            ctx.app
                .market
                .ads_call(&ctx.principal, args(a)?, None)
                .await?,
        )
    })
}

fn profiles_tool<'a>(ctx: &'a Ctx, a: Map<String, Value>) -> Fut<'a> {
    Box::pin(async move {
        args::<Empty>(a)?;
        render::value(ctx.app.market.ads_profiles(&ctx.principal).await?)
    })
}

/// The merchant selector of §2.1, as request fields.
pub fn selector() -> Vec<(&'static str, Value)> {
    vec![
        (
            "legacySellerId",
            json!({ "type": ["integer", "string"], "description": "Preferred: the durable id of one merchant row (wins over sellerId)." }),
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
            json!({ "description": "Not a selector: ignored (§2.1)." }),
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
        props.push(("profileId", json!({ "type": ["integer", "string"], "description": "Required by profile-scoped operations (see marketplace_ads_profiles)." })));
    }
    props.push((
        "acceptDuplicateRisk",
        super::schema::accept_duplicate_risk(),
    ));
    with(closed(&props, &["operation"]), &selector())
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
    object(
        &[
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
        ],
        &["operation", "merchant", "status", "data"],
    )
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
        Endpoint::post("/api/marketplace/spapi/call", "Run one catalogued selling-side operation for one merchant (§4.2)", spapi_call)
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
merchant must connect again; throttled says when to retry. Writes are refused here.",
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
        Endpoint::post("/api/marketplace/ads/call", "Run one catalogued advertising operation (profileId for profile-scoped ones)", ads_call)
            .needs(ADS)
            .param("Idempotency-Key", super::In::Header, false, string(), IDEMPOTENCY_KEY)
            .json_body(call_input(true))
            .answers(200, api(call_schema()))
            .tool(Tool {
                name: "marketplace_ads_call",
                title: "Call an advertising operation",
                description: "Runs one catalogued advertising operation: profile-scoped operations take \
profileId (from marketplace_ads_profiles), the others a merchant selector. Parameters and the \
request body (under body) go in query. Reporting v1 answers 207: a non-empty error array comes back \
as a failure. A 429 on reporting_v1.create_report is a concurrency cap (retryable false): delete a \
report or wait. Writes are refused here.",
                input: call_input(true),
                output: None,
                hints: CALL,
                run: ads_call_tool,
            }),
    ]
}
