//! The v3 bulk surfaces as data: an entity kind, its vendor media type, its path and its four
//! operations — list (`POST <path>/list`), create (`POST <path>`), update (`PUT <path>`) and
//! delete (`POST <path>/delete`, archiving) — each create/update/delete answering 207 with
//! per-item `success` and `error`. Sponsored Products and Sponsored Brands v4 are built on it.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{post, put};
use serde_json::{Value, json};

use super::entities::{Kind, bulk, item_error};
use super::{answer, body, media, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

/// Builds a new entity from a create item, or the item's error.
pub type Create = fn(&Sim, i64, usize, &Value) -> Result<Value, Value>;

/// One bulk surface.
pub struct Surface {
    pub kind: &'static Kind,
    pub media: &'static str,
    pub path: &'static str,
    /// list, create, update, delete.
    pub ops: [&'static Op; 4],
    pub create: Create,
    /// Fields an update may change (an object sent replaces the whole object).
    pub updatable: &'static [&'static str],
    /// Fields an update item must carry beside the id.
    pub update_needs: &'static [&'static str],
    /// Items (or ids to archive) one call may carry.
    pub max_items: usize,
}

/// A field value as the string ids are.
pub fn s(v: &Value) -> Value {
    match v {
        Value::Null => Value::Null,
        Value::String(_) => v.clone(),
        v => v.to_string().into(),
    }
}

const STATES: &[&str] = &["ENABLED", "PAUSED"];

pub fn check_state(i: usize, v: &Value) -> Result<(), Value> {
    match v.as_str() {
        Some(st) if STATES.contains(&st) => Ok(()),
        _ => Err(item_error(
            i,
            "malformedValueError",
            "INVALID_ARGUMENT",
            "state must be ENABLED or PAUSED".into(),
            None,
        )),
    }
}

pub fn check_bid(i: usize, v: &Value) -> Result<(), Value> {
    match v.as_f64() {
        Some(b) if (0.02..=1000.0).contains(&b) => Ok(()),
        Some(b) => Err(item_error(
            i,
            "rangeError",
            if b < 0.02 { "TOO_LOW" } else { "TOO_HIGH" },
            format!("bid {b} is outside 0.02 to 1000"),
            None,
        )),
        None => Err(item_error(
            i,
            "malformedValueError",
            "INVALID_ARGUMENT",
            "bid must be a number".into(),
            None,
        )),
    }
}

/// A campaign's bid modifiers as the provider validates them: Sponsored Products placements
/// (`PLACEMENT_TOP`, `PLACEMENT_PRODUCT_PAGE`, `PLACEMENT_REST_OF_SEARCH`,
/// `SITE_AMAZON_BUSINESS`) only raise a bid (0 to 900); Sponsored Brands placements (`TOP_OF_SEARCH`,
/// `HOME`, `DETAIL_PAGE`, `OTHER`) go from -99 to 900 and have no business-buyer modifier.
pub fn check_modifiers(i: usize, v: &Value, sb: bool) -> Result<(), Value> {
    let (list, allowed, min): (&str, &[&str], i64) = if sb {
        (
            "bidAdjustmentsByPlacement",
            &["TOP_OF_SEARCH", "HOME", "DETAIL_PAGE", "OTHER"],
            -99,
        )
    } else {
        (
            "placementBidding",
            &[
                "PLACEMENT_TOP",
                "PLACEMENT_PRODUCT_PAGE",
                "PLACEMENT_REST_OF_SEARCH",
                "SITE_AMAZON_BUSINESS",
            ],
            0,
        )
    };
    if !v.is_object() {
        return Err(invalid(i, "the bid modifier object must be an object"));
    }
    for e in v[list].as_array().into_iter().flatten() {
        let p = e["placement"].as_str().unwrap_or("");
        if !allowed.contains(&p) {
            return Err(invalid(
                i,
                format!("placement {p:?} is not one of {}", allowed.join(", ")),
            ));
        }
        match e["percentage"].as_i64() {
            Some(n) if (min..=900).contains(&n) => {}
            _ => {
                return Err(item_error(
                    i,
                    "rangeError",
                    "INVALID_ARGUMENT",
                    format!("percentage of {p} must be a whole number from {min} to 900"),
                    None,
                ));
            }
        }
    }
    Ok(())
}

pub fn missing(i: usize, field: &str) -> Value {
    item_error(
        i,
        "missingValueError",
        "MISSING_VALUE",
        format!("{field} is required"),
        None,
    )
}

pub fn invalid(i: usize, message: impl Into<String>) -> Value {
    item_error(
        i,
        "malformedValueError",
        "INVALID_ARGUMENT",
        message.into(),
        None,
    )
}

/// Checks an item carries every field of `fields`.
pub fn require(i: usize, item: &Value, fields: &[&str]) -> Result<(), Value> {
    match fields
        .iter()
        .find(|f| item.get(**f).is_none_or(Value::is_null))
    {
        Some(f) => Err(missing(i, f)),
        None => Ok(()),
    }
}

/// The entity `id` of `kind`, or the item's not-found error.
pub fn parent(sim: &Sim, p: i64, i: usize, kind: &Kind, id: &Value) -> Result<Value, Value> {
    let id = s(id);
    let id = id.as_str().unwrap_or("");
    kind.get(sim, p, id).ok().flatten().ok_or_else(|| {
        item_error(
            i,
            "entityNotFoundError",
            "ENTITY_NOT_FOUND",
            format!("no {} {id}", kind.singular),
            Some((kind.error_type, id)),
        )
    })
}

/// A new id from sequence `name`.
pub fn new_id(sim: &Sim, i: usize, name: &str, start: i64) -> Result<String, Value> {
    sim.store
        .next(name, start)
        .map(|n| n.to_string())
        .map_err(|_| invalid(i, "could not allocate an id"))
}

fn start(
    sim: &Sim,
    c: &Caller,
    headers: &HeaderMap,
    bytes: &[u8],
    media_type: &str,
) -> Result<(i64, Value), SimError> {
    // the entity APIs answer every refusal as { code, message }
    let entity = |e: SimError| e.for_family(Family::AdsEntity);
    media(headers, media_type).map_err(entity)?;
    let p = profile(sim, c, headers).map_err(entity)?;
    let b = if bytes.is_empty() {
        json!({})
    } else {
        body(bytes).map_err(entity)?
    };
    Ok((p, b))
}

fn items<'a>(sf: &Surface, b: &'a Value) -> Result<&'a Vec<Value>, SimError> {
    let kind = sf.kind;
    let list = b[kind.plural].as_array().ok_or_else(|| {
        SimError::new(400, "400", format!("{} must be an array", kind.plural))
            .for_family(Family::AdsEntity)
    })?;
    if list.is_empty() || list.len() > sf.max_items {
        return Err(SimError::new(
            400,
            "400",
            format!("{} must hold 1 to {} items", kind.plural, sf.max_items),
        )
        .for_family(Family::AdsEntity));
    }
    Ok(list)
}

/// Runs `make` over each item, stores the successes, answers 207.
pub fn apply(
    kind: &Kind,
    media_type: &'static str,
    sim: &Sim,
    p: i64,
    list: &[Value],
    make: impl Fn(usize, &Value) -> Result<Value, Value>,
) -> Result<Response, SimError> {
    let mut ok = Vec::new();
    let mut errors = Vec::new();
    for (i, item) in list.iter().enumerate() {
        match make(i, item) {
            Ok(v) => {
                kind.put(sim, p, &v)?;
                ok.push((i, v));
            }
            Err(e) => errors.push(e),
        }
    }
    Ok(answer(207, media_type, &bulk(kind, ok, errors)))
}

/// An update of an existing entity: only `fields` may change, each replacing the whole value.
pub fn changed(
    kind: &Kind,
    sim: &Sim,
    p: i64,
    i: usize,
    item: &Value,
    fields: &[&str],
    needs: &[&str],
) -> Result<Value, Value> {
    let id = s(&item[kind.id_field]);
    let id = id.as_str().ok_or_else(|| missing(i, kind.id_field))?;
    require(i, item, needs)?;
    let mut current = kind.get(sim, p, id).ok().flatten().ok_or_else(|| {
        item_error(
            i,
            "entityNotFoundError",
            "ENTITY_NOT_FOUND",
            format!("{} {id} not found", kind.singular),
            Some((kind.error_type, id)),
        )
    })?;
    for n in needs {
        if s(&item[*n]) != s(&current[*n]) {
            return Err(invalid(
                i,
                format!("{n} does not match the {}'s", kind.singular),
            ));
        }
    }
    if current["state"] == "ARCHIVED" {
        return Err(item_error(
            i,
            "entityStateError",
            "ARCHIVED_ENTITY_CANNOT_BE_MODIFIED",
            format!("{} {id} is archived", kind.singular),
            Some((kind.error_type, id)),
        ));
    }
    for f in fields {
        if let Some(v) = item.get(*f).filter(|v| !v.is_null()) {
            match *f {
                "state" => check_state(i, v)?,
                "bid" => check_bid(i, v)?,
                "dynamicBidding" => check_modifiers(i, v, false)?,
                "bidding" => check_modifiers(i, v, true)?,
                _ => {}
            }
            current[*f] = v.clone();
        }
    }
    Ok(current)
}

async fn list(
    sf: &'static Surface,
    sim: Arc<Sim>,
    c: Caller,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, sf.media)?;
    Ok(answer(200, sf.media, &sf.kind.list(&sim, p, &body)?))
}

async fn create(
    sf: &'static Surface,
    sim: Arc<Sim>,
    c: Caller,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, sf.media)?;
    apply(sf.kind, sf.media, &sim, p, items(sf, &body)?, |i, item| {
        (sf.create)(&sim, p, i, item)
    })
}

async fn update(
    sf: &'static Surface,
    sim: Arc<Sim>,
    c: Caller,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, sf.media)?;
    apply(sf.kind, sf.media, &sim, p, items(sf, &body)?, |i, item| {
        changed(sf.kind, &sim, p, i, item, sf.updatable, sf.update_needs)
    })
}

async fn archive(
    sf: &'static Surface,
    sim: Arc<Sim>,
    c: Caller,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    let (p, body) = start(&sim, &c, &h, &b, sf.media)?;
    let kind = sf.kind;
    let ids: Vec<String> = body[format!("{}Filter", kind.id_field)]["include"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|v| s(v).as_str().unwrap_or("").to_owned())
                .collect()
        })
        .unwrap_or_default();
    if ids.is_empty() || ids.len() > sf.max_items {
        return Err(SimError::new(
            400,
            "400",
            format!(
                "{}Filter.include must name 1 to {} ids",
                kind.id_field, sf.max_items
            ),
        )
        .for_family(Family::AdsEntity));
    }
    let list: Vec<Value> = ids
        .iter()
        .map(|id| json!({ (kind.id_field): id }))
        .collect();
    apply(kind, sf.media, &sim, p, &list, |i, item| {
        let mut v = changed(kind, &sim, p, i, item, &[], &[])?;
        v["state"] = "ARCHIVED".into();
        Ok(v)
    })
}

/// The four routes of each surface.
pub fn routes(sim: &Arc<Sim>, surfaces: &'static [Surface]) -> Router<Arc<Sim>> {
    let mut r = Router::new();
    for sf in surfaces {
        let [l, c, u, d] = sf.ops;
        r = r
            .route(
                &format!("{}/list", sf.path),
                op(
                    sim,
                    l,
                    post(move |State(s), Extension(who), h, b| list(sf, s, who, h, b)),
                ),
            )
            .route(
                sf.path,
                op(
                    sim,
                    c,
                    post(move |State(s), Extension(who), h, b| create(sf, s, who, h, b)),
                )
                .merge(op(
                    sim,
                    u,
                    put(move |State(s), Extension(who), h, b| update(sf, s, who, h, b)),
                )),
            )
            .route(
                &format!("{}/delete", sf.path),
                op(
                    sim,
                    d,
                    post(move |State(s), Extension(who), h, b| archive(sf, s, who, h, b)),
                ),
            );
    }
    r
}
