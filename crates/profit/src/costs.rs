//! Landed costs as the tenant's data: dated periods per merchant, marketplace and SKU (unit
//! cost, inbound freight, duties, in a currency), read, written in audited batches, and the
//! SKUs that sold on a day no period covers — the ones whose margin cannot be known.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Duration, NaiveDate, Utc};
use pp_core::{Error, Kind, Principal, Result, Scope, TenantId};
use pp_store::costs::{Cost, CostKey, CostRow, CostsWritten};
use pp_warehouse::directory::{self, Seller};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::money::{self, major};
use crate::{Profit, WarehouseCopy};

/// The most periods (set and removed) one batch may carry.
pub const MAX_BATCH: usize = 5000;
/// The longest SKU (the warehouse's column).
const MAX_SKU: usize = 64;
/// The longest reason kept with a batch.
const MAX_REASON: usize = 500;

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

fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

fn day(what: &str, text: &str) -> Result<NaiveDate> {
    pp_core::wire::calendar_date(text)
        .filter(|d| *d >= NaiveDate::from_ymd_opt(2000, 1, 1).expect("a date"))
        .ok_or_else(|| {
            bad(format!(
                "{what}: '{text}' is not a day from 2000-01-01 (YYYY-MM-DD)"
            ))
        })
}

fn key(
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

impl Profit {
    /// The tenant's cost periods, narrowed to a merchant (both ids) and a SKU.
    pub async fn costs(&self, p: &Principal, q: CostsQuery) -> Result<CostsAnswer> {
        p.require(&[Scope::RetailRead])?;
        let merchant = match (&q.seller_id, &q.marketplace_id) {
            (Some(s), Some(m)) => Some((s.as_str(), m.as_str())),
            (None, None) => None,
            _ => return Err(bad("give sellerId and marketplaceId together, or neither")),
        };
        let rows = self
            .store
            .costs()
            .periods(&p.tenant, merchant, q.sku.as_deref())
            .await?;
        Ok(CostsAnswer {
            periods: views(&rows),
        })
    }

    /// Sets and removes cost periods in one audited batch, as the caller.
    pub async fn write_costs(&self, p: &Principal, req: CostsWrite) -> Result<CostsWriteAnswer> {
        p.require(&[Scope::CostsWrite, Scope::RetailRead])?;
        self.write_costs_as(&p.tenant, &p.actor, req).await
    }

    /// [`Self::write_costs`] recorded as `by` (the console's person, the dev server's seed):
    /// the batch is checked whole — every row's fields, each merchant a seller row of the
    /// tenant's warehouse, no period named twice — before anything is written.
    pub async fn write_costs_as(
        &self,
        tenant: &TenantId,
        by: &str,
        req: CostsWrite,
    ) -> Result<CostsWriteAnswer> {
        let n = req.periods.len() + req.remove.len();
        if n == 0 || n > MAX_BATCH {
            return Err(bad(format!(
                "a batch sets or removes 1 to {MAX_BATCH} periods; this one has {n}"
            )));
        }
        let reason = req
            .reason
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty());
        if reason
            .as_ref()
            .is_some_and(|r| r.len() > MAX_REASON || r.contains('\n'))
        {
            return Err(bad(format!(
                "reason is one line of at most {MAX_REASON} characters"
            )));
        }
        let mut put = Vec::with_capacity(req.periods.len());
        for (i, c) in req.periods.iter().enumerate() {
            put.push(c.checked(&format!("periods[{i}]"))?);
        }
        let mut remove = Vec::with_capacity(req.remove.len());
        for (i, r) in req.remove.iter().enumerate() {
            let at = format!("remove[{i}]");
            remove.push(key(
                &r.seller_id,
                &r.marketplace_id,
                &r.sku,
                &r.valid_from,
                &at,
            )?);
        }
        let mut seen = BTreeSet::new();
        for k in put.iter().map(|(k, _)| k).chain(&remove) {
            if !seen.insert(k) {
                return Err(bad(format!(
                    "the period {} {} {} from {} is named twice in the batch",
                    k.seller_id, k.marketplace_id, k.sku, k.valid_from
                )));
            }
        }
        let sellers = self.sellers(tenant).await?;
        for k in &seen {
            merchant(&sellers, &k.seller_id, &k.marketplace_id)?;
        }
        let w: CostsWritten = self
            .store
            .costs()
            .write(tenant, put, remove, by, reason)
            .await?;
        let warehouse_copy = self.copy_costs(tenant, &sellers).await;
        Ok(CostsWriteAnswer {
            added: w.added,
            changed: w.changed,
            removed: w.removed,
            unchanged: w.unchanged,
            warehouse_copy,
        })
    }

    /// The SKUs of one merchant that sold in a window on a day no cost period covers.
    pub async fn missing(&self, p: &Principal, q: MissingQuery) -> Result<MissingAnswer> {
        p.require(&[Scope::RetailRead])?;
        let to = match &q.to {
            Some(t) => day("to", t)?,
            None => Utc::now().date_naive(),
        };
        let from = match &q.from {
            Some(f) => day("from", f)?,
            None => to - Duration::days(90),
        };
        if from > to {
            return Err(bad("from must not be after to"));
        }
        let sellers = self.sellers(&p.tenant).await?;
        let s = merchant(&sellers, &q.seller_id, &q.marketplace_id)?;
        let engine = self.warehouses.of(p).await?;
        let sold = directory::sold_skus(
            engine.as_ref(),
            &self.warehouses.limits,
            s.id,
            &from.to_string(),
            &to.to_string(),
        )
        .await?;
        let periods = self
            .store
            .costs()
            .periods(&p.tenant, Some((&s.token, &s.marketplace_id)), None)
            .await?;
        let mut first_cost: BTreeMap<&str, &str> = BTreeMap::new();
        for r in &periods {
            first_cost.entry(&r.key.sku).or_insert(&r.key.valid_from);
        }
        let missing: Vec<MissingSku> = sold
            .iter()
            .filter_map(|x| {
                let from = first_cost.get(x.sku.as_str()).copied();
                let covered = from.is_some_and(|f| f <= x.first.as_str());
                (!covered).then(|| MissingSku {
                    sku: x.sku.clone(),
                    asin: x.asin.clone(),
                    first_sold: x.first.clone(),
                    last_sold: x.last.clone(),
                    units: x.units,
                    sales: major(x.sales_cents),
                    cost_from: from.map(str::to_owned),
                })
            })
            .collect();
        Ok(MissingAnswer {
            seller_id: s.token.clone(),
            marketplace_id: s.marketplace_id.clone(),
            currency: s.currency.clone(),
            from: from.to_string(),
            to: to.to_string(),
            skus_sold: sold.len(),
            skus_costed: sold.len() - missing.len(),
            missing,
        })
    }

    /// The merchants costs can be entered for: the warehouse's seller rows that are not a
    /// vendor's (a vendor sells to the retailer, and its margin is not the P&L's).
    pub async fn merchants(&self, p: &Principal) -> Result<Vec<Seller>> {
        p.require(&[Scope::RetailRead])?;
        let mut all = self.sellers(&p.tenant).await?;
        all.retain(|s| !s.is_vendor());
        Ok(all)
    }

    /// The tenant warehouse's seller rows.
    pub(crate) async fn sellers(&self, tenant: &TenantId) -> Result<Vec<Seller>> {
        let engine = self.warehouses.of_tenant(tenant).await?;
        directory::sellers(engine.as_ref(), &self.warehouses.limits).await
    }
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
