//! Settlements: the provider makes a settlement report itself when a period closes and keeps
//! it 90 days; nobody can request one. The reports it still keeps for the merchant's
//! marketplace are listed (`getReports`, every page) and each document read into that
//! settlement's lines (`rows::settlement`), one slice per settlement.

use pp_core::{Error, Result, TenantId};
use pp_marketplace::service::{Account, Feeds};
use serde_json::{Map, Value};

use crate::rows::{self, Load, Seller};

/// The settlement report's type.
const SETTLEMENT: &str = "GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2";

/// Every kept settlement of the merchant's marketplace, a load each.
pub async fn read(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    account: &Account<'_>,
    seller: &Seller,
) -> Result<Vec<Load>> {
    let Account::Seller(merchant) = account else {
        return Err(Error::internal("settlements are a selling-side dataset"));
    };
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
            .read(tenant, account, "reports.get_reports", &args)
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
            let text = feeds.spapi_document(tenant, account, doc).await?;
            loads.push(rows::settlement(seller, &text)?);
        }
        match page["nextToken"].as_str() {
            Some(t) if !t.is_empty() => next = Some(t.to_owned()),
            _ => return Ok(loads),
        }
    }
}
