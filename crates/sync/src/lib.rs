//! Warehouse sync: a *managed* tenant warehouse is filled by the gateway from the tenant's
//! connected accounts. Each dataset is data ([`datasets::DATASETS`]: its provider source,
//! tables, natural key, lookback, restatement window and slice length); each (merchant,
//! dataset) is one job of kind [`job::KIND`] that backfills as far as the provider allows,
//! then runs daily and re-reads its restatement window. A slice (dataset × merchant × days)
//! is loaded in one transaction that replaces its rows (`pp_world::Managed`), so a re-read
//! corrects restated days and a retried step never duplicates; report creates go through the
//! marketplace's ledger (`pp_marketplace::service::Feeds`), keyed by slice and run, so a step
//! repeated after a crash reuses the report its first try made.
//!
//! - `datasets`: the datasets as data;
//! - `plan`: which days a run reads, and its slices (pure);
//! - `rows`: documents into warehouse rows;
//! - `adopt`: a connected account's merchants into the warehouse's `seller` rows;
//! - `job`: the job step;
//! - `dsp`: the DSP advertiser linked to a merchant, and its Reporting v1 request;
//! - `entities`: advertising entities, listed (no report) and written whole;
//! - `settlements`: the settlement reports the provider made, listed and read;
//! - `sqp`: search query performance, whose slice asks one report per list of ASINs;
//! - `settings`: how syncs run, and a tenant's own schedule over the service's settings;
//! - `service`: [`WarehouseSync`], what every front door calls.

pub mod adopt;
pub mod datasets;
mod dsp;
pub mod entities;
pub mod job;
pub mod plan;
pub mod rows;
pub mod service;
pub mod settings;
mod settlements;
mod sqp;

pub use service::{Overview, RunRequest, SyncStatus, WarehouseSync, create_tables, manage};
pub use settings::{ScheduleInForce, StoredSchedule, SyncSettings, TenantSchedule};
