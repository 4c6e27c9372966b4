//! The `/v1` partner data plane over a tenant warehouse (docs/v1.md): accounts, advertising
//! rollups, retail series and inventory, brand-analytics search queries. Each endpoint checks
//! its query parameters (unknown ones are refused), resolves `account_id`, anchors its window
//! to the latest complete data day, and answers with explicit currencies and opaque cursors.
//! `docs/v1.md` is the contract.

mod account;
mod accounts;
mod ads;
mod args;
mod brand_analytics;
mod money;
mod retail;
mod rows;
mod window;

use pp_core::cursor::Cursors;

use crate::engine::Engine;
use crate::limits::Limits;

pub use accounts::{Grants, accounts};
pub use ads::{
    account_pacing, account_summary, asin_performance, campaign_performance, search_terms,
};
pub use args::Args;
pub use brand_analytics::search_query_performance;
pub use retail::{inventory, inventory_history, sales, traffic};

/// What every `/v1` data call needs.
pub struct Ctx<'a> {
    /// The caller's tenant warehouse.
    pub engine: &'a dyn Engine,
    /// Query limits.
    pub limits: &'a Limits,
    /// The caller's tenant id (account ids carry it).
    pub tenant: &'a str,
    /// Cursor signer.
    pub cursors: &'a Cursors,
}
