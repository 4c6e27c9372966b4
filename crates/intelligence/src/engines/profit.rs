//! `INS-PROFIT-01`: the P&L of a merchant, a brand or one SKU over a period — every line
//! (sales, promotions, refunds, referral and fulfillment fees, storage and other fees,
//! reimbursements, advertising by product, cost of goods, inbound), each marked settled,
//! posted or estimated with its parts, the contribution margins CM1 to CM3 (docs/profit.md),
//! in the merchant's currency and the tenant's reporting currency, as a daily or monthly
//! series, SKU by SKU. A SKU sold on a day no cost covers is named and its margins are null;
//! so is every total it is part of.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Datelike, Duration, NaiveDate};
use pp_core::{Error, Kind, Result};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, money};
use crate::data::Wh;
use crate::params::{Interval, Period};
use crate::profit::book::{self, Ask, Book, Costs};
use crate::profit::lines::{self, LINES, Line, Pnl};

/// One line of a statement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitLineView")]
pub struct LineView {
    pub line: Line,
    pub amount: Money,
    /// In the reporting currency; null when an amount had no rate.
    pub reporting: Option<Money>,
    /// The parts: from closed settlements, posted since, estimated.
    pub settled: Money,
    pub posted: Money,
    pub estimated: Money,
    /// `settled`, `posted` (some of it not in a closed settlement yet) or `estimated`.
    pub status: &'static str,
}

/// A contribution level in both currencies; null when a cost (or a rate) it needs is missing.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitLevel")]
pub struct Level {
    pub amount: Option<Money>,
    pub reporting: Option<Money>,
    /// Of net sales, in percent (one decimal).
    pub margin_pct: Option<f64>,
}

/// A P&L's lines and its levels.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitStatement")]
pub struct Statement {
    pub lines: Vec<LineView>,
    pub net_sales: Level,
    pub cm1: Level,
    pub cm2: Level,
    pub cm3: Level,
    /// The share of the lines' amounts (by size) that is estimated.
    pub estimated_share: f64,
}

/// One row of the series.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitSeriesRow")]
pub struct SeriesRow {
    /// `YYYY-MM` or `YYYY-MM-DD`.
    pub period: String,
    /// `settled` once every day is in a closed settlement; `posted`; `estimated`.
    pub status: &'static str,
    pub statement: Statement,
}

/// One SKU's P&L over the period.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitItemRow")]
pub struct ItemRow {
    pub sku: String,
    pub cost_missing: bool,
    pub statement: Statement,
}

/// A SKU sold on days no cost covers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitMissingCost")]
pub struct MissingCost {
    pub sku: String,
    pub units: i64,
    pub first_day: String,
    pub last_day: String,
}

/// A conversion that had no rate.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitMissingRateView")]
pub struct MissingRateView {
    pub currency: String,
    pub date: String,
}

/// The days each source covers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitReach")]
pub struct Reach {
    /// Days before this are in closed settlements.
    pub settled_before: Option<String>,
    /// The transaction list's last day.
    pub posted_through: Option<String>,
    /// The days estimated from ordered sales.
    pub estimated_from: Option<String>,
    pub estimated_through: Option<String>,
}

/// `INS-PROFIT-01`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Profit {
    pub sku: Option<String>,
    pub currency: String,
    pub reporting_currency: String,
    pub period: Period,
    pub interval: &'static str,
    pub reach: Reach,
    pub total: Statement,
    pub series: Vec<SeriesRow>,
    /// SKUs by net sales, at most `top`.
    pub items: Vec<ItemRow>,
    /// The lines no SKU carries (the selling plan, deal fees, advertising).
    pub account: Option<Statement>,
    pub missing_costs: Vec<MissingCost>,
    pub missing_rates: Vec<MissingRateView>,
    pub unclassified: Vec<String>,
}

fn status(parts: [i64; 3]) -> &'static str {
    match parts {
        [_, _, e] if e != 0 => "estimated",
        [_, p, _] if p != 0 => "posted",
        _ => "settled",
    }
}

fn level(p: &Pnl, pick: fn(Line) -> bool, net: i64, complete: bool) -> Level {
    let (amount, reporting) = p.sum(pick);
    Level {
        amount: complete.then(|| money(amount)),
        reporting: reporting.filter(|_| complete).map(money),
        margin_pct: (complete && net != 0)
            .then(|| (amount as f64 / net as f64 * 1000.0).round() / 10.0),
    }
}

/// A P&L as answers show it; its levels below net sales null unless `complete`.
pub fn statement(p: &Pnl, complete: bool) -> Statement {
    let mut lines = Vec::new();
    let (mut all, mut estimated) = (0_i64, 0_i64);
    for l in LINES {
        let c = &p.cells[l.index()];
        if l == Line::Unclassified && c.total() == 0 {
            continue;
        }
        all += c.by_origin.iter().map(|v| v.abs()).sum::<i64>();
        estimated += c.by_origin[2].abs();
        lines.push(LineView {
            line: l,
            amount: money(c.total()),
            reporting: c.reporting.map(money),
            settled: money(c.by_origin[0]),
            posted: money(c.by_origin[1]),
            estimated: money(c.by_origin[2]),
            status: status(c.by_origin),
        });
    }
    let net = p.sum(lines::net_sales).0;
    Statement {
        lines,
        net_sales: level(p, lines::net_sales, net, true),
        cm1: level(p, lines::cm1, net, complete),
        cm2: level(p, lines::cm2, net, complete),
        cm3: level(p, lines::cm3, net, complete),
        estimated_share: if all == 0 {
            0.0
        } else {
            (estimated as f64 / all as f64 * 10_000.0).round() / 10_000.0
        },
    }
}

/// The last whole month of the data, or its last 30 days when it holds no whole month.
pub fn default_period(data: Period) -> Period {
    let first = NaiveDate::from_ymd_opt(data.end.year(), data.end.month(), 1).expect("a day");
    let month_end = first
        .checked_add_months(chrono::Months::new(1))
        .map(|d| d - Duration::days(1))
        .expect("a day");
    let (start, end) = if data.end == month_end {
        (first, data.end)
    } else {
        let end = first - Duration::days(1);
        (
            NaiveDate::from_ymd_opt(end.year(), end.month(), 1).expect("a day"),
            end,
        )
    };
    if start < data.start {
        Period {
            start: (data.end - Duration::days(29)).max(data.start),
            end: data.end,
        }
    } else {
        Period { start, end }
    }
}

/// The book of every seller of the input's scope, merged.
pub async fn books(wh: &Wh, input: &Input, period: Period) -> Result<(Book, String)> {
    books_of(wh, &input.scope, &input.state, &input.profit, period).await
}

/// The book of every seller of `scope`, merged, with the tenant's reporting currency.
pub async fn books_of(
    wh: &Wh,
    scope: &crate::scope::Scope,
    state: &super::StateStore,
    choices: &crate::params::ProfitChoices,
    period: Period,
) -> Result<(Book, String)> {
    if scope.vendor {
        return Err(Error::new(
            Kind::BadParams,
            "a vendor's P&L is not the seller's: the retailer buys its goods (INS-PROFIT-01 answers for sellers)",
        ));
    }
    let store = &state.store;
    let reporting = match store.costs().reporting_currency(&state.tenant).await? {
        Some((c, _, _)) => c,
        None => pp_profit::rates::DEFAULT_REPORTING.to_owned(),
    };
    let mut skus: Option<BTreeSet<String>> = choices.sku.clone().map(|s| BTreeSet::from([s]));
    if let Some(b) = &scope.brand {
        let mut of_brand = BTreeSet::new();
        for s in &scope.sellers {
            for (asin_sku, brand) in crate::data::sku_brands(wh, s.id).await? {
                if brand == b.name {
                    of_brand.insert(asin_sku);
                }
            }
        }
        skus = Some(match skus {
            Some(one) => one.intersection(&of_brand).cloned().collect(),
            None => of_brand,
        });
    }
    let mut merged = Book::default();
    for s in &scope.sellers {
        let rows = store
            .costs()
            .periods(&state.tenant, Some((&s.token, &s.marketplace_id)), None)
            .await?;
        let currencies: BTreeSet<String> = rows
            .iter()
            .map(|r| r.cost.currency.clone())
            .chain([s.currency.clone(), reporting.clone()])
            .collect();
        let list: Vec<&str> = currencies.iter().map(String::as_str).collect();
        let rates =
            pp_profit::Profit::rate_book(store, &state.tenant, &list, period.start, period.end)
                .await?;
        let costs = Costs::new(rows);
        let ask = Ask {
            seller: s.id,
            currency: &s.currency,
            reporting: &reporting,
            from: period.start,
            to: period.end,
            interval: choices.interval,
            skus: skus.as_ref(),
            costs: &costs,
            rates: &rates,
        };
        let b = book::build(wh, &ask).await?;
        merge(&mut merged, b);
    }
    Ok((merged, reporting))
}

fn merge(into: &mut Book, b: Book) {
    for (k, p) in b.rows {
        into.rows.entry(k).or_default().merge(&p);
    }
    for (sku, u) in b.uncosted {
        let e = into.uncosted.entry(sku).or_insert(u.clone());
        if e.first != u.first || e.units != u.units {
            e.units += u.units;
            e.first = e.first.min(u.first);
            e.last = e.last.max(u.last);
        }
    }
    for (sku, u) in b.units {
        *into.units.entry(sku).or_default() += u;
    }
    into.missing_rates.extend(b.missing_rates);
    into.unclassified.extend(b.unclassified);
    into.no_fee_rate.extend(b.no_fee_rate);
    into.reach = into.reach.or(b.reach);
    into.estimated = into.estimated.or(b.estimated);
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<Profit>> {
    let period = input.period.unwrap_or_else(|| default_period(input.data));
    let (book, reporting) = books(wh, input, period).await?;
    let complete = book.uncosted.is_empty() && book.missing_rates.is_empty();
    let mut total = Pnl::default();
    let mut account = Pnl::default();
    let mut by_bucket: BTreeMap<&str, Pnl> = BTreeMap::new();
    let mut by_sku: BTreeMap<&str, Pnl> = BTreeMap::new();
    for ((sku, bucket), p) in &book.rows {
        total.merge(p);
        by_bucket.entry(bucket).or_default().merge(p);
        match sku {
            Some(s) => by_sku.entry(s).or_default().merge(p),
            None => account.merge(p),
        }
    }
    let reach = book.reach;
    let open_from = reach.and_then(|r| r.open_from);
    let bucket_status = |b: &str, p: &Pnl| -> &'static str {
        let last = match input.profit.interval {
            Interval::Day => b.parse::<NaiveDate>().ok(),
            Interval::Month => NaiveDate::parse_from_str(&format!("{b}-01"), "%Y-%m-%d")
                .ok()
                .and_then(|d| d.checked_add_months(chrono::Months::new(1)))
                .map(|d| d - Duration::days(1)),
        };
        let estimated = p.cells.iter().any(|c| c.by_origin[2] != 0);
        match (last, open_from) {
            _ if estimated => "estimated",
            (Some(l), Some(o)) if l < o => "settled",
            _ => "posted",
        }
    };
    let series = by_bucket
        .iter()
        .map(|(b, p)| SeriesRow {
            period: (*b).to_owned(),
            status: bucket_status(b, p),
            statement: statement(p, complete),
        })
        .collect();
    let mut items: Vec<ItemRow> = by_sku
        .iter()
        .map(|(sku, p)| {
            let missing = book.uncosted.contains_key(*sku);
            ItemRow {
                sku: (*sku).to_owned(),
                cost_missing: missing,
                statement: statement(p, !missing && book.missing_rates.is_empty()),
            }
        })
        .collect();
    items.sort_by(|a, b| {
        let net = |r: &ItemRow| r.statement.net_sales.amount.unwrap_or(0.0);
        net(b).total_cmp(&net(a)).then(a.sku.cmp(&b.sku))
    });
    items.truncate(input.top);
    let mut limitations = Vec::new();
    if !book.uncosted.is_empty() {
        limitations.push(format!(
            "{} SKU(s) sold on days no cost covers: their cost of goods is unknown, so their margins and every total are null (enter costs: POST /api/costs)",
            book.uncosted.len()
        ));
    }
    if !book.missing_rates.is_empty() {
        limitations.push("some amounts have no exchange rate on their day: their reporting-currency figures are null (import rates: POST /api/exchange-rates)".into());
    }
    if let Some((f, t)) = book.estimated {
        limitations.push(format!(
            "{f} to {t} are not in the provider's transaction list yet: their sales are what buyers paid, their referral and fulfillment fees each SKU's own rates of the {} days before, their refunds each SKU's daily average of those days, their costs those of the units ordered; charges and reimbursements of those days come with their postings",
            book::RATE_DAYS
        ));
    }
    if !book.no_fee_rate.is_empty() {
        limitations.push(format!(
            "no fee rate of their own for {} SKU(s) (no sale posted in the weeks before): their estimated fees are left out",
            book.no_fee_rate.len()
        ));
    }
    if input.scope.brand.is_some() || input.profit.sku.is_some() {
        limitations.push("the lines no SKU carries (advertising, the selling plan, deal fees) are the merchant's, not shown for a brand or a SKU".into());
    }
    let has_account = input.scope.brand.is_none() && input.profit.sku.is_none();
    Ok(Answer {
        result: Profit {
            sku: input.profit.sku.clone(),
            currency: input.scope.currency.clone(),
            reporting_currency: reporting,
            period,
            interval: match input.profit.interval {
                Interval::Day => "day",
                Interval::Month => "month",
            },
            reach: Reach {
                settled_before: open_from.map(|d| d.to_string()),
                posted_through: reach.and_then(|r| r.listed_through).map(|d| d.to_string()),
                estimated_from: book.estimated.map(|e| e.0.to_string()),
                estimated_through: book.estimated.map(|e| e.1.to_string()),
            },
            total: statement(&total, complete),
            series,
            items,
            account: has_account.then(|| statement(&account, book.missing_rates.is_empty())),
            missing_costs: book
                .uncosted
                .iter()
                .map(|(sku, u)| MissingCost {
                    sku: sku.clone(),
                    units: u.units,
                    first_day: u.first.to_string(),
                    last_day: u.last.to_string(),
                })
                .collect(),
            missing_rates: book
                .missing_rates
                .iter()
                .map(|m| MissingRateView {
                    currency: m.currency.clone(),
                    date: m.date.clone(),
                })
                .collect(),
            unclassified: book.unclassified.iter().cloned().collect(),
        },
        limitations,
        evidence: Vec::new(),
    })
}
