//! Landed costs as the tenant's data: dated periods per merchant, marketplace and SKU (unit
//! cost, inbound freight, duties, in a currency), read, written in audited batches, and the
//! SKUs that sold on a day no period covers — the ones whose margin cannot be known.

use chrono::{Duration, NaiveDate};
use pp_core::{Error, Kind, Result};
use pp_store::costs::{Cost, CostKey, CostRow};
use pp_warehouse::directory::Seller;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::WarehouseCopy;
use crate::money::{self, major};

/// The most periods (set and removed) one batch may carry.
pub const MAX_BATCH: usize = 5000;
/// The longest SKU (the warehouse's column).
const MAX_SKU: usize = 64;
/// The longest reason kept with a batch.
pub(crate) const MAX_REASON: usize = 500;

/// One cost period as a caller gives it (REST, MCP, a CSV row).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CostInput {
    pub seller_id: String,
    pub marketplace_id: String,
    pub sku: String,
    /// `YYYY-MM-DD`.
    pub valid_from: String,
    pub currency: String,
    /// Per unit, at most two decimals (a number or decimal text).
    pub unit_cost: Value,
    pub freight: Value,
    pub duties: Value,
}

/// Which period to remove.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PeriodRef {
    pub seller_id: String,
    pub marketplace_id: String,
    pub sku: String,
    pub valid_from: String,
}

/// A batch: periods to set (a period with the same SKU and start is replaced) and to remove.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CostsWrite {
    #[serde(default)]
    pub periods: Vec<CostInput>,
    #[serde(default)]
    pub remove: Vec<PeriodRef>,
    /// One line kept in the audit log beside every change.
    #[serde(default)]
    pub reason: Option<String>,
}

/// What a batch did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostsWriteAnswer {
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
    pub unchanged: usize,
    /// The copy in a managed warehouse's `cost_period` table.
    pub warehouse_copy: WarehouseCopy,
}

/// Which periods to list.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CostsQuery {
    #[serde(default)]
    pub seller_id: Option<String>,
    #[serde(default)]
    pub marketplace_id: Option<String>,
    #[serde(default)]
    pub sku: Option<String>,
}

/// A stored period as answers show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PeriodView {
    pub seller_id: String,
    pub marketplace_id: String,
    pub sku: String,
    pub valid_from: String,
    /// The day before the SKU's next period; null while this one is the latest.
    pub valid_through: Option<String>,
    pub currency: String,
    pub unit_cost: f64,
    pub freight: f64,
    pub duties: f64,
    /// Unit cost, freight and duties together.
    pub landed_cost: f64,
    pub updated_by: String,
    pub updated_at: String,
}

/// The periods asked for.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostsAnswer {
    pub periods: Vec<PeriodView>,
}

/// Which merchant and days to look for uncosted sales in.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MissingQuery {
    pub seller_id: String,
    pub marketplace_id: String,
    /// Default: 90 days before `to`.
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub from: Option<String>,
    /// Default: today (UTC).
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub to: Option<String>,
}

/// A SKU that sold on a day no cost period covers.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingSku {
    pub sku: String,
    pub asin: String,
    pub first_sold: String,
    pub last_sold: String,
    /// Units and sales of the whole window.
    pub units: i64,
    pub sales: f64,
    /// The first day any period covers (null: no period at all); sales before it have no cost.
    pub cost_from: Option<String>,
}

/// The SKUs of a merchant's sales in a window that lack a cost.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingAnswer {
    pub seller_id: String,
    pub marketplace_id: String,
    pub currency: String,
    pub from: String,
    pub to: String,
    /// SKUs that sold in the window.
    pub skus_sold: usize,
    /// Of them, those with a cost on every day they sold.
    pub skus_costed: usize,
    pub missing: Vec<MissingSku>,
}

pub(crate) fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

pub(crate) fn day(what: &str, text: &str) -> Result<NaiveDate> {
    pp_core::wire::calendar_date(text)
        .filter(|d| *d >= NaiveDate::from_ymd_opt(2000, 1, 1).expect("a date"))
        .ok_or_else(|| {
            bad(format!(
                "{what}: '{text}' is not a day from 2000-01-01 (YYYY-MM-DD)"
            ))
        })
}

pub(crate) fn key(
    seller_id: &str,
    marketplace_id: &str,
    sku: &str,
    valid_from: &str,
    at: &str,
) -> Result<CostKey> {
    let sku_ok =
        !sku.trim().is_empty() && sku.len() <= MAX_SKU && !sku.chars().any(char::is_control);
    if !sku_ok {
        return Err(bad(format!(
            "{at}: sku must be 1 to {MAX_SKU} characters, no control characters"
        )));
    }
    if seller_id.is_empty() || marketplace_id.is_empty() {
        return Err(bad(format!(
            "{at}: sellerId and marketplaceId are required"
        )));
    }
    Ok(CostKey {
        seller_id: seller_id.to_owned(),
        marketplace_id: marketplace_id.to_owned(),
        sku: sku.to_owned(),
        valid_from: day(&format!("{at}: validFrom"), valid_from)?.to_string(),
    })
}

impl CostInput {
    /// The stored key and cost, or why not (`at` names the row in the message).
    pub fn checked(&self, at: &str) -> Result<(CostKey, Cost)> {
        let k = key(
            &self.seller_id,
            &self.marketplace_id,
            &self.sku,
            &self.valid_from,
            at,
        )?;
        let cost = Cost {
            currency: money::currency(&format!("{at}: currency"), &self.currency)?,
            unit_cents: money::cents_of(&format!("{at}: unitCost"), &self.unit_cost)?,
            freight_cents: money::cents_of(&format!("{at}: freight"), &self.freight)?,
            duties_cents: money::cents_of(&format!("{at}: duties"), &self.duties)?,
        };
        Ok((k, cost))
    }
}

fn at_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_default()
}

/// Periods as answers show them: each one's last day is the day before its SKU's next start.
pub fn views(rows: &[CostRow]) -> Vec<PeriodView> {
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let next = rows.get(i + 1).filter(|n| {
                (&n.key.seller_id, &n.key.marketplace_id, &n.key.sku)
                    == (&r.key.seller_id, &r.key.marketplace_id, &r.key.sku)
            });
            let through = next.and_then(|n| {
                NaiveDate::parse_from_str(&n.key.valid_from, "%Y-%m-%d")
                    .ok()
                    .map(|d| (d - Duration::days(1)).to_string())
            });
            let c = &r.cost;
            PeriodView {
                seller_id: r.key.seller_id.clone(),
                marketplace_id: r.key.marketplace_id.clone(),
                sku: r.key.sku.clone(),
                valid_from: r.key.valid_from.clone(),
                valid_through: through,
                currency: c.currency.clone(),
                unit_cost: major(c.unit_cents),
                freight: major(c.freight_cents),
                duties: major(c.duties_cents),
                landed_cost: major(c.unit_cents + c.freight_cents + c.duties_cents),
                updated_by: r.updated_by.clone(),
                updated_at: at_ms(r.updated_ms),
            }
        })
        .collect()
}

/// The seller row of a merchant token in a marketplace, or `merchant_not_found`.
pub(crate) fn merchant<'a>(
    sellers: &'a [Seller],
    seller_id: &str,
    marketplace_id: &str,
) -> Result<&'a Seller> {
    sellers
        .iter()
        .find(|s| s.token == seller_id && s.marketplace_id == marketplace_id)
        .ok_or_else(|| {
            Error::new(
                Kind::MerchantNotFound,
                format!("no merchant {seller_id} in marketplace {marketplace_id} in this account's warehouse"),
            )
            .with_fix("GET /v1/accounts lists the account's merchants and their marketplaces")
        })
}
