//! A merchant's P&L assembled from the reads: every posted amount on its line, cost of goods
//! and inbound at the cost period in force on each sale's (and each return's) posted day,
//! advertising from the reports, and for the days the transaction list does not show yet,
//! estimates from the ordered sales and the SKU's own fee rates of the four weeks before.
//! Every amount is converted to the reporting currency on its own posted day (the one rule,
//! `pp_profit::money::convert`); a missing cost or rate is named, never taken as zero.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Duration, NaiveDate};
use pp_core::Result;
use pp_profit::{MissingRate, RateBook};
use pp_store::costs::CostRow;

use super::lines::{Line, Origin, Pnl};
use super::read::{self, Posting, Reach};
use crate::data::Wh;
use crate::params::Interval;

/// Days before the first estimated day whose postings give a SKU's fee rates.
pub const RATE_DAYS: i64 = 28;

/// A SKU's dated landed costs, converted into the merchant's currency where they are in
/// another.
pub struct Costs {
    by_sku: BTreeMap<String, Vec<CostRow>>,
}

impl Costs {
    pub fn new(rows: Vec<CostRow>) -> Self {
        let mut by_sku: BTreeMap<String, Vec<CostRow>> = BTreeMap::new();
        for r in rows {
            by_sku.entry(r.key.sku.clone()).or_default().push(r);
        }
        Self { by_sku }
    }

    /// The period in force for `sku` on `day`.
    pub fn on(&self, sku: &str, day: NaiveDate) -> Option<&CostRow> {
        let day = day.to_string();
        self.by_sku
            .get(sku)?
            .iter()
            .rev()
            .find(|r| r.key.valid_from <= day)
    }
}

/// A SKU's units sold on days no cost covers.
#[derive(Debug, Clone)]
pub struct Uncosted {
    pub units: i64,
    pub first: NaiveDate,
    pub last: NaiveDate,
}

/// What a seller's P&L is read with.
pub struct Ask<'a> {
    pub seller: i64,
    pub currency: &'a str,
    pub reporting: &'a str,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub interval: Interval,
    /// Only these SKUs (a brand's, or one), without the lines no SKU carries.
    pub skus: Option<&'a BTreeSet<String>>,
    pub costs: &'a Costs,
    pub rates: &'a RateBook,
}

/// The P&L of one seller: by SKU (none: the account's own lines) and bucket.
#[derive(Default)]
pub struct Book {
    pub rows: BTreeMap<(Option<String>, String), Pnl>,
    pub uncosted: BTreeMap<String, Uncosted>,
    /// Units sold by SKU (posted and estimated), over the whole span.
    pub units: BTreeMap<String, i64>,
    pub missing_rates: BTreeSet<MissingRate>,
    /// Descriptions of amounts no line knows.
    pub unclassified: BTreeSet<String>,
    /// SKUs estimated without fee rates of their own (no posted sale in the weeks before).
    pub no_fee_rate: BTreeSet<String>,
    pub reach: Option<Reach>,
    /// The days estimated.
    pub estimated: Option<(NaiveDate, NaiveDate)>,
}

fn bucket(interval: Interval, day: NaiveDate) -> String {
    match interval {
        Interval::Month => day.format("%Y-%m").to_string(),
        Interval::Day => day.to_string(),
    }
}

impl Book {
    fn put(
        &mut self,
        a: &Ask,
        sku: Option<&str>,
        day: NaiveDate,
        line: Line,
        origin: Origin,
        cents: i64,
    ) {
        if cents == 0 {
            return;
        }
        let reporting = match a.rates.convert(cents, a.currency, a.reporting, day) {
            Ok(v) => Some(v),
            Err(m) => {
                self.missing_rates.insert(m);
                None
            }
        };
        let key = (sku.map(str::to_owned), bucket(a.interval, day));
        self.rows
            .entry(key)
            .or_default()
            .add(line, origin, cents, reporting);
    }

    /// Cost of goods and inbound of `units` (negative: returned to stock) of `sku` on `day`.
    fn cost(&mut self, a: &Ask, sku: &str, day: NaiveDate, units: i64, origin: Origin) {
        let Some(c) = a.costs.on(sku, day) else {
            let u = self.uncosted.entry(sku.to_owned()).or_insert(Uncosted {
                units: 0,
                first: day,
                last: day,
            });
            u.units += units.max(0);
            u.first = u.first.min(day);
            u.last = u.last.max(day);
            return;
        };
        let c = &c.cost;
        let amounts = [
            (Line::CostOfGoods, -units * c.unit_cents),
            (Line::Inbound, -units * (c.freight_cents + c.duties_cents)),
        ];
        for (line, cents) in amounts {
            let cents = match a.rates.convert(cents, &c.currency, a.currency, day) {
                Ok(v) => v,
                Err(m) => {
                    self.missing_rates.insert(m);
                    self.uncosted.entry(sku.to_owned()).or_insert(Uncosted {
                        units: 0,
                        first: day,
                        last: day,
                    });
                    continue;
                }
            };
            self.put(a, Some(sku), day, line, origin, cents);
        }
    }

    fn wanted(a: &Ask, sku: Option<&str>) -> bool {
        match (a.skus, sku) {
            (None, _) => true,
            (Some(set), Some(s)) => set.contains(s),
            (Some(_), None) => false,
        }
    }

    fn posting(&mut self, a: &Ask, p: &Posting) {
        if !Self::wanted(a, p.sku.as_deref()) {
            return;
        }
        if p.line == Line::Unclassified {
            self.unclassified.insert(p.desc.clone());
        }
        self.put(a, p.sku.as_deref(), p.day, p.line, p.origin, p.cents);
        if let (Line::Sales, Some(sku)) = (p.line, &p.sku) {
            *self.units.entry(sku.clone()).or_default() += p.units;
            self.cost(a, sku, p.day, p.units, p.origin);
        }
    }
}

/// A SKU's fee rates from its sales posted in the weeks before the estimated days, and its
/// refunds of those weeks (their principal, and the commission returned and kept).
#[derive(Debug, Clone, Copy, Default)]
struct FeeRates {
    net_sales: i64,
    units: i64,
    referral: i64,
    fulfillment: i64,
    refunds: i64,
    refund_fees: i64,
}

/// Whether the monthly read serves `a`: monthly rows, and every amount already in the
/// reporting currency (the merchant's, and every cost's), so nothing is converted per amount.
fn monthly(a: &Ask) -> bool {
    a.interval == Interval::Month
        && a.currency == a.reporting
        && a.costs
            .by_sku
            .values()
            .flatten()
            .all(|r| r.cost.currency == a.currency)
}

impl Costs {
    /// Whether a period of `sku` starts on a day of `from..=to` after `from` (its cost changes
    /// inside those days).
    fn changes_within(&self, sku: &str, from: NaiveDate, to: NaiveDate) -> bool {
        let (f, t) = (from.to_string(), to.to_string());
        self.by_sku.get(sku).is_some_and(|rows| {
            rows.iter()
                .any(|r| r.key.valid_from > f && r.key.valid_from <= t)
        })
    }
}

/// The posted amounts of `a` summed by month (see [`monthly`]): each SKU-month's units at the
/// cost in force that month, or day by day in a month its cost changes.
async fn posted_by_month(wh: &Wh, a: &Ask<'_>, book: &mut Book) -> Result<()> {
    let mut units: BTreeMap<(String, NaiveDate, u8), i64> = BTreeMap::new();
    for s in read::postings_by_month(wh, a.seller, a.from, a.to).await? {
        if !Book::wanted(a, s.sku.as_deref()) {
            continue;
        }
        if s.line == Line::Unclassified {
            book.unclassified.insert(s.desc.clone());
        }
        let day = s.month.max(a.from);
        book.put(a, s.sku.as_deref(), day, s.line, s.origin, s.cents);
        if let (Line::Sales, Some(sku)) = (s.line, &s.sku) {
            *book.units.entry(sku.clone()).or_default() += s.units;
            *units
                .entry((sku.clone(), s.month, s.origin as u8))
                .or_default() += s.units;
        }
    }
    let end_of = |m: NaiveDate| {
        (m.checked_add_months(chrono::Months::new(1)).unwrap_or(m) - Duration::days(1)).min(a.to)
    };
    let origin = |o: u8| {
        if o == 0 {
            Origin::Settled
        } else {
            Origin::Posted
        }
    };
    let mut by_day: BTreeMap<NaiveDate, Vec<String>> = BTreeMap::new();
    for ((sku, month, o), n) in units {
        let (first, last) = (month.max(a.from), end_of(month));
        if a.costs.changes_within(&sku, first, last) {
            by_day.entry(month).or_default().push(sku);
            continue;
        }
        match a.costs.on(&sku, first) {
            Some(_) => book.cost(a, &sku, first, n, origin(o)),
            None => {
                let u = book.uncosted.entry(sku).or_insert(Uncosted {
                    units: 0,
                    first,
                    last,
                });
                u.units += n.max(0);
                u.first = u.first.min(first);
                u.last = u.last.max(last);
            }
        }
    }
    for (month, mut skus) in by_day {
        skus.sort();
        skus.dedup();
        let (first, last) = (month.max(a.from), end_of(month));
        for (sku, day, n, o) in read::units_by_day(wh, a.seller, &skus, first, last).await? {
            book.cost(a, &sku, day, n, o);
        }
    }
    Ok(())
}

/// Reads and assembles one seller's P&L.
pub async fn build(wh: &Wh, a: &Ask<'_>) -> Result<Book> {
    let mut book = Book::default();
    let reach = read::reach(wh, a.seller).await?;
    book.reach = Some(reach);
    let open_from = reach.open_from;
    if monthly(a) {
        posted_by_month(wh, a, &mut book).await?;
    } else {
        for p in read::postings(wh, a.seller, a.from, a.to).await? {
            book.posting(a, &p);
        }
    }
    let origin_of = |day: NaiveDate| match open_from {
        Some(o) if day < o => Origin::Settled,
        _ => Origin::Posted,
    };
    for (sku, day, units) in read::restocked(wh, a.seller, a.from, a.to).await? {
        if Book::wanted(a, Some(&sku)) {
            book.cost(a, &sku, day, -units, origin_of(day));
        }
    }
    if a.skus.is_none() {
        for (day, line, cents) in read::advertising(wh, a.seller, a.from, a.to).await? {
            book.put(a, None, day, line, origin_of(day), cents);
        }
    }
    // the days nothing is posted for yet: after the list's last day (or the settlements'
    // reach when there is no list), through the last day of ordered sales
    let first_open = match (reach.listed_through, open_from) {
        (Some(l), Some(o)) => (l + Duration::days(1)).max(o),
        (Some(l), None) => l + Duration::days(1),
        (None, Some(o)) => o,
        (None, None) => a.from,
    };
    let last = read::sales_through(wh, a.seller)
        .await?
        .map(|d| d.min(a.to));
    if let Some(last) = last
        && first_open.max(a.from) <= last
    {
        let (from, to) = (first_open.max(a.from), last);
        book.estimated = Some((from, to));
        estimate(wh, a, &mut book, first_open, from, to).await?;
    }
    Ok(book)
}

/// Estimates for the days `from..=to`: what buyers paid as sales (a coupon's rebate shows as a
/// promotion only once posted), the referral and fulfillment fees at the SKU's own rates of
/// the [`RATE_DAYS`] before `first_open`, the cost of the units ordered, and the SKU's refunds
/// at their daily average of those days.
async fn estimate(
    wh: &Wh,
    a: &Ask<'_>,
    book: &mut Book,
    first_open: NaiveDate,
    from: NaiveDate,
    to: NaiveDate,
) -> Result<()> {
    let mut rates: BTreeMap<String, FeeRates> = BTreeMap::new();
    let since = first_open - Duration::days(RATE_DAYS);
    for p in read::postings(wh, a.seller, since, first_open - Duration::days(1)).await? {
        let Some(sku) = p.sku else {
            continue;
        };
        let r = rates.entry(sku).or_default();
        if p.refund {
            match p.line {
                Line::Refunds => r.refunds += p.cents,
                Line::ReferralFees => r.refund_fees += p.cents,
                _ => {}
            }
            continue;
        }
        match (p.line, p.desc.as_str()) {
            (Line::Sales, _) => {
                r.net_sales += p.cents;
                r.units += p.units;
            }
            (Line::Promotions, _) => r.net_sales += p.cents,
            (Line::ReferralFees, "Commission") => r.referral += p.cents,
            (Line::FulfillmentFees, _) => r.fulfillment += p.cents,
            _ => {}
        }
    }
    for (sku, day, units, cents) in read::ordered(wh, a.seller, from, to).await? {
        if !Book::wanted(a, Some(&sku)) {
            continue;
        }
        book.put(a, Some(&sku), day, Line::Sales, Origin::Estimated, cents);
        *book.units.entry(sku.clone()).or_default() += units;
        match rates.get(&sku).filter(|r| r.units > 0 && r.net_sales > 0) {
            Some(r) => {
                let referral =
                    (cents as f64 * r.referral as f64 / r.net_sales as f64).round() as i64;
                let fba = (units as f64 * r.fulfillment as f64 / r.units as f64).round() as i64;
                book.put(
                    a,
                    Some(&sku),
                    day,
                    Line::ReferralFees,
                    Origin::Estimated,
                    referral,
                );
                book.put(
                    a,
                    Some(&sku),
                    day,
                    Line::FulfillmentFees,
                    Origin::Estimated,
                    fba,
                );
            }
            None => {
                book.no_fee_rate.insert(sku.clone());
            }
        }
        book.cost(a, &sku, day, units, Origin::Estimated);
    }
    // refunds come days after their sales: each SKU's daily average of the weeks before
    let mut day = from;
    while day <= to {
        for (sku, r) in rates
            .iter()
            .filter(|(s, _)| Book::wanted(a, Some(s.as_str())))
        {
            let daily = |v: i64| (v as f64 / RATE_DAYS as f64).round() as i64;
            book.put(
                a,
                Some(sku),
                day,
                Line::Refunds,
                Origin::Estimated,
                daily(r.refunds),
            );
            book.put(
                a,
                Some(sku),
                day,
                Line::ReferralFees,
                Origin::Estimated,
                daily(r.refund_fees),
            );
        }
        day += Duration::days(1);
    }
    Ok(())
}
