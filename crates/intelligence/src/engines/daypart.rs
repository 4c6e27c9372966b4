//! `INS-DAYPART-01`: each campaign's performance by hour of the week, from the Marketing
//! Stream's hourly tables (docs/streams.md). A cell (a day of the week and an hour) is
//! measured when it holds at least `MIN_CLICKS` clicks; a thinner cell stands on its hour of
//! the day over the whole week, and when that is thin too on the campaign's own rate — the
//! `basis` of every cell says which. Each campaign's hours of the day are set against its own
//! conversion rate (an `index`) — an hour is measured with `MIN_HOUR_CLICKS` — and the four
//! consecutive hours that convert best (among windows with four hours' worth of clicks) are
//! named when at least half the hours of the day are measured.

use std::collections::BTreeMap;

use chrono::Datelike;
use pp_core::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, money, num, ratio};
use pp_warehouse::row::Row;

use crate::data::{self, Wh, day, in_list};
use crate::evidence::{Rows, Statement};
use crate::params::Period;
use crate::scope::Scope;

/// The fewest clicks a cell of the week is judged on by itself.
pub const MIN_CLICKS: i64 = 30;

/// The fewest clicks an hour of the day is measured on (the best hours are chosen among
/// measured hours only: a night hour with a few lucky purchases is never "best").
pub const MIN_HOUR_CLICKS: i64 = 60;

/// The days read when no period is given (the last four weeks of the data).
pub const DEFAULT_DAYS: i64 = 28;

/// The fewest measured hours of the day the best window is chosen among.
pub const MIN_MEASURED_HOURS: usize = 12;

/// How many consecutive hours the best window spans.
pub const WINDOW: usize = 4;

pub const TRAFFIC: &str = "ads_stream_traffic_hourly";
const CONVERSIONS: &str = "ads_stream_conversion_hourly";
/// The days of the week, Monday first, as the provider spells them.
pub const DAYS: [&str; 7] = [
    "MONDAY",
    "TUESDAY",
    "WEDNESDAY",
    "THURSDAY",
    "FRIDAY",
    "SATURDAY",
    "SUNDAY",
];

/// What `INS-DAYPART-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Daypart {
    pub currency: String,
    pub period: Period,
    /// Days of the period with streamed hours.
    pub days_with_hours: i64,
    pub min_clicks: i64,
    pub campaigns: Vec<CampaignHours>,
}

/// One campaign's hours.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignHours {
    pub campaign_id: String,
    pub ad_product: String,
    pub totals: Measures,
    /// Each hour of the day (0–23) over the whole period; `measured` with at least 60 clicks.
    pub hours_of_day: Vec<HourOfDay>,
    /// The four consecutive hours that convert best (among windows with 240 clicks); null
    /// unless at least 12 hours of the day are measured.
    pub best_hours: Option<BestHours>,
    /// The 168 hours of the week, Monday 00:00 first.
    pub week: Vec<WeekCell>,
}

/// Clicks, spend, purchases and sales, and the rates they make.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Measures {
    pub impressions: i64,
    pub clicks: i64,
    pub spend: Money,
    pub purchases: i64,
    pub sales: Money,
    /// Purchases per click; null without clicks.
    pub conversion: Option<f64>,
    /// Sales per spend; null without spend.
    pub roas: Option<f64>,
}

/// An hour of the day.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HourOfDay {
    pub hour: u32,
    #[serde(flatten)]
    pub m: Measures,
    /// Its conversion over the campaign's; null without clicks.
    pub index: Option<f64>,
    pub measured: bool,
}

/// The best window of the day.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BestHours {
    /// Its first hour and the hour after its last (`startHour` 14, `endHour` 18: 14:00–18:00).
    pub start_hour: u32,
    pub end_hour: u32,
    pub conversion: Option<f64>,
    /// Its conversion over the campaign's.
    pub index: Option<f64>,
}

/// An hour of the week.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WeekCell {
    pub day_of_week: &'static str,
    pub hour: u32,
    #[serde(flatten)]
    pub m: Measures,
    /// What its `rate` stands on: `cell` (its own clicks), `hour_of_day` (the hour over the
    /// week) or `campaign` (the campaign's rate), the first with `minClicks`.
    pub basis: &'static str,
    /// The conversion the cell is judged by (its basis's).
    pub rate: Option<f64>,
    /// `rate` over the campaign's conversion.
    pub index: Option<f64>,
}

/// Sums in cents.
#[derive(Debug, Clone, Copy, Default)]
pub struct Sums {
    impressions: i64,
    clicks: i64,
    spend: i64,
    purchases: i64,
    sales: i64,
}

impl Sums {
    fn add(&mut self, o: &Sums) {
        self.impressions += o.impressions;
        self.clicks += o.clicks;
        self.spend += o.spend;
        self.purchases += o.purchases;
        self.sales += o.sales;
    }

    fn conversion(&self) -> Option<f64> {
        ratio(self.purchases, self.clicks)
    }

    fn measures(&self) -> Measures {
        Measures {
            impressions: self.impressions,
            clicks: self.clicks,
            spend: money(self.spend),
            purchases: self.purchases,
            sales: money(self.sales),
            conversion: self.conversion(),
            roas: ratio(self.sales, self.spend),
        }
    }
}

/// (campaign, ad product) → (day of week, hour) → sums.
pub type Read = BTreeMap<(String, String), BTreeMap<(usize, u32), Sums>>;

/// The scope's hours over `period`, by campaign, day of the week and hour; and how many days
/// had hours.
pub async fn read(wh: &Wh, scope: &Scope, period: Period) -> Result<(Read, i64)> {
    let d = wh.dialect();
    let mut out: Read = BTreeMap::new();
    let mut days = std::collections::BTreeSet::new();
    // a warehouse the gateway does not fill may have no stream tables at all
    for table in [TRAFFIC, CONVERSIONS] {
        if !pp_warehouse::directory::has_table(wh.engine.as_ref(), table).await? {
            return Ok((out, 0));
        }
    }
    for (table, measures) in [
        (
            TRAFFIC,
            format!(
                "SUM(t.Impressions) AS a, SUM(t.Clicks) AS b, {} AS c",
                d.sum_cents("t.Cost")
            ),
        ),
        (
            CONVERSIONS,
            format!(
                "0 AS a, SUM(t.Purchases7d) AS b, {} AS c",
                d.sum_cents("t.Sales7d")
            ),
        ),
    ] {
        let (marks, mut params) = in_list(scope);
        params.push(day(period.start));
        params.push(day(period.end));
        let sql = format!(
            "SELECT t.CampaignID AS k, t.AdProduct AS p, t.Date AS d, t.Hour AS h, {measures} FROM {table} t
             WHERE t.SellerID IN ({marks}) AND t.Date BETWEEN ? AND ?
             GROUP BY t.CampaignID, t.AdProduct, t.Date, t.Hour"
        );
        for r in wh.rows(&sql, params).await? {
            let date = data::date(&r, "d")?;
            days.insert(date);
            let key = (data::key(&r, "k")?, data::key(&r, "p")?);
            let cell = (
                date.weekday().num_days_from_monday() as usize,
                r.count("h")? as u32,
            );
            let s = out.entry(key).or_default().entry(cell).or_default();
            if table == TRAFFIC {
                s.impressions += r.count("a")?;
                s.clicks += r.count("b")?;
                s.spend += r.count("c")?;
            } else {
                s.purchases += r.count("b")?;
                s.sales += r.count("c")?;
            }
        }
    }
    Ok((out, days.len() as i64))
}

/// `x` over `of`, four places.
fn index(x: Option<f64>, of: Option<f64>) -> Option<f64> {
    match (x, of) {
        (Some(x), Some(of)) if of > 0.0 => num((x / of * 10_000.0).round() / 10_000.0),
        _ => None,
    }
}

/// One campaign's answer from its cells.
fn campaign(
    campaign_id: String,
    ad_product: String,
    cells: &BTreeMap<(usize, u32), Sums>,
) -> CampaignHours {
    let mut total = Sums::default();
    let mut by_hour = [Sums::default(); 24];
    for (&(_, h), s) in cells {
        total.add(s);
        by_hour[h as usize].add(s);
    }
    let overall = total.conversion();
    let hours_of_day: Vec<HourOfDay> = by_hour
        .iter()
        .enumerate()
        .map(|(h, s)| HourOfDay {
            hour: h as u32,
            m: s.measures(),
            index: index(s.conversion(), overall),
            measured: s.clicks >= MIN_HOUR_CLICKS,
        })
        .collect();
    let measured = hours_of_day.iter().filter(|h| h.measured).count();
    let best_hours = if measured >= MIN_MEASURED_HOURS {
        (0..=24 - WINDOW)
            .map(|start| {
                let mut w = Sums::default();
                for s in &by_hour[start..start + WINDOW] {
                    w.add(s);
                }
                (start, w)
            })
            .filter(|(_, w)| w.clicks >= WINDOW as i64 * MIN_HOUR_CLICKS)
            .max_by(|a, b| {
                let rate = |s: &Sums| s.conversion().unwrap_or(0.0);
                rate(&a.1).total_cmp(&rate(&b.1)).then(b.0.cmp(&a.0))
            })
            .map(|(start, w)| BestHours {
                start_hour: start as u32,
                end_hour: (start + WINDOW) as u32,
                conversion: w.conversion(),
                index: index(w.conversion(), overall),
            })
    } else {
        None
    };
    let week = (0..7)
        .flat_map(|dow| (0..24u32).map(move |h| (dow, h)))
        .map(|(dow, h)| {
            let s = cells.get(&(dow, h)).copied().unwrap_or_default();
            let hour = &by_hour[h as usize];
            let (basis, rate) = if s.clicks >= MIN_CLICKS {
                ("cell", s.conversion())
            } else if hour.clicks >= MIN_CLICKS {
                ("hour_of_day", hour.conversion())
            } else {
                ("campaign", overall)
            };
            WeekCell {
                day_of_week: DAYS[dow],
                hour: h,
                m: s.measures(),
                basis,
                rate,
                index: index(rate, overall),
            }
        })
        .collect();
    CampaignHours {
        campaign_id,
        ad_product,
        totals: total.measures(),
        hours_of_day,
        best_hours,
        week,
    }
}

/// Each campaign's answer, the busiest (most clicks) first.
pub fn campaigns(read: Read) -> Vec<CampaignHours> {
    let mut out: Vec<CampaignHours> = read
        .into_iter()
        .map(|((id, product), cells)| campaign(id, product, &cells))
        .collect();
    out.sort_by(|a, b| {
        b.totals
            .clicks
            .cmp(&a.totals.clicks)
            .then(a.campaign_id.cmp(&b.campaign_id))
    });
    out
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<Daypart>> {
    // the last four weeks of the advertising data by default
    let period = input.period.unwrap_or(Period {
        start: (input.data.end - chrono::Duration::days(DEFAULT_DAYS - 1)).max(input.data.start),
        end: input.data.end,
    });
    let (read, days) = read(wh, &input.scope, period).await?;
    let campaigns = campaigns(read);
    let mut limitations = vec![
        format!("Hours come from Amazon Marketing Stream: only days the stream delivered count ({days} of the period's {}).", (period.end - period.start).num_days() + 1),
        "Conversions are counted at the hour of the click, by seven-day attribution; the last 14 days' conversions still grow as late purchases are attributed.".to_owned(),
        format!("A cell with fewer than {MIN_CLICKS} clicks is judged by its hour of the day over the week, or by the campaign's rate when that is thin too (each cell's basis)."),
    ];
    if days == 0 {
        limitations.push("No streamed hours in the period: subscribe to the stream (POST /api/warehouse/streams) and wait for its days.".to_owned());
    }
    let evidence = campaigns
        .iter()
        .filter_map(|c| {
            let b = c.best_hours.as_ref()?;
            Some(Statement::new(
                format!(
                    "Campaign {} converts best from {:02}:00 to {:02}:00 ({} of the day's rate).",
                    c.campaign_id,
                    b.start_hour,
                    b.end_hour,
                    b.index.map_or("n/a".to_owned(), |i| format!("{i:.2}×"))
                ),
                &[
                    ("campaignId", c.campaign_id.clone().into()),
                    ("startHour", b.start_hour.into()),
                    ("conversion", b.conversion.into()),
                    ("campaignConversion", c.totals.conversion.into()),
                ],
                vec![
                    Rows::of(&input.scope, TRAFFIC, period),
                    Rows::of(&input.scope, CONVERSIONS, period),
                ],
            ))
        })
        .take(10)
        .collect();
    Ok(Answer {
        result: Daypart {
            currency: input.scope.currency.clone(),
            period,
            days_with_hours: days,
            min_clicks: MIN_CLICKS,
            campaigns,
        },
        limitations,
        evidence,
    })
}
