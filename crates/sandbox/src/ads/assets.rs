//! The creative asset library and Store pages, per profile, derived from the world's brands:
//! each brand has logos, images and videos, newest first. `POST /assets/search` returns only
//! the newest page, ignores every filter (same page, HTTP 200) and hands back a token that
//! cannot page (sending it returns the same page). `GET /pageAsins` lists a Store page's ASINs:
//! every item of the brand but its newest, which is not on the Store yet.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Extension, RawQuery, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::{answer, body, media, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

/// The asset search answers errors with a `message`, in its own media type.
static SEARCH: Op = Op {
    name: "assets.searchAssets",
    family: Family::AdsEntity,
    rate: 5.0,
    burst: 10.0,
    error_media: Some(SEARCH_MEDIA),
};
static PAGE_ASINS: Op = Op {
    name: "stores.listAsins",
    family: Family::Ads,
    rate: 5.0,
    burst: 10.0,
    error_media: None,
};

const SEARCH_MEDIA: &str = "application/vnd.creativeassetssearchassetsresponse.v3+json";
const PAGE_MEDIA: &str = "application/vnd.pageasins.v3+json";
/// Assets a search returns: the newest this many.
pub const PAGE: usize = 20;

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/assets/search", op(sim, &SEARCH, post(search)))
        .route("/pageAsins", op(sim, &PAGE_ASINS, get(page_asins)))
}

/// The brands a profile advertises.
pub fn brands(sim: &Sim, profile: i64) -> Result<Vec<String>, SimError> {
    Ok(sim
        .world()
        .rows(
            "SELECT DISTINCT Brand FROM ads_campaign WHERE ProfileID = ?1 ORDER BY Brand",
            &[&profile],
        )?
        .into_iter()
        .filter_map(|r| r["Brand"].as_str().map(str::to_owned))
        .collect())
}

fn asset_id(profile: i64, brand: &str, n: usize) -> String {
    let h = brand.bytes().fold(profile as u64, |a, b| {
        a.wrapping_mul(131).wrapping_add(b as u64)
    });
    format!("amzn1.assetlibrary.asset1.{h:016x}{n:04x}")
}

/// Every asset of the profile, newest first.
pub fn library(sim: &Sim, profile: i64) -> Result<Vec<Value>, SimError> {
    let mut out = Vec::new();
    let base = sim
        .world()
        .last_day
        .and_hms_opt(12, 0, 0)
        .unwrap_or_default()
        .and_utc()
        .timestamp_millis();
    for (b, brand) in brands(sim, profile)?.iter().enumerate() {
        for n in 0..12usize {
            let (kind, sub, meta) = match n % 4 {
                0 => (
                    "IMAGE",
                    "LOGO",
                    json!({ "contentType": "image/png", "width": 400, "height": 400, "aspectRatio": "1:1", "sizeInBytes": 40960 }),
                ),
                3 => (
                    "VIDEO",
                    "BACKGROUND_VIDEO",
                    json!({ "contentType": "mp4", "resolutionWidth": 1920, "resolutionHeight": 1080, "durationInSeconds": 15, "sizeInBytes": 8_388_608 }),
                ),
                _ => (
                    "IMAGE",
                    "PRODUCT_IMAGE",
                    json!({ "contentType": "image/jpeg", "width": 1200, "height": 628, "aspectRatio": "1.91:1", "sizeInBytes": 204_800 }),
                ),
            };
            let created = base - ((n * 7 + b) as i64) * 86_400_000;
            // spec checks are for videos: the model's programs are video placements
            let approved = if kind == "VIDEO" {
                json!(["SPONSORED_BRANDS_VIDEO", "STORES_BACKGROUND_VIDEO_TILE"])
            } else {
                json!([])
            };
            out.push(json!({
                "assetId": asset_id(profile, brand, n), "version": "version_v1", "name": format!("{brand} {} {n}", sub.to_lowercase()),
                "assetType": kind, "assetSubTypeList": [sub], "fileMetadata": meta, "tags": [brand],
                "specCheckApprovedPrograms": approved, "assetStatus": "ACTIVE",
                "creationTime": created, "lastUpdatedTime": created, "marketplaces": [],
            }));
        }
    }
    out.sort_by_key(|a| std::cmp::Reverse(a["creationTime"].as_i64().unwrap_or(0)));
    Ok(out)
}

/// The asset `id` of the profile, if it exists.
pub fn asset(sim: &Sim, profile: i64, id: &str) -> Result<Option<Value>, SimError> {
    Ok(library(sim, profile)?
        .into_iter()
        .find(|a| a["assetId"] == id))
}

/// The ASINs on `brand`'s Store page.
pub fn store_asins(sim: &Sim, profile: i64, brand: &str) -> Result<Vec<String>, SimError> {
    let mut asins: Vec<String> = sim
        .world()
        .rows(
            "SELECT c.ASIN FROM catalog_item c JOIN ads_profile p ON p.SellerID = c.SellerID WHERE p.ProfileID = ?1 AND c.Brand = ?2 ORDER BY c.LaunchDate, c.ASIN",
            &[&profile, &brand],
        )?
        .into_iter()
        .filter_map(|r| r["ASIN"].as_str().map(str::to_owned))
        .collect();
    asins.pop(); // the newest item is not on the Store yet
    Ok(asins)
}

/// The Store URL of `brand`.
pub fn store_url(brand: &str) -> String {
    format!(
        "https://www.amazon.com/stores/{}/page/{}",
        brand.replace(' ', ""),
        brand.len()
    )
}

async fn search(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: axum::body::Bytes,
) -> Result<Response, SimError> {
    media(&h, "application/json")?;
    let p = profile(&sim, &c, &h)?;
    if !b.is_empty() {
        body(&b)?; // filters, sort and page criteria are read and ignored
    }
    let all = library(&sim, p)?;
    let page: Vec<Value> = all.iter().take(PAGE).cloned().collect();
    Ok(answer(
        200,
        SEARCH_MEDIA,
        &json!({ "totalRecords": all.len(), "assetList": page, "token": format!("tk-{p}-0") }),
    ))
}

async fn page_asins(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    RawQuery(q): RawQuery,
) -> Result<Response, SimError> {
    let p = profile(&sim, &c, &h)?;
    let url: String = form_urlencoded::parse(q.unwrap_or_default().as_bytes())
        .find(|(k, _)| k == "pageUrl")
        .map(|(_, v)| v.into_owned())
        .ok_or_else(|| SimError::new(400, "400", "pageUrl is required").for_family(Family::Ads))?;
    for brand in brands(&sim, p)? {
        if store_url(&brand) == url {
            return Ok(answer(
                200,
                PAGE_MEDIA,
                &json!({ "asinList": store_asins(&sim, p, &brand)?, "pageUrl": url }),
            ));
        }
    }
    Err(SimError::new(404, "NOT_FOUND", format!("No Store page at {url}")).for_family(Family::Ads))
}
