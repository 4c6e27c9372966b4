//! Exchange rates as the tenant's data: euro reference rates per day and currency, imported
//! from a published file (`crate::ecb`) or given one by one, and the tenant's reporting
//! currency. [`RateBook`] is how an answer converts: the rate of an amount's posted day (a day
//! without one takes the latest of the [`CARRY_DAYS`] before it, as over a weekend), and a
//! missing rate is named, never taken as one.

use std::collections::BTreeMap;

use chrono::{Duration, NaiveDate};
use pp_core::{Error, Kind, Result};
use pp_store::costs::Rate;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::WarehouseCopy;
use crate::money;

/// The most rates one import may carry (a year of thirty currencies is 7,800).
pub const MAX_RATES: usize = 20_000;
/// How many days back a day without a published rate looks for one.
pub const CARRY_DAYS: i64 = 7;
/// The reporting currency of a tenant that never set one.
pub const DEFAULT_REPORTING: &str = "USD";

/// One rate as a caller gives it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RateInput {
    /// `YYYY-MM-DD`.
    pub date: String,
    pub currency: String,
    /// Units of the currency one euro buys (a number or decimal text, at most six decimals).
    pub per_eur: Value,
}

/// An import: where the rates come from (kept in the audit log) and the rates.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RatesImport {
    pub source: String,
    pub rates: Vec<RateInput>,
}

/// What an import did.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RatesImportAnswer {
    pub added: usize,
    pub changed: usize,
    pub unchanged: usize,
    pub warehouse_copy: WarehouseCopy,
}

/// Which rates to list.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RatesQuery {
    #[serde(default)]
    pub currency: Option<String>,
    /// Default: 31 days before `to`.
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub from: Option<String>,
    /// Default: today (UTC).
    #[serde(default, deserialize_with = "pp_core::wire::scalar_text")]
    pub to: Option<String>,
}

/// One rate as answers show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RateView {
    pub date: String,
    pub currency: String,
    /// Decimal text, exactly as held.
    pub per_eur: String,
}

/// The days held of one currency.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub currency: String,
    pub from: String,
    pub through: String,
    pub days: i64,
}

/// Rates asked for, and what is held of each currency.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RatesAnswer {
    pub base: &'static str,
    pub from: String,
    pub to: String,
    pub rates: Vec<RateView>,
    pub coverage: Vec<Coverage>,
}

/// The tenant's reporting currency.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfitSettings {
    pub reporting_currency: String,
    /// False while it is the default (never set).
    pub set: bool,
    pub updated_by: Option<String>,
    pub updated_at: Option<String>,
}

/// A change of the reporting currency.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsWrite {
    pub reporting_currency: String,
}

pub(crate) fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

pub(crate) fn day(what: &str, text: &str) -> Result<NaiveDate> {
    pp_core::wire::calendar_date(text)
        .ok_or_else(|| bad(format!("{what}: '{text}' is not a day (YYYY-MM-DD)")))
}

impl RateInput {
    pub(crate) fn checked(&self, at: &str) -> Result<Rate> {
        let currency = money::currency(&format!("{at}: currency"), &self.currency)?;
        if currency == "EUR" {
            return Err(bad(format!("{at}: EUR is the base; its rate is always 1")));
        }
        let text = match &self.per_eur {
            Value::Number(n) => n.to_string(),
            Value::String(s) => s.clone(),
            _ => return Err(bad(format!("{at}: perEur must be a number like 1.0813"))),
        };
        Ok(Rate {
            day: day(&format!("{at}: date"), &self.date)?.to_string(),
            currency,
            per_eur_e6: money::rate_e6(&format!("{at}: perEur"), &text)?,
        })
    }
}

/// A conversion that has no rate: the currency and the day.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MissingRate {
    pub currency: String,
    pub date: String,
}

/// Rates by currency and day, read once for an answer.
#[derive(Debug, Clone, Default)]
pub struct RateBook {
    pub(crate) days: BTreeMap<String, BTreeMap<NaiveDate, i64>>,
}

impl RateBook {
    /// One euro in `currency` on `day` (millionths): the day's rate, else the latest of the
    /// [`CARRY_DAYS`] before it.
    pub fn per_eur(&self, currency: &str, day: NaiveDate) -> Option<i64> {
        if currency == "EUR" {
            return Some(1_000_000);
        }
        self.days
            .get(currency)?
            .range(day - Duration::days(CARRY_DAYS)..=day)
            .next_back()
            .map(|(_, r)| *r)
    }

    /// `cents` of `from` in `to` at `day`'s rates, by the one rule (`money::convert`).
    pub fn convert(
        &self,
        cents: i64,
        from: &str,
        to: &str,
        day: NaiveDate,
    ) -> std::result::Result<i64, MissingRate> {
        if from == to {
            return Ok(cents);
        }
        let missing = |c: &str| MissingRate {
            currency: c.to_owned(),
            date: day.to_string(),
        };
        let f = self.per_eur(from, day).ok_or_else(|| missing(from))?;
        let t = self.per_eur(to, day).ok_or_else(|| missing(to))?;
        Ok(money::convert(cents, f, t))
    }
}
