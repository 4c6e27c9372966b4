//! Settlements: the provider makes a settlement report itself when a period closes and keeps
//! it 90 days; nobody can request one. The reports it still keeps for the merchant's
//! marketplace are listed (`getReports`, every page) and each document read into that
//! settlement's lines, one slice per settlement, replaced whole.

use pp_core::{Error, Kind, Result};
use pp_marketplace::documents::cents;
use pp_warehouse::Slice;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::{Map, Value};

use super::unreadable;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started};

/// The reader.
pub struct Settlements;

impl Reader for Settlements {
    fn label(&self) -> &'static str {
        "GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2 (listed: the provider makes them)"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, _: Days) -> Fut<'a, Started> {
        Box::pin(async move { Ok(Started::Rows(read(cx).await?)) })
    }
}

/// The settlement report's type.
const SETTLEMENT: &str = "GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2";

/// Every kept settlement of the merchant's marketplace, a load each.
async fn read(cx: &Cx<'_>) -> Result<Vec<Load>> {
    let (feeds, account, tenant) = (cx.feeds(), cx.account(), &cx.tenant);
    let merchant = &cx.merchant;
    // (a login's reports cover every marketplace it sells in)
    let mine = |r: &&Value| {
        r["marketplaceIds"]
            .as_array()
            .is_some_and(|m| m.iter().any(|m| *m == merchant.marketplace_id.as_str()))
    };
    let mut loads = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let mut args = Map::new();
        match &next {
            Some(t) => {
                args.insert("nextToken".into(), t.clone().into());
            }
            None => {
                args.insert("reportTypes".into(), SETTLEMENT.into());
                args.insert(
                    "marketplaceIds".into(),
                    merchant.marketplace_id.clone().into(),
                );
                args.insert("pageSize".into(), 100.into());
            }
        }
        let page = feeds
            .read(tenant, &account, "reports.get_reports", &args)
            .await?;
        for r in page["reports"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(mine)
        {
            let Some(doc) = r["reportDocumentId"].as_str() else {
                continue;
            };
            let text = match feeds.spapi_document(tenant, &account, doc).await {
                Ok(text) => text,
                // listed a moment ago, its document gone: the list is read again shortly
                Err(e) if pp_marketplace::triage::provider_not_found(&e) => {
                    return Err(Error::new(
                        Kind::UpstreamUnavailable,
                        format!("the provider listed a settlement report whose document {doc} it no longer has"),
                    )
                    .with_retryable(true)
                    .with_source(e));
                }
                Err(e) => return Err(e),
            };
            loads.push(rows(&cx.seller, &text)?);
        }
        match page["nextToken"].as_str() {
            Some(t) if !t.is_empty() => next = Some(t.to_owned()),
            _ => return Ok(loads),
        }
    }
}

/// A settlement's lines (the V2 flat file; its first line after the header is the
/// settlement's summary, which has no amount type and is not a line): one slice per
/// settlement, replaced whole. The file's times (`…+00:00`) are written as the world writes
/// them (`…Z`); an empty order id, SKU or quantity is empty.
pub fn rows(seller: &Seller, text: &str) -> Result<Load> {
    const WHAT: &str = "settlement report";
    let lines = pp_marketplace::documents::tsv(WHAT, text)?;
    let get = |l: &std::collections::BTreeMap<String, String>, k: &str| -> Result<String> {
        l.get(k)
            .cloned()
            .ok_or_else(|| unreadable(WHAT, format!("a line has no {k}")))
    };
    let time = |s: String| match s.strip_suffix("+00:00") {
        Some(base) => format!("{base}Z"),
        None => s,
    };
    let opt = |s: String| {
        if s.is_empty() {
            Cell::Null
        } else {
            Cell::Text(s)
        }
    };
    let summary = lines
        .first()
        .ok_or_else(|| unreadable(WHAT, "it has no summary line".into()))?;
    let sid = get(summary, "settlement-id")?;
    let (start, end, deposit) = (
        time(get(summary, "settlement-start-date")?),
        time(get(summary, "settlement-end-date")?),
        time(get(summary, "deposit-date")?),
    );
    let mut rows = Vec::new();
    for l in lines.iter().skip(1) {
        if get(l, "amount-type")?.is_empty() {
            continue;
        }
        let quantity = match get(l, "quantity-purchased")?.as_str() {
            "" => Cell::Null,
            q => Cell::Int(
                q.parse()
                    .map_err(|_| unreadable(WHAT, format!("'{q}' is not a quantity")))?,
            ),
        };
        rows.push(vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(sid.clone()),
            Cell::Text(start.clone()),
            Cell::Text(end.clone()),
            Cell::Text(deposit.clone()),
            Cell::Text(time(get(l, "posted-date-time")?)),
            Cell::Text(get(l, "transaction-type")?),
            opt(get(l, "order-id")?),
            opt(get(l, "sku")?),
            quantity,
            Cell::Text(get(l, "amount-type")?),
            Cell::Text(get(l, "amount-description")?),
            Cell::Cents(cents(WHAT, &get(l, "amount")?)?),
            Cell::Text(get(l, "currency")?),
        ]);
    }
    Ok(Load {
        slice: Slice {
            table: table("spapi_settlement"),
            seller_id: seller.id,
            range: Some(("Settlement-id", sid.clone(), sid)),
            part: None,
        },
        rows,
    })
}
