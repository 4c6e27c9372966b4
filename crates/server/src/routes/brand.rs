//! Brand memory routes: context documents and the manifest (`context:read`, writes also
//! `context:write`, checked in that order), the brand lifecycle, and the timeline
//! (`timeline:read`, appends also `timeline:write`). Brands come from the tenant's warehouse.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Extension, Path, RawQuery, State};
use pp_brand::timeline::Filter;
use pp_brand::{BrandRef, Writer};
use pp_core::{Error, Kind, Principal, Scope};
use pp_warehouse::{Params, QueryRequest};
use serde_json::Value;

use super::v1::Query;
use crate::http::error::{ApiError, V1Error};
use crate::http::json::{JsonObject, parse_object};
use crate::state::SharedState;

/// The tenant's brands; a warehouse without a `brand` table has none.
pub(crate) async fn brands(app: &SharedState, p: &Principal) -> Result<Vec<BrandRef>, Error> {
    let engine = app.warehouse_for(p)?;
    let req = QueryRequest {
        sql: "SELECT Slug, Name FROM brand ORDER BY Slug".into(),
        params: Params::None,
        timeout_ms: app.limits.default_timeout_ms,
    };
    match engine.query(req, &app.limits).await {
        Ok(r) => Ok(r
            .rows
            .iter()
            .map(|row| BrandRef {
                slug: row["Slug"].as_str().unwrap_or_default().to_owned(),
                name: row["Name"].as_str().unwrap_or_default().to_owned(),
            })
            .collect()),
        Err(e) if e.kind == Kind::SqlError => Ok(Vec::new()),
        Err(e) => Err(e),
    }
}

pub(crate) fn today() -> chrono::NaiveDate {
    chrono::Utc::now().date_naive()
}

fn context_write(p: &Principal) -> Result<(), Error> {
    p.require(&[Scope::ContextRead])?;
    p.require(&[Scope::ContextRead, Scope::ContextWrite])
}

pub async fn manifest(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, ApiError> {
    p.require(&[Scope::ContextRead])?;
    // An /api route: its query-string errors use the /api envelope.
    let q = super::v1::args(raw.as_deref().unwrap_or(""))?;
    q.only(&["lifecycle"])?;
    let active = match q.str("lifecycle") {
        None | Some("all") => false,
        Some("active") => true,
        Some(_) => {
            return Err(Error::new(Kind::BadParams, "lifecycle must be active or all").into());
        }
    };
    let mut m = pp_brand::docs::manifest(
        &app.store,
        p.tenant.as_str(),
        &brands(&app, &p).await?,
        active,
    )?;
    m["ok"] = true.into();
    Ok(Json(m))
}

pub async fn v1_manifest(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query,
) -> Result<Json<Value>, V1Error> {
    p.require(&[Scope::ContextRead])?;
    q.only(&["lifecycle"])?;
    Ok(Json(pp_brand::docs::manifest(
        &app.store,
        p.tenant.as_str(),
        &brands(&app, &p).await?,
        false,
    )?))
}

pub async fn v1_doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query,
) -> Result<Json<Value>, V1Error> {
    p.require(&[Scope::ContextRead])?;
    q.only(&["brand", "type", "name"])?;
    let brand = q
        .str("brand")
        .ok_or_else(|| Error::invalid_request("brand is required"))?;
    let kind = q
        .str("type")
        .ok_or_else(|| Error::invalid_request("type is required"))?;
    Ok(Json(pp_brand::docs::get(
        &app.store,
        p.tenant.as_str(),
        &brands(&app, &p).await?,
        brand,
        kind,
        q.str("name"),
    )?))
}

async fn put(
    app: SharedState,
    p: Principal,
    brand: String,
    kind: String,
    name: Option<String>,
    body: serde_json::Map<String, Value>,
) -> Result<Json<Value>, ApiError> {
    context_write(&p)?;
    if let Some(k) = body
        .keys()
        .find(|k| !["content", "base_revision"].contains(&k.as_str()))
    {
        return Err(Error::new(
            Kind::BadParams,
            format!("'{k}' is not a field of a document write (content, base_revision)"),
        )
        .into());
    }
    let content = body
        .get("content")
        .and_then(Value::as_str)
        .ok_or_else(|| Error::new(Kind::BadParams, "content must be a string"))?;
    let base = body
        .get("base_revision")
        .and_then(Value::as_i64)
        .filter(|v| *v >= 0)
        .ok_or_else(|| {
            Error::new(
                Kind::BadParams,
                "base_revision must be the revision you read (0 for a new document)",
            )
        })?;
    let list = brands(&app, &p).await?;
    let d = pp_brand::docs::DocWrite {
        brand: &brand,
        kind: &kind,
        name: name.as_deref(),
        content,
        base_revision: base,
    };
    Ok(Json(pp_brand::docs::put(
        &app.store,
        p.tenant.as_str(),
        &list,
        &Writer::from(&p),
        &d,
    )?))
}

pub async fn put_doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path((brand, kind)): Path<(String, String)>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    put(app, p, brand, kind, None, body).await
}

pub async fn put_named_doc(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path((brand, kind, name)): Path<(String, String, String)>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    put(app, p, brand, kind, Some(name), body).await
}

pub async fn lifecycle(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    JsonObject(body): JsonObject,
) -> Result<Json<Value>, ApiError> {
    context_write(&p)?;
    let change = pp_brand::lifecycle::parse(&body)?;
    let list = brands(&app, &p).await?;
    Ok(Json(pp_brand::lifecycle::apply(
        &app.store,
        p.tenant.as_str(),
        &list,
        &Writer::from(&p),
        &change,
    )?))
}

fn timeline_write(p: &Principal) -> Result<(), Error> {
    p.require(&[Scope::TimelineRead, Scope::TimelineWrite])
}

/// The timeline filter of a `/v1/timeline` query string (also the MCP `timeline_list` tool's).
pub(crate) fn timeline_filter(q: &pp_warehouse::v1::Args) -> Result<Filter, Error> {
    q.only(&[
        "brand",
        "family",
        "kind",
        "start_date",
        "end_date",
        "category",
        "source",
        "status",
        "affects",
        "tag",
        "overlaps_start",
        "overlaps_end",
        "future",
        "limit",
        "cursor",
    ])?;
    let overlaps = match (q.date("overlaps_start")?, q.date("overlaps_end")?) {
        (None, None) => None,
        (Some(a), Some(b)) if a <= b => Some((a, b)),
        _ => {
            return Err(Error::invalid_request(
                "overlaps_start and overlaps_end go together, start first",
            ));
        }
    };
    let own = |k: &str| q.str(k).map(str::to_owned);
    Ok(Filter {
        brand: own("brand"),
        family: own("family"),
        kind: own("kind"),
        start: q.date("start_date")?,
        end: q.date("end_date")?,
        category: own("category"),
        source: own("source"),
        status: own("status"),
        affects: own("affects"),
        tag: own("tag"),
        overlaps,
        future: q.bool("future")?,
        limit: q.int("limit", 1, 500)?.unwrap_or(100),
        cursor: own("cursor"),
    })
}

pub async fn timeline(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Query(q): Query,
) -> Result<Json<Value>, V1Error> {
    p.require(&[Scope::TimelineRead])?;
    let f = timeline_filter(&q)?;
    Ok(Json(pp_brand::timeline::list(
        &app.store,
        p.tenant.as_str(),
        &app.cursors,
        &f,
        today(),
    )?))
}

pub async fn append(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    body: Bytes,
) -> Result<Json<Value>, V1Error> {
    timeline_write(&p)?;
    let body = parse_object(&body)?;
    let list = brands(&app, &p).await?;
    Ok(Json(pp_brand::timeline::append(
        &app.store,
        p.tenant.as_str(),
        &list,
        &Writer::from(&p),
        &body,
        today(),
    )?))
}

pub async fn corroborate(
    State(app): State<SharedState>,
    Extension(p): Extension<Principal>,
    Path(id): Path<String>,
    body: Bytes,
) -> Result<Json<Value>, V1Error> {
    timeline_write(&p)?;
    let id: i64 = id
        .parse()
        .map_err(|_| Error::not_found(format!("no timeline event {id}")))?;
    let body = if body.is_empty() {
        serde_json::Map::new()
    } else {
        parse_object(&body)?
    };
    Ok(Json(pp_brand::timeline::corroborate(
        &app.store,
        p.tenant.as_str(),
        &Writer::from(&p),
        id,
        &body,
        today(),
    )?))
}
