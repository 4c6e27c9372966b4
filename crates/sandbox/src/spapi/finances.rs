//! Finances v0 from the world's settlements: event groups (one per settlement), and the
//! shipment, refund, adjustment and service-fee events of a group, an order or a posting
//! window, each paged with `NextToken`.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Extension, Path, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Map, Value, json};

use super::q::{Q, offset, token};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static GROUPS: Op = Op {
    name: "finances.listFinancialEventGroups",
    family: Family::Sp,
    rate: 0.5,
    burst: 30.0,
    error_media: None,
};
static BY_GROUP: Op = Op {
    name: "finances.listFinancialEventsByGroupId",
    family: Family::Sp,
    rate: 0.5,
    burst: 30.0,
    error_media: None,
};
static BY_ORDER: Op = Op {
    name: "finances.listFinancialEventsByOrderId",
    family: Family::Sp,
    rate: 0.5,
    burst: 30.0,
    error_media: None,
};
static EVENTS: Op = Op {
    name: "finances.listFinancialEvents",
    family: Family::Sp,
    rate: 0.5,
    burst: 30.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/finances/v0/financialEventGroups",
            op(sim, &GROUPS, get(groups)),
        )
        .route(
            "/finances/v0/financialEventGroups/{eventGroupId}/financialEvents",
            op(sim, &BY_GROUP, get(by_group)),
        )
        .route(
            "/finances/v0/orders/{orderId}/financialEvents",
            op(sim, &BY_ORDER, get(by_order)),
        )
        .route(
            "/finances/v0/financialEvents",
            op(sim, &EVENTS, get(events)),
        )
}

const LINES: &str = r#"SELECT s."Settlement-id" AS sid, s."Settlement-start-date" AS start, s."Settlement-end-date" AS end_, s."Deposit-date" AS deposit,
    s."Posted-date-time" AS posted, s."Transaction-type" AS ttype, s."Order-id" AS oid, s.Sku AS sku, s."Quantity-purchased" AS qty,
    s."Amount-type" AS atype, s."Amount-description" AS adesc, s.Amount AS amount, s.Currency AS cur, x.Name AS store, x.MarketplaceID AS market
    FROM spapi_settlement s JOIN seller x ON x.ID = s.SellerID WHERE s.MarketplaceSellerID = ?1"#;

fn currency(amount: f64, cur: &Value) -> Value {
    json!({ "CurrencyCode": cur, "CurrencyAmount": (amount * 100.0).round() / 100.0 })
}

/// The amount of a line, as the API writes money.
fn money(l: &Map<String, Value>) -> Value {
    currency(l["amount"].as_f64().unwrap_or(0.0), &l["cur"])
}

/// An order's or a refund's item: its charges, fees and promotions, under the names the event
/// kind gives them (`ItemChargeList` or `ItemChargeAdjustmentList`, …).
fn item(ls: &[&Map<String, Value>], adjustment: bool) -> Value {
    let list = |atype: &str, name: &str, amount: &str| -> Value {
        ls.iter()
            .filter(|l| l["atype"] == atype)
            .map(|l| json!({ name: l["adesc"], amount: money(l) }))
            .collect()
    };
    let sfx = if adjustment { "AdjustmentList" } else { "List" };
    json!({
        "SellerSKU": ls[0]["sku"],
        "QuantityShipped": ls[0]["qty"],
        format!("ItemCharge{sfx}"): list("ItemPrice", "ChargeType", "ChargeAmount"),
        format!("ItemFee{sfx}"): list("ItemFees", "FeeType", "FeeAmount"),
        format!("Promotion{sfx}"): list("Promotion", "PromotionType", "PromotionAmount"),
    })
}

/// Events of settlement lines, as the API groups them, in the order of the lines: an order's
/// lines are a shipment event, a refund's a refund event, a reimbursement an adjustment event,
/// any other charge a service-fee event. A reserve is not an event (the group's total holds
/// it).
fn to_events(lines: &[Map<String, Value>]) -> Vec<(&'static str, Value)> {
    // an order's or a refund's lines: (posted, type, order id)
    type Key = (String, String, String);
    let mut orders: BTreeMap<Key, Vec<&Map<String, Value>>> = BTreeMap::new();
    let mut order_at: Vec<(usize, Key)> = Vec::new();
    let mut out: Vec<(usize, (&'static str, Value))> = Vec::new();
    for (k, l) in lines.iter().enumerate() {
        let text = |f: &str| l[f].as_str().unwrap_or_default().to_owned();
        let ttype = text("ttype");
        if ttype == "Order" || ttype == "Refund" {
            let key = (text("posted"), ttype, text("oid"));
            if !orders.contains_key(&key) {
                order_at.push((k, key.clone()));
            }
            orders.entry(key).or_default().push(l);
        } else if l["atype"] == "FBA Inventory Reimbursement" {
            out.push((k, ("AdjustmentEventList", json!({
                "AdjustmentType": l["adesc"],
                "PostedDate": l["posted"],
                "StoreName": l["store"],
                "AdjustmentAmount": money(l),
                "AdjustmentItemList": [{ "SellerSKU": l["sku"], "Quantity": l["qty"].to_string(), "TotalAmount": money(l) }],
            }))));
        } else if !text("adesc").contains("Reserve") {
            let mut e = json!({
                "FeeReason": l["atype"],
                "FeeDescription": l["adesc"],
                "StoreName": l["store"],
                "FeeList": [{ "FeeType": l["adesc"], "FeeAmount": money(l) }],
            });
            if l["sku"].is_string() {
                e["SellerSKU"] = l["sku"].clone();
            }
            out.push((k, ("ServiceFeeEventList", e)));
        }
    }
    for (k, key) in order_at {
        let ls = &orders[&key];
        let (posted, ttype, order) = key;
        let refund = ttype == "Refund";
        let mut e = json!({
            "AmazonOrderId": order,
            "MarketplaceName": ls[0]["store"],
            "StoreName": ls[0]["store"],
            "PostedDate": posted,
        });
        let list = if refund {
            "ShipmentItemAdjustmentList"
        } else {
            "ShipmentItemList"
        };
        e[list] = json!([item(ls, refund)]);
        out.push((
            k,
            (
                if refund {
                    "RefundEventList"
                } else {
                    "ShipmentEventList"
                },
                e,
            ),
        ));
    }
    out.sort_by_key(|(k, _)| *k);
    out.into_iter().map(|(_, e)| e).collect()
}

/// The event lists a page has, each present even when empty.
const LISTS: [&str; 4] = [
    "ShipmentEventList",
    "RefundEventList",
    "AdjustmentEventList",
    "ServiceFeeEventList",
];

/// One page of events, in the order of their lines.
fn page_of_events(q: &Q, lines: &[Map<String, Value>]) -> Result<Value, SimError> {
    let size = q.int("MaxResultsPerPage", 1, 100, 100)? as usize;
    let start = q
        .get("NextToken")
        .map(|t| offset("fe.", t))
        .transpose()?
        .unwrap_or(0);
    let all = to_events(lines);
    let mut events = Map::new();
    for name in LISTS {
        let list: Vec<Value> = all
            .iter()
            .skip(start)
            .take(size)
            .filter(|(n, _)| *n == name)
            .map(|(_, e)| e.clone())
            .collect();
        events.insert(name.into(), list.into());
    }
    let mut payload = json!({ "FinancialEvents": events });
    if start + size < all.len() {
        payload["NextToken"] = token("fe.", start + size).into();
    }
    Ok(json!({ "payload": payload }))
}

async fn groups(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let size = q.int("MaxResultsPerPage", 1, 100, 10)? as usize;
    let start = q
        .get("NextToken")
        .map(|t| offset("fg.", t))
        .transpose()?
        .unwrap_or(0);
    let after = q
        .get("FinancialEventGroupStartedAfter")
        .unwrap_or("0000-01-01T00:00:00Z");
    let before = q
        .get("FinancialEventGroupStartedBefore")
        .unwrap_or("9999-12-31T23:59:59Z");
    let rows = sim.world().rows(
        r#"SELECT "Settlement-id" AS sid, MIN("Settlement-start-date") AS start, MAX("Settlement-end-date") AS end_, MAX("Deposit-date") AS deposit,
           ROUND(SUM(Amount), 2) AS total, MAX(Currency) AS cur FROM spapi_settlement WHERE MarketplaceSellerID = ?1
           AND "Settlement-start-date" >= ?2 AND "Settlement-start-date" < ?3 GROUP BY "Settlement-id" ORDER BY start DESC"#,
        &[&c.subject, &after, &before],
    )?;
    let latest = rows.first().map(|r| r["sid"].clone());
    let list: Vec<Value> = rows
        .iter()
        .skip(start)
        .take(size)
        .map(|r| {
            let open = Some(&r["sid"]) == latest.as_ref();
            let mut g = json!({
                "FinancialEventGroupId": r["sid"],
                "ProcessingStatus": if open { "Open" } else { "Closed" },
                "FundTransferStatus": if open { "Processing" } else { "Succeeded" },
                "OriginalTotal": currency(r["total"].as_f64().unwrap_or(0.0), &r["cur"]),
                "FinancialEventGroupStart": r["start"],
                "AccountTail": "4242",
            });
            if !open {
                g["FinancialEventGroupEnd"] = r["end_"].clone();
                g["FundTransferDate"] = r["deposit"].clone();
            }
            g
        })
        .collect();
    let mut payload = json!({ "FinancialEventGroupList": list });
    if start + size < rows.len() {
        payload["NextToken"] = token("fg.", start + size).into();
    }
    Ok(Json(json!({ "payload": payload })))
}

async fn by_group(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let lines = sim.world().rows(
        &format!(r#"{LINES} AND s."Settlement-id" = ?2 ORDER BY posted, oid"#),
        &[&c.subject, &id],
    )?;
    if lines.is_empty() {
        return Err(SimError::not_found(format!(
            "Financial event group {id} not found"
        )));
    }
    Ok(Json(page_of_events(&q, &lines)?))
}

async fn by_order(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let lines = sim.world().rows(
        &format!(r#"{LINES} AND s."Order-id" = ?2 ORDER BY posted"#),
        &[&c.subject, &id],
    )?;
    Ok(Json(page_of_events(&q, &lines)?))
}

async fn events(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let after = q
        .get("PostedAfter")
        .ok_or_else(|| SimError::invalid("PostedAfter is required"))?;
    let before = q.get("PostedBefore").unwrap_or("9999-12-31T23:59:59Z");
    if before <= after {
        return Err(SimError::invalid("PostedBefore must be after PostedAfter"));
    }
    let lines = sim.world().rows(&format!(r#"{LINES} AND s."Posted-date-time" >= ?2 AND s."Posted-date-time" < ?3 ORDER BY posted, oid"#), &[&c.subject, &after, &before])?;
    Ok(Json(page_of_events(&q, &lines)?))
}
