//! A run's parameters as the caller sends them (`params` of `POST /api/intelligence/run` and
//! `intelligence_run`), read strictly: a field a request does not take is refused, dates are
//! `YYYY-MM-DD`, periods are inclusive and at most 366 days, `month` is `YYYY-MM`.

use chrono::{Duration, NaiveDate};
use pp_core::{Error, Kind, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Longest period a request reads, in days.
pub const MAX_PERIOD_DAYS: i64 = 366;
/// Most rows (items, campaigns, stock-outs) a result lists one by one by default.
pub const DEFAULT_TOP: usize = 25;
/// The most a caller may ask for.
pub const MAX_TOP: usize = 500;

fn bad(msg: impl Into<String>) -> Error {
    Error::new(Kind::BadParams, msg)
}

/// An inclusive range of days.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Period {
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl Period {
    /// Days in the period.
    pub fn days(&self) -> i64 {
        (self.end - self.start).num_days() + 1
    }

    /// The same number of days ending the day before this one starts.
    pub fn previous(&self) -> Period {
        let end = self.start - Duration::days(1);
        Period {
            start: end - Duration::days(self.days() - 1),
            end,
        }
    }

    fn check(&self, name: &str) -> Result<()> {
        if self.end < self.start {
            return Err(bad(format!("{name}.end is before {name}.start")));
        }
        if self.days() > MAX_PERIOD_DAYS {
            return Err(bad(format!(
                "{name} spans {} days; the most is {MAX_PERIOD_DAYS}",
                self.days()
            )));
        }
        Ok(())
    }

    /// `start … end` as sentences say it.
    pub fn label(&self) -> String {
        format!("{} to {}", self.start, self.end)
    }
}

/// A calendar month, `YYYY-MM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Month {
    pub year: i32,
    pub month: u32,
}

impl Month {
    /// Reads `YYYY-MM`.
    pub fn parse(s: &str) -> Result<Self> {
        let bad_month = || bad(format!("month '{s}' is not YYYY-MM"));
        let (y, m) = s.split_once('-').ok_or_else(bad_month)?;
        if y.len() != 4 || m.len() != 2 {
            return Err(bad_month());
        }
        let (year, month) = (
            y.parse().map_err(|_| bad_month())?,
            m.parse().map_err(|_| bad_month())?,
        );
        NaiveDate::from_ymd_opt(year, month, 1).ok_or_else(bad_month)?;
        Ok(Self { year, month })
    }

    /// The month `d` falls in.
    pub fn of(d: NaiveDate) -> Month {
        use chrono::Datelike;
        Month {
            year: d.year(),
            month: d.month(),
        }
    }

    /// The month `n` months before (negative: after).
    pub fn back(&self, n: i32) -> Month {
        let i = self.year * 12 + self.month as i32 - 1 - n;
        Month {
            year: i.div_euclid(12),
            month: i.rem_euclid(12) as u32 + 1,
        }
    }

    /// Its first day.
    pub fn first(&self) -> NaiveDate {
        NaiveDate::from_ymd_opt(self.year, self.month, 1).expect("a checked month")
    }

    /// Its days, from the first to the last.
    pub fn period(&self) -> Period {
        let next = self.back(-1).first();
        Period {
            start: self.first(),
            end: next - Duration::days(1),
        }
    }

    /// Its first `days` days (all of them when it has fewer).
    pub fn first_days(&self, days: i64) -> Period {
        let full = self.period();
        Period {
            start: full.start,
            end: (full.start + Duration::days(days - 1)).min(full.end),
        }
    }

    /// `YYYY-MM`.
    pub fn label(&self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }
}

impl std::fmt::Display for Month {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.label())
    }
}

/// The advertising bridge's grain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grain {
    Campaign,
    AdGroup,
    Target,
    SearchTerm,
    Asin,
}

pp_core::spelled!(Grain, "grain", Campaign => "campaign", AdGroup => "ad_group",
    Target => "target", SearchTerm => "search_term", Asin => "asin");

/// The rows of a P&L's series.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Interval {
    Day,
    #[default]
    Month,
}

pp_core::spelled!(Interval, "interval", Day => "day", Month => "month");

/// What a profit request is asked for besides its merchant and period.
#[derive(Debug, Clone, Default)]
pub struct ProfitChoices {
    /// One SKU's P&L (the merchant's, every SKU's, without).
    pub sku: Option<String>,
    pub interval: Interval,
    /// The settlement a payout reconciliation is of (the latest closed one without).
    pub settlement_id: Option<String>,
}

/// What a forecast counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Revenue,
    Units,
}

pp_core::spelled!(Measure, "measure", Revenue => "revenue", Units => "units");

/// Which spend a forecast's spend and budget figures count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpendBasis {
    AdsOnly,
    AdsPlusDsp,
}

pp_core::spelled!(SpendBasis, "spendBasis", AdsOnly => "ads_only", AdsPlusDsp => "ads_plus_dsp");

/// Months a forecast covers by default, and at most.
pub const DEFAULT_HORIZON: usize = 12;
pub const MAX_HORIZON: usize = 24;

/// Every parameter any request takes; each request names the ones it accepts.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Raw {
    seller_id: Option<String>,
    marketplace_id: Option<String>,
    brand: Option<String>,
    period: Option<Period>,
    compare_period: Option<Period>,
    grain: Option<String>,
    month: Option<String>,
    top: Option<u64>,
    scope_key: Option<String>,
    measure: Option<String>,
    spend_basis: Option<String>,
    horizon: Option<u64>,
    audit_id: Option<String>,
    stake_id: Option<i64>,
    date: Option<NaiveDate>,
    campaign_ids: Option<Vec<IdText>>,
    asins: Option<Vec<String>>,
    window_days: Option<u64>,
    budget: Option<f64>,
    lookback_days: Option<u64>,
    sku: Option<String>,
    interval: Option<String>,
    settlement_id: Option<String>,
}

/// An id sent as a string or a number (campaign ids are both, depending on the API).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum IdText {
    Text(String),
    Number(u64),
}

impl IdText {
    fn text(self) -> String {
        match self {
            IdText::Text(s) => s,
            IdText::Number(n) => n.to_string(),
        }
    }
}

/// The most entities an outcome names.
pub const MAX_ENTITIES: usize = 50;
/// The window lengths an outcome takes: whole weeks, so both windows hold the same weekdays.
pub const WINDOW_CHOICES: [i64; 4] = [7, 14, 21, 28];

/// Which change an outcome judges: an audited write, a timeline stake, or a day (with the
/// campaigns or items it touched).
#[derive(Debug, Clone, Default)]
pub struct ChangeChoices {
    pub audit_id: Option<String>,
    pub stake_id: Option<i64>,
    pub date: Option<NaiveDate>,
    pub campaign_ids: Vec<String>,
    pub asins: Vec<String>,
    pub window_days: i64,
}

/// What a pacing plan is asked for: the month's budget in cents when the request gives it
/// (else forecast state's `adBudget`), and the days its recent return is read over.
#[derive(Debug, Clone, Default)]
pub struct PacingChoices {
    pub budget_cents: Option<i64>,
    pub lookback_days: i64,
}

/// The most days a pacing plan reads back.
pub const MAX_LOOKBACK: u64 = 90;
/// … and by default.
pub const DEFAULT_LOOKBACK: i64 = 14;

fn change_choices(raw: &mut Raw) -> Result<ChangeChoices> {
    let named = [
        raw.audit_id.is_some(),
        raw.stake_id.is_some(),
        raw.date.is_some(),
    ];
    let entities = raw.campaign_ids.is_some() || raw.asins.is_some();
    if raw.window_days.is_some() || entities || named.iter().any(|n| *n) {
        if named.iter().filter(|n| **n).count() != 1 {
            return Err(bad(
                "name the change one way: auditId (an audited write), stakeId (a timeline stake) or date (with campaignIds or asins)",
            ));
        }
        if entities && raw.date.is_none() {
            return Err(bad(
                "campaignIds and asins go with date; an audited write or a stake names its own",
            ));
        }
    }
    let campaign_ids: Vec<String> = raw
        .campaign_ids
        .take()
        .unwrap_or_default()
        .into_iter()
        .map(IdText::text)
        .collect();
    let asins = raw.asins.take().unwrap_or_default();
    if campaign_ids.len() + asins.len() > MAX_ENTITIES {
        return Err(bad(format!(
            "an outcome names at most {MAX_ENTITIES} campaigns and items together"
        )));
    }
    if let Some(c) = campaign_ids
        .iter()
        .find(|c| c.is_empty() || !c.bytes().all(|b| b.is_ascii_digit()) || c.len() > 20)
    {
        return Err(bad(format!(
            "campaignIds: {c:?} is not a campaign id (digits)"
        )));
    }
    if let Some(a) = asins
        .iter()
        .find(|a| a.len() != 10 || !a.bytes().all(|b| b.is_ascii_alphanumeric()))
    {
        return Err(bad(format!(
            "asins: {a:?} is not an ASIN (10 letters and digits)"
        )));
    }
    let window_days = match raw.window_days {
        None => pp_core::outcome::WINDOW_DAYS,
        Some(n) if WINDOW_CHOICES.contains(&(n as i64)) => n as i64,
        Some(n) => {
            return Err(bad(format!(
                "windowDays {n}: use 7, 14, 21 or 28 (whole weeks, so both windows hold the same weekdays)"
            )));
        }
    };
    Ok(ChangeChoices {
        audit_id: raw.audit_id.take(),
        stake_id: raw.stake_id,
        date: raw.date,
        campaign_ids,
        asins,
        window_days,
    })
}

fn pacing_choices(raw: &Raw) -> Result<PacingChoices> {
    let budget_cents = match raw.budget {
        None => None,
        Some(b) if b.is_finite() && b > 0.0 && b <= 1e10 => {
            let cents = (b * 100.0).round();
            if (b * 100.0 - cents).abs() > 1e-6 {
                return Err(bad(format!(
                    "budget {b} has more than two decimals; send the month's budget in the currency's major unit"
                )));
            }
            Some(cents as i64)
        }
        Some(b) => {
            return Err(bad(format!(
                "budget {b} is not a month's budget: send a positive amount"
            )));
        }
    };
    let lookback_days = match raw.lookback_days {
        None => DEFAULT_LOOKBACK,
        Some(n) if (7..=MAX_LOOKBACK).contains(&n) => n as i64,
        Some(n) => {
            return Err(bad(format!(
                "lookbackDays {n} is out of range: use 7 to {MAX_LOOKBACK}"
            )));
        }
    };
    Ok(PacingChoices {
        budget_cents,
        lookback_days,
    })
}

/// Who a request is about, as the caller named it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MerchantRef {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seller_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marketplace_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub brand: Option<String>,
}

/// Checked parameters.
#[derive(Debug, Clone)]
pub struct Params {
    pub merchant: MerchantRef,
    pub period: Option<Period>,
    pub compare_period: Option<Period>,
    pub grain: Option<Grain>,
    pub month: Option<Month>,
    pub top: usize,
    /// A sub-brand of the merchant (forecasting requests).
    pub scope_key: Option<String>,
    pub measure: Measure,
    pub spend_basis: SpendBasis,
    pub horizon: usize,
    /// The change an outcome judges.
    pub change: ChangeChoices,
    /// What a pacing plan is asked for.
    pub pacing: PacingChoices,
    /// What a profit request is asked for.
    pub profit: ProfitChoices,
}

impl Params {
    /// Reads `params` for a request that takes the fields `accepts` (the merchant fields
    /// always) and needs `required`.
    pub fn read(params: &Value, accepts: &[&str], required: &[&str]) -> Result<Self> {
        let obj: &Map<String, Value> = params
            .as_object()
            .ok_or_else(|| bad("params must be an object"))?;
        let merchant = ["sellerId", "marketplaceId", "brand"];
        for k in obj.keys() {
            if !merchant.contains(&k.as_str()) && !accepts.contains(&k.as_str()) {
                let mut takes: Vec<&str> = merchant.to_vec();
                takes.extend(accepts);
                return Err(bad(format!(
                    "this request does not take '{k}'; it takes {}",
                    takes.join(", ")
                )));
            }
        }
        for r in required {
            if !obj.contains_key(*r) {
                return Err(bad(format!("params.{r} is required")));
            }
        }
        let mut raw: Raw =
            pp_core::wire::from_value(params.clone()).map_err(|e| bad(format!("params: {e}")))?;
        let change = change_choices(&mut raw)?;
        let pacing = pacing_choices(&raw)?;
        let merchant = MerchantRef {
            seller_id: raw.seller_id,
            marketplace_id: raw.marketplace_id,
            brand: raw.brand,
        };
        match (&merchant.seller_id, &merchant.brand) {
            (None, None) => {
                return Err(bad(
                    "name the merchant: sellerId (with marketplaceId) or brand",
                ));
            }
            (Some(_), Some(_)) => {
                return Err(bad("name sellerId or brand, not both"));
            }
            _ => {}
        }
        if let Some(p) = &raw.period {
            p.check("period")?;
        }
        if let Some(p) = &raw.compare_period {
            p.check("comparePeriod")?;
        }
        let top = match raw.top {
            None => DEFAULT_TOP,
            Some(n) if (1..=MAX_TOP as u64).contains(&n) => n as usize,
            Some(n) => return Err(bad(format!("top {n} is out of range: use 1 to {MAX_TOP}"))),
        };
        let horizon = match raw.horizon {
            None => DEFAULT_HORIZON,
            Some(n) if (1..=MAX_HORIZON as u64).contains(&n) => n as usize,
            Some(n) => {
                return Err(bad(format!(
                    "horizon {n} is out of range: use 1 to {MAX_HORIZON} months"
                )));
            }
        };
        if raw.scope_key.is_some() && merchant.seller_id.is_none() {
            return Err(bad(
                "scopeKey names a sub-brand of one merchant: send it with sellerId (and marketplaceId)",
            ));
        }
        if raw
            .sku
            .as_ref()
            .is_some_and(|s| s.is_empty() || s.len() > 64)
        {
            return Err(bad("sku is 1 to 64 characters"));
        }
        let profit = ProfitChoices {
            sku: raw.sku.take(),
            interval: raw
                .interval
                .as_deref()
                .map(Interval::parse)
                .transpose()?
                .unwrap_or_default(),
            settlement_id: raw.settlement_id.take(),
        };
        Ok(Self {
            change,
            pacing,
            profit,
            scope_key: raw.scope_key,
            measure: raw
                .measure
                .as_deref()
                .map(Measure::parse)
                .transpose()?
                .unwrap_or(Measure::Revenue),
            spend_basis: raw
                .spend_basis
                .as_deref()
                .map(SpendBasis::parse)
                .transpose()?
                .unwrap_or(SpendBasis::AdsOnly),
            horizon,
            merchant,
            period: raw.period,
            compare_period: raw.compare_period,
            grain: raw.grain.as_deref().map(Grain::parse).transpose()?,
            month: raw.month.as_deref().map(Month::parse).transpose()?,
            top,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn months_count_back_across_years() {
        let m = Month::parse("2026-02").unwrap();
        assert_eq!(m.back(1).label(), "2026-01");
        assert_eq!(m.back(2).label(), "2025-12");
        assert_eq!(m.back(12).label(), "2025-02");
        assert_eq!(m.period().end.to_string(), "2026-02-28");
        assert!(Month::parse("2026-13").is_err());
        assert!(Month::parse("26-01").is_err());
    }

    #[test]
    fn params_refuse_what_a_request_does_not_take() {
        let e = Params::read(
            &json!({ "brand": "x", "grain": "campaign" }),
            &["period"],
            &[],
        )
        .unwrap_err();
        assert!(e.message().contains("does not take 'grain'"));
        let e = Params::read(
            &json!({ "period": { "start": "2026-01-01", "end": "2026-01-02" } }),
            &["period"],
            &[],
        )
        .unwrap_err();
        assert!(e.message().contains("name the merchant"));
        let e = Params::read(
            &json!({ "brand": "x", "period": { "start": "2026-02-01", "end": "2026-01-02" } }),
            &["period"],
            &[],
        )
        .unwrap_err();
        assert!(e.message().contains("before"));
        let p = Params::read(
            &json!({ "brand": "x", "period": { "start": "2026-01-01", "end": "2026-01-31" } }),
            &["period"],
            &["period"],
        )
        .unwrap();
        assert_eq!(p.period.unwrap().previous().start.to_string(), "2025-12-01");
    }

    #[test]
    fn a_change_is_named_one_way_and_its_window_is_whole_weeks() {
        let takes = &[
            "auditId",
            "stakeId",
            "date",
            "campaignIds",
            "asins",
            "windowDays",
        ];
        let read = |v| Params::read(&v, takes, &[]);
        let e = read(json!({ "brand": "x", "auditId": "au_1", "date": "2026-01-05" })).unwrap_err();
        assert!(e.message().contains("one way"), "{}", e.message());
        let e = read(json!({ "brand": "x", "auditId": "au_1", "campaignIds": ["1"] })).unwrap_err();
        assert!(e.message().contains("go with date"));
        let e = read(json!({ "brand": "x", "date": "2026-01-05", "windowDays": 10 })).unwrap_err();
        assert!(e.message().contains("whole weeks"));
        let e = read(json!({ "brand": "x", "date": "2026-01-05", "asins": ["B0X"] })).unwrap_err();
        assert!(e.message().contains("not an ASIN"));
        let p =
            read(json!({ "brand": "x", "date": "2026-01-05", "campaignIds": [12, "34"] })).unwrap();
        assert_eq!(p.change.campaign_ids, ["12", "34"]);
        assert_eq!(p.change.window_days, 14);
        let pace = &["month", "budget", "lookbackDays"];
        let e = Params::read(&json!({ "brand": "x", "budget": 10.005 }), pace, &[]).unwrap_err();
        assert!(e.message().contains("two decimals"));
        let e = Params::read(&json!({ "brand": "x", "budget": -5 }), pace, &[]).unwrap_err();
        assert!(e.message().contains("positive"));
        let p = Params::read(&json!({ "brand": "x", "budget": 1234.5 }), pace, &[]).unwrap();
        assert_eq!(p.pacing.budget_cents, Some(123_450));
    }
}
