//! The live marketplace routes (§4.2): merchants, the two operation catalogs, the two call
//! endpoints and the advertising profiles. Handlers check scopes, resolve the merchant or the
//! advertising login, and hand the catalogued request to the upstream client; every provider
//! outcome comes back triaged into the `/api` envelope.

use axum::Json;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use pp_core::{Error, Kind, Principal, Scope, Source};
use pp_marketplace::calls::build;
use pp_marketplace::catalog::{self, Operation};
use pp_marketplace::connections::{self, ADS, NOT_ACTIVATED, SELLER};
use pp_marketplace::{Merchant, Selector, merchants};
use pp_warehouse::{Params, QueryRequest};
use serde_json::{Map, Value, json};

use crate::http::error::ApiError;
use crate::http::json::JsonObject;
use crate::state::SharedState;

/// Rows of a warehouse query (the tenant's own warehouse).
async fn rows(
    app: &SharedState,
    p: &Principal,
    sql: &str,
) -> Result<Vec<Map<String, Value>>, Error> {
    let req = QueryRequest {
        sql: sql.into(),
        params: Params::None,
        timeout_ms: app.limits.default_timeout_ms,
    };
    Ok(app.warehouse_for(p)?.query(req, &app.limits).await?.rows)
}

/// The merchants this credential can act for: seller rows whose token has a selling-side grant.
async fn merchant_rows(app: &SharedState, p: &Principal) -> Result<Vec<Merchant>, Error> {
    let connected: Vec<String> = connections::list(&app.store, &p.tenant)?
        .into_iter()
        .filter(|c| c.kind == SELLER)
        .map(|c| c.merchant)
        .collect();
    Ok(rows(app, p, "SELECT ID, MarketplaceSellerID, Marketplace, MarketplaceID, AccountType FROM seller ORDER BY ID")
        .await?
        .into_iter()
        .filter(|r| r["MarketplaceSellerID"].as_str().is_some_and(|t| connected.iter().any(|c| c == t)))
        .map(|r| Merchant {
            seller_id: r["MarketplaceSellerID"].as_str().unwrap_or_default().to_owned(),
            legacy_seller_id: r["ID"].as_i64().unwrap_or_default(),
            marketplace: r["Marketplace"].as_str().unwrap_or_default().to_owned(),
            marketplace_id: r["MarketplaceID"].as_str().unwrap_or_default().to_owned(),
            account_type: r["AccountType"].as_str().unwrap_or_default().to_owned(),
        })
        .collect())
}

/// The one merchant the body's selector names (§2.1).
pub(crate) async fn resolve_merchant(
    app: &SharedState,
    p: &Principal,
    body: &Map<String, Value>,
) -> Result<Merchant, Error> {
    merchants::resolve(&merchant_rows(app, p).await?, &Selector::from_body(body)?)
}

/// `{ ok, merchants }` (`retail:read`).
pub async fn list_merchants(app: &SharedState, p: &Principal) -> Result<Value, Error> {
    p.require(&[Scope::RetailRead])?;
    Ok(json!({ "ok": true, "merchants": merchant_rows(app, p).await? }))
}

/// The operations of a catalog whose id starts with `prefix` (all without one).
fn operations<'a>(cat: &'a [Operation], prefix: Option<&str>) -> Vec<&'a Operation> {
    cat.iter()
        .filter(|o| prefix.is_none_or(|x| o.id.starts_with(x)))
        .collect()
}

/// The selling-side catalog with `merchantIdentifiers` (`retail:read`).
pub fn spapi_catalog(p: &Principal, prefix: Option<&str>) -> Result<Value, Error> {
    p.require(&[Scope::RetailRead])?;
    Ok(
        json!({ "ok": true, "operations": operations(catalog::spapi(), prefix), "merchantIdentifiers": catalog::merchant_identifiers() }),
    )
}

/// The advertising catalog (`ads:read`).
pub fn ads_catalog(p: &Principal, prefix: Option<&str>) -> Result<Value, Error> {
    p.require(&[Scope::AdsRead])?;
    Ok(json!({ "ok": true, "operations": operations(catalog::ads(), prefix) }))
}

pub async fn merchants(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(list_merchants(&app, &p).await?))
}

pub async fn spapi_operations(Extension(p): Extension<Principal>) -> Result<Json<Value>, ApiError> {
    Ok(Json(spapi_catalog(&p, None)?))
}

pub async fn ads_operations(Extension(p): Extension<Principal>) -> Result<Json<Value>, ApiError> {
    Ok(Json(ads_catalog(&p, None)?))
}

/// The call body's operation and arguments, checked against `catalog`.
fn parse_call<'a>(
    p: &Principal,
    body: &Map<String, Value>,
    catalog_: &'a [Operation],
    api: &str,
    extra: &[&str],
) -> Result<(&'a Operation, Map<String, Value>), Error> {
    let allowed = [
        "operation",
        "query",
        "legacySellerId",
        "sellerId",
        "marketplace",
        "merchantId",
    ];
    if let Some(k) = body
        .keys()
        .find(|k| !allowed.contains(&k.as_str()) && !extra.contains(&k.as_str()))
    {
        return Err(Error::invalid_request(format!(
            "'{k}' is not a field of a call (operation, query, and the merchant selector)"
        )));
    }
    let id = body
        .get("operation")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::invalid_request("operation is required (an id from the catalog)"))?;
    let op = catalog::find(catalog_, id).ok_or_else(|| {
        Error::invalid_request(format!("operation '{id}' is not in the {api} catalog")).with_fix(
            format!("GET /api/marketplace/{api}/operations lists every operation."),
        )
    })?;
    let scope: Scope = op
        .scope
        .parse()
        .map_err(|_| Error::internal(format!("{id} names an unknown scope")))?;
    p.require(&[scope])?;
    if op.kind == "write" {
        return Err(Error::invalid_request(format!(
            "{id} is a write: writes go through the audited preview-and-commit flow, which this call does not run"
        )));
    }
    let query = match body.get("query") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(q)) => q.clone(),
        Some(_) => {
            return Err(Error::invalid_request(
                "query must be an object of the operation's parameters",
            ));
        }
    };
    Ok((op, query))
}

fn answer(op: &Operation, merchant: Value, reply: pp_marketplace::upstream::Reply) -> Value {
    json!({ "ok": true, "operation": op.id, "merchant": merchant, "status": reply.status, "data": reply.body })
}

/// Runs one selling-side call described by `body` (§4.2).
pub async fn run_spapi(
    app: &SharedState,
    p: &Principal,
    body: &Map<String, Value>,
    key: Option<&str>,
) -> Result<Value, Error> {
    p.require(&[Scope::RetailRead])?;
    let m = app.marketplace("spapi")?;
    let (op, query) = parse_call(p, body, catalog::spapi(), "spapi", &[])?;
    let merchant = resolve_merchant(app, p, body).await?;
    let req = build(
        op,
        &query,
        &p.tenant,
        SELLER,
        &merchant.seller_id,
        Some(&merchant),
    )?;
    let merchant_json = serde_json::to_value(&merchant).unwrap_or_default();
    send(app, m, op, &req, Some(&merchant), key, merchant_json).await
}

/// Sends a call; report creates go through the ledger (one create per request, the same id
/// for identical requests and repeated keys).
async fn send(
    app: &SharedState,
    m: &crate::state::Marketplace,
    op: &Operation,
    req: &pp_marketplace::upstream::Request<'_>,
    merchant: Option<&Merchant>,
    key: Option<&str>,
    merchant_json: Value,
) -> Result<Value, Error> {
    let Some(family) = pp_marketplace::ledger::Family::of(&op.id) else {
        let reply = m.client.send(&app.store, &m.sealer, req).await?;
        return Ok(answer(op, merchant_json, reply));
    };
    let up = m.provider(&app.store);
    let c = pp_marketplace::reports::create(&up, req, family, merchant, key).await?;
    let mut v = answer(op, merchant_json, c.reply);
    v["report"] = json!({ "reportId": c.report_id, "reused": c.reused, "recovered": c.recovered });
    Ok(v)
}

/// The caller's `Idempotency-Key`, if any (1 to 255 visible characters).
pub(crate) fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, Error> {
    let Some(v) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    v.to_str()
        .ok()
        .map(str::trim)
        .filter(|k| (1..=255).contains(&k.len()))
        .map(|k| Some(k.to_owned()))
        .ok_or_else(|| {
            Error::invalid_request("Idempotency-Key must be 1 to 255 visible characters")
        })
}

pub async fn spapi_call(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    headers: HeaderMap,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let key = idempotency_key(&headers)?;
    Ok(Json(run_spapi(&app, &p, &body, key.as_deref()).await?))
}

/// The advertising login (merchant token) a call acts as: the profile's owner for
/// profile-scoped operations, else the merchant the selector names.
async fn ads_login(
    app: &SharedState,
    p: &Principal,
    op: &Operation,
    body: &Map<String, Value>,
) -> Result<(String, Option<String>), Error> {
    if op.profile_scoped.unwrap_or(false) {
        let profile = body.get("profileId").and_then(|v| v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))).ok_or_else(|| {
            Error::invalid_request(format!("{} is profile-scoped: send profileId (GET /api/marketplace/ads/profiles lists them)", op.id))
        })?;
        let found = rows(
            app,
            p,
            &format!("SELECT MarketplaceSellerID FROM ads_profile WHERE ProfileID = {profile}"),
        )
        .await?;
        let token = found
            .first()
            .and_then(|r| r["MarketplaceSellerID"].as_str())
            .ok_or_else(|| {
                Error::new(
                    Kind::ProfileNotAuthorized,
                    format!("profile {profile} is not one of this tenant's advertising profiles"),
                )
            })?;
        return Ok((token.to_owned(), Some(profile.to_string())));
    }
    let m = resolve_merchant(app, p, body).await?;
    Ok((m.seller_id, None))
}

/// Runs one advertising call described by `body` (§4.2, §4.6).
pub async fn run_ads(
    app: &SharedState,
    p: &Principal,
    body: &Map<String, Value>,
    key: Option<&str>,
) -> Result<Value, Error> {
    p.require(&[Scope::AdsRead])?;
    let m = app.marketplace("ads")?;
    let (op, query) = parse_call(p, body, catalog::ads(), "ads", &["profileId"])?;
    let (login, profile) = ads_login(app, p, op, body).await?;
    let conn = connections::get(&app.store, &p.tenant, ADS, &login)?;
    match conn {
        None => {
            return Err(Error::new(
                Kind::MerchantNotFound,
                format!("merchant {login} has no advertising connection"),
            ));
        }
        Some(c) if c.status == NOT_ACTIVATED => {
            return Err(Error::new(Kind::MerchantInactive, format!("merchant {login} is not activated for advertising in this service"))
                .with_fix("A person must activate advertising for this merchant; re-authorizing does not help."));
        }
        _ => {}
    }
    let mut req = build(op, &query, &p.tenant, ADS, &login, None)?;
    if let Some(pid) = &profile {
        req.headers
            .push(("Amazon-Advertising-API-Scope".into(), pid.clone()));
    }
    let who = json!({ "sellerId": login, "profileId": profile });
    send(app, m, op, &req, None, key, who).await
}

pub async fn ads_call(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    headers: HeaderMap,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    let key = idempotency_key(&headers)?;
    Ok(Json(run_ads(&app, &p, &body, key.as_deref()).await?))
}

pub async fn ads_profiles(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(list_profiles(&app, &p).await?))
}

/// Every advertising login with its profiles (`ads:read`); a login's own refusal is its row's.
pub async fn list_profiles(app: &SharedState, p: &Principal) -> Result<Value, Error> {
    p.require(&[Scope::AdsRead])?;
    let m = app.marketplace("ads")?;
    let op = catalog::find(catalog::ads(), "profiles.list")
        .ok_or_else(|| Error::internal("profiles.list missing from the catalog"))?;
    let mut out = Vec::new();
    for c in connections::list(&app.store, &p.tenant)?
        .into_iter()
        .filter(|c| c.kind == ADS)
    {
        if c.status != connections::ACTIVE {
            out.push(json!({ "sellerId": c.merchant, "status": c.status, "profiles": [] }));
            continue;
        }
        let req = build(op, &Map::new(), &p.tenant, ADS, &c.merchant, None)?;
        match m.client.send(&app.store, &m.sealer, &req).await {
            Ok(reply) => out.push(
                json!({ "sellerId": c.merchant, "status": c.status, "profiles": reply.body }),
            ),
            // one login's refusal is that login's row; the provider being down is the call's
            Err(e)
                if e.kind.source() == Source::Account || e.kind == Kind::ProfileNotAuthorized =>
            {
                out.push(json!({ "sellerId": c.merchant, "status": status_after(&e, &c.status), "profiles": [], "error": { "kind": e.kind.code(), "message": e.message() } }));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(json!({ "ok": true, "logins": out }))
}

/// A login's status once its call failed: a lapse shows at once.
fn status_after(e: &Error, before: &str) -> String {
    if e.kind == Kind::ReauthRequired {
        connections::LAPSED.to_owned()
    } else {
        before.to_owned()
    }
}
