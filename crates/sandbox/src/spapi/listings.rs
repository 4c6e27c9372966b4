//! Listings items 2021-08-01: `getListingsItem`, `patchListingsItem` and `putListingsItem`,
//! each write checked against the `PRODUCT` attributes and, with `mode=VALIDATION_PREVIEW`,
//! answered `VALID`/`INVALID` without applying anything. An applied write is what the next
//! read serves, except images: an image slot's change is processed for `report_ms` first
//! (the read keeps the old image meanwhile), then shows, or, when its `media_location` is not
//! an https JPEG/PNG/TIFF, leaves the slot as it was and adds an `ERROR` listing issue.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Map, Value, json};

use super::definitions::{ATTRIBUTES, PRODUCT_TYPE};
use super::q::{Q, seller_in};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;
use crate::store::random_hex;
use crate::world::Seller;

static GET: Op = Op {
    name: "listingsItems.getListingsItem",
    family: Family::Sp,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};
static PATCH: Op = Op {
    name: "listingsItems.patchListingsItem",
    family: Family::Sp,
    rate: 5.0,
    burst: 5.0,
    error_media: None,
};
static PUT: Op = Op {
    name: "listingsItems.putListingsItem",
    family: Family::Sp,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new().route(
        "/listings/2021-08-01/items/{sellerId}/{sku}",
        op(sim, &GET, get(read))
            .merge(op(sim, &PATCH, axum::routing::patch(patch)))
            .merge(op(sim, &PUT, axum::routing::put(put))),
    )
}

/// The listing: the world's catalog row in the provider's shape, or what a write left.
struct Listing {
    key: String,
    asin: String,
    /// As a read shows them (image changes still processing are not in yet).
    attributes: Map<String, Value>,
    /// Image changes still processing: `{ attribute, value, readyMs }`.
    pending: Vec<Value>,
    /// The listing's issues (an image that could not be processed leaves one).
    issues: Vec<Value>,
    created: String,
}

/// Whether `name` is one of the image slots (applied asynchronously).
fn is_image(name: &str) -> bool {
    name.ends_with("_image_locator") || name.contains("_image_locator_")
}

/// Whether an image value points at something the image pipeline can process.
fn processable(value: &Value) -> bool {
    value.as_array().is_some_and(|a| {
        !a.is_empty()
            && a.iter().all(|v| {
                v["media_location"].as_str().is_some_and(|u| {
                    let u = u.to_ascii_lowercase();
                    u.starts_with("https://")
                        && [".jpg", ".jpeg", ".png", ".tif", ".tiff"]
                            .iter()
                            .any(|e| u.ends_with(e))
                })
            })
    })
}

/// Moves image changes whose processing has ended into the attributes, or into an issue.
fn settle_media(l: &mut Listing, now: i64) {
    let (done, waiting): (Vec<Value>, Vec<Value>) = std::mem::take(&mut l.pending)
        .into_iter()
        .partition(|p| p["readyMs"].as_i64().unwrap_or(0) <= now);
    l.pending = waiting;
    for p in done {
        let name = p["attribute"].as_str().unwrap_or_default().to_owned();
        if processable(&p["value"]) {
            l.attributes.insert(name, p["value"].clone());
        } else {
            let mut i = issue(
                "18027",
                format!(
                    "The image for '{name}' could not be processed: it must be an https link to a JPEG, PNG or TIFF file"
                ),
                Some(&name),
            );
            i["categories"] = json!(["INVALID_IMAGE"]);
            l.issues.push(i);
        }
    }
}

fn text(v: &Value, m: &str) -> Value {
    json!([{ "value": v, "language_tag": "en_US", "marketplace_id": m }])
}

fn load(
    sim: &Sim,
    c: &Caller,
    seller_id: &str,
    sku: &str,
    market: &Seller,
) -> Result<Listing, SimError> {
    if seller_id != c.subject {
        return Err(SimError::new(
            403,
            "Unauthorized",
            "Access to requested resource is denied.",
        )
        .with_details("sellerId is not the authorizing selling partner"));
    }
    let rows = sim.world().rows(
        "SELECT ASIN, SKU, Brand, Title, ListPrice, LaunchDate FROM catalog_item WHERE SellerID = ?1 AND SKU = ?2",
        &[&market.id, &sku],
    )?;
    let r = rows.first().ok_or_else(|| {
        SimError::not_found(format!(
            "SKU '{sku}' not found in marketplace {}",
            market.marketplace_id
        ))
    })?;
    let key = format!("{}/{}/{}", c.subject, market.marketplace_id, sku);
    let m = market.marketplace_id.as_str();
    let stored: Option<String> = sim.store.with(|conn| {
        conn.query_row(
            "SELECT body FROM entities WHERE kind = 'listing' AND id = ?1",
            [&key],
            |row| row.get(0),
        )
        .map(Some)
        .or_else(|e| {
            if matches!(e, rusqlite::Error::QueryReturnedNoRows) {
                Ok(None)
            } else {
                Err(e)
            }
        })
    })?;
    let stored = stored.and_then(|s| serde_json::from_str::<Value>(&s).ok());
    let (pending, issues) = match &stored {
        Some(v) => (
            v["pending"].as_array().cloned().unwrap_or_default(),
            v["issues"].as_array().cloned().unwrap_or_default(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let attributes = match stored.map(|mut v| v["attributes"].take()) {
        Some(Value::Object(a)) => a,
        _ => {
            let mut a = Map::new();
            a.insert("item_name".into(), text(&r["Title"], m));
            a.insert("brand".into(), text(&r["Brand"], m));
            a.insert(
                "bullet_point".into(),
                text(
                    &format!(
                        "{} by {}",
                        r["Title"].as_str().unwrap_or(""),
                        r["Brand"].as_str().unwrap_or("")
                    )
                    .into(),
                    m,
                ),
            );
            a.insert("list_price".into(), json!([{ "value": r["ListPrice"], "currency": market.currency, "marketplace_id": m }]));
            a.insert(
                "main_product_image_locator".into(),
                json!([{ "media_location": format!("https://m.media-amazon.example/images/I/{}.jpg", r["ASIN"].as_str().unwrap_or("")), "marketplace_id": m }]),
            );
            a
        }
    };
    let mut l = Listing {
        key,
        asin: r["ASIN"].as_str().unwrap_or_default().to_owned(),
        attributes,
        pending,
        issues,
        created: format!(
            "{}T00:00:00Z",
            r["LaunchDate"].as_str().unwrap_or("2024-01-01")
        ),
    };
    settle_media(&mut l, crate::reports::now_ms());
    Ok(l)
}

fn issue(code: &str, message: String, attribute: Option<&str>) -> Value {
    let mut i = json!({ "code": code, "message": message, "severity": "ERROR", "categories": ["INVALID_ATTRIBUTE"] });
    if let Some(a) = attribute {
        i["attributeNames"] = json!([a]);
    }
    i
}

/// Problems with a set of attributes.
fn check(attrs: &Map<String, Value>, full: bool) -> Vec<Value> {
    let mut issues = Vec::new();
    for (name, value) in attrs {
        if !ATTRIBUTES.iter().any(|(n, _)| n == name) {
            issues.push(issue(
                "90220",
                format!("'{name}' is not an attribute of product type {PRODUCT_TYPE}"),
                Some(name),
            ));
        } else if !value.is_array() {
            issues.push(issue(
                "4000001",
                format!("'{name}' must be an array of values"),
                Some(name),
            ));
        } else if name == "item_name"
            && value[0]["value"]
                .as_str()
                .is_some_and(|s| s.chars().count() > 200)
        {
            issues.push(issue(
                "8541",
                "item_name is longer than 200 characters".into(),
                Some(name),
            ));
        }
    }
    if full {
        for (name, required) in ATTRIBUTES {
            if *required && !attrs.contains_key(*name) {
                let mut i = issue(
                    "90000900",
                    format!("'{name}' is required but not supplied"),
                    Some(name),
                );
                i["categories"] = json!(["MISSING_ATTRIBUTE"]);
                issues.push(i);
            }
        }
    }
    issues
}

fn item(l: &Listing, market: &Seller, q: &Q) -> Value {
    let included = q.list("includedData");
    let want = |s: &str| {
        if included.is_empty() {
            s == "summaries"
        } else {
            included.iter().any(|i| i == s)
        }
    };
    let m = &market.marketplace_id;
    let mut v = json!({ "sku": l.key.rsplit('/').next().unwrap_or_default() });
    if want("summaries") {
        v["summaries"] = json!([{
            "marketplaceId": m, "asin": l.asin, "productType": PRODUCT_TYPE, "conditionType": "new_new",
            "status": ["BUYABLE", "DISCOVERABLE"], "itemName": l.attributes["item_name"][0]["value"],
            "createdDate": l.created, "lastUpdatedDate": l.created,
        }]);
    }
    if want("attributes") {
        v["attributes"] = Value::Object(l.attributes.clone());
    }
    if want("issues") {
        v["issues"] = Value::Array(l.issues.clone());
    }
    if want("offers") {
        v["offers"] = json!([{ "marketplaceId": m, "offerType": "B2C", "price": { "currencyCode": market.currency, "amount": l.attributes["list_price"][0]["value"].to_string() } }]);
    }
    v
}

async fn read(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((seller, sku)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let market = q.seller(&sim, &c, "marketplaceIds")?;
    let l = load(&sim, &c, &seller, &sku, &market)?;
    Ok(Json(item(&l, &market, &q)))
}

/// Answers a write: `VALIDATION_PREVIEW` never applies; otherwise a clean write is stored,
/// its image slots queued for processing.
fn submit(
    sim: &Sim,
    q: &Q,
    l: &Listing,
    sku: &str,
    mut attrs: Map<String, Value>,
    issues: Vec<Value>,
) -> Result<Json<Value>, SimError> {
    let preview = match q.get("mode") {
        None => false,
        Some("VALIDATION_PREVIEW") => true,
        Some(m) => {
            return Err(SimError::invalid(format!(
                "mode {m} is not VALIDATION_PREVIEW"
            )));
        }
    };
    let ok = issues.is_empty();
    let status = match (ok, preview) {
        (false, _) => "INVALID",
        (true, true) => "VALID",
        (true, false) => "ACCEPTED",
    };
    if ok && !preview {
        let ready = crate::reports::now_ms() + sim.config.report_ms as i64;
        let mut pending: Vec<Value> = l.pending.clone();
        for (name, value) in attrs.clone() {
            if is_image(&name) && l.attributes.get(&name) != Some(&value) {
                // the read keeps the old image until processing ends
                match l.attributes.get(&name) {
                    Some(old) => attrs.insert(name.clone(), old.clone()),
                    None => attrs.remove(&name),
                };
                pending.retain(|p| p["attribute"] != name.as_str());
                pending.push(json!({ "attribute": name, "value": value, "readyMs": ready }));
            }
        }
        let body = json!({ "attributes": attrs, "pending": pending, "issues": l.issues });
        sim.store.with(|c| {
            c.execute(
                "INSERT INTO entities (kind, id, owner, body) VALUES ('listing', ?1, ?2, ?3)
                 ON CONFLICT (kind, id) DO UPDATE SET body = excluded.body",
                rusqlite::params![
                    l.key,
                    l.key.split('/').next().unwrap_or_default(),
                    body.to_string()
                ],
            )
        })?;
    }
    Ok(Json(json!({
        "sku": sku, "status": status, "submissionId": random_hex(16), "issues": issues,
        "identifiers": [{ "marketplaceId": l.key.split('/').nth(1).unwrap_or_default(), "asin": l.asin }],
    })))
}

fn body(bytes: &[u8]) -> Result<Value, SimError> {
    serde_json::from_slice(bytes).map_err(|e| SimError::invalid(format!("body: {e}")))
}

async fn patch(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((seller, sku)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    bytes: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let market = q.seller(&sim, &c, "marketplaceIds")?;
    seller_in(&sim, &c, &market.marketplace_id)?;
    let l = load(&sim, &c, &seller, &sku, &market)?;
    let b = body(&bytes)?;
    let patches = b["patches"]
        .as_array()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| SimError::invalid("patches must hold at least one operation"))?;
    let mut issues = Vec::new();
    if b["productType"] != PRODUCT_TYPE {
        issues.push(issue(
            "4000003",
            format!("productType must be {PRODUCT_TYPE}"),
            None,
        ));
    }
    let mut attrs = l.attributes.clone();
    let mut touched = Map::new();
    for p in patches {
        let name = p["path"]
            .as_str()
            .and_then(|s| s.strip_prefix("/attributes/"))
            .unwrap_or_default();
        if name.is_empty() {
            issues.push(issue(
                "4000001",
                format!("path {} must be /attributes/<name>", p["path"]),
                None,
            ));
            continue;
        }
        match p["op"].as_str() {
            Some("add" | "replace" | "merge") => {
                touched.insert(name.to_owned(), p["value"].clone());
                attrs.insert(name.to_owned(), p["value"].clone());
            }
            Some("delete") => {
                attrs.remove(name);
            }
            _ => issues.push(issue(
                "4000001",
                "op must be add, replace, merge or delete".into(),
                Some(name),
            )),
        }
    }
    issues.extend(check(&touched, false));
    submit(&sim, &q, &l, &sku, attrs, issues)
}

async fn put(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((seller, sku)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
    bytes: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let market = q.seller(&sim, &c, "marketplaceIds")?;
    let l = load(&sim, &c, &seller, &sku, &market)?;
    let b = body(&bytes)?;
    let attrs = b["attributes"]
        .as_object()
        .cloned()
        .ok_or_else(|| SimError::invalid("attributes must be an object"))?;
    let mut issues = check(&attrs, true);
    if b["productType"] != PRODUCT_TYPE {
        issues.push(issue(
            "4000003",
            format!("productType must be {PRODUCT_TYPE}"),
            None,
        ));
    }
    submit(&sim, &q, &l, &sku, attrs, issues)
}
