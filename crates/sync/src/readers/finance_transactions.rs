//! Finance transactions: what the provider lists as posted to the seller's account over the
//! last 35 days (`finances_2024.list_transactions`, every page) — the days no closed settlement
//! holds yet, and the weeks before them — read whole every run and replacing those days, so a
//! transaction that moved from deferred to released, or into a settlement that closed, is
//! stored as it is now. Days older than the window keep what they were when last read.

use chrono::Duration;
use pp_core::Result;
use pp_marketplace::documents::finances::{TransactionLine, transactions};
use pp_warehouse::schema::{Cell, table};
use serde_json::Map;

use super::days;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started};

/// The reader.
pub struct FinanceTransactions;

/// Days each run reads, through yesterday.
pub const WINDOW_DAYS: i64 = 35;

impl Reader for FinanceTransactions {
    fn label(&self) -> &'static str {
        "Finances 2024-06-19 listTransactions (listed)"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, _: Days) -> Fut<'a, Started> {
        Box::pin(async move { Ok(Started::Rows(vec![read(cx).await?])) })
    }
}

/// The window's transactions, one load.
async fn read(cx: &Cx<'_>) -> Result<Load> {
    let feeds = cx.feeds();
    let today = feeds.today().await?;
    let from = today - Duration::days(WINDOW_DAYS);
    let mut lines = Vec::new();
    let mut next: Option<String> = None;
    loop {
        let mut args = Map::new();
        args.insert("postedAfter".into(), format!("{from}T00:00:00Z").into());
        args.insert("postedBefore".into(), format!("{today}T00:00:00Z").into());
        args.insert(
            "marketplaceId".into(),
            cx.merchant.marketplace_id.clone().into(),
        );
        if let Some(t) = &next {
            args.insert("nextToken".into(), t.clone().into());
        }
        let page = feeds
            .read(
                &cx.tenant,
                &cx.account(),
                "finances_2024.list_transactions",
                &args,
            )
            .await?;
        let (mut page_lines, token) = transactions(&page)?;
        lines.append(&mut page_lines);
        match token {
            Some(t) => next = Some(t),
            None => break,
        }
    }
    Ok(Load {
        slice: days(
            table("spapi_finance_transaction"),
            &cx.seller,
            from,
            today - Duration::days(1),
            "Date",
        ),
        rows: lines.iter().map(|l| row(&cx.seller, l)).collect(),
    })
}

fn row(seller: &Seller, l: &TransactionLine) -> Vec<Cell> {
    // the document reader writes every instant `YYYY-MM-DDTHH:MM:SSZ`
    let day = Cell::Text(l.posted[..10].to_owned());
    vec![
        Cell::Int(seller.id),
        Cell::Text(seller.token.clone()),
        day,
        Cell::Text(l.transaction_id.clone()),
        Cell::Text(l.posted.clone()),
        Cell::Text(l.transaction_type.clone()),
        Cell::Text(l.status.clone()),
        l.maturity.clone().into(),
        l.settlement_id.clone().into(),
        l.order_id.clone().into(),
        l.sku.clone().into(),
        l.quantity.map_or(Cell::Null, Cell::Int),
        Cell::Text(l.amount_type.clone()),
        Cell::Text(l.amount_description.clone()),
        Cell::Cents(l.amount),
        Cell::Text(l.currency.clone()),
    ]
}
