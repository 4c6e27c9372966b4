//! Resolving the merchant a request names: `sellerId` (the merchant token) with
//! `marketplaceId` picks one seller row; `brand` (a slug) picks the brand's seller rows and
//! only its items, summed. A scope has one currency and one kind of account (seller or
//! vendor): a brand sold in several currencies must be narrowed with `marketplaceId`. What
//! does not resolve is `merchant_not_resolved`, with the candidates that would.

use pp_core::{Error, Kind, Result};
use pp_warehouse::directory::{self, Seller};
use serde::Serialize;
use serde_json::{Value, json};

use crate::data::{self, Wh};
use crate::params::MerchantRef;

/// A brand a scope is restricted to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrandSel {
    pub slug: String,
    pub name: String,
}

/// The seller rows (and brand) a request reads.
#[derive(Debug, Clone)]
pub struct Scope {
    pub sellers: Vec<Seller>,
    pub brand: Option<BrandSel>,
    pub currency: String,
    pub vendor: bool,
}

/// A scope as results show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScopeView {
    pub label: String,
    pub currency: String,
    pub account_type: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brand: Option<String>,
    pub sellers: Vec<Value>,
}

impl Scope {
    /// The slot keys of the accounts it reads (`seller:<id>`).
    pub fn accounts(&self) -> Vec<String> {
        self.sellers
            .iter()
            .map(|s| format!("seller:{}", s.id))
            .collect()
    }

    /// The seller row ids.
    pub fn seller_ids(&self) -> Vec<i64> {
        self.sellers.iter().map(|s| s.id).collect()
    }

    /// How results name it.
    pub fn view(&self) -> ScopeView {
        let names: Vec<&str> = self.sellers.iter().map(|s| s.name.as_str()).collect();
        let label = match &self.brand {
            Some(b) => format!("{} ({})", b.name, names.join(" + ")),
            None => names.join(" + "),
        };
        ScopeView {
            label,
            currency: self.currency.clone(),
            account_type: if self.vendor { "vendor" } else { "seller" },
            brand: self.brand.as_ref().map(|b| b.slug.clone()),
            sellers: self
                .sellers
                .iter()
                .map(|s| json!({ "legacySellerId": s.id, "sellerId": s.token, "marketplaceId": s.marketplace_id, "name": s.name }))
                .collect(),
        }
    }
}

fn not_resolved(msg: String, candidates: &[Seller]) -> Error {
    let list: Vec<Value> = candidates
        .iter()
        .map(|s| json!({ "sellerId": s.token, "marketplaceId": s.marketplace_id, "name": s.name, "currency": s.currency }))
        .collect();
    Error::new(Kind::MerchantNotResolved, msg)
        .with_field("candidates", Value::Array(list))
        .with_fix("Name sellerId with marketplaceId, or a brand slug (narrowed with marketplaceId when it sells in several currencies).")
}

/// One currency and one kind of account, or `merchant_not_resolved`.
fn single(rows: Vec<Seller>, brand: Option<BrandSel>, what: &str) -> Result<Scope> {
    let Some(first) = rows.first() else {
        return Err(not_resolved(
            format!("{what} has no merchant rows here"),
            &[],
        ));
    };
    if rows
        .iter()
        .any(|r| r.currency != first.currency || r.is_vendor() != first.is_vendor())
    {
        return Err(not_resolved(
            format!(
                "{what} sells in several currencies or as both seller and vendor; add marketplaceId to pick one"
            ),
            &rows,
        ));
    }
    Ok(Scope {
        currency: first.currency.clone(),
        vendor: first.is_vendor(),
        sellers: rows,
        brand,
    })
}

/// The scope `m` names in the warehouse.
pub async fn resolve(wh: &Wh, m: &MerchantRef) -> Result<Scope> {
    let all = directory::sellers(wh.engine.as_ref(), &wh.limits).await?;
    let in_market = |r: &Seller| {
        m.marketplace_id
            .as_deref()
            .is_none_or(|id| r.marketplace_id == id)
    };
    if let Some(token) = &m.seller_id {
        let same: Vec<Seller> = all.iter().filter(|r| &r.token == token).cloned().collect();
        if same.is_empty() {
            return Err(not_resolved(
                format!("no merchant '{token}' in this account"),
                &all,
            ));
        }
        let picked: Vec<Seller> = same.iter().filter(|r| in_market(r)).cloned().collect();
        return match picked.len() {
            1 => single(picked, None, token),
            0 => Err(not_resolved(
                format!(
                    "merchant '{token}' does not sell in marketplace {}",
                    m.marketplace_id.as_deref().unwrap_or("")
                ),
                &same,
            )),
            _ => Err(not_resolved(
                format!("merchant '{token}' sells in several marketplaces; add marketplaceId"),
                &same,
            )),
        };
    }
    let slug = m.brand.as_deref().unwrap_or_default();
    let brands = directory::brands(wh.engine.as_ref(), &wh.limits).await?;
    let Some(b) = brands.into_iter().find(|b| b.slug == slug) else {
        return Err(not_resolved(
            format!("no brand '{slug}' in this account"),
            &[],
        ));
    };
    let ids = data::brand_sellers(wh, &b.name).await?;
    let rows: Vec<Seller> = all
        .into_iter()
        .filter(|r| ids.contains(&r.id) && in_market(r))
        .collect();
    let sel = BrandSel {
        slug: b.slug,
        name: b.name,
    };
    single(rows, Some(sel), &format!("brand '{slug}'"))
}
