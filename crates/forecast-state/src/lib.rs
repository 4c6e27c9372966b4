//! Forecast state (`/api/app-state/forecasting/*`, docs/forecast-state.md): a person's forecast
//! corrections (month rows), account settings and sub-brand definitions, stored as versioned
//! documents. Every write goes through an atomic, optimistic batch; month-row changes land in
//! a change log; a database's state has one home login. [`service::ForecastState`] is what
//! every front door calls; HTTP lives in `pp-server`.

pub mod answers;
pub mod batch;
pub mod doc;
pub mod key;
pub mod read;
pub mod scopes;
pub mod service;

pub use batch::{Batch, MAX_BATCH_BYTES, apply, parse};
pub use key::{DocKind, Key, ScopeId};
