//! Profit's tenant data (docs/profit.md): what the marketplace never knows and a P&L needs —
//! each SKU's landed cost over dated periods (`costs`), euro reference rates and the one
//! conversion rule (`rates`, `money`), the tenant's reporting currency — entered by REST, MCP,
//! the command line's file imports (`costs_csv`, `ecb`) and the console, every change in
//! the audit log (`store.costs().changes`). The state store holds the original; a managed
//! warehouse gets a copy in its `cost_period` and `exchange_rate` tables after each change
//! (`mirror`), so one SQL query can compute a P&L.

pub mod costs;
pub mod costs_csv;
pub mod ecb;
mod mirror;
pub mod money;
pub mod rates;
pub mod seed;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pp_core::{Principal, Result, Scope};
use pp_store::Store;
use pp_warehouse::Warehouses;
use pp_warehouse::managed::Managed;
use serde::{Deserialize, Serialize};

pub use costs::{
    CostInput, CostsAnswer, CostsQuery, CostsWrite, CostsWriteAnswer, MissingAnswer, MissingQuery,
};
pub use rates::{
    MissingRate, ProfitSettings, RateBook, RatesAnswer, RatesImport, RatesQuery, SettingsWrite,
};

/// What became of a change's copy in the tenant's warehouse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum WarehouseCopy {
    /// The managed warehouse's table holds the change.
    Updated,
    /// The warehouse is the tenant's own (external): the gateway does not write to it.
    External,
    /// The copy failed (the state store holds the change; the next change copies again).
    Failed(String),
}

/// The profit data service: cheap to clone.
#[derive(Clone)]
pub struct Profit {
    pub(crate) store: Store,
    pub(crate) warehouses: Warehouses,
    loaders: Arc<Mutex<HashMap<String, Managed>>>,
}

/// Which changes of the audit log to list.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangesQuery {
    /// Changes older than this id (the previous page's `nextBefore`).
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub before: Option<String>,
    /// 1 to 500, default 100.
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub limit: Option<String>,
}

/// One change of the audit log.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeView {
    pub id: i64,
    pub at: String,
    pub actor: String,
    /// `cost`, `rates` or `reporting_currency`.
    pub what: String,
    /// The period (`seller/marketplace/sku@validFrom`), the import's source, or `tenant`.
    pub subject: String,
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
    pub reason: Option<String>,
}

/// A page of the audit log, newest first.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangesAnswer {
    pub changes: Vec<ChangeView>,
    /// Pass as `before` for the next page; null on the last.
    pub next_before: Option<i64>,
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
}
