//! A forecast scope's months as the warehouse holds them: sales (cents), units, ad spend and
//! DSP spend per calendar month, read day by day (grouped in the warehouse) and summed here.
//! A month is complete when the data covers its first and last day; the running month is
//! kept apart with its days so far.

use std::collections::BTreeMap;

use pp_core::Result;
use pp_warehouse::params::Scalar;
use pp_warehouse::row::Row;

use crate::data::{self, Wh};
use crate::params::{Month, Period};
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

/// The months of a scope.
#[derive(Debug, Clone)]
pub struct History {
    /// Complete months, oldest first, every month between the first and the last.
    pub complete: Vec<(Month, MonthFacts)>,
    /// The month the data ends in, when it is not complete, with its facts so far.
    pub running: Option<(Month, MonthFacts, Period)>,
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
            .find(|(x, _)| *x == m)
            .map(|(_, f)| *f)
            .or_else(|| self.running.filter(|(x, _, _)| *x == m).map(|(_, f, _)| f))
    }
}

fn month_of(d: chrono::NaiveDate) -> Month {
    use chrono::Datelike;
    Month {
        year: d.year(),
        month: d.month(),
    }
}

fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

/// Day-by-day sums of one read, `(day, value, value)`.
async fn daily(
    wh: &Wh,
    sql: &str,
    params: Vec<Scalar>,
) -> Result<Vec<(chrono::NaiveDate, i64, i64)>> {
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

/// Reads the scope's months (a sub-brand's by `labels`) over `data`.
pub async fn read(
    wh: &Wh,
    scope: &Scope,
    labels: Option<&Labels>,
    data: Period,
) -> Result<History> {
    let d = wh.dialect();
    let ids: Vec<Scalar> = scope.sellers.iter().map(|s| Scalar::Int(s.id)).collect();
    let sellers = marks(ids.len());
    let src = data::retail_source(scope);
    let item_labels: Option<Vec<String>> = match (labels, &scope.brand) {
        (Some(l), _) => Some(l.items.clone()),
        (None, Some(b)) => Some(vec![b.name.clone()]),
        (None, None) => None,
    };

    // sales and units, through the catalog when the scope is a brand or a sub-brand
    let mut params = Vec::new();
    let mut sql = format!(
        "SELECT t.Date AS d, {sales} AS a, SUM(t.{units}) AS b FROM {table} t",
        sales = d.sum_cents(&format!("t.{}", src.sales)),
        units = src.units,
        table = src.table
    );
    if let Some(l) = &item_labels {
        sql.push_str(&format!(
            " JOIN catalog_item c ON c.SellerID = t.SellerID AND c.ASIN = t.{} AND c.Brand IN ({})",
            src.asin,
            marks(l.len().max(1))
        ));
        params.extend(l.iter().map(|v| Scalar::Text(v.clone())));
        if l.is_empty() {
            params.push(Scalar::Text(String::new()));
        }
    }
    sql.push_str(&format!(" WHERE t.SellerID IN ({sellers}) GROUP BY t.Date"));
    params.extend(ids.clone());
    let retail = daily(wh, &sql, params).await?;

    // ad spend: a brand's campaigns, a sub-brand's named campaigns
    let mut params = ids.clone();
    let mut sql = format!(
        "SELECT t.Date AS d, {spend} AS a, 0 AS b FROM {table} t WHERE t.SellerID IN ({sellers})",
        spend = d.sum_cents("t.Cost"),
        table = data::ADS_TABLE
    );
    match (labels, &scope.brand) {
        (Some(l), _) => {
            sql.push_str(&format!(
                " AND t.CampaignName IN ({})",
                marks(l.campaigns.len().max(1))
            ));
            params.extend(l.campaigns.iter().map(|v| Scalar::Text(v.clone())));
            if l.campaigns.is_empty() {
                params.push(Scalar::Text(String::new()));
            }
        }
        (None, Some(b)) => {
            sql.push_str(&format!(
                " AND t.CampaignID IN (SELECT CampaignID FROM ads_campaign WHERE SellerID IN ({sellers}) AND Brand = ?)"
            ));
            params.extend(ids.clone());
            params.push(Scalar::Text(b.name.clone()));
        }
        (None, None) => {}
    }
    sql.push_str(" GROUP BY t.Date");
    let ads = daily(wh, &sql, params).await?;

    // DSP spend: the whole merchant's, or a sub-brand's named line items (a brand has none)
    let dsp = if scope.brand.is_some() && labels.is_none() {
        Vec::new()
    } else {
        let mut params = ids.clone();
        let mut sql = format!(
            "SELECT t.Date AS d, {spend} AS a, 0 AS b FROM dsp_daily t WHERE t.SellerID IN ({sellers})",
            spend = d.sum_cents("t.TotalCost")
        );
        if let Some(l) = labels {
            sql.push_str(&format!(
                " AND t.LineItemName IN ({})",
                marks(l.campaigns.len().max(1))
            ));
            params.extend(l.campaigns.iter().map(|v| Scalar::Text(v.clone())));
            if l.campaigns.is_empty() {
                params.push(Scalar::Text(String::new()));
            }
        }
        sql.push_str(" GROUP BY t.Date");
        daily(wh, &sql, params).await?
    };

    let mut months: BTreeMap<(i32, u32), MonthFacts> = BTreeMap::new();
    let mut first = month_of(data.start);
    let last = month_of(data.end);
    loop {
        months.insert((first.year, first.month), MonthFacts::default());
        if first == last {
            break;
        }
        first = first.back(-1);
    }
    let mut add = |day: chrono::NaiveDate, f: &dyn Fn(&mut MonthFacts)| {
        if let Some(m) = months.get_mut(&(month_of(day).year, month_of(day).month)) {
            f(m);
        }
    };
    for (day, a, b) in retail {
        add(day, &|m| {
            m.sales_cents += a;
            m.units += b;
        });
    }
    for (day, a, _) in ads {
        add(day, &|m| m.ad_spend_cents += a);
    }
    for (day, a, _) in dsp {
        add(day, &|m| m.dsp_spend_cents += a);
    }
    let mut complete = Vec::new();
    let mut running = None;
    for ((y, mo), f) in months {
        let m = Month { year: y, month: mo };
        let p = m.period();
        if p.start >= data.start && p.end <= data.end {
            complete.push((m, f));
        } else if p.end > data.end {
            running = Some((
                m,
                f,
                Period {
                    start: p.start.max(data.start),
                    end: data.end,
                },
            ));
        }
    }
    Ok(History {
        complete,
        running,
        data,
    })
}
