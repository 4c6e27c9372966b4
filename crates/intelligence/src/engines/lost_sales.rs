//! `INS-LOSTSALES-01`: sales lost to stock-outs, sellable inventory and weeks of cover.
//!
//! A stock-out is a run of days an item's inventory snapshot shows no fulfillable units. Its
//! counterfactual: the item's shoppers kept coming (its traffic on those days is recorded),
//! and they would have bought at the item's conversion over the four weeks either side of the
//! gap (other gaps left out), at its average price there. Lost units are the gap's traffic
//! times that conversion. Weeks of cover are sellable units over the last 28 days' sales rate.

use std::collections::BTreeMap;

use chrono::{Duration, NaiveDate};
use pp_core::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, money, num, ratio, unit_money};
use crate::data::{self, EmptyDay, Wh};
use crate::evidence::{Rows, Statement, say_count, say_money};
use crate::params::Period;
use crate::scope::Scope;

/// Days either side of a gap its counterfactual is read from.
pub const AROUND_DAYS: i64 = 28;

/// One stock-out.
#[derive(Debug, Clone)]
pub struct StockOut {
    pub seller_id: i64,
    pub asin: String,
    pub sku: String,
    pub start: NaiveDate,
    pub end: NaiveDate,
    /// Days of the gap inside the period asked about.
    pub days_in_period: i64,
    pub traffic_during: i64,
    pub conversion: Option<f64>,
    /// Cents per unit around the gap.
    pub price: Option<f64>,
    pub baseline_days: i64,
    pub lost_units: Option<i64>,
    pub lost_sales: Option<i64>,
}

/// A run of consecutive days one item had no sellable stock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gap {
    pub seller_id: i64,
    pub asin: String,
    pub sku: String,
    pub start: NaiveDate,
    pub end: NaiveDate,
}

impl Gap {
    /// Whether day `d` of the item is inside this gap.
    fn holds(&self, seller_id: i64, asin: &str, d: NaiveDate) -> bool {
        self.seller_id == seller_id && self.asin == asin && d >= self.start && d <= self.end
    }
}

/// Runs of consecutive empty days, per item (`days` ordered by item, then day).
pub fn gaps(days: &[EmptyDay]) -> Vec<Gap> {
    let mut out: Vec<Gap> = Vec::new();
    for d in days {
        match out.last_mut() {
            Some(g)
                if g.seller_id == d.seller_id
                    && g.asin == d.asin
                    && d.date == g.end + Duration::days(1) =>
            {
                g.end = d.date;
            }
            _ => out.push(Gap {
                seller_id: d.seller_id,
                asin: d.asin.clone(),
                sku: d.sku.clone(),
                start: d.date,
                end: d.date,
            }),
        }
    }
    out
}

async fn measure(
    wh: &Wh,
    scope: &Scope,
    gap: &Gap,
    all_gaps: &[Gap],
    period: Period,
) -> Result<StockOut> {
    let Gap {
        seller_id,
        asin,
        sku,
        start,
        end,
    } = gap.clone();
    let window = Period {
        start: start - Duration::days(AROUND_DAYS),
        end: end + Duration::days(AROUND_DAYS),
    };
    let days = data::item_days(wh, scope, seller_id, &asin, window).await?;
    let empty = |d: NaiveDate| all_gaps.iter().any(|g| g.holds(seller_id, &asin, d));
    let (mut units, mut traffic, mut sales, mut baseline_days, mut during) = (0, 0, 0, 0, 0);
    for d in &days {
        if d.date >= start && d.date <= end {
            if d.date >= period.start && d.date <= period.end {
                during += d.facts.traffic;
            }
        } else if !empty(d.date) {
            units += d.facts.units;
            traffic += d.facts.traffic;
            sales += d.facts.sales;
            baseline_days += 1;
        }
    }
    let conversion = (traffic > 0).then(|| units as f64 / traffic as f64);
    let price = (units > 0).then(|| sales as f64 / units as f64);
    let lost_units = conversion.map(|c| (during as f64 * c).round() as i64);
    let lost_sales = match (lost_units, price) {
        (Some(u), Some(p)) => Some((u as f64 * p).round() as i64),
        (Some(0), None) => Some(0),
        _ => None,
    };
    Ok(StockOut {
        days_in_period: (end.min(period.end) - start.max(period.start)).num_days() + 1,
        seller_id,
        asin,
        sku,
        start,
        end,
        traffic_during: during,
        conversion,
        price,
        baseline_days,
        lost_units,
        lost_sales,
    })
}

/// Every stock-out that overlaps `period`, measured.
pub async fn stock_outs(wh: &Wh, scope: &Scope, period: Period) -> Result<Vec<StockOut>> {
    // read a margin either side so a gap crossing the period's edge is seen whole
    let margin = Duration::days(AROUND_DAYS + 31);
    let wide = Period {
        start: period.start - margin,
        end: period.end + margin,
    };
    let all = gaps(&data::empty_days(wh, scope, wide).await?);
    let mut out = Vec::new();
    for g in all
        .iter()
        .filter(|g| g.end >= period.start && g.start <= period.end)
    {
        out.push(measure(wh, scope, g, &all, period).await?);
    }
    out.sort_by(|a, b| {
        b.lost_sales
            .unwrap_or(0)
            .cmp(&a.lost_sales.unwrap_or(0))
            .then(a.start.cmp(&b.start))
    });
    Ok(out)
}

/// What `INS-LOSTSALES-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LostSales {
    pub currency: String,
    pub period: Period,
    pub totals: LostTotals,
    /// The largest losses first.
    pub stock_outs: Vec<StockOutView>,
    pub inventory: Inventory,
}

/// Every stock-out of the period, summed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "LostSalesTotals")]
pub struct LostTotals {
    pub stock_outs: usize,
    pub lost_units: i64,
    pub lost_sales: Money,
}

/// One stock-out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "StockOut")]
pub struct StockOutView {
    pub legacy_seller_id: i64,
    pub asin: String,
    pub sku: String,
    pub start: NaiveDate,
    pub end: NaiveDate,
    pub days: i64,
    pub days_in_period: i64,
    pub traffic_during: i64,
    /// Null when there was no traffic around the gap.
    pub conversion_around: Option<f64>,
    pub average_price_around: Option<Money>,
    pub baseline_days: i64,
    /// Null when the loss could not be measured.
    pub lost_units: Option<i64>,
    pub lost_sales: Option<Money>,
}

impl StockOutView {
    fn of(s: &StockOut) -> Self {
        Self {
            legacy_seller_id: s.seller_id,
            asin: s.asin.clone(),
            sku: s.sku.clone(),
            start: s.start,
            end: s.end,
            days: (s.end - s.start).num_days() + 1,
            days_in_period: s.days_in_period,
            traffic_during: s.traffic_during,
            conversion_around: s
                .conversion
                .and_then(|c| num((c * 10_000.0).round() / 10_000.0)),
            average_price_around: unit_money(s.price),
            baseline_days: s.baseline_days,
            lost_units: s.lost_units,
            lost_sales: s.lost_sales.map(money),
        }
    }
}

/// Sellable inventory on the period's last data day, and its cover.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "LostSalesInventory")]
pub struct Inventory {
    pub as_of: NaiveDate,
    pub sellable_units: i64,
    pub inbound_units: i64,
    pub units_last28_days: i64,
    /// Null when nothing sold in the last 28 days.
    pub weeks_of_cover: Option<f64>,
    /// Least cover first; items that did not sell lately last.
    pub items: Vec<InventoryItem>,
}

/// One item's stock and cover.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InventoryItem {
    pub legacy_seller_id: i64,
    pub asin: String,
    pub sku: String,
    pub sellable_units: i64,
    pub inbound_units: i64,
    pub units_last28_days: i64,
    pub weeks_of_cover: Option<f64>,
}

async fn inventory(wh: &Wh, scope: &Scope, on: NaiveDate, top: usize) -> Result<Inventory> {
    let stock = data::stock(wh, scope, on).await?;
    let recent = data::items(
        wh,
        scope,
        Period {
            start: on - Duration::days(27),
            end: on,
        },
    )
    .await?;
    let sold: BTreeMap<(i64, String), i64> =
        recent.into_iter().map(|(k, f)| (k, f.units)).collect();
    let mut rows: Vec<(Option<f64>, InventoryItem)> = stock
        .iter()
        .map(|s| {
            let units28 = sold
                .get(&(s.seller_id, s.asin.clone()))
                .copied()
                .unwrap_or(0);
            let weekly = units28 as f64 / 4.0;
            let cover = (weekly > 0.0).then(|| s.fulfillable as f64 / weekly);
            (
                cover,
                InventoryItem {
                    legacy_seller_id: s.seller_id,
                    asin: s.asin.clone(),
                    sku: s.sku.clone(),
                    sellable_units: s.fulfillable,
                    inbound_units: s.inbound,
                    units_last28_days: units28,
                    weeks_of_cover: cover.and_then(|c| num((c * 10.0).round() / 10.0)),
                },
            )
        })
        .collect();
    // least cover first; items that did not sell lately (no rate) last
    rows.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
    let sellable: i64 = stock.iter().map(|s| s.fulfillable).sum();
    let sold_total: i64 = sold.values().sum();
    Ok(Inventory {
        as_of: on,
        sellable_units: sellable,
        inbound_units: stock.iter().map(|s| s.inbound).sum::<i64>(),
        units_last28_days: sold_total,
        weeks_of_cover: ratio(sellable * 4, sold_total),
        items: rows.into_iter().take(top).map(|r| r.1).collect(),
    })
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<LostSales>> {
    let scope = &input.scope;
    let period = input.period.expect("checked by the service");
    let found = stock_outs(wh, scope, period).await?;
    let lost_units: i64 = found.iter().filter_map(|s| s.lost_units).sum();
    let lost_sales: i64 = found.iter().filter_map(|s| s.lost_sales).sum();
    let on = period.end.min(input.data.end);
    let inv = inventory(wh, scope, on, input.top).await?;
    let mut limitations = vec![
        "A stock-out is a run of days whose inventory snapshot shows no fulfillable units; a listing suppressed for other reasons is not one.".to_owned(),
        format!("Lost units are the gap's recorded traffic times the item's conversion over the {AROUND_DAYS} days either side (other gaps left out); shoppers advertising would have brought are not counted, because ads stop serving while the item is out."),
        "Lost sales price those units at the item's average selling price around the gap.".to_owned(),
        "Weeks of cover are sellable units over the last 28 days' weekly sales; inbound units are not counted as cover.".to_owned(),
    ];
    let unmeasured = found.iter().filter(|s| s.lost_units.is_none()).count();
    if unmeasured > 0 {
        limitations.push(format!("{unmeasured} stock-out(s) had no traffic around them to measure conversion; their loss is not estimated."));
    }
    let table = data::INVENTORY_TABLE;
    let rtable = data::retail_source(scope).table;
    let mut evidence = vec![Statement::new(
        format!(
            "{} stock-out(s) between {} and {} cost an estimated {} units and {}.",
            found.len(),
            period.start,
            period.end,
            say_count(lost_units),
            say_money(lost_sales, &scope.currency, false)
        ),
        &[
            ("stockOuts", found.len().into()),
            ("lostUnits", lost_units.into()),
            ("lostSales", money(lost_sales).into()),
        ],
        vec![Rows::of(scope, table, period)],
    )];
    for s in found.iter().take(5) {
        evidence.push(Statement::new(
            format!(
                "{} had no sellable stock from {} to {}; {} shoppers came meanwhile, and at {} conversion around the gap about {} units were lost.",
                s.asin,
                s.start,
                s.end,
                say_count(s.traffic_during),
                s.conversion.map_or("unknown".to_owned(), |c| format!("{:.1}%", c * 100.0)),
                s.lost_units.map_or("an unknown number of".to_owned(), say_count)
            ),
            &[("asin", s.asin.clone().into()), ("lostUnits", s.lost_units.into())],
            vec![
                Rows::of(scope, table, Period { start: s.start, end: s.end }).asin(s.seller_id, &s.asin),
                Rows::of(scope, rtable, Period { start: s.start - Duration::days(AROUND_DAYS), end: s.end + Duration::days(AROUND_DAYS) }).asin(s.seller_id, &s.asin),
            ],
        ));
    }
    Ok(Answer {
        result: LostSales {
            currency: scope.currency.clone(),
            period,
            totals: LostTotals {
                stock_outs: found.len(),
                lost_units,
                lost_sales: money(lost_sales),
            },
            stock_outs: found.iter().take(input.top).map(StockOutView::of).collect(),
            inventory: inv,
        },
        limitations,
        evidence,
    })
}
