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
pub use window::Window;

/// The account a daily read names (`account_id`) and its window (`start_date`, `end_date`,
/// default the `default_days` ending on the latest day `table` holds for it), for a read whose
/// rows another service computes (`/v1/profit`); the parameters beside `allowed` are refused.
/// `Err` holds the answer when the account has no data there.
pub async fn account_window(
    ctx: &Ctx<'_>,
    args: &Args,
    allowed: &[&str],
    table: &str,
    default_days: i64,
) -> pp_core::Result<std::result::Result<(AccountRef, Window), serde_json::Value>> {
    args.only(allowed)?;
    let a = account::account(ctx, args).await?;
    let Some(held) = account::data_held(ctx, table, "Date", a.seller_id).await? else {
        return Ok(Err(account::no_data(
            &a,
            "retail",
            "no sales data for this account",
        )));
    };
    let w = window::window(args, held, default_days)?;
    Ok(Ok((
        AccountRef {
            id: a.id,
            seller_id: a.seller_id,
            vendor: a.vendor,
            currency: a.currency,
        },
        w,
    )))
}

/// An account as a read computed elsewhere needs it.
pub struct AccountRef {
    pub id: String,
    pub seller_id: i64,
    pub vendor: bool,
    pub currency: String,
}

/// A money field: amount and currency, always together.
pub fn money_field(amount: f64, currency: &str) -> serde_json::Value {
    money::money(amount, currency)
}

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
