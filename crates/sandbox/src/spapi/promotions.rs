//! Seller promotions 2025-12-01, from the world's promotion events: `searchPromotions`,
//! `getPromotion` and `getSelection`. The provider's paging quirks are kept: a search page in
//! three comes back empty mid-stream (with a `nextToken`), `totalResults` counts a record no
//! page returns, `getSelection` needs the selection's `revisionId`, and a vendor gets 403.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use chrono::NaiveDate;
use serde_json::{Value, json};

use super::q::{Q, offset, seller_in, token};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

// The model has no usage plan; the sandbox uses a modest one.
static SEARCH: Op = Op {
    name: "promotions.searchPromotions",
    family: Family::Sp,
    rate: 1.0,
    burst: 10.0,
    error_media: None,
};
static GET: Op = Op {
    name: "promotions.getPromotion",
    family: Family::Sp,
    rate: 1.0,
    burst: 10.0,
    error_media: None,
};
static SELECTION: Op = Op {
    name: "promotions.getSelection",
    family: Family::Sp,
    rate: 1.0,
    burst: 10.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/promotions/2025-12-01/promotions",
            op(sim, &SEARCH, get(search)),
        )
        .route(
            "/promotions/2025-12-01/promotions/{promotionId}",
            op(sim, &GET, get(one)),
        )
        .route(
            "/promotions/2025-12-01/promotions/{promotionId}/selections/{selectionId}",
            op(sim, &SELECTION, get(selection)),
        )
}

/// One promotion of the world, with what the API shows of it.
struct Promo {
    id: String,
    seller_id: i64,
    marketplace: String,
    kind: String,
    title: String,
    start: NaiveDate,
    end: NaiveDate,
    discount: f64,
    /// Two revisions (an edit in progress) for every fourth promotion.
    revisions: i64,
    items: Vec<(String, Option<String>)>,
}

fn promos(sim: &Sim, c: &Caller) -> Result<Vec<Promo>, SimError> {
    let rows = sim.world().seller_rows(&c.subject)?;
    if rows.first().is_some_and(|s| s.account_type == "vendor") {
        return Err(SimError::new(403, "Unauthorized", "Access to requested resource is denied.")
            .with_details("Seller promotions are available to selling partners with a seller account; this is a vendor."));
    }
    let mut out = Vec::new();
    for (i, e) in sim
        .world()
        .events
        .iter()
        .enumerate()
        .filter(|(_, e)| e["kind"] == "promotion")
    {
        let Some(seller) = rows.iter().find(|s| Some(s.id) == e["seller_id"].as_i64()) else {
            continue;
        };
        let brand = e["brand"].as_str().unwrap_or_default();
        let items = sim
            .world()
            .rows(
                "SELECT c.ASIN, c.SKU FROM catalog_item c JOIN brand b ON b.Name = c.Brand WHERE c.SellerID = ?1 AND b.Slug = ?2 ORDER BY c.ASIN",
                &[&seller.id, &brand],
            )?
            .into_iter()
            .map(|r| (r["ASIN"].as_str().unwrap_or_default().to_owned(), r["SKU"].as_str().map(str::to_owned)))
            .collect();
        let kind = e["promotion_type"].as_str().unwrap_or("DEAL").to_owned();
        let start: NaiveDate = e["start"]
            .as_str()
            .and_then(|s| s.parse().ok())
            .unwrap_or_default();
        out.push(Promo {
            id: format!("5f0c{:04x}-1d2e-4a3b-8c4d-{:012x}", seller.id, i),
            seller_id: seller.id,
            marketplace: seller.marketplace_id.clone(),
            title: format!(
                "{} {} {}",
                brand,
                kind.to_lowercase().replace('_', " "),
                start
            ),
            kind,
            start,
            end: e["end"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .unwrap_or_default(),
            discount: e["discount_pct"].as_f64().unwrap_or(10.0),
            revisions: if i % 4 == 3 { 2 } else { 1 },
            items,
        });
    }
    Ok(out)
}

fn status(sim: &Sim, p: &Promo) -> &'static str {
    let today = sim.world().today();
    if p.end < today {
        "EXPIRED"
    } else if p.start > today {
        "UPCOMING"
    } else {
        "RUNNING"
    }
}

fn summary(sim: &Sim, p: &Promo) -> Value {
    let mut v = json!({
        "promotionId": p.id,
        "trackingId": format!("v{}-{}", p.start.format("%Y"), p.id),
        "marketplaceId": p.marketplace,
        "promotionType": p.kind,
        "promotionTitle": p.title,
        "status": status(sim, p),
        "createdDate": format!("{}T10:00:00.000Z", p.start - chrono::Days::new(14)),
        "lastUpdatedDate": format!("{}T10:00:00.000Z", p.start - chrono::Days::new(7)),
        "schedule": { "startDate": format!("{}T00:00:00-08:00", p.start), "endDate": format!("{}T23:59:59-08:00", p.end) },
        "selection": { "selectionId": format!("sel-{}", p.id), "revisionId": p.revisions, "type": "ITEMS" },
    });
    if p.revisions > 1 {
        // an edit in progress: the latest revision mirrors the promotion with its changes
        let mut latest = v.clone();
        if let Some(o) = latest.as_object_mut() {
            o.remove("status");
        }
        latest["revisionStatus"] = "PROCESSING".into();
        latest["promotionTitle"] = format!("{} (edited)", p.title).into();
        latest["lastUpdatedDate"] =
            format!("{}T10:00:00.000Z", p.start - chrono::Days::new(1)).into();
        v["selection"]["revisionId"] = (p.revisions - 1).into();
        v["latestRevision"] = latest;
    }
    v
}

fn iso_day(q: &Q, k: &str) -> Result<Option<NaiveDate>, SimError> {
    match q.get(k) {
        None => Ok(None),
        Some(s) => chrono::DateTime::parse_from_rfc3339(s)
            .map(|d| Some(d.date_naive()))
            .map_err(|_| SimError::invalid(format!("{k} must be an ISO 8601 date-time with a time zone offset, e.g. 2026-01-01T00:00:00-08:00"))),
    }
}

async fn search(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let all = promos(&sim, &c)?;
    let seller = q.seller(&sim, &c, "marketplaceIds")?;
    let limit = q.int("limit", 1, 100, 20)? as usize;
    let (asins, skus) = (q.list("asins"), q.list("skus"));
    if asins.len() > 10 || skus.len() > 10 {
        return Err(SimError::invalid(
            "asins and skus take at most 10 values each",
        ));
    }
    if let Some(r) = q.get("revision")
        && !["LIVE", "LATEST", "ANY"].contains(&r)
    {
        return Err(SimError::invalid("revision must be LIVE, LATEST or ANY"));
    }
    let (sa, sb, ea, eb) = (
        iso_day(&q, "startDateAfter")?,
        iso_day(&q, "startDateBefore")?,
        iso_day(&q, "endDateAfter")?,
        iso_day(&q, "endDateBefore")?,
    );
    let (statuses, types) = (q.list("statuses"), q.list("promotionTypes"));
    let matching: Vec<&Promo> = all
        .iter()
        .filter(|p| p.seller_id == seller.id)
        .filter(|p| statuses.is_empty() || statuses.iter().any(|s| s == status(&sim, p)))
        .filter(|p| types.is_empty() || types.contains(&p.kind))
        .filter(|p| asins.is_empty() || p.items.iter().any(|(a, _)| asins.contains(a)))
        .filter(|p| {
            skus.is_empty()
                || p.items
                    .iter()
                    .any(|(_, s)| s.as_ref().is_some_and(|s| skus.contains(s)))
        })
        .filter(|p| sa.is_none_or(|d| p.start >= d) && sb.is_none_or(|d| p.start <= d))
        .filter(|p| ea.is_none_or(|d| p.end >= d) && eb.is_none_or(|d| p.end <= d))
        .collect();
    // page k covers items from `start`; every third page (k % 3 == 1) comes back empty
    let (page_no, start) = match q.get("paginationToken") {
        None => (0, 0),
        Some(t) => {
            let packed = offset("pr.", t)?;
            (packed / 100_000, packed % 100_000)
        }
    };
    let empty = page_no % 3 == 1;
    let take = if empty { 0 } else { limit };
    let page: Vec<Value> = matching
        .iter()
        .skip(start)
        .take(take)
        .map(|p| summary(&sim, p))
        .collect();
    let next = start + take;
    let mut out = json!({
        // one record is "cannot be returned": the total counts it, no page holds it
        "totalResults": if matching.is_empty() { 0 } else { matching.len() + 1 },
        "promotions": page,
    });
    if next < matching.len() {
        out["pagination"] = json!({ "nextToken": token("pr.", (page_no + 1) * 100_000 + next) });
    }
    Ok(Json(out))
}

fn find<'a>(all: &'a [Promo], id: &str) -> Result<&'a Promo, SimError> {
    all.iter()
        .find(|p| p.id == id)
        .ok_or_else(|| SimError::not_found(format!("Promotion {id} not found")))
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let all = promos(&sim, &c)?;
    let p = find(&all, &id)?;
    seller_in(&sim, &c, &p.marketplace)?;
    Ok(Json(summary(&sim, p)))
}

async fn selection(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((id, sel)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let all = promos(&sim, &c)?;
    let p = find(&all, &id)?;
    if sel != format!("sel-{}", p.id) {
        return Err(SimError::not_found(format!("Selection {sel} not found")));
    }
    let rev: i64 = q
        .required("revisionId")?
        .parse()
        .map_err(|_| SimError::invalid("revisionId must be a whole number"))?;
    if rev < 1 || rev > p.revisions {
        return Err(SimError::not_found(format!(
            "Revision {rev} of selection {sel} not found"
        )));
    }
    let limit = q.int("limit", 1, 100, 20)? as usize;
    let start = q
        .get("paginationToken")
        .map(|t| offset("ps.", t))
        .transpose()?
        .unwrap_or(0);
    let items: Vec<Value> = p
        .items
        .iter()
        .skip(start)
        .take(limit)
        .map(|(asin, sku)| {
            let mut it = json!({
                "asin": asin,
                "benefit": { "type": "DISCOUNTED_PRICE", "discount": { "type": "PERCENTAGE_OFF", "percentOff": p.discount } },
                "budget": { "type": "UNITS", "value": 100 },
            });
            if let Some(s) = sku {
                it["sku"] = s.clone().into();
            }
            it
        })
        .collect();
    let mut details = json!({ "items": items });
    if start + limit < p.items.len() {
        details["pagination"] = json!({ "nextToken": token("ps.", start + limit) });
    }
    Ok(Json(
        json!({ "selection": { "selectionId": sel, "revisionId": rev, "type": "ITEMS", "selectionDetails": details } }),
    ))
}
