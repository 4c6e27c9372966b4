//! `Profit`, the service the doors call (docs/profit.md), and every method it has: cost
//! periods (read, written in audited batches, the SKUs sold without one), exchange rates and
//! the reporting currency, the audit log, and the copies in a managed warehouse
//! (`cost_period`, `exchange_rate`, rewritten whole after each change so a copy that once
//! failed is right again at the next; an external warehouse is never written). The rules and
//! wire types live beside it: `costs`, `rates`, `money`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use chrono::{Duration, NaiveDate, Utc};
use pp_core::{Principal, Result, Scope, TenantId};
use pp_store::Store;
use pp_store::costs::CostsWritten;
use pp_warehouse::Warehouses;
use pp_warehouse::directory::{self, Seller};
use pp_warehouse::managed::{Load, Managed, Slice};
use pp_warehouse::schema::{Cell, table};

use crate::costs::{
    self, CostsAnswer, CostsQuery, CostsWrite, CostsWriteAnswer, MAX_BATCH, MAX_REASON,
    MissingAnswer, MissingQuery, MissingSku,
};
use crate::money::{self, major};
use crate::rates::{
    self, CARRY_DAYS, Coverage, DEFAULT_REPORTING, MAX_RATES, ProfitSettings, RateBook, RateView,
    RatesAnswer, RatesImport, RatesImportAnswer, RatesQuery, SettingsWrite,
};
use crate::{ChangeView, ChangesAnswer, ChangesQuery, WarehouseCopy};

/// What became of a copy into the managed warehouse (`None`: the warehouse is external).
fn copied(r: Result<Option<()>>) -> WarehouseCopy {
    match r {
        Ok(Some(())) => WarehouseCopy::Updated,
        Ok(None) => WarehouseCopy::External,
        Err(e) => {
            tracing::warn!(error = %e.message(), "copying profit data into the managed warehouse failed");
            WarehouseCopy::Failed(e.message().to_owned())
        }
    }
}

/// The days a read asks for, each read by `day`: `to` defaults to today (UTC), `from` to
/// `back` days before `to`.
fn window(
    from: Option<&str>,
    to: Option<&str>,
    back: i64,
    day: fn(&str, &str) -> Result<NaiveDate>,
) -> Result<(NaiveDate, NaiveDate)> {
    let to = match to {
        Some(t) => day("to", t)?,
        None => Utc::now().date_naive(),
    };
    let from = match from {
        Some(f) => day("from", f)?,
        None => to - Duration::days(back),
    };
    Ok((from, to))
}

/// The profit data service: cheap to clone.
#[derive(Clone)]
pub struct Profit {
    store: Store,
    warehouses: Warehouses,
    loaders: Arc<Mutex<HashMap<String, Managed>>>,
}

impl Profit {
    pub fn new(store: Store, warehouses: Warehouses) -> Self {
        Self {
            store,
            warehouses,
            loaders: Arc::default(),
        }
    }

    /// The audit log of costs, rates and the reporting currency, newest first.
    pub async fn changes(&self, p: &Principal, q: ChangesQuery) -> Result<ChangesAnswer> {
        p.require(&[Scope::RetailRead])?;
        let limit = pp_core::wire::int_in("limit", q.limit.as_deref(), 1, 500)?.unwrap_or(100);
        let before = pp_core::wire::int_in("before", q.before.as_deref(), 1, i64::MAX)?;
        let rows = self
            .store
            .costs()
            .changes(&p.tenant, before, limit + 1)
            .await?;
        let more = rows.len() as i64 > limit;
        let changes: Vec<ChangeView> = rows
            .into_iter()
            .take(limit as usize)
            .map(|r| ChangeView {
                id: r.id,
                at: chrono::DateTime::from_timestamp_millis(r.at_ms)
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
                    .unwrap_or_default(),
                actor: r.actor,
                what: r.what,
                subject: r.subject,
                before: r.before,
                after: r.after,
                reason: r.reason,
            })
            .collect();
        let next_before = more.then(|| changes.last().map(|c| c.id)).flatten();
        Ok(ChangesAnswer {
            changes,
            next_before,
        })
    }

    /// The tenant's cost periods, narrowed to a merchant (both ids) and a SKU.
    pub async fn costs(&self, p: &Principal, q: CostsQuery) -> Result<CostsAnswer> {
        p.require(&[Scope::RetailRead])?;
        let merchant = match (&q.seller_id, &q.marketplace_id) {
            (Some(s), Some(m)) => Some((s.as_str(), m.as_str())),
            (None, None) => None,
            _ => {
                return Err(costs::bad(
                    "give sellerId and marketplaceId together, or neither",
                ));
            }
        };
        let rows = self
            .store
            .costs()
            .periods(&p.tenant, merchant, q.sku.as_deref())
            .await?;
        Ok(CostsAnswer {
            periods: costs::views(&rows),
        })
    }

    /// Sets and removes cost periods in one audited batch, as the caller.
    pub async fn write_costs(&self, p: &Principal, req: CostsWrite) -> Result<CostsWriteAnswer> {
        p.require(&[Scope::CostsWrite, Scope::RetailRead])?;
        self.write_costs_as(&p.tenant, &p.actor, req).await
    }

    /// [`Self::write_costs`] recorded as `by`: the batch is checked whole — every row's fields, each merchant a seller row of the
    /// tenant's warehouse, no period named twice — before anything is written.
    async fn write_costs_as(
        &self,
        tenant: &TenantId,
        by: &str,
        req: CostsWrite,
    ) -> Result<CostsWriteAnswer> {
        let n = req.periods.len() + req.remove.len();
        if n == 0 || n > MAX_BATCH {
            return Err(costs::bad(format!(
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
            return Err(costs::bad(format!(
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
            remove.push(costs::key(
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
                return Err(costs::bad(format!(
                    "the period {} {} {} from {} is named twice in the batch",
                    k.seller_id, k.marketplace_id, k.sku, k.valid_from
                )));
            }
        }
        let sellers = self.sellers(tenant).await?;
        for k in &seen {
            costs::merchant(&sellers, &k.seller_id, &k.marketplace_id)?;
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
        let (from, to) = window(q.from.as_deref(), q.to.as_deref(), 90, costs::day)?;
        if from > to {
            return Err(costs::bad("from must not be after to"));
        }
        let sellers = self.sellers(&p.tenant).await?;
        let s = costs::merchant(&sellers, &q.seller_id, &q.marketplace_id)?;
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

    /// Imports rates in one audited transaction, as the caller.
    pub async fn import_rates(&self, p: &Principal, req: RatesImport) -> Result<RatesImportAnswer> {
        p.require(&[Scope::CostsWrite, Scope::RetailRead])?;
        self.import_rates_as(&p.tenant, &p.actor, req).await
    }

    /// [`Self::import_rates`] recorded as `by`; checked whole before anything is written.
    async fn import_rates_as(
        &self,
        tenant: &TenantId,
        by: &str,
        req: RatesImport,
    ) -> Result<RatesImportAnswer> {
        let source = req.source.trim().to_owned();
        if source.is_empty() || source.len() > 200 || source.chars().any(char::is_control) {
            return Err(rates::bad(
                "source names where the rates come from: one line of 1 to 200 characters",
            ));
        }
        let n = req.rates.len();
        if n == 0 || n > MAX_RATES {
            return Err(rates::bad(format!(
                "an import carries 1 to {MAX_RATES} rates; this one has {n}"
            )));
        }
        let mut rates = Vec::with_capacity(n);
        let mut seen = std::collections::BTreeSet::new();
        for (i, r) in req.rates.iter().enumerate() {
            let r = r.checked(&format!("rates[{i}]"))?;
            if !seen.insert((r.currency.clone(), r.day.clone())) {
                return Err(rates::bad(format!(
                    "rates[{i}]: {} on {} is given twice",
                    r.currency, r.day
                )));
            }
            rates.push(r);
        }
        let w = self
            .store
            .costs()
            .put_rates(tenant, rates, source, by)
            .await?;
        let warehouse_copy = self.copy_rates(tenant).await;
        Ok(RatesImportAnswer {
            added: w.added,
            changed: w.changed,
            unchanged: w.unchanged,
            warehouse_copy,
        })
    }

    /// The tenant's rates in a window, and the days held of every currency.
    pub async fn rates(&self, p: &Principal, q: RatesQuery) -> Result<RatesAnswer> {
        p.require(&[Scope::RetailRead])?;
        let (from, to) = window(q.from.as_deref(), q.to.as_deref(), 31, rates::day)?;
        if from > to || to - from > Duration::days(3660) {
            return Err(rates::bad(
                "from must be on or before to, at most ten years apart",
            ));
        }
        let currency = q
            .currency
            .as_deref()
            .map(|c| money::currency("currency", c))
            .transpose()?;
        let costs = self.store.costs();
        let rates = costs
            .rates(
                &p.tenant,
                currency.as_deref(),
                &from.to_string(),
                &to.to_string(),
            )
            .await?;
        let coverage = costs.rate_coverage(&p.tenant).await?;
        Ok(RatesAnswer {
            base: "EUR",
            from: from.to_string(),
            to: to.to_string(),
            rates: rates
                .into_iter()
                .map(|r| RateView {
                    date: r.day,
                    currency: r.currency,
                    per_eur: money::rate_text(r.per_eur_e6),
                })
                .collect(),
            coverage: coverage
                .into_iter()
                .map(|(currency, from, through, days)| Coverage {
                    currency,
                    from,
                    through,
                    days,
                })
                .collect(),
        })
    }

    /// The tenant's reporting currency.
    pub async fn settings(&self, p: &Principal) -> Result<ProfitSettings> {
        p.require(&[Scope::RetailRead])?;
        self.settings_of(&p.tenant).await
    }

    /// A tenant's reporting currency, for work done on its behalf.
    async fn settings_of(&self, tenant: &TenantId) -> Result<ProfitSettings> {
        Ok(match self.store.costs().reporting_currency(tenant).await? {
            Some((c, by, ms)) => ProfitSettings {
                reporting_currency: c,
                set: true,
                updated_by: Some(by),
                updated_at: chrono::DateTime::from_timestamp_millis(ms)
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            },
            None => ProfitSettings {
                reporting_currency: DEFAULT_REPORTING.into(),
                set: false,
                updated_by: None,
                updated_at: None,
            },
        })
    }

    /// Sets the tenant's reporting currency (audited), as the caller.
    pub async fn set_settings(&self, p: &Principal, req: SettingsWrite) -> Result<ProfitSettings> {
        p.require(&[Scope::CostsWrite, Scope::RetailRead])?;
        let c = money::currency("reportingCurrency", &req.reporting_currency)?;
        self.store
            .costs()
            .set_reporting_currency(&p.tenant, &c, &p.actor)
            .await?;
        self.settings_of(&p.tenant).await
    }

    /// The rates of `currencies` a conversion over `from..=to` may need, read from `store`
    /// (the engines that convert read them without the service).
    pub async fn rate_book(
        store: &pp_store::Store,
        tenant: &TenantId,
        currencies: &[&str],
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<RateBook> {
        let mut book = RateBook::default();
        let since = (from - Duration::days(CARRY_DAYS)).to_string();
        for c in currencies.iter().filter(|c| **c != "EUR") {
            let rates = store
                .costs()
                .rates(tenant, Some(c), &since, &to.to_string())
                .await?;
            let days = book.days.entry((*c).to_owned()).or_default();
            for r in rates {
                if let Ok(d) = NaiveDate::parse_from_str(&r.day, "%Y-%m-%d") {
                    days.insert(d, r.per_eur_e6);
                }
            }
        }
        Ok(book)
    }

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
        copied(self.try_copy_costs(tenant, sellers).await)
    }

    async fn try_copy_costs(&self, tenant: &TenantId, sellers: &[Seller]) -> Result<Option<()>> {
        let Some(loader) = self.loader(tenant).await? else {
            return Ok(None);
        };
        let t = table("cost_period");
        let periods = costs::views(&self.store.costs().periods(tenant, None, None).await?);
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
        copied(self.try_copy_rates(tenant).await)
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
