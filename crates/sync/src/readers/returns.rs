//! FBA customer returns by day: each refund's returned units by what became of them
//! (`GET_FBA_FULFILLMENT_CUSTOMER_RETURNS_DATA`, one report a slice). A sellable unit is back
//! in stock: the P&L takes its landed cost back.

use pp_marketplace::documents::selling;
use pp_marketplace::ledger::Family;
use pp_warehouse::schema::{Cell, table};
use serde_json::Value;

use super::days;
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started};

/// The reader.
pub struct Returns;

const RETURNS: &str = "GET_FBA_FULFILLMENT_CUSTOMER_RETURNS_DATA";

impl Reader for Returns {
    fn label(&self) -> &'static str {
        RETURNS
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, (from, to): Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let body = cx.spapi_request(RETURNS, Some((from, to)), Value::Null);
            let id = cx.create(Family::Spapi, body, (from, to), "").await?;
            Ok(Started::Asked(ReportCk::new(id, (from, to))))
        })
    }

    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            let Some(text) = cx.spapi_done(r, &r.id).await? else {
                return Ok(None);
            };
            let returns = match &text {
                Some(t) => selling::returns(t)?,
                None => Vec::new(),
            };
            Ok(Some(vec![rows(&cx.seller, r.days(), &returns)]))
        })
    }
}

/// The returns of `from..=to`.
pub fn rows(seller: &Seller, (from, to): Days, returns: &[selling::Return]) -> Load {
    let rows = returns
        .iter()
        .filter(|r| r.date >= from && r.date <= to)
        .map(|r| {
            vec![
                Cell::Int(seller.id),
                Cell::Text(seller.token.clone()),
                Cell::Text(r.date.to_string()),
                Cell::Text(r.returned.clone()),
                Cell::Text(r.order_id.clone()),
                Cell::Text(r.sku.clone()),
                Cell::Text(r.asin.clone()),
                Cell::Int(r.quantity),
                Cell::Text(r.disposition.clone()),
                Cell::Text(r.reason.clone()),
            ]
        })
        .collect();
    Load {
        slice: days(table("spapi_fba_returns"), seller, from, to, "Date"),
        rows,
    }
}
