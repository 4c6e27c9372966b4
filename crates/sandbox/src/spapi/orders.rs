//! Orders v0 (`getOrders`, `getOrder`, `getOrderItems`), derived from the world's daily sales:
//! each day's order items for an ASIN become orders of that ASIN, their units spread over
//! them, at that day's price. Order ids carry seller, day, ASIN and number, so an order can be
//! read back without a table. `getOrders` pages with `NextToken`, which carries the query.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use chrono::{NaiveDate, NaiveDateTime};
use serde_json::{Map, Value, json};

use super::q::{Q, seller_in};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;
use crate::world::Seller;

static ORDERS: Op = Op {
    name: "orders.getOrders",
    family: Family::Sp,
    rate: 0.0167,
    burst: 20.0,
    error_media: None,
};
static ORDER: Op = Op {
    name: "orders.getOrder",
    family: Family::Sp,
    rate: 0.5,
    burst: 30.0,
    error_media: None,
};
static ITEMS: Op = Op {
    name: "orders.getOrderItems",
    family: Family::Sp,
    rate: 0.5,
    burst: 30.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route("/orders/v0/orders", op(sim, &ORDERS, get(list)))
        .route("/orders/v0/orders/{orderId}", op(sim, &ORDER, get(one)))
        .route(
            "/orders/v0/orders/{orderId}/orderItems",
            op(sim, &ITEMS, get(items)),
        )
}

fn epoch() -> NaiveDate {
    NaiveDate::from_ymd_opt(2020, 1, 1).unwrap_or_default()
}

/// One derived order.
pub(crate) struct Order {
    pub id: String,
    pub seller: Seller,
    pub day: NaiveDate,
    pub asin: String,
    pub sku: Option<String>,
    pub title: String,
    pub units: i64,
    pub price: f64,
}

/// The day's (ASIN, SKU, title, units, order items, price) rows of a seller, by ASIN.
fn day_rows(
    sim: &Sim,
    seller: &Seller,
    day: NaiveDate,
) -> Result<Vec<Map<String, Value>>, SimError> {
    sim.world().rows(
        "SELECT s.ChildASIN, s.SKU, c.Title, s.UnitsOrdered, s.TotalOrderItems, s.ItemPrice FROM spapi_sales_and_traffic_by_asin s
         LEFT JOIN catalog_item c ON c.SellerID = s.SellerID AND c.ASIN = s.ChildASIN
         WHERE s.SellerID = ?1 AND s.Date = ?2 ORDER BY s.ChildASIN",
        &[&seller.id, &day.to_string()],
    )
}

pub(crate) fn orders_of_day(
    sim: &Sim,
    seller: &Seller,
    day: NaiveDate,
) -> Result<Vec<Order>, SimError> {
    let mut out = Vec::new();
    for (rank, r) in day_rows(sim, seller, day)?.iter().enumerate() {
        let (n, units) = (
            r["TotalOrderItems"].as_i64().unwrap_or(0),
            r["UnitsOrdered"].as_i64().unwrap_or(0),
        );
        for k in 0..n {
            out.push(Order {
                id: format!(
                    "{:03}-{:07}-{:03}{:04}",
                    seller.id,
                    (day - epoch()).num_days(),
                    rank,
                    k
                ),
                seller: seller.clone(),
                day,
                asin: r["ChildASIN"].as_str().unwrap_or_default().to_owned(),
                sku: r["SKU"].as_str().map(str::to_owned),
                title: r["Title"].as_str().unwrap_or_default().to_owned(),
                units: units / n + i64::from(k < units % n),
                price: r["ItemPrice"].as_f64().unwrap_or(0.0),
            });
        }
    }
    Ok(out)
}

pub(crate) fn purchase_time(o: &Order) -> String {
    let minutes =
        o.id.bytes()
            .fold(0u32, |a, b| a.wrapping_mul(31).wrapping_add(b as u32))
            % 1440;
    format!("{}T{:02}:{:02}:00Z", o.day, minutes / 60, minutes % 60)
}

fn shape(sim: &Sim, o: &Order) -> Value {
    let shipped = o.day < sim.world().last_day;
    let total = (o.price * o.units as f64 * 100.0).round() / 100.0;
    json!({
        "AmazonOrderId": o.id,
        "PurchaseDate": purchase_time(o),
        "LastUpdateDate": if shipped { format!("{}T12:00:00Z", o.day.succ_opt().unwrap_or(o.day)) } else { purchase_time(o) },
        "OrderStatus": if shipped { "Shipped" } else { "Unshipped" },
        "FulfillmentChannel": "AFN",
        "SalesChannel": super::marketplace(&o.seller.marketplace_id).map(|m| m.name).unwrap_or("Amazon"),
        "ShipServiceLevel": "Std US D2D Dom",
        "OrderTotal": { "CurrencyCode": o.seller.currency, "Amount": format!("{total:.2}") },
        "NumberOfItemsShipped": if shipped { o.units } else { 0 },
        "NumberOfItemsUnshipped": if shipped { 0 } else { o.units },
        "PaymentMethod": "Other",
        "MarketplaceId": o.seller.marketplace_id,
        "OrderType": "StandardOrder",
        "IsBusinessOrder": false,
        "IsPrime": true,
        "IsPremiumOrder": false,
        "IsGlobalExpressEnabled": false,
        "IsReplacementOrder": false,
        "IsSoldByAB": false,
        "IsISPU": false,
    })
}

fn day_of(q: &Q, k: &str) -> Result<Option<NaiveDate>, SimError> {
    match q.get(k) {
        None => Ok(None),
        Some(s) => chrono::DateTime::parse_from_rfc3339(s)
            .map(|d| d.date_naive())
            .or_else(|_| NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S").map(|d| d.date()))
            .or_else(|_| s.parse::<NaiveDate>())
            .map(Some)
            .map_err(|_| SimError::invalid(format!("{k} must be an ISO 8601 date-time"))),
    }
}

async fn list(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let seller = q.seller(&sim, &c, "MarketplaceIds")?;
    let (after, before, offset, page, statuses) = match q.get("NextToken") {
        Some(t) => {
            let raw = hex::decode(t)
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| SimError::invalid("Invalid NextToken"))?;
            let p: Vec<&str> = raw.split('|').collect();
            let parse = |s: &str| {
                s.parse::<NaiveDate>()
                    .map_err(|_| SimError::invalid("Invalid NextToken"))
            };
            if p.len() != 5 {
                return Err(SimError::invalid("Invalid NextToken"));
            }
            (
                parse(p[0])?,
                parse(p[1])?,
                p[2].parse().unwrap_or(0),
                p[3].parse().unwrap_or(100),
                p[4].split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            )
        }
        None => {
            let created = day_of(&q, "CreatedAfter")?;
            let updated = day_of(&q, "LastUpdatedAfter")?;
            let after = match (created, updated) {
                (Some(_), Some(_)) => {
                    return Err(SimError::invalid(
                        "Send CreatedAfter or LastUpdatedAfter, not both",
                    ));
                }
                (None, None) => {
                    return Err(SimError::invalid(
                        "CreatedAfter or LastUpdatedAfter is required",
                    ));
                }
                (Some(d), None) | (None, Some(d)) => d,
            };
            let before = day_of(&q, "CreatedBefore")?
                .or(day_of(&q, "LastUpdatedBefore")?)
                .unwrap_or(sim.world().last_day)
                .min(sim.world().last_day);
            (
                after,
                before,
                0usize,
                q.int("MaxResultsPerPage", 1, 100, 100)? as usize,
                q.list("OrderStatuses"),
            )
        }
    };
    let mut orders = Vec::new();
    let mut day = after;
    // walk days until the page is full, skipping `offset` orders
    let mut skipped = 0usize;
    while day <= before && orders.len() <= page {
        for o in orders_of_day(&sim, &seller, day)? {
            let status = if o.day < sim.world().last_day {
                "Shipped"
            } else {
                "Unshipped"
            };
            if !statuses.is_empty() && !statuses.iter().any(|s| s == status) {
                continue;
            }
            if skipped < offset {
                skipped += 1;
                continue;
            }
            orders.push(o);
        }
        day = day.succ_opt().unwrap_or(day);
    }
    let more = orders.len() > page;
    orders.truncate(page);
    let mut payload = json!({ "Orders": orders.iter().map(|o| shape(&sim, o)).collect::<Vec<_>>(), "CreatedBefore": format!("{before}T23:59:59Z") });
    if more {
        let token = format!(
            "{after}|{before}|{}|{page}|{}",
            offset + page,
            statuses.join(",")
        );
        payload["NextToken"] = hex::encode(token).into();
    }
    Ok(Json(json!({ "payload": payload })))
}

fn find(sim: &Sim, c: &Caller, id: &str) -> Result<Order, SimError> {
    let missing = || SimError::not_found(format!("Order {id} not found"));
    let parts: Vec<&str> = id.split('-').collect();
    if parts.len() != 3 || parts[2].len() != 7 {
        return Err(missing());
    }
    let seller_id: i64 = parts[0].parse().map_err(|_| missing())?;
    let days: i64 = parts[1].parse().map_err(|_| missing())?;
    let seller = sim
        .world()
        .seller_rows(&c.subject)?
        .into_iter()
        .find(|s| s.id == seller_id)
        .ok_or_else(missing)?;
    seller_in(sim, c, &seller.marketplace_id)?;
    let day = epoch() + chrono::Days::new(days.max(0) as u64);
    orders_of_day(sim, &seller, day)?
        .into_iter()
        .find(|o| o.id == id)
        .ok_or_else(missing)
}

async fn one(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let o = find(&sim, &c, &id)?;
    Ok(Json(json!({ "payload": shape(&sim, &o) })))
}

async fn items(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let o = find(&sim, &c, &id)?;
    let total = format!("{:.2}", (o.price * o.units as f64 * 100.0).round() / 100.0);
    let mut item = json!({
        "ASIN": o.asin, "OrderItemId": o.id.replace('-', ""), "Title": o.title,
        "QuantityOrdered": o.units, "QuantityShipped": if o.day < sim.world().last_day { o.units } else { 0 },
        "ItemPrice": { "CurrencyCode": o.seller.currency, "Amount": total },
        "ItemTax": { "CurrencyCode": o.seller.currency, "Amount": "0.00" },
        "PromotionDiscount": { "CurrencyCode": o.seller.currency, "Amount": "0.00" },
        "IsGift": "false", "ConditionId": "New", "ConditionSubtypeId": "New", "IsTransparency": false, "SerialNumberRequired": false,
    });
    if let Some(sku) = &o.sku {
        item["SellerSKU"] = sku.clone().into();
    }
    Ok(Json(
        json!({ "payload": { "AmazonOrderId": o.id, "OrderItems": [item] } }),
    ))
}
