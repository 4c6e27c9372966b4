//! Intelligence: the catalog of named finished-read requests over a tenant's warehouse (docs/intelligence.md,
//! docs/intelligence.md). `registry` is the catalog as data and code; `engines` holds one module per request
//! (the sales and advertising bridges, their join, lost sales, the monthly read, a change's
//! outcome); `plan` the plan service's requests (budget pacing), which answer with dry-run
//! plans; `data` and `daily` are every warehouse read they make; `shapley` the exact decomposition the bridges share;
//! `evidence` the "What We Know" statements; `service::Intelligence` the one interface the
//! front doors and the job worker call. Runs are rows in the state store
//! (`store.intelligence()`): metered by request id, capped per account across instances.

pub mod daily;
pub mod data;
pub mod engines;
pub mod evidence;
pub mod forecasting;
pub mod monitors;
pub mod params;
pub mod plan;
pub mod profit;
pub mod registry;
pub mod scope;
pub mod service;
pub mod shapley;

pub use forecasting::publish::{Publication, Withdrawal};
pub use service::{
    Catalog, Intelligence, IntelligenceRun, PublishRequest, RunBody, RunId, RunRequest, RunView,
    Settings, WithdrawRequest,
};

/// Version of the engines serving (stamped on every result, shown by `/health`).
pub const ENGINE_VERSION: &str = "ins-engines-2026.12.2";
/// Version of the evidence rules serving (stamped on every result, shown by `/health`).
pub const EVIDENCE_VERSION: &str = "evidence-2026.11.1";
