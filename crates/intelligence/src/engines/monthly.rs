//! `INS-MONTHLY-01`: one month's retail and advertising read against the month before and the
//! same month a year before, with the sales bridge of each comparison. A month still running
//! is read through the last data day and compared with the same days of the other months.

use pp_core::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, ads_bridge, money, ops_bridge, pct, ratio};
use crate::data::{self, AdsFacts, ItemFacts, Wh};
use crate::evidence::{Rows, Statement, figure, say_money};
use crate::params::{Grain, Month, Period};

/// What `INS-MONTHLY-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Monthly {
    pub currency: String,
    /// `YYYY-MM`.
    pub month: String,
    /// Whether the warehouse holds the whole month.
    pub complete: bool,
    pub through: chrono::NaiveDate,
    pub periods: Three<Period, Period>,
    pub retail: Three<ops_bridge::OpsFacts>,
    pub advertising: Three<AdsMonth>,
    pub month_over_month: Comparison,
    /// Null when the warehouse holds no year-ago month.
    pub year_over_year: Option<Comparison>,
}

/// The month, the month before and the same days a year before (a figure null when the
/// warehouse does not reach back a year; the period always).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "Monthly_{T}")]
pub struct Three<T, Y = Option<T>> {
    pub current: T,
    pub previous_month: T,
    pub year_ago: Y,
}

/// A month's advertising totals with its TACOS.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "MonthlyAds")]
pub struct AdsMonth {
    #[serde(flatten)]
    pub facts: ads_bridge::AdsPeriodFacts,
    /// Ad spend over ordered sales; null without sales.
    pub tacos: Option<f64>,
}

impl AdsMonth {
    fn of(f: &AdsFacts, retail: &ItemFacts) -> Self {
        Self {
            facts: ads_bridge::AdsPeriodFacts::of(f),
            tacos: ratio(f.spend, retail.sales),
        }
    }
}

/// One comparison: the sales change with its bridge, and advertising's changes.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "MonthlyComparison")]
pub struct Comparison {
    pub sales_change: Money,
    pub sales_change_pct: Option<f64>,
    pub effects: ops_bridge::Effects,
    pub largest_effect: &'static str,
    pub ad_spend_change: Money,
    pub ad_spend_change_pct: Option<f64>,
    pub ad_sales_change: Money,
    pub ad_sales_change_pct: Option<f64>,
}

impl Comparison {
    fn of(b: &ops_bridge::Bridge, ab: &ads_bridge::Bridge) -> Self {
        Self {
            sales_change: money(b.change()),
            sales_change_pct: pct(b.before.sales, b.after.sales),
            effects: ops_bridge::Effects::of(&b.effects),
            largest_effect: b.largest(),
            ad_spend_change: money(ab.after.spend - ab.before.spend),
            ad_spend_change_pct: pct(ab.before.spend, ab.after.spend),
            ad_sales_change: money(ab.after.sales - ab.before.sales),
            ad_sales_change_pct: pct(ab.before.sales, ab.after.sales),
        }
    }
}

/// The month's days read (through the last data day of a running month), and the same days
/// of the month before (the whole month when this one is complete) and of a year before.
fn periods(month: Month, data: Period) -> (bool, i64, Three<Period, Period>) {
    let full = month.period();
    let complete = full.end <= data.end;
    let days = if complete {
        full.days()
    } else {
        (data.end - full.start).num_days() + 1
    };
    let previous = if complete {
        month.back(1).period()
    } else {
        month.back(1).first_days(days)
    };
    let p = Three {
        current: month.first_days(days),
        previous_month: previous,
        year_ago: month.back(12).first_days(days),
    };
    (complete, days, p)
}

/// The month bridged against the month before and, when the warehouse reaches back, a year
/// before: retail and advertising each.
struct Bridges {
    mom: ops_bridge::Bridge,
    ads_mom: ads_bridge::Bridge,
    yoy: Option<(ops_bridge::Bridge, ads_bridge::Bridge)>,
}

async fn bridges(wh: &Wh, input: &Input, p: &Three<Period, Period>) -> Result<Bridges> {
    let scope = &input.scope;
    // the month itself is read once and bridged against both comparisons
    let items_now = data::items(wh, scope, p.current).await?;
    let ads_now = data::ads(wh, scope, Grain::Campaign, p.current).await?;
    let mom = ops_bridge::compute(
        data::items(wh, scope, p.previous_month).await?,
        items_now.clone(),
    );
    let ads_mom = ads_bridge::compute(
        data::ads(wh, scope, Grain::Campaign, p.previous_month).await?,
        ads_now.clone(),
    );
    let yoy = if p.year_ago.start >= input.data.start {
        let items = data::items(wh, scope, p.year_ago).await?;
        let ads = data::ads(wh, scope, Grain::Campaign, p.year_ago).await?;
        Some((
            ops_bridge::compute(items, items_now),
            ads_bridge::compute(ads, ads_now),
        ))
    } else {
        None
    };
    Ok(Bridges { mom, ads_mom, yoy })
}

fn limitations(
    input: &Input,
    month: Month,
    (complete, days): (bool, i64),
    b: &Bridges,
    p: &Three<Period, Period>,
) -> Vec<String> {
    let mut l = vec![
        "Retail figures are ordered sales and units from the sales and traffic report; advertising figures are 7-day attributed sales and spend from the campaign report.".to_owned(),
        "Each comparison carries the sales bridge (traffic, mix, conversion, price), exact to the cent.".to_owned(),
    ];
    if !complete {
        l.push(format!(
            "{month} is read through {} ({days} days) and compared with the same days of the other months.",
            input.data.end
        ));
    }
    if b.yoy.is_none() {
        l.push(format!(
            "The warehouse starts {}: there is no year-ago month to compare with.",
            input.data.start
        ));
    }
    if p.previous_month.start < input.data.start {
        l.push(format!(
            "The warehouse starts {}: the month before is partly or wholly missing.",
            input.data.start
        ));
    }
    l
}

fn evidence(input: &Input, month: Month, b: &Bridges, p: &Three<Period, Period>) -> Vec<Statement> {
    let scope = &input.scope;
    let rtable = data::retail_source(scope).table;
    let mom = &b.mom;
    let mut evidence = vec![Statement::new(
        format!(
            "Ordered sales for {month} were {} against {} the month before ({}).",
            say_money(mom.after.sales, &scope.currency, false),
            say_money(mom.before.sales, &scope.currency, false),
            say_money(mom.change(), &scope.currency, true)
        ),
        &[
            ("sales", money(mom.after.sales).into()),
            ("previousMonthSales", money(mom.before.sales).into()),
        ],
        vec![
            Rows::of(scope, rtable, p.previous_month),
            Rows::of(scope, rtable, p.current),
        ],
    )];
    if let Some((y, _)) = &b.yoy {
        evidence.push(Statement::new(
            format!(
                "A year before, the same days sold {} ({} since), mostly {}.",
                say_money(y.before.sales, &scope.currency, false),
                say_money(y.change(), &scope.currency, true),
                y.largest()
            ),
            &[
                ("yearAgoSales", money(y.before.sales).into()),
                ("effects", figure(ops_bridge::Effects::of(&y.effects))),
            ],
            vec![
                Rows::of(scope, rtable, p.year_ago),
                Rows::of(scope, rtable, p.current),
            ],
        ));
    }
    evidence
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<Monthly>> {
    let month = input.month.expect("checked by the service");
    let (complete, days, periods) = periods(month, input.data);
    let b = bridges(wh, input, &periods).await?;
    let (mom, ads_mom) = (&b.mom, &b.ads_mom);
    Ok(Answer {
        limitations: limitations(input, month, (complete, days), &b, &periods),
        evidence: evidence(input, month, &b, &periods),
        result: Monthly {
            currency: input.scope.currency.clone(),
            month: month.label(),
            complete,
            through: periods.current.end,
            retail: Three {
                current: ops_bridge::OpsFacts::of(&mom.after),
                previous_month: ops_bridge::OpsFacts::of(&mom.before),
                year_ago: b
                    .yoy
                    .as_ref()
                    .map(|(y, _)| ops_bridge::OpsFacts::of(&y.before)),
            },
            advertising: Three {
                current: AdsMonth::of(&ads_mom.after, &mom.after),
                previous_month: AdsMonth::of(&ads_mom.before, &mom.before),
                year_ago: b
                    .yoy
                    .as_ref()
                    .map(|(y, a)| AdsMonth::of(&a.before, &y.before)),
            },
            month_over_month: Comparison::of(mom, ads_mom),
            year_over_year: b.yoy.as_ref().map(|(y, a)| Comparison::of(y, a)),
            periods,
        },
    })
}
