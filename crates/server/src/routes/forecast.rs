//! `/api/app-state/forecasting/*` (`corrections:write` or `appstate:write`): documents, atomic
//! batches, sub-brand scopes and the change log. Every call is recorded as API usage; calls
//! failing with 400 or above are recorded but not charged.

use std::collections::{BTreeSet, HashMap};

use axum::Json;
use axum::extract::{Extension, MatchedPath, Query, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use pp_core::{Error, Kind, Principal, Scope};
use pp_forecast::{Batch, MAX_BATCH_BYTES};
use pp_warehouse::{Params, QueryRequest, params::Scalar};
use serde_json::Value;

use crate::http::error::ApiError;
use crate::http::json::JsonObject;
use crate::state::SharedState;

type Q = Query<HashMap<String, String>>;

fn require(p: &Principal) -> Result<(), Error> {
    if p.scopes.contains(Scope::CorrectionsWrite) || p.scopes.contains(Scope::AppstateWrite) {
        return Ok(());
    }
    pp_core::scope::require(&p.scopes, &[Scope::CorrectionsWrite])
}

/// Records the call as API usage once the answer is known.
pub async fn usage(State(app): State<SharedState>, req: Request, next: Next) -> Response {
    let who = req
        .extensions()
        .get::<Principal>()
        .map(|p| (p.tenant.to_string(), p.credential_id.clone()));
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned())
        .unwrap_or_default();
    let res = next.run(req).await;
    if let Some((tenant, cred)) = who
        && let Err(e) = app
            .store
            .record_usage(&tenant, &cred, &route, res.status().as_u16())
    {
        tracing::error!(cause = ?e.cause(), "usage not recorded");
    }
    res
}

/// Fails with `merchant_not_connected` unless every merchant is a seller row of the tenant.
async fn check_merchants(
    app: &SharedState,
    p: &Principal,
    merchants: &BTreeSet<i64>,
) -> Result<(), Error> {
    let engine = app.warehouse_for(p)?;
    let marks = vec!["?"; merchants.len()].join(", ");
    let req = QueryRequest {
        sql: format!("SELECT ID FROM seller WHERE ID IN ({marks})"),
        params: Params::Positional(merchants.iter().map(|m| Scalar::Int(*m)).collect()),
        timeout_ms: app.limits.default_timeout_ms,
    };
    let found: BTreeSet<i64> = engine
        .query(req, &app.limits)
        .await?
        .rows
        .iter()
        .filter_map(|r| r.get("ID").and_then(Value::as_i64))
        .collect();
    match merchants.difference(&found).next() {
        None => Ok(()),
        Some(m) => Err(Error::new(
            Kind::MerchantNotConnected,
            format!("merchant {m} is not connected to this account"),
        )
        .with_fix("GET /v1/accounts lists the connected merchants (legacy_seller_id).")),
    }
}

async fn run_batch(
    app: SharedState,
    p: Principal,
    batch: Batch,
    create: bool,
) -> Result<Value, Error> {
    check_merchants(&app, &p, &batch.merchants).await?;
    tokio::task::spawn_blocking(move || {
        let tenant = p.tenant.as_str();
        if create {
            pp_forecast::scopes::create(&app.store, tenant, &p.actor, &batch)
        } else {
            pp_forecast::apply(&app.store, tenant, &p.actor, &batch)
        }
    })
    .await
    .map_err(Error::internal)?
}

pub async fn batch(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject<MAX_BATCH_BYTES>,
) -> Result<Json<Value>, ApiError> {
    require(&p)?;
    let batch = pp_forecast::parse(p.tenant.as_str(), &body)?;
    Ok(Json(run_batch(app, p, batch, false).await?))
}

pub async fn doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    require(&p)?;
    let key = q
        .get("key")
        .ok_or_else(|| Error::new(Kind::BadParams, "key is required"))?;
    Ok(Json(pp_forecast::read::doc(
        &app.store,
        p.tenant.as_str(),
        key,
    )?))
}

pub async fn docs(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Q,
) -> Result<Json<pp_forecast::read::DocsPage>, ApiError> {
    require(&p)?;
    let prefix = q.get("prefix").ok_or_else(|| {
        Error::new(
            Kind::BadParams,
            "prefix is required (fb:<kind>:src:<database>:<merchant>)",
        )
    })?;
    let limit = pp_forecast::read::limit(q.get("limit").map(String::as_str))?;
    let (scope, after) = (
        q.get("scope_id").map(String::as_str),
        q.get("after").map(String::as_str),
    );
    Ok(Json(pp_forecast::read::docs(
        &app.store,
        p.tenant.as_str(),
        prefix,
        scope,
        after,
        limit,
    )?))
}

pub async fn revisions(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    require(&p)?;
    let scope = q
        .get("scope_id")
        .ok_or_else(|| Error::new(Kind::BadParams, "scope_id is required"))?;
    let limit = pp_forecast::read::limit(q.get("limit").map(String::as_str))?;
    let (month, after) = (
        q.get("month").map(String::as_str),
        q.get("after").map(String::as_str),
    );
    Ok(Json(pp_forecast::read::revisions(
        &app.store,
        p.tenant.as_str(),
        scope,
        month,
        after,
        limit,
    )?))
}

pub async fn list_scopes(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Q,
) -> Result<Json<Value>, ApiError> {
    require(&p)?;
    let merchant =
        match q.get("legacy_seller_id") {
            None => None,
            Some(s) => Some(s.parse::<i64>().map_err(|_| {
                Error::new(Kind::BadParams, "legacy_seller_id must be a whole number")
            })?),
        };
    Ok(Json(pp_forecast::scopes::list(
        &app.store,
        p.tenant.as_str(),
        merchant,
    )?))
}

pub async fn create_scope(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    require(&p)?;
    let batch = pp_forecast::scopes::parse_create(p.tenant.as_str(), &body)?;
    Ok(Json(run_batch(app, p, batch, true).await?))
}
