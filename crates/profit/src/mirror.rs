//! The copy of a tenant's costs and rates in its managed warehouse (`cost_period`,
//! `exchange_rate`), rewritten whole after each change so a copy that once failed is right
//! again at the next. An external warehouse is the tenant's own and is never written.

use pp_core::{Result, TenantId};
use pp_warehouse::directory::Seller;
use pp_warehouse::managed::{Load, Managed, Slice};
use pp_warehouse::schema::{Cell, table};

use crate::costs::views;
use crate::money;
use crate::{Profit, WarehouseCopy};

fn outcome(r: Result<Option<()>>) -> WarehouseCopy {
    match r {
        Ok(Some(())) => WarehouseCopy::Updated,
        Ok(None) => WarehouseCopy::External,
        Err(e) => {
            tracing::warn!(error = %e.message(), "copying profit data into the managed warehouse failed");
            WarehouseCopy::Failed(e.message().to_owned())
        }
    }
}

impl Profit {
    /// The managed warehouse's loader, or `None` for an external warehouse.
    async fn loader(&self, tenant: &TenantId) -> Result<Option<Managed>> {
        let Some(locator) = self.store.sync().loader(tenant).await? else {
            return Ok(None);
        };
        let mut map = self.loaders.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = map.get(&locator) {
            return Ok(Some(m.clone()));
        }
        let m = Managed::open(&locator)
            .map_err(|e| pp_core::Error::internal(format!("opening the managed warehouse: {e}")))?;
        map.insert(locator, m.clone());
        Ok(Some(m))
    }

    /// Rewrites every seller row's cost periods in the managed warehouse.
    pub(crate) async fn copy_costs(&self, tenant: &TenantId, sellers: &[Seller]) -> WarehouseCopy {
        outcome(self.try_copy_costs(tenant, sellers).await)
    }

    async fn try_copy_costs(&self, tenant: &TenantId, sellers: &[Seller]) -> Result<Option<()>> {
        let Some(loader) = self.loader(tenant).await? else {
            return Ok(None);
        };
        let t = table("cost_period");
        let periods = views(&self.store.costs().periods(tenant, None, None).await?);
        let loads: Vec<Load> = sellers
            .iter()
            .map(|s| Load {
                slice: Slice {
                    table: t,
                    seller_id: s.id,
                    range: None,
                    part: None,
                },
                rows: periods
                    .iter()
                    .filter(|p| p.seller_id == s.token && p.marketplace_id == s.marketplace_id)
                    .map(|p| {
                        let cents = |v: f64| Cell::Cents((v * 100.0).round() as i64);
                        vec![
                            Cell::Int(s.id),
                            Cell::Text(s.token.clone()),
                            Cell::Text(p.sku.clone()),
                            Cell::Text(p.valid_from.clone()),
                            p.valid_through.clone().map_or(Cell::Null, Cell::Text),
                            Cell::Text(p.currency.clone()),
                            cents(p.unit_cost),
                            cents(p.freight),
                            cents(p.duties),
                        ]
                    })
                    .collect(),
            })
            .collect();
        loader
            .replace_all(&loads)
            .await
            .map_err(|e| pp_core::Error::internal(e.to_string()))?;
        Ok(Some(()))
    }

    /// Rewrites the managed warehouse's rates.
    pub(crate) async fn copy_rates(&self, tenant: &TenantId) -> WarehouseCopy {
        outcome(self.try_copy_rates(tenant).await)
    }

    async fn try_copy_rates(&self, tenant: &TenantId) -> Result<Option<()>> {
        let Some(loader) = self.loader(tenant).await? else {
            return Ok(None);
        };
        let rates = self
            .store
            .costs()
            .rates(tenant, None, "0000-01-01", "9999-12-31")
            .await?;
        let rows = rates
            .into_iter()
            .map(|r| {
                vec![
                    Cell::Text(r.day),
                    Cell::Text(r.currency),
                    Cell::Text(money::rate_text(r.per_eur_e6)),
                ]
            })
            .collect();
        let slice = Slice {
            table: table("exchange_rate"),
            seller_id: 0,
            range: None,
            part: None,
        };
        loader
            .replace(&slice, rows)
            .await
            .map_err(|e| pp_core::Error::internal(e.to_string()))?;
        Ok(Some(()))
    }
}
