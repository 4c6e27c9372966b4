//! FBA inventory v1: `getInventorySummaries` from the world's latest inventory snapshot, 50
//! summaries a page with `pagination.nextToken`.

use std::sync::Arc;

use axum::extract::{Extension, RawQuery, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

use super::q::{Q, offset, token};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

static SUMMARIES: Op = Op {
    name: "fbaInventory.getInventorySummaries",
    family: Family::Sp,
    rate: 2.0,
    burst: 2.0,
    error_media: None,
};
const PAGE: usize = 50;

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new().route(
        "/fba/inventory/v1/summaries",
        op(sim, &SUMMARIES, get(summaries)),
    )
}

async fn summaries(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<Value>, SimError> {
    let q = Q::parse(raw.as_deref());
    q.only(&[
        "details",
        "granularityType",
        "granularityId",
        "startDateTime",
        "sellerSkus",
        "sellerSku",
        "nextToken",
        "marketplaceIds",
    ])?;
    if q.required("granularityType")? != "Marketplace" {
        return Err(SimError::invalid("granularityType must be Marketplace"));
    }
    let seller = q.seller(&sim, &c, "marketplaceIds")?;
    if q.required("granularityId")? != seller.marketplace_id {
        return Err(SimError::invalid(
            "granularityId must be the marketplace in marketplaceIds",
        ));
    }
    let skus = q.list("sellerSkus");
    if skus.len() > 50 {
        return Err(SimError::invalid("sellerSkus takes at most 50 SKUs"));
    }
    let details = q.get("details") == Some("true");
    let start = q
        .get("nextToken")
        .map(|t| offset("inv.", t))
        .transpose()?
        .unwrap_or(0);
    let rows = sim.world().rows(
        "SELECT i.SKU, i.ASIN, i.Fulfillable, i.Inbound, i.Reserved, i.Date, c.Title FROM spapi_fba_inventory i
         LEFT JOIN catalog_item c ON c.SellerID = i.SellerID AND c.ASIN = i.ASIN
         WHERE i.SellerID = ?1 AND i.Date = (SELECT MAX(Date) FROM spapi_fba_inventory WHERE SellerID = ?1) ORDER BY i.SKU",
        &[&seller.id],
    )?;
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|r| skus.is_empty() || skus.iter().any(|s| r["SKU"].as_str() == Some(s.as_str())))
        .collect();
    let page: Vec<Value> = rows
        .iter()
        .skip(start)
        .take(PAGE)
        .map(|r| {
            let (f, i, res) = (r["Fulfillable"].as_i64().unwrap_or(0), r["Inbound"].as_i64().unwrap_or(0), r["Reserved"].as_i64().unwrap_or(0));
            let mut v = json!({
                "asin": r["ASIN"], "fnSku": format!("X00{}", r["ASIN"].as_str().unwrap_or("").get(3..).unwrap_or("")),
                "sellerSku": r["SKU"], "condition": "NewItem", "productName": r["Title"],
                "lastUpdatedTime": format!("{}T23:59:59Z", r["Date"].as_str().unwrap_or("")),
                "totalQuantity": f + i + res,
            });
            if details {
                v["inventoryDetails"] = json!({
                    "fulfillableQuantity": f, "inboundWorkingQuantity": i, "inboundShippedQuantity": 0, "inboundReceivingQuantity": 0,
                    "reservedQuantity": { "totalReservedQuantity": res, "pendingCustomerOrderQuantity": res, "pendingTransshipmentQuantity": 0, "fcProcessingQuantity": 0 },
                    "researchingQuantity": { "totalResearchingQuantity": 0, "researchingQuantityBreakdown": [] },
                    "unfulfillableQuantity": { "totalUnfulfillableQuantity": 0 },
                });
            }
            v
        })
        .collect();
    let mut out = json!({
        "payload": { "granularity": { "granularityType": "Marketplace", "granularityId": seller.marketplace_id }, "inventorySummaries": page },
    });
    if start + PAGE < rows.len() {
        out["pagination"] = json!({ "nextToken": token("inv.", start + PAGE) });
    }
    Ok(Json(out))
}
