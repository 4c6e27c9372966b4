//! The datasets' readers, one module each: what the dataset asks the provider for, how a
//! slice's documents become rows, and which table's slice those rows replace (the table and
//! key are the dataset's row in `datasets.rs`). A new dataset is a module here implementing
//! [`crate::reader::Reader`] and its row in `datasets.rs`; the step does not change. Here too:
//! the few helpers several readers share.

pub mod ads_entities;
pub mod ads_v3;
pub mod catalog;
pub mod dsp;
pub mod finance_transactions;
pub mod inventory;
pub mod returns;
pub mod sales_and_traffic;
pub mod search_query_performance;
pub mod settlements;
pub mod vendor;

use chrono::NaiveDate;
use pp_core::{Error, Result};
use pp_marketplace::documents::ads::AdsRow;
use pp_warehouse::Slice;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::Table;

use crate::reader::Seller;

/// The slice of `t` that holds `seller`'s rows whose `col` is within `from..=to`.
pub fn days(
    t: &'static Table,
    seller: &Seller,
    from: NaiveDate,
    to: NaiveDate,
    col: &'static str,
) -> Slice {
    Slice {
        table: t,
        seller_id: seller.id,
        range: Some((col, from.to_string(), to.to_string())),
        part: None,
    }
}

/// Why an advertising row does not fit its table.
pub(crate) fn unfit(table: &str, why: impl std::fmt::Display) -> Error {
    Error::new(
        pp_core::Kind::UpstreamUnavailable,
        format!("the provider's advertising report does not fit {table}: {why}"),
    )
}

/// One dimension of an advertising row, under the first of `names` it has.
pub(crate) fn dim<'a>(r: &'a AdsRow, table: &str, names: &[&str]) -> Result<&'a str> {
    names
        .iter()
        .find_map(|n| r.dims.get(*n))
        .map(String::as_str)
        .ok_or_else(|| unfit(table, format!("a row has no {}", names.join(" or "))))
}

/// One numeric id of an advertising row, under the first of `names` it has.
pub(crate) fn id(r: &AdsRow, table: &str, names: &[&str]) -> Result<Cell> {
    let v = dim(r, table, names)?;
    v.parse::<i64>()
        .map(Cell::Int)
        .map_err(|_| unfit(table, format!("{} {v} is not a number", names[0])))
}

/// A selling-side document that does not read as `what`.
pub(crate) fn unreadable(what: &str, why: String) -> Error {
    Error::new(
        pp_core::Kind::UpstreamUnavailable,
        format!("the provider's {what} document does not read: {why}"),
    )
}
