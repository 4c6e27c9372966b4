//! FBA inbound, v0 and 2024-03-20, over shipments the world implies: the latest inventory
//! snapshot's stocked SKUs (their inbound units, else a replenishment), five SKUs to a shipment. The provider's rules are kept: v0
//! searches need a `QueryType`; a `SHIPMENT` search needs a status list or an id list; the
//! per-shipment item call returns a short list beside a `NextToken` that only `getShipmentItems`
//! (`QueryType=NEXT_TOKEN`) can follow; 2024-03-20 lists page with `paginationToken`.

use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::q::{Q, offset, seller_in, token};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

macro_rules! sp_ops {
    ($($stat:ident = $name:literal, $rate:literal, $burst:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::Sp, rate: $rate, burst: $burst, error_media: None };)*
    };
}

sp_ops! {
    SHIPMENTS = "fulfillmentInbound.getShipments", 2.0, 30.0;
    ITEMS_BY_SHIPMENT = "fulfillmentInbound.getShipmentItemsByShipmentId", 2.0, 30.0;
    ITEMS = "fulfillmentInbound.getShipmentItems", 2.0, 30.0;
    PLANS = "fulfillmentInbound.listInboundPlans", 2.0, 6.0;
    PLAN = "fulfillmentInbound.getInboundPlan", 2.0, 6.0;
    PLAN_ITEMS = "fulfillmentInbound.listInboundPlanItems", 2.0, 6.0;
    SHIPMENT = "fulfillmentInbound.getShipment", 2.0, 6.0;
    SHIPMENT_ITEMS = "fulfillmentInbound.listShipmentItems", 2.0, 30.0;
}

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/fba/inbound/v0/shipments",
            op(sim, &SHIPMENTS, get(shipments)),
        )
        .route(
            "/fba/inbound/v0/shipments/{shipmentId}/items",
            op(sim, &ITEMS_BY_SHIPMENT, get(items_by_shipment)),
        )
        .route("/fba/inbound/v0/shipmentItems", op(sim, &ITEMS, get(items)))
        .route(
            "/inbound/fba/2024-03-20/inboundPlans",
            op(sim, &PLANS, get(plans)),
        )
        .route(
            "/inbound/fba/2024-03-20/inboundPlans/{inboundPlanId}",
            op(sim, &PLAN, get(plan)),
        )
        .route(
            "/inbound/fba/2024-03-20/inboundPlans/{inboundPlanId}/items",
            op(sim, &PLAN_ITEMS, get(plan_items)),
        )
        .route(
            "/inbound/fba/2024-03-20/inboundPlans/{inboundPlanId}/shipments/{shipmentId}",
            op(sim, &SHIPMENT, get(shipment)),
        )
        .route(
            "/inbound/fba/2024-03-20/inboundPlans/{inboundPlanId}/shipments/{shipmentId}/items",
            op(sim, &SHIPMENT_ITEMS, get(shipment_items)),
        )
}

const SKUS_PER_SHIPMENT: usize = 5;
/// Items the per-shipment v0 call returns before handing out a continuation token.
const SHORT_LIST: usize = 2;
const STATUSES: &[&str] = &["WORKING", "SHIPPED", "RECEIVING", "CLOSED"];

struct Line {
    sku: String,
    asin: String,
    qty: i64,
}

struct Shipment {
    index: usize,
    v0_id: String,
    plan_id: String,
    shipment_id: String,
    status: &'static str,
    marketplace: String,
    updated: String,
    lines: Vec<Line>,
}

fn shipments_of(sim: &Sim, c: &Caller) -> Result<Vec<Shipment>, SimError> {
    let mut out = Vec::new();
    for seller in sim.world().seller_rows(&c.subject)? {
        // every stocked SKU: in-flight units when it has some, else its last replenishment
        let rows = sim.world().rows(
            "SELECT SKU, ASIN, CASE WHEN Inbound > 0 THEN Inbound ELSE MAX(12, Fulfillable / 3) END AS Inbound, Date
             FROM spapi_fba_inventory WHERE SellerID = ?1 AND SKU IS NOT NULL
             AND Date = (SELECT MAX(Date) FROM spapi_fba_inventory WHERE SellerID = ?1) ORDER BY SKU",
            &[&seller.id],
        )?;
        for (n, chunk) in rows.chunks(SKUS_PER_SHIPMENT).enumerate() {
            let index = out.len();
            let uuid = format!("{:08x}-0000-4000-8000-{:012x}", seller.id, n);
            out.push(Shipment {
                index,
                v0_id: format!("FBA{:02}{:05}X", seller.id, n),
                plan_id: format!("wf{uuid}"),
                shipment_id: format!("sh{uuid}"),
                status: STATUSES[n % STATUSES.len()],
                marketplace: seller.marketplace_id.clone(),
                updated: chunk[0]["Date"].as_str().unwrap_or_default().to_owned(),
                lines: chunk
                    .iter()
                    .map(|r| Line {
                        sku: r["SKU"].as_str().unwrap_or_default().to_owned(),
                        asin: r["ASIN"].as_str().unwrap_or_default().to_owned(),
                        qty: r["Inbound"].as_i64().unwrap_or(0),
                    })
                    .collect(),
            });
        }
    }
    Ok(out)
}

fn address(country: &str) -> Value {
    json!({ "Name": "Demo Warehouse", "AddressLine1": "1 Dock St", "City": "Reno", "StateOrProvinceCode": "NV", "CountryCode": country, "PostalCode": "89501" })
}

fn v0_shipment(s: &Shipment) -> Value {
    json!({
        "ShipmentId": s.v0_id, "ShipmentName": format!("Inbound {}", s.v0_id), "ShipFromAddress": address("US"),
        "DestinationFulfillmentCenterId": "RNO4", "ShipmentStatus": s.status, "LabelPrepType": "SELLER_LABEL",
        "AreCasesRequired": false, "BoxContentsSource": "FEED",
    })
}

fn v0_item(s: &Shipment, l: &Line) -> Value {
    let received = if s.status == "RECEIVING" {
        l.qty / 2
    } else {
        0
    };
    json!({ "ShipmentId": s.v0_id, "SellerSKU": l.sku, "FulfillmentNetworkSKU": format!("X00{}", l.asin.get(3..).unwrap_or("")), "QuantityShipped": l.qty, "QuantityReceived": received, "QuantityInCase": 0 })
}

fn query_type<'a>(q: &'a Q, allowed: &[&str]) -> Result<&'a str, SimError> {
    let t = q.get("QueryType").ok_or_else(|| {
        SimError::invalid(format!(
            "QueryType is required: one of {}",
            allowed.join(", ")
        ))
    })?;
    if !allowed.contains(&t) {
        return Err(SimError::invalid(format!(
            "QueryType must be one of {}",
            allowed.join(", ")
        )));
    }
    Ok(t)
}

const PAGE: usize = 2;

async fn shipments(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let kind = query_type(&q, &["SHIPMENT", "DATE_RANGE", "NEXT_TOKEN"])?;
    let seller = seller_in(&sim, &c, q.required("MarketplaceId")?)?;
    let (statuses, ids) = (q.list("ShipmentStatusList"), q.list("ShipmentIdList"));
    let start = match kind {
        "SHIPMENT" if statuses.is_empty() && ids.is_empty() => {
            return Err(SimError::invalid(
                "A SHIPMENT query needs ShipmentStatusList or ShipmentIdList",
            ));
        }
        "DATE_RANGE"
            if q.get("LastUpdatedAfter").is_none() || q.get("LastUpdatedBefore").is_none() =>
        {
            return Err(SimError::invalid(
                "A DATE_RANGE query needs LastUpdatedAfter and LastUpdatedBefore",
            ));
        }
        "NEXT_TOKEN" => offset("sh.", q.required("NextToken")?)?,
        _ => 0,
    };
    let all: Vec<Shipment> = shipments_of(&sim, &c)?
        .into_iter()
        .filter(|s| s.marketplace == seller.marketplace_id)
        .filter(|s| statuses.is_empty() || statuses.iter().any(|x| x == s.status))
        .filter(|s| ids.is_empty() || ids.contains(&s.v0_id))
        .collect();
    let page: Vec<Value> = all.iter().skip(start).take(PAGE).map(v0_shipment).collect();
    let mut payload = json!({ "ShipmentData": page });
    if start + PAGE < all.len() {
        payload["NextToken"] = token("sh.", start + PAGE).into();
    }
    Ok(Json(json!({ "payload": payload })))
}

/// A v0 item continuation: shipment index and item offset.
fn item_token(shipment: usize, at: usize) -> String {
    token("si.", shipment * 10_000 + at)
}

async fn items_by_shipment(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    q.only(&["MarketplaceId"])?;
    let all = shipments_of(&sim, &c)?;
    let s = all
        .iter()
        .find(|s| s.v0_id == id)
        .ok_or_else(|| SimError::not_found(format!("Shipment {id} not found")))?;
    let items: Vec<Value> = s
        .lines
        .iter()
        .take(SHORT_LIST)
        .map(|l| v0_item(s, l))
        .collect();
    let mut payload = json!({ "ItemData": items });
    if s.lines.len() > SHORT_LIST {
        payload["NextToken"] = item_token(s.index, SHORT_LIST).into();
    }
    Ok(Json(json!({ "payload": payload })))
}

async fn items(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let kind = query_type(&q, &["DATE_RANGE", "NEXT_TOKEN"])?;
    seller_in(&sim, &c, q.required("MarketplaceId")?)?;
    let all = shipments_of(&sim, &c)?;
    let lines: Vec<(&Shipment, &Line)> = all
        .iter()
        .flat_map(|s| s.lines.iter().map(move |l| (s, l)))
        .collect();
    if kind == "DATE_RANGE" {
        if q.get("LastUpdatedAfter").is_none() || q.get("LastUpdatedBefore").is_none() {
            return Err(SimError::invalid(
                "A DATE_RANGE query needs LastUpdatedAfter and LastUpdatedBefore",
            ));
        }
        let page: Vec<Value> = lines
            .iter()
            .take(PAGE)
            .map(|(s, l)| v0_item(s, l))
            .collect();
        let mut payload = json!({ "ItemData": page });
        if lines.len() > PAGE {
            payload["NextToken"] = token("di.", PAGE).into();
        }
        return Ok(Json(json!({ "payload": payload })));
    }
    let t = q.required("NextToken")?;
    if let Ok(at) = offset("di.", t) {
        let page: Vec<Value> = lines
            .iter()
            .skip(at)
            .take(PAGE)
            .map(|(s, l)| v0_item(s, l))
            .collect();
        let mut payload = json!({ "ItemData": page });
        if at + PAGE < lines.len() {
            payload["NextToken"] = token("di.", at + PAGE).into();
        }
        return Ok(Json(json!({ "payload": payload })));
    }
    // continuing one shipment's items
    let packed = offset("si.", t)?;
    let (index, at) = (packed / 10_000, packed % 10_000);
    let s = all
        .get(index)
        .ok_or_else(|| SimError::invalid("The NextToken is invalid or expired"))?;
    let page: Vec<Value> = s
        .lines
        .iter()
        .skip(at)
        .take(PAGE)
        .map(|l| v0_item(s, l))
        .collect();
    let mut payload = json!({ "ItemData": page });
    if at + PAGE < s.lines.len() {
        payload["NextToken"] = item_token(index, at + PAGE).into();
    }
    Ok(Json(json!({ "payload": payload })))
}

fn plan_summary(s: &Shipment) -> Value {
    json!({
        "inboundPlanId": s.plan_id, "name": format!("Plan {}", s.v0_id), "status": if s.status == "WORKING" { "ACTIVE" } else { "SHIPPED" },
        "marketplaceIds": [s.marketplace], "createdAt": format!("{}T08:00:00Z", s.updated), "lastUpdatedAt": format!("{}T09:00:00Z", s.updated),
        "sourceAddress": { "name": "Demo Warehouse", "addressLine1": "1 Dock St", "city": "Reno", "stateOrProvinceCode": "NV", "countryCode": "US", "postalCode": "89501" },
    })
}

fn item_2024(l: &Line) -> Value {
    json!({ "asin": l.asin, "fnsku": format!("X00{}", l.asin.get(3..).unwrap_or("")), "msku": l.sku, "labelOwner": "SELLER", "quantity": l.qty, "prepInstructions": [] })
}

fn page_of(q: &Q, prefix: &str, len: usize) -> Result<(usize, usize, Option<String>), SimError> {
    let size = q.int("pageSize", 1, 1000, 10)? as usize;
    let start = q
        .get("paginationToken")
        .map(|t| offset(prefix, t))
        .transpose()?
        .unwrap_or(0);
    let next = (start + size < len).then(|| token(prefix, start + size));
    Ok((start, size, next))
}

fn with_next(mut v: Value, next: Option<String>) -> Value {
    if let Some(n) = next {
        v["pagination"] = json!({ "nextToken": n });
    }
    v
}

fn find_plan<'a>(all: &'a [Shipment], id: &str) -> Result<&'a Shipment, SimError> {
    all.iter()
        .find(|s| s.plan_id == id)
        .ok_or_else(|| SimError::not_found(format!("Inbound plan {id} not found")))
}

async fn plans(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let all = shipments_of(&sim, &c)?;
    let (start, size, next) = page_of(&q, "ip.", all.len())?;
    let plans: Vec<Value> = all
        .iter()
        .skip(start)
        .take(size)
        .map(plan_summary)
        .collect();
    Ok(Json(with_next(json!({ "inboundPlans": plans }), next)))
}

async fn plan(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let all = shipments_of(&sim, &c)?;
    let s = find_plan(&all, &id)?;
    let mut v = plan_summary(s);
    v["shipments"] = json!([{ "shipmentId": s.shipment_id, "status": s.status }]);
    v["packingOptions"] = json!([]);
    v["placementOptions"] = json!([]);
    Ok(Json(v))
}

async fn plan_items(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let all = shipments_of(&sim, &c)?;
    let s = find_plan(&all, &id)?;
    let (start, size, next) = page_of(&q, "pi.", s.lines.len())?;
    let items: Vec<Value> = s
        .lines
        .iter()
        .skip(start)
        .take(size)
        .map(item_2024)
        .collect();
    Ok(Json(with_next(json!({ "items": items }), next)))
}

fn find_shipment<'a>(all: &'a [Shipment], plan: &str, id: &str) -> Result<&'a Shipment, SimError> {
    find_plan(all, plan)?;
    all.iter()
        .find(|s| s.plan_id == plan && s.shipment_id == id)
        .ok_or_else(|| SimError::not_found(format!("Shipment {id} not found in plan {plan}")))
}

async fn shipment(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((plan, id)): Path<(String, String)>,
) -> Result<Json<Value>, SimError> {
    let all = shipments_of(&sim, &c)?;
    let s = find_shipment(&all, &plan, &id)?;
    Ok(Json(json!({
        "shipmentId": s.shipment_id, "name": format!("Inbound {}", s.v0_id), "status": s.status,
        "placementOptionId": format!("po{}", &s.plan_id[2..]), "shipmentConfirmationId": s.v0_id,
        "source": { "sourceType": "SELLER_FACILITY", "address": { "name": "Demo Warehouse", "addressLine1": "1 Dock St", "city": "Reno", "stateOrProvinceCode": "NV", "countryCode": "US", "postalCode": "89501" } },
        "destination": { "destinationType": "AMAZON_OPTIMIZED", "warehouseId": "RNO4" },
    })))
}

async fn shipment_items(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((plan, id)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let all = shipments_of(&sim, &c)?;
    let s = find_shipment(&all, &plan, &id)?;
    let (start, size, next) = page_of(&q, "it.", s.lines.len())?;
    let items: Vec<Value> = s
        .lines
        .iter()
        .skip(start)
        .take(size)
        .map(item_2024)
        .collect();
    Ok(Json(with_next(json!({ "items": items }), next)))
}
