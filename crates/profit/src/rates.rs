//! Exchange rates as the tenant's data: euro reference rates per day and currency, imported
//! from a published file (`crate::ecb`) or given one by one, and the tenant's reporting
//! currency. [`RateBook`] is how an answer converts: the rate of an amount's posted day (a day
//! without one takes the latest of the [`CARRY_DAYS`] before it, as over a weekend), and a
//! missing rate is named, never taken as one.

use std::collections::BTreeMap;

use chrono::{Duration, NaiveDate, Utc};
use pp_core::{Error, Kind, Principal, Result, Scope, TenantId};
use pp_store::costs::Rate;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::money;
use crate::{Profit, WarehouseCopy};

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

fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

fn day(what: &str, text: &str) -> Result<NaiveDate> {
    pp_core::wire::calendar_date(text)
        .ok_or_else(|| bad(format!("{what}: '{text}' is not a day (YYYY-MM-DD)")))
}

impl RateInput {
    fn checked(&self, at: &str) -> Result<Rate> {
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

impl Profit {
    /// Imports rates in one audited transaction, as the caller.
    pub async fn import_rates(&self, p: &Principal, req: RatesImport) -> Result<RatesImportAnswer> {
        p.require(&[Scope::CostsWrite, Scope::RetailRead])?;
        self.import_rates_as(&p.tenant, &p.actor, req).await
    }

    /// [`Self::import_rates`] recorded as `by`; checked whole before anything is written.
    pub async fn import_rates_as(
        &self,
        tenant: &TenantId,
        by: &str,
        req: RatesImport,
    ) -> Result<RatesImportAnswer> {
        let source = req.source.trim().to_owned();
        if source.is_empty() || source.len() > 200 || source.chars().any(char::is_control) {
            return Err(bad(
                "source names where the rates come from: one line of 1 to 200 characters",
            ));
        }
        let n = req.rates.len();
        if n == 0 || n > MAX_RATES {
            return Err(bad(format!(
                "an import carries 1 to {MAX_RATES} rates; this one has {n}"
            )));
        }
        let mut rates = Vec::with_capacity(n);
        let mut seen = std::collections::BTreeSet::new();
        for (i, r) in req.rates.iter().enumerate() {
            let r = r.checked(&format!("rates[{i}]"))?;
            if !seen.insert((r.currency.clone(), r.day.clone())) {
                return Err(bad(format!(
                    "rates[{i}]: {} on {} is given twice",
                    r.currency, r.day
                )));
            }
            rates.push(r);
        }
        let w = self
            .store
            .costs()
            .put_rates(tenant, rates, source, by)
            .await?;
        let warehouse_copy = self.copy_rates(tenant).await;
        Ok(RatesImportAnswer {
            added: w.added,
            changed: w.changed,
            unchanged: w.unchanged,
            warehouse_copy,
        })
    }

    /// The tenant's rates in a window, and the days held of every currency.
    pub async fn rates(&self, p: &Principal, q: RatesQuery) -> Result<RatesAnswer> {
        p.require(&[Scope::RetailRead])?;
        let to = match &q.to {
            Some(t) => day("to", t)?,
            None => Utc::now().date_naive(),
        };
        let from = match &q.from {
            Some(f) => day("from", f)?,
            None => to - Duration::days(31),
        };
        if from > to || to - from > Duration::days(3660) {
            return Err(bad("from must be on or before to, at most ten years apart"));
        }
        let currency = q
            .currency
            .as_deref()
            .map(|c| money::currency("currency", c))
            .transpose()?;
        let costs = self.store.costs();
        let rates = costs
            .rates(
                &p.tenant,
                currency.as_deref(),
                &from.to_string(),
                &to.to_string(),
            )
            .await?;
        let coverage = costs.rate_coverage(&p.tenant).await?;
        Ok(RatesAnswer {
            base: "EUR",
            from: from.to_string(),
            to: to.to_string(),
            rates: rates
                .into_iter()
                .map(|r| RateView {
                    date: r.day,
                    currency: r.currency,
                    per_eur: money::rate_text(r.per_eur_e6),
                })
                .collect(),
            coverage: coverage
                .into_iter()
                .map(|(currency, from, through, days)| Coverage {
                    currency,
                    from,
                    through,
                    days,
                })
                .collect(),
        })
    }

    /// The tenant's reporting currency.
    pub async fn settings(&self, p: &Principal) -> Result<ProfitSettings> {
        p.require(&[Scope::RetailRead])?;
        self.settings_of(&p.tenant).await
    }

    /// A tenant's reporting currency, for work done on its behalf.
    pub async fn settings_of(&self, tenant: &TenantId) -> Result<ProfitSettings> {
        Ok(match self.store.costs().reporting_currency(tenant).await? {
            Some((c, by, ms)) => ProfitSettings {
                reporting_currency: c,
                set: true,
                updated_by: Some(by),
                updated_at: chrono::DateTime::from_timestamp_millis(ms)
                    .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)),
            },
            None => ProfitSettings {
                reporting_currency: DEFAULT_REPORTING.into(),
                set: false,
                updated_by: None,
                updated_at: None,
            },
        })
    }

    /// Sets the tenant's reporting currency (audited), as the caller.
    pub async fn set_settings(&self, p: &Principal, req: SettingsWrite) -> Result<ProfitSettings> {
        p.require(&[Scope::CostsWrite, Scope::RetailRead])?;
        let c = money::currency("reportingCurrency", &req.reporting_currency)?;
        self.store
            .costs()
            .set_reporting_currency(&p.tenant, &c, &p.actor)
            .await?;
        self.settings_of(&p.tenant).await
    }

    /// The rates of `currencies` a conversion over `from..=to` may need.
    pub async fn rate_book(
        &self,
        tenant: &TenantId,
        currencies: &[&str],
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<RateBook> {
        Self::rate_book_of(&self.store, tenant, currencies, from, to).await
    }

    /// [`Self::rate_book`] from a store (for the engines that read it without the service).
    pub async fn rate_book_of(
        store: &pp_store::Store,
        tenant: &TenantId,
        currencies: &[&str],
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<RateBook> {
        let mut book = RateBook::default();
        let since = (from - Duration::days(CARRY_DAYS)).to_string();
        for c in currencies.iter().filter(|c| **c != "EUR") {
            let rates = store
                .costs()
                .rates(tenant, Some(c), &since, &to.to_string())
                .await?;
            let days = book.days.entry((*c).to_owned()).or_default();
            for r in rates {
                if let Ok(d) = NaiveDate::parse_from_str(&r.day, "%Y-%m-%d") {
                    days.insert(d, r.per_eur_e6);
                }
            }
        }
        Ok(book)
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
    days: BTreeMap<String, BTreeMap<NaiveDate, i64>>,
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
