//! Finances `2024-06-19` `listTransactions` pages, read into amounts: each transaction's
//! breakdowns down to their leaves (an amount type, then its descriptions), with the
//! transaction's id, type, status, posting time, order, settlement, SKU, quantity and the
//! deferred context's maturity.

use pp_core::Result;
use serde_json::Value;

use super::{cents, unreadable};

const WHAT: &str = "transactions page";

/// One amount of a listed transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct TransactionLine {
    pub transaction_id: String,
    pub transaction_type: String,
    pub status: String,
    /// When it was posted, in UTC, written `…Z`.
    pub posted: String,
    /// When a deferred transaction is released, written the same way.
    pub maturity: Option<String>,
    pub settlement_id: Option<String>,
    pub order_id: Option<String>,
    pub sku: Option<String>,
    pub quantity: Option<i64>,
    pub amount_type: String,
    pub amount_description: String,
    pub amount: i64,
    pub currency: String,
}

/// An instant in UTC, written `2026-11-10T09:00:00Z`.
fn instant(v: &Value, what: &str) -> Result<String> {
    let t = text(v, what)?;
    chrono::DateTime::parse_from_rfc3339(&t)
        .map(|at| {
            at.with_timezone(&chrono::Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string()
        })
        .map_err(|_| unreadable(WHAT, format!("'{t}' is not a time")))
}

fn text(v: &Value, what: &str) -> Result<String> {
    v.as_str()
        .map(str::to_owned)
        .ok_or_else(|| unreadable(WHAT, format!("a transaction has no {what}")))
}

/// An amount (`{currencyCode, currencyAmount}`) in cents, read from its decimal text.
fn money(v: &Value) -> Result<(i64, String)> {
    let amount = v["currencyAmount"].to_string();
    Ok((cents(WHAT, &amount)?, text(&v["currencyCode"], "currency")?))
}

/// Every amount of one page's transactions, and the page's `nextToken`.
pub fn transactions(page: &Value) -> Result<(Vec<TransactionLine>, Option<String>)> {
    let payload = &page["payload"];
    let list = payload["transactions"]
        .as_array()
        .ok_or_else(|| unreadable(WHAT, "it has no transactions list"))?;
    let mut out = Vec::new();
    for t in list {
        let related = |name: &str| {
            t["relatedIdentifiers"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["relatedIdentifierName"] == name)
                .and_then(|r| r["relatedIdentifierValue"].as_str())
                .map(str::to_owned)
        };
        let contexts: Vec<&Value> = t["items"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|i| i["contexts"].as_array().into_iter().flatten())
            .collect();
        let context = |kind: &str, field: &str| {
            contexts
                .iter()
                .find(|c| c["contextType"] == kind)
                .map(|c| &c[field])
                .filter(|v| !v.is_null())
        };
        let id = text(&t["transactionId"], "transactionId")?;
        for b in t["breakdowns"].as_array().into_iter().flatten() {
            let amount_type = text(&b["breakdownType"], "breakdown type")?;
            for leaf in b["breakdowns"].as_array().into_iter().flatten() {
                let (amount, currency) = money(&leaf["breakdownAmount"])?;
                out.push(TransactionLine {
                    transaction_id: id.clone(),
                    transaction_type: text(&t["transactionType"], "transactionType")?,
                    status: text(&t["transactionStatus"], "transactionStatus")?,
                    posted: instant(&t["postedDate"], "postedDate")?,
                    maturity: context("DeferredContext", "maturityDate")
                        .map(|m| instant(m, "maturityDate"))
                        .transpose()?,
                    settlement_id: related("SETTLEMENT_ID")
                        .or_else(|| related("FINANCIAL_EVENT_GROUP_ID")),
                    order_id: related("ORDER_ID"),
                    sku: context("ProductContext", "sku")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                    quantity: context("ProductContext", "quantityShipped").and_then(Value::as_i64),
                    amount_type: amount_type.clone(),
                    amount_description: text(&leaf["breakdownType"], "breakdown type")?,
                    amount,
                    currency,
                });
            }
        }
    }
    let next = payload["nextToken"]
        .as_str()
        .filter(|t| !t.is_empty())
        .map(str::to_owned);
    Ok((out, next))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_shipment_reads_into_its_leaves() {
        let page = json!({"payload": {"nextToken": "n1", "transactions": [{
            "transactionId": "T1", "transactionType": "Shipment", "transactionStatus": "DEFERRED",
            "postedDate": "2026-11-10T09:00:00Z",
            "relatedIdentifiers": [{"relatedIdentifierName": "ORDER_ID", "relatedIdentifierValue": "111-1"},
                                   {"relatedIdentifierName": "SETTLEMENT_ID", "relatedIdentifierValue": "9"}],
            "items": [{"contexts": [{"contextType": "ProductContext", "sku": "S1", "quantityShipped": 2},
                                    {"contextType": "DeferredContext", "maturityDate": "2026-11-17T09:00:00Z"}]}],
            "breakdowns": [{"breakdownType": "ItemPrice", "breakdownAmount": {"currencyCode": "USD", "currencyAmount": 39.98},
                            "breakdowns": [{"breakdownType": "Principal", "breakdownAmount": {"currencyCode": "USD", "currencyAmount": 39.98}}]},
                           {"breakdownType": "ItemFees", "breakdownAmount": {"currencyCode": "USD", "currencyAmount": -15.5},
                            "breakdowns": [{"breakdownType": "Commission", "breakdownAmount": {"currencyCode": "USD", "currencyAmount": -6.0}},
                                           {"breakdownType": "FBAPerUnitFulfillmentFee", "breakdownAmount": {"currencyCode": "USD", "currencyAmount": -9.5}}]}]
        }]}});
        let (lines, next) = super::transactions(&page).unwrap();
        assert_eq!(next.as_deref(), Some("n1"));
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].amount, 3_998);
        assert_eq!(lines[2].amount, -950);
        assert_eq!(lines[2].amount_description, "FBAPerUnitFulfillmentFee");
        assert_eq!(lines[0].maturity.as_deref(), Some("2026-11-17T09:00:00Z"));
        assert_eq!(
            (lines[0].sku.as_deref(), lines[0].quantity),
            (Some("S1"), Some(2))
        );
        assert_eq!(lines[0].settlement_id.as_deref(), Some("9"));
    }
}
