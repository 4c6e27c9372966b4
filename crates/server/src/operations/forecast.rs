//! Forecast state (`/api/app-state/forecasting/*`, `corrections:write` or `appstate:write`):
//! documents, atomic batches, sub-brand scopes and the change log. Every call is recorded as
//! API usage (the `TokenCounted` gate); calls failing with 400 or above are recorded but not
//! charged.

use axum::extract::{Extension, State};
use pp_core::{Principal, Scope};
use pp_forecast_state::MAX_BATCH_BYTES;
use pp_forecast_state::service::{DocQuery, DocsQuery, RevisionsQuery, ScopesQuery};
use serde_json::Value;

use pp_intelligence::{PublishRequest, WithdrawRequest};
use serde_json::json;

use super::schema::{
    any, any_object, api, array, boolean, closed, int, nullable, object, string, text,
};
use super::{Endpoint, Gate};
use crate::http::error::ApiError;
use crate::http::json::{Body, JsonObject};
use crate::http::query::Query;
use crate::http::render;
use crate::state::SharedState;

const WRITE: &[Scope] = &[Scope::CorrectionsWrite, Scope::AppstateWrite];

async fn doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<DocQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.forecast.doc(&p, q).await?)?)
}

async fn docs(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<DocsQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.forecast.docs(&p, q).await?)?)
}

async fn publish(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<PublishRequest>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.intelligence.publish(&p, req).await?)?)
}

async fn withdraw(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Body(req): Body<WithdrawRequest>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.intelligence.withdraw(&p, req).await?)?)
}

fn scope_body(extra: &[(&str, Value)]) -> Value {
    let mut fields = vec![
        ("sellerId", text("The merchant token.")),
        (
            "marketplaceId",
            text("The marketplace, when the merchant sells in several."),
        ),
        (
            "scopeKey",
            text("A sub-brand of the merchant: the key after :scope: in its scopeId."),
        ),
    ];
    fields.extend(extra.iter().map(|(k, v)| (*k, v.clone())));
    closed(&fields, &["sellerId"])
}

async fn batch(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject<MAX_BATCH_BYTES>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        app.forecast
            .batch(&p, pp_forecast_state::parse(p.tenant.as_str(), &body)?)
            .await?,
    )?)
}

async fn scopes(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<ScopesQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.forecast.scopes(&p, q).await?)?)
}

async fn create_scope(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(
        app.forecast
            .create_scope(
                &p,
                pp_forecast_state::scopes::parse_create(p.tenant.as_str(), &body)?,
            )
            .await?,
    )?)
}

async fn revisions(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query<RevisionsQuery>,
) -> Result<render::Rendered, ApiError> {
    Ok(render::api(app.forecast.revisions(&p, q).await?)?)
}

/// A stored document with the service's stamps.
fn envelope() -> Value {
    object(
        &[
            ("key", string()),
            ("kind", string()),
            ("version", int()),
            ("doc", any_object()),
            ("updated_at", string()),
            ("updated_by", string()),
        ],
        &["key", "kind", "version", "doc", "updated_at", "updated_by"],
    )
}

fn applied() -> Value {
    let write = object(
        &[
            ("key", string()),
            ("version", int()),
            ("changed", boolean()),
        ],
        &["key", "version", "changed"],
    );
    object(&[("results", array(write))], &["results"])
}

fn scopes_list() -> Value {
    let def = object(
        &[
            ("scopeId", string()),
            ("version", int()),
            ("definition", any_object()),
        ],
        &["scopeId", "version", "definition"],
    );
    object(&[("scopes", array(def))], &["scopes"])
}

fn created() -> Value {
    object(
        &[
            ("definition", any_object()),
            ("scopeId", string()),
            ("key", string()),
            ("version", int()),
        ],
        &["definition", "scopeId", "key", "version"],
    )
}

fn revisions_page() -> Value {
    let row = object(
        &[
            ("id", int()),
            ("scopeId", string()),
            ("month", nullable(string())),
            ("field", string()),
            ("before", any()),
            ("after", any()),
            ("reason", nullable(string())),
            ("actor", string()),
            ("createdAt", string()),
            ("version", int()),
        ],
        &["id", "scopeId", "field", "actor", "createdAt", "version"],
    );
    object(
        &[("revisions", array(row)), ("next_after", nullable(int()))],
        &["revisions", "next_after"],
    )
}

pub fn endpoints() -> Vec<Endpoint> {
    let counted = |e: Endpoint| e.gate(Gate::TokenCounted).needs_any(WRITE);
    let page = |e: Endpoint| {
        e.query("after", false, string(), "next_after of the previous page")
            .query("limit", false, int(), "1-500 (default 200)")
    };
    vec![
        counted(Endpoint::get(
            "/api/app-state/forecasting/doc",
            "One forecast state document (corrections:write or appstate:write)",
            doc,
        ))
        .query(
            "key",
            true,
            string(),
            "fb:override:<scopeId>:<YYYY-MM-01>, fb:account:<scopeId> or fb:scope_def:<scopeId>",
        )
        .answers(200, api(envelope())),
        page(counted(Endpoint::get(
            "/api/app-state/forecasting/docs",
            "Documents by key prefix, in key order",
            docs,
        )))
        .query(
            "prefix",
            true,
            string(),
            "fb:<kind>:src:<database>:<merchant> (also matches the merchant's sub-brands)",
        )
        .query("scope_id", false, string(), "Only this exact scope")
        .answers(
            200,
            api(object(
                &[
                    ("docs", array(envelope())),
                    ("next_after", nullable(string())),
                ],
                &["docs", "next_after"],
            )),
        ),
        counted(Endpoint::post(
            "/api/app-state/forecasting/batch",
            "Atomic, optimistic batch of writes and deletes",
            batch,
        ))
        .json_body(any_object())
        .answers(200, api(applied())),
        counted(Endpoint::get(
            "/api/app-state/forecasting/scopes",
            "Sub-brand and item-group definitions",
            scopes,
        ))
        .query("legacy_seller_id", false, int(), "Only this merchant's")
        .answers(200, api(scopes_list())),
        counted(Endpoint::post(
            "/api/app-state/forecasting/scopes",
            "Create a sub-brand or item-group definition (the service mints its key)",
            create_scope,
        ))
        .json_body(any_object())
        .answers(200, api(created())),
        page(counted(Endpoint::get(
            "/api/app-state/forecasting/revisions",
            "Change log of a scope's month rows",
            revisions,
        )))
        .query(
            "scope_id",
            true,
            string(),
            "src:<database>:<merchant>[:scope:<key>]",
        )
        .query("month", false, string(), "YYYY-MM-01")
        .answers(200, api(revisions_page())),
        Endpoint::post(
            "/api/app-state/forecasting/publish",
            "Publish a merchant's (or sub-brand's) forecast: revenue and units computed now from the warehouse; FCT-BASELINE-01 serves it until withdrawn or published again",
            publish,
        )
        .gate(Gate::TokenCounted)
        .needs(&[Scope::AppstateWrite])
        .json_body(scope_body(&[
            ("horizon", json!({ "type": "integer", "minimum": 1, "maximum": 24, "description": "Months published (default 12)." })),
            ("spendBasis", json!({ "type": "string", "enum": ["ads_only", "ads_plus_dsp"], "description": "Spend counted as a driver (default ads_only)." })),
        ]))
        .answers(200, api(any_object())),
        Endpoint::post(
            "/api/app-state/forecasting/withdraw",
            "Withdraw a merchant's (or sub-brand's) published forecast: FCT-BASELINE-01 answers available: false with the reason until the next publish",
            withdraw,
        )
        .gate(Gate::TokenCounted)
        .needs(&[Scope::AppstateWrite])
        .json_body(scope_body(&[("reason", text("Why it is withdrawn: one line, up to 500 characters."))]))
        .answers(200, api(any_object())),
    ]
}
