//! A forecast scope's months as the warehouse holds them: sales (cents), units, ad spend and
//! DSP spend per calendar month, read day by day (grouped in the warehouse) and summed here.
//! A month is complete when the data covers its first and last day; the running month is
//! kept apart with its days so far.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use pp_core::Result;
use pp_warehouse::params::Scalar;
use pp_warehouse::row::Row;

use crate::data::{self, Wh};
use crate::params::{Measure, Month, Period, SpendBasis};
use crate::scope::Scope;

/// The labels a sub-brand is read by.
#[derive(Debug, Clone, Default)]
pub struct Labels {
    /// Product brand labels (brand on seller items, custom brand on vendor items).
    pub items: Vec<String>,
    /// Campaign (and DSP line item) names counted.
    pub campaigns: Vec<String>,
}

/// One month's facts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MonthFacts {
    pub sales_cents: i64,
    pub units: i64,
    pub ad_spend_cents: i64,
    pub dsp_spend_cents: i64,
}

impl MonthFacts {
    /// Whether anything sold.
    pub fn has_sales(&self) -> bool {
        self.sales_cents > 0 || self.units > 0
    }

    /// The measure in its served unit (major currency units, or units).
    pub fn measure(&self, measure: Measure) -> f64 {
        match measure {
            Measure::Revenue => self.sales_cents as f64 / 100.0,
            Measure::Units => self.units as f64,
        }
    }

    /// Spend in major units on `basis` (DSP counted on `ads_plus_dsp`).
    pub fn spend(&self, basis: SpendBasis) -> f64 {
        let dsp = match basis {
            SpendBasis::AdsPlusDsp => self.dsp_spend_cents,
            SpendBasis::AdsOnly => 0,
        };
        (self.ad_spend_cents + dsp) as f64 / 100.0
    }
}

/// The months of a scope.
#[derive(Debug, Clone)]
pub struct History {
    /// Complete months, oldest first, every month between the first and the last.
    pub complete: Vec<(Month, MonthFacts)>,
    /// The month the data ends in, when it is not complete, with its facts so far.
    pub running: Option<(Month, MonthFacts)>,
    /// The days the data holds.
    pub data: Period,
}

impl History {
    /// The last complete month.
    pub fn last_complete(&self) -> Option<Month> {
        self.complete.last().map(|(m, _)| *m)
    }

    /// The facts of month `m`, complete or running.
    pub fn get(&self, m: Month) -> Option<MonthFacts> {
        self.complete
            .iter()
            .chain(&self.running)
            .find(|(x, _)| *x == m)
            .map(|(_, f)| *f)
    }

    /// The history as it stood before month `m` began: its complete months before `m`.
    pub fn before(&self, m: Month) -> History {
        History {
            complete: self
                .complete
                .iter()
                .filter(|(x, _)| x.first() < m.first())
                .cloned()
                .collect(),
            running: None,
            data: Period {
                start: self.data.start,
                end: m.first() - chrono::Duration::days(1),
            },
        }
    }
}

/// ` AND <column> IN (?, …)` with `values` bound; a condition no row meets when there are none.
fn only(sql: &mut String, params: &mut Vec<Scalar>, column: &str, values: &[String]) {
    if values.is_empty() {
        sql.push_str(" AND 1 = 0");
        return;
    }
    sql.push_str(&format!(" AND {column} IN ({})", data::marks(values.len())));
    params.extend(values.iter().map(|v| Scalar::Text(v.clone())));
}

/// Day-by-day sums of one read: the day and its columns `a` and `b`.
async fn daily(wh: &Wh, sql: &str, params: Vec<Scalar>) -> Result<Vec<(NaiveDate, i64, i64)>> {
    wh.rows(sql, params)
        .await?
        .iter()
        .map(|r| {
            Ok((
                data::date(r, "d")?,
                r.opt_int("a")?.unwrap_or(0),
                r.opt_int("b")?.unwrap_or(0),
            ))
        })
        .collect()
}

/// Sales (`a`, cents) and units (`b`) by day, through the catalog for a brand or a sub-brand.
async fn retail(
    wh: &Wh,
    scope: &Scope,
    labels: Option<&[String]>,
) -> Result<Vec<(NaiveDate, i64, i64)>> {
    let src = data::retail_source(scope);
    let (sellers, ids) = data::in_list(scope);
    let mut params = Vec::new();
    let mut sql = format!(
        "SELECT t.Date AS d, {sales} AS a, SUM(t.{units}) AS b FROM {table} t",
        sales = wh.dialect().sum_cents(&format!("t.{}", src.sales)),
        units = src.units,
        table = src.table
    );
    if let Some(l) = labels {
        sql.push_str(&format!(
            " JOIN catalog_item c ON c.SellerID = t.SellerID AND c.ASIN = t.{}",
            src.asin
        ));
        only(&mut sql, &mut params, "c.Brand", l);
    }
    sql.push_str(&format!(" WHERE t.SellerID IN ({sellers}) GROUP BY t.Date"));
    params.extend(ids);
    daily(wh, &sql, params).await
}

/// Ad spend (`a`, cents) by day: a brand's campaigns, a sub-brand's named campaigns.
async fn ads(
    wh: &Wh,
    scope: &Scope,
    labels: Option<&Labels>,
) -> Result<Vec<(NaiveDate, i64, i64)>> {
    let (sellers, ids) = data::in_list(scope);
    let mut params = ids.clone();
    let mut sql = format!(
        "SELECT t.Date AS d, {spend} AS a, 0 AS b FROM {table} t WHERE t.SellerID IN ({sellers})",
        spend = wh.dialect().sum_cents("t.Cost"),
        table = data::ADS_TABLE
    );
    match (labels, &scope.brand) {
        (Some(l), _) => only(&mut sql, &mut params, "t.CampaignName", &l.campaigns),
        (None, Some(b)) => {
            sql.push_str(&format!(
                " AND t.CampaignID IN (SELECT CampaignID FROM ads_campaign WHERE SellerID IN ({sellers}) AND Brand = ?)"
            ));
            params.extend(ids);
            params.push(Scalar::Text(b.name.clone()));
        }
        (None, None) => {}
    }
    sql.push_str(" GROUP BY t.Date");
    daily(wh, &sql, params).await
}

/// DSP spend (`a`, cents) by day: the whole merchant's, or a sub-brand's named line items (a
/// brand has none: DSP is not split by brand).
async fn dsp(
    wh: &Wh,
    scope: &Scope,
    labels: Option<&Labels>,
) -> Result<Vec<(NaiveDate, i64, i64)>> {
    if scope.brand.is_some() && labels.is_none() {
        return Ok(Vec::new());
    }
    let (sellers, mut params) = data::in_list(scope);
    let mut sql = format!(
        "SELECT t.Date AS d, {spend} AS a, 0 AS b FROM dsp_daily t WHERE t.SellerID IN ({sellers})",
        spend = wh.dialect().sum_cents("t.TotalCost")
    );
    if let Some(l) = labels {
        only(&mut sql, &mut params, "t.LineItemName", &l.campaigns);
    }
    sql.push_str(" GROUP BY t.Date");
    daily(wh, &sql, params).await
}

/// Reads the scope's months (a sub-brand's by `labels`) over `data`.
pub async fn read(
    wh: &Wh,
    scope: &Scope,
    labels: Option<&Labels>,
    data: Period,
) -> Result<History> {
    let brand = scope.brand.as_ref().map(|b| vec![b.name.clone()]);
    let items = labels.map(|l| l.items.as_slice()).or(brand.as_deref());
    let mut months: BTreeMap<Month, MonthFacts> = BTreeMap::new();
    let (mut m, last) = (Month::of(data.start), Month::of(data.end));
    while m <= last {
        months.insert(m, MonthFacts::default());
        m = m.back(-1);
    }
    for (day, sales, units) in retail(wh, scope, items).await? {
        if let Some(f) = months.get_mut(&Month::of(day)) {
            f.sales_cents += sales;
            f.units += units;
        }
    }
    for (day, spend, _) in ads(wh, scope, labels).await? {
        if let Some(f) = months.get_mut(&Month::of(day)) {
            f.ad_spend_cents += spend;
        }
    }
    for (day, spend, _) in dsp(wh, scope, labels).await? {
        if let Some(f) = months.get_mut(&Month::of(day)) {
            f.dsp_spend_cents += spend;
        }
    }
    let mut complete = Vec::new();
    let mut running = None;
    for (m, f) in months {
        let p = m.period();
        if p.start >= data.start && p.end <= data.end {
            complete.push((m, f));
        } else if p.end > data.end {
            running = Some((m, f));
        }
    }
    Ok(History {
        complete,
        running,
        data,
    })
}
