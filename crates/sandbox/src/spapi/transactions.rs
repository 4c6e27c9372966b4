//! Finances `2024-06-19` `listTransactions` from the world's transaction list
//! (`spapi_finance_transaction`: its 180-day window, but the last 48 hours, each amount with
//! its transaction's status and settlement). A transaction is the amounts that share its id:
//! their amount types are its breakdowns, each amount description a breakdown below them.
//! Filters: the posting window (at most 180 days, else an empty answer), the marketplace, the
//! status, an order id or a settlement (financial event group) id; 100 transactions a page.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::{Extension, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Duration, Utc};
use serde_json::{Map, Value, json};

use super::q::{Q, offset, seller_in, token};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static LIST: Op = Op {
    name: "finances.listTransactions",
    family: Family::Sp,
    rate: 0.5,
    burst: 10.0,
    error_media: None,
};

/// Transactions a page.
const PAGE: usize = 100;

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new().route(
        "/finances/2024-06-19/transactions",
        op(sim, &LIST, get(list)),
    )
}

/// A query's instant, in UTC.
fn instant(q: &Q, name: &str) -> Result<Option<DateTime<Utc>>, SimError> {
    q.get(name)
        .map(|v| {
            DateTime::parse_from_rfc3339(v)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|_| {
                    SimError::invalid(format!("{name} '{v}' is not an ISO 8601 date-time"))
                })
        })
        .transpose()
}

/// An instant as the world writes it (`2026-11-01T00:00:00Z`).
fn written(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

async fn list(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    let related = match (
        q.get("relatedIdentifierName"),
        q.get("relatedIdentifierValue"),
    ) {
        (Some(n @ ("ORDER_ID" | "FINANCIAL_EVENT_GROUP_ID")), Some(v)) => Some((n, v)),
        (None, None) => None,
        (Some(n), Some(_)) => {
            return Err(SimError::invalid(format!(
                "relatedIdentifierName {n} cannot filter: use ORDER_ID or FINANCIAL_EVENT_GROUP_ID"
            )));
        }
        _ => {
            return Err(SimError::invalid(
                "relatedIdentifierName and relatedIdentifierValue go together",
            ));
        }
    };
    let after = instant(&q, "postedAfter")?;
    if after.is_none() && related.is_none() {
        return Err(SimError::invalid(
            "postedAfter is required without a related identifier",
        ));
    }
    // postedBefore defaults to now: the world's today
    let today = sim
        .world()
        .today()
        .and_hms_opt(0, 0, 0)
        .expect("midnight")
        .and_utc();
    let before = instant(&q, "postedBefore")?.unwrap_or(today);
    if after.is_some_and(|a| before <= a) {
        return Err(SimError::invalid(
            "postedBefore must be later than postedAfter",
        ));
    }
    // more than 180 days apart: the provider answers with nothing (an order's or a
    // settlement's transactions are listed whenever they were posted)
    if related.is_none() && after.is_some_and(|a| before - a > Duration::days(180)) {
        return Ok(Json(json!({ "payload": { "transactions": [] } })));
    }
    let (after, before) = (
        after.map_or_else(|| "0000-01-01T00:00:00Z".to_owned(), written),
        written(before),
    );
    let sellers = match q.get("marketplaceId") {
        Some(m) => vec![seller_in(&sim, &c, m)?],
        None => sim.world().seller_rows(&c.subject)?,
    };
    let start = q
        .get("nextToken")
        .map(|t| offset("tx.", t))
        .transpose()?
        .unwrap_or(0);
    let mut rows = Vec::new();
    for s in &sellers {
        let mut sql = String::from(
            r#"SELECT * FROM spapi_finance_transaction WHERE SellerID = ?1
               AND "Posted-date-time" >= ?2 AND "Posted-date-time" < ?3"#,
        );
        let mut args: Vec<String> = vec![s.id.to_string(), after.clone(), before.clone()];
        if let Some(status) = q.get("transactionStatus") {
            sql.push_str(r#" AND "Transaction-status" = ?4"#);
            args.push(status.to_owned());
        }
        if let Some((name, value)) = related {
            let col = if name == "ORDER_ID" {
                "Order-id"
            } else {
                "Settlement-id"
            };
            sql.push_str(&format!(r#" AND "{col}" = ?{}"#, args.len() + 1));
            args.push(value.to_owned());
        }
        sql.push_str(r#" ORDER BY "Posted-date-time", "Transaction-id""#);
        let params: Vec<&dyn rusqlite::ToSql> =
            args.iter().map(|a| a as &dyn rusqlite::ToSql).collect();
        rows.extend(
            sim.world()
                .rows(&sql, &params)?
                .into_iter()
                .map(|r| (s.marketplace_id.clone(), r)),
        );
    }
    let all = transactions(&rows);
    let page: Vec<Value> = all.iter().skip(start).take(PAGE).cloned().collect();
    let mut payload = json!({ "transactions": page });
    if start + PAGE < all.len() {
        payload["nextToken"] = token("tx.", start + PAGE).into();
    }
    Ok(Json(json!({ "payload": payload })))
}

/// A row of the world's list and the marketplace it is in.
type Listed = (String, Map<String, Value>);

fn money(cents: i64, currency: &Value) -> Value {
    json!({ "currencyCode": currency, "currencyAmount": cents as f64 / 100.0 })
}

fn cents(row: &Map<String, Value>) -> i64 {
    (row["Amount"].as_f64().unwrap_or(0.0) * 100.0).round() as i64
}

/// The rows' transactions, in the order of their first row.
fn transactions(rows: &[Listed]) -> Vec<Value> {
    let mut order: Vec<&str> = Vec::new();
    let mut by_id: BTreeMap<&str, Vec<&Listed>> = BTreeMap::new();
    for r in rows {
        let id = r.1["Transaction-id"].as_str().unwrap_or_default();
        if !by_id.contains_key(id) {
            order.push(id);
        }
        by_id.entry(id).or_default().push(r);
    }
    order
        .into_iter()
        .map(|id| transaction(id, &by_id[id]))
        .collect()
}

fn transaction(id: &str, rows: &[&Listed]) -> Value {
    let (market, first) = (&rows[0].0, &rows[0].1);
    let cur = &first["Currency"];
    let total: i64 = rows.iter().map(|r| cents(&r.1)).sum();
    // amount type → amount description → cents, in the order they come
    let mut types: Vec<(String, Vec<(String, i64)>)> = Vec::new();
    for (_, r) in rows {
        let (t, d) = (
            r["Amount-type"].as_str().unwrap_or_default().to_owned(),
            r["Amount-description"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        );
        match types.iter_mut().find(|(x, _)| *x == t) {
            Some((_, ds)) => ds.push((d, cents(r))),
            None => types.push((t, vec![(d, cents(r))])),
        }
    }
    let breakdowns: Vec<Value> = types
        .iter()
        .map(|(t, ds)| {
            json!({
                "breakdownType": t,
                "breakdownAmount": money(ds.iter().map(|d| d.1).sum(), cur),
                "breakdowns": ds.iter().map(|(d, c)| json!({ "breakdownType": d, "breakdownAmount": money(*c, cur) })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let kind = first["Transaction-type"].as_str().unwrap_or_default();
    let mut related = vec![
        json!({ "relatedIdentifierName": "SETTLEMENT_ID", "relatedIdentifierValue": first["Settlement-id"] }),
    ];
    if first["Order-id"].is_string() {
        related.insert(0, json!({ "relatedIdentifierName": "ORDER_ID", "relatedIdentifierValue": first["Order-id"] }));
    }
    let mut contexts = Vec::new();
    if first["Sku"].is_string() {
        let mut c = json!({ "contextType": "ProductContext", "sku": first["Sku"], "fulfillmentNetwork": "AFN" });
        if let Some(q) = first["Quantity"].as_i64() {
            c["quantityShipped"] = q.into();
        }
        contexts.push(c);
    }
    if first["Maturity-date"].is_string() {
        contexts.push(json!({ "contextType": "DeferredContext", "deferralReason": "DD7", "maturityDate": first["Maturity-date"] }));
    }
    let description = match kind {
        "Shipment" => "Order Payment".to_owned(),
        "Refund" => "Refund Order".to_owned(),
        _ => first["Amount-description"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    };
    json!({
        "sellingPartnerMetadata": { "sellingPartnerId": first["MarketplaceSellerID"], "accountType": "Seller", "marketplaceId": market },
        "relatedIdentifiers": related,
        "transactionType": kind,
        "transactionId": id,
        "transactionStatus": first["Transaction-status"],
        "description": description,
        "postedDate": first["Posted-date-time"],
        "totalAmount": money(total, cur),
        "marketplaceDetails": { "marketplaceId": market, "marketplaceName": super::marketplace(market).map_or("", |m| m.name) },
        "items": [{
            "description": description,
            "totalAmount": money(total, cur),
            "breakdowns": breakdowns,
            "contexts": contexts,
        }],
        "breakdowns": breakdowns,
    })
}
