//! `GET /v1/accounts`: every merchant row the tenant exposes, with its brands, currency,
//! per-domain authorization (the state of the service's grant for it) and how far its data
//! runs.

use std::collections::HashMap;

use pp_core::Result;
use serde_json::{Value, json};

use super::Ctx;
use super::account::{all_accounts, data_through};
use super::args::Args;
use super::rows::{int, rows, s};

/// The state of the service's grants, per domain, by merchant token (`active`, `lapsed`,
/// `not_activated`); a token with no grant in a domain reads `not_connected` there.
#[derive(Debug, Default)]
pub struct Grants {
    pub retail: HashMap<String, &'static str>,
    pub ads: HashMap<String, &'static str>,
}

pub async fn accounts(ctx: &Ctx<'_>, args: &Args, grants: &Grants) -> Result<Value> {
    args.only(&[])?;
    let mut out = Vec::new();
    for a in all_accounts(ctx).await? {
        let brands: Vec<String> = rows(
            ctx,
            "SELECT DISTINCT Brand AS brand FROM catalog_item WHERE SellerID = ? ORDER BY Brand",
            vec![int(a.seller_id)],
        )
        .await?
        .iter()
        .map(|r| s(r, "brand").map(str::to_owned))
        .collect::<Result<_>>()?;
        let (retail_table, ads_table) = if a.vendor {
            ("vendor_sales_and_traffic", "dsp_daily")
        } else {
            ("spapi_sales_and_traffic_by_asin", "ads_campaign_daily")
        };
        let retail = data_through(ctx, retail_table, "Date", a.seller_id).await?;
        let ads = data_through(ctx, ads_table, "Date", a.seller_id).await?;
        let auth =
            |m: &HashMap<String, &'static str>| m.get(&a.token).copied().unwrap_or("not_connected");
        out.push(json!({
            "account_id": a.id,
            "name": a.name,
            "type": if a.vendor { "vendor" } else { "seller" },
            "seller_id": a.token,
            "legacy_seller_id": a.seller_id,
            "marketplace": a.marketplace,
            "marketplace_id": a.marketplace_id,
            "currency": a.currency,
            "brands": brands,
            "auth": { "retail": auth(&grants.retail), "ads": auth(&grants.ads) },
            "data_through": { "retail": retail.map(|d| d.to_string()), "ads": ads.map(|d| d.to_string()) },
        }));
    }
    Ok(json!({ "accounts": out }))
}
