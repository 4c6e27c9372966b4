//! Warehouse sync: a *managed* tenant warehouse is filled by the gateway from the tenant's
//! connected accounts. Each dataset is data ([`datasets::DATASETS`]: its reader,
//! tables, natural key, lookback, restatement window and slice length); each (merchant,
//! dataset) is one job of kind [`job::SyncDataset`] that backfills as far as the provider allows,
//! then runs daily and re-reads its restatement window. A slice (dataset × merchant × days)
//! is loaded in one transaction that replaces its rows (`pp_warehouse::Managed`), so a re-read
//! corrects restated days and a retried step never duplicates; report creates go through the
//! marketplace's ledger (`pp_marketplace::service::Feeds`), keyed by slice and run, so a step
//! repeated after a crash reuses the report its first try made.
//!
//! - `datasets`: the datasets as data, each row naming its reader;
//! - `reader`: what a dataset is to the step ([`reader::Reader`]) and what it works with;
//! - `readers`: one module per dataset: what it asks the provider for, its rows;
//! - `checkpoint`: what a dataset's job keeps between steps;
//! - `plan`: which days a run reads, and its slices (pure);
//! - `adopt`: a connected account's merchants into the warehouse's `seller` rows;
//! - `job`: the job step, which drives a dataset's reader through its runs;
//! - `settings`: how syncs run, and a tenant's own schedule over the service's settings;
//! - `stream`: Amazon Marketing Stream's hourly data, pushed to the gateway's SQS queues;
//! - `service`: [`WarehouseSync`], what every front door calls.

pub mod adopt;
pub mod checkpoint;
pub mod datasets;
pub mod job;
pub mod plan;
pub mod reader;
pub mod readers;
pub mod service;
pub mod settings;
pub mod stream;

pub use datasets::{Dataset, Datasets};
pub use service::{
    Backfill, DatasetStatus, Overview, RunRequest, SyncStatus, WarehouseSync, create_tables, manage,
};
pub use settings::{
    MAX_HISTORY_DAYS, MIN_HISTORY_DAYS, ScheduleInForce, StoredSchedule, SyncSettings,
    TenantSchedule,
};
