//! Profit's tenant data (docs/profit.md): what the marketplace never knows and a P&L needs —
//! each SKU's landed cost over dated periods (`costs`), euro reference rates and the one
//! conversion rule (`rates`, `money`), the tenant's reporting currency — entered by REST, MCP,
//! the command line's file imports (`costs_csv`, `ecb`) and the console, every change in
//! the audit log (`store.costs().changes`). The state store holds the original; a managed
//! warehouse gets a copy in its `cost_period` and `exchange_rate` tables after each change
//! (`service`), so one SQL query can compute a P&L.

pub mod costs;
pub mod costs_csv;
pub mod ecb;
pub mod money;
pub mod rates;
pub mod seed;
mod service;

use serde::{Deserialize, Serialize};

pub use service::Profit;

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
