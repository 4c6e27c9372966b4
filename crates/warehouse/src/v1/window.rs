//! Windows of days anchored to the latest complete data day, and keyset pages with signed
//! cursors.

use chrono::{Duration, NaiveDate};
use pp_core::{Error, Kind, Result};
use serde_json::{Value, json};

use super::Ctx;
use super::account::Held;
use super::args::Args;
use super::rows::Row;

/// An inclusive window of days, and the days the data holds.
pub struct Window {
    pub start: NaiveDate,
    pub end: NaiveDate,
    pub data_from: NaiveDate,
    pub data_through: NaiveDate,
}

/// Longest window a daily endpoint serves, in days.
pub const MAX_WINDOW_DAYS: i64 = 366;

/// `start_date`/`end_date` with defaults: the `default_days` ending on the latest complete
/// data day; an end past that day is moved back to it. A window that ends before the data's
/// first day (older days a managed warehouse's backfill has not loaded yet, or days before
/// the account's history) is `no_data_for_period` with the days held.
pub fn window(args: &Args, held: Held, default_days: i64) -> Result<Window> {
    let Held {
        from: data_from,
        through: data_through,
    } = held;
    let end = args
        .date("end_date")?
        .map_or(data_through, |e| e.min(data_through));
    let start = args
        .date("start_date")?
        .unwrap_or(end - Duration::days(default_days - 1));
    if start > end {
        return Err(Error::invalid_request(format!(
            "start_date {start} is after the window's end {end} (data is complete through {data_through})"
        )));
    }
    if (end - start).num_days() + 1 > MAX_WINDOW_DAYS {
        return Err(Error::invalid_request(format!(
            "the window is longer than {MAX_WINDOW_DAYS} days; split it"
        )));
    }
    if end < data_from {
        return Err(Error::new(
            Kind::NoDataForPeriod,
            format!(
                "the window {start} to {end} ends before the data's first day {data_from} (data is held {data_from} to {data_through})"
            ),
        )
        .with_field("dataFrom", data_from.to_string())
        .with_field("dataThrough", data_through.to_string()));
    }
    Ok(Window {
        start,
        end,
        data_from,
        data_through,
    })
}

impl Window {
    /// The response's `window` block.
    pub fn json(&self) -> Value {
        json!({ "start_date": self.start.to_string(), "end_date": self.end.to_string(), "days": (self.end - self.start).num_days() + 1, "data_from": self.data_from.to_string(), "data_through": self.data_through.to_string() })
    }
}

/// Page size and the key to resume after.
pub struct Page {
    pub limit: i64,
    pub after: Option<Value>,
    pub query: String,
}

/// Reads `limit` (1–500, default 100) and `cursor` for the query fingerprinted by `parts`.
pub fn page(ctx: &Ctx<'_>, args: &Args, parts: &[&str]) -> Result<Page> {
    let query = pp_core::cursor::fingerprint(parts);
    let limit = args.int("limit", 1, 500)?.unwrap_or(100);
    let after = args
        .str("cursor")
        .map(|c| ctx.cursors.decode(&query, c))
        .transpose()?;
    Ok(Page {
        limit,
        after,
        query,
    })
}

impl Page {
    /// Cuts the `limit + 1` rows fetched to a page and makes the next cursor from the last
    /// row's key.
    pub fn finish(
        &self,
        ctx: &Ctx<'_>,
        mut fetched: Vec<Row>,
        key: impl Fn(&Row) -> Result<Value>,
    ) -> Result<(Vec<Row>, Option<String>)> {
        let more = fetched.len() as i64 > self.limit;
        fetched.truncate(self.limit as usize);
        let next = match fetched.last() {
            Some(r) if more => Some(ctx.cursors.encode(&self.query, &key(r)?)),
            _ => None,
        };
        Ok((fetched, next))
    }
}
