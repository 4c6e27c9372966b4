//! The monitors' rules: pure functions of a merchant's [`MonitorHistory`] on one day, each answering
//! the subjects firing that day with the rows they read (the evidence). Whether a firing is a
//! new episode, and when one ends, is the episodes' business (`pp_store::monitors`).

use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};

use std::collections::BTreeMap;

use super::history::{CampaignDay, HourRow, MonitorHistory};
use super::settings::MonitorSettings;

/// One subject a monitor fires for on a day.
#[derive(Debug, Clone, PartialEq)]
pub struct Alert {
    /// `{seller}:{asin}`, `{seller}:{campaign}`, `{seller}:{campaign}:{metric}`, `{seller}:{month}`.
    pub subject: String,
    /// The brand's name the subject belongs to, when it has one.
    pub brand: Option<String>,
    /// One line a person reads.
    pub summary: String,
    pub evidence: Value,
}

fn money(cents: i64) -> String {
    format!("{:.2}", cents as f64 / 100.0)
}

/// Items with recent sales and no sellable unit on `on`.
pub fn stockouts(h: &MonitorHistory, on: NaiveDate, s: &MonitorSettings) -> Vec<Alert> {
    let c = &s.stockout;
    let recent = (on - Duration::days(c.recent_days), on - Duration::days(1));
    let mut out = Vec::new();
    for (asin, days) in &h.stock {
        let Some(&units) = days.get(&on) else {
            continue;
        };
        let sold = h.sold(asin, recent.0, recent.1);
        if units > 0 || sold < c.min_recent_units {
            continue;
        }
        let last_in_stock = days
            .range(..on)
            .rev()
            .find(|(_, n)| **n > 0)
            .map(|(d, _)| d.to_string());
        out.push(Alert {
            subject: format!("{}:{asin}", h.seller),
            brand: h.item_brand.get(asin).cloned(),
            summary: format!("{asin} has no sellable units on {on} after selling {sold} in the {} days before", c.recent_days),
            evidence: json!({
                "sellerId": h.seller, "asin": asin, "day": on, "sellable": units,
                "unitsSold": sold, "soldFrom": recent.0, "soldThrough": recent.1, "lastInStock": last_in_stock,
            }),
        });
    }
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}

/// Items whose sellable units cover fewer weeks of recent sales than the threshold.
pub fn low_cover(h: &MonitorHistory, on: NaiveDate, s: &MonitorSettings) -> Vec<Alert> {
    let c = &s.low_cover;
    let from = on - Duration::days(c.recent_days - 1);
    let mut out = Vec::new();
    for (asin, days) in &h.stock {
        let Some(&units) = days.get(&on) else {
            continue;
        };
        let sold = h.sold(asin, from, on);
        if units == 0 || sold < c.min_recent_units {
            continue;
        }
        let weekly = sold as f64 * 7.0 / c.recent_days as f64;
        let weeks = units as f64 / weekly;
        if weeks >= c.weeks {
            continue;
        }
        out.push(Alert {
            subject: format!("{}:{asin}", h.seller),
            brand: h.item_brand.get(asin).cloned(),
            summary: format!("{asin}: {units} sellable units cover {weeks:.1} weeks of its sales (threshold {} weeks)", c.weeks),
            evidence: json!({
                "sellerId": h.seller, "asin": asin, "day": on, "sellable": units,
                "unitsSold": sold, "soldFrom": from, "soldThrough": on, "weeksOfCover": (weeks * 10.0).round() / 10.0,
            }),
        });
    }
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}

/// A campaign's name, as its latest daily row has it.
fn campaign_name(h: &MonitorHistory, id: i64) -> String {
    h.campaigns
        .get(&id)
        .and_then(|d| d.values().next_back())
        .map(|d| d.name.clone())
        .unwrap_or_default()
}

/// Campaigns that spent their whole daily budget each of the last `days` days.
pub fn out_of_budget(h: &MonitorHistory, on: NaiveDate, s: &MonitorSettings) -> Vec<Alert> {
    let c = &s.out_of_budget;
    let from = on - Duration::days(c.days - 1);
    let mut out = Vec::new();
    for (id, days) in &h.campaigns {
        let run: Vec<(&NaiveDate, &CampaignDay)> = days.range(from..=on).collect();
        let capped = |d: &CampaignDay| d.budget > 0 && d.spend as f64 >= d.budget as f64 * c.share;
        if run.len() as i64 != c.days || !run.iter().all(|(_, d)| capped(d)) {
            continue;
        }
        let name = run.last().map(|(_, d)| d.name.clone()).unwrap_or_default();
        out.push(Alert {
            subject: format!("{}:{id}", h.seller),
            brand: h.campaign_brand.get(id).cloned(),
            summary: format!("campaign {name} ({id}) spent its whole daily budget {} days running", c.days),
            evidence: json!({
                "sellerId": h.seller, "campaignId": id, "campaignName": name,
                "days": run.iter().map(|(d, r)| json!({"day": d, "budget": money(r.budget), "spend": money(r.spend)})).collect::<Vec<_>>(),
            }),
        });
    }
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}

/// Campaigns whose streamed budget use reached `share` of the day's budget on `on` in an hour
/// before `hour`: out of budget (and off the shelf) for the rest of the day.
pub fn out_of_budget_by_hour(h: &MonitorHistory, on: NaiveDate, s: &MonitorSettings) -> Vec<Alert> {
    let c = &s.out_of_budget_by_hour;
    let spent = (c.share * 10_000.0).round() as i64;
    let mut out = Vec::new();
    for (id, days) in &h.budget_use {
        let Some(day) = days.get(&on) else {
            continue;
        };
        let Some((&hour, &pct)) = day.by_hour.iter().find(|(_, pct)| **pct >= spent) else {
            continue;
        };
        if i64::from(hour) >= c.hour {
            continue;
        }
        let name = campaign_name(h, *id);
        out.push(Alert {
            subject: format!("{}:{id}", h.seller),
            brand: h.campaign_brand.get(id).cloned(),
            summary: format!(
                "campaign {name} ({id}) spent {:.0}% of its daily budget by {:02}:59 on {on}, before {:02}:00",
                pct as f64 / 100.0,
                hour,
                c.hour
            ),
            evidence: json!({
                "sellerId": h.seller, "campaignId": id, "campaignName": name, "day": on,
                "budget": money(day.budget), "spentOutInHour": hour, "usagePercent": pct as f64 / 100.0,
                "byHour": c.hour,
                "readings": day.by_hour.iter().map(|(h, p)| json!({"hour": h, "usagePercent": *p as f64 / 100.0})).collect::<Vec<_>>(),
            }),
        });
    }
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}

/// The merchant's month-to-date spend against the month's plan (`budget`, cents).
pub fn spend_off_plan(
    h: &MonitorHistory,
    on: NaiveDate,
    budget: Option<i64>,
    s: &MonitorSettings,
) -> Vec<Alert> {
    let c = &s.spend_off_plan;
    let Some(budget) = budget.filter(|b| *b > 0) else {
        return Vec::new();
    };
    let elapsed = i64::from(on.day());
    if elapsed < c.min_days {
        return Vec::new();
    }
    let first = on.with_day(1).expect("a month's first day");
    let month_days = days_in_month(on);
    let spent = h.spend(first..=on);
    let planned = budget as f64 * elapsed as f64 / month_days as f64;
    let off = (spent as f64 - planned) / planned;
    if off.abs() <= c.share {
        return Vec::new();
    }
    let month = format!("{:04}-{:02}", on.year(), on.month());
    vec![Alert {
        subject: format!("{}:{month}", h.seller),
        brand: None,
        summary: format!(
            "advertising spend to {on} is {} against a plan of {} to date ({:+.0}%)",
            money(spent),
            money(planned.round() as i64),
            off * 100.0
        ),
        evidence: json!({
            "sellerId": h.seller, "month": month, "through": on, "spent": money(spent),
            "planToDate": money(planned.round() as i64), "monthBudget": money(budget),
            "daysElapsed": elapsed, "daysInMonth": month_days, "off": (off * 1000.0).round() / 1000.0,
        }),
    }]
}

/// The merchant's spend by hour on a day, over every campaign: each streamed hour's cents.
fn day_hours(h: &MonitorHistory, on: NaiveDate) -> BTreeMap<u32, i64> {
    let mut out = BTreeMap::new();
    for hours in h.hours.values() {
        for (&(_, hour), r) in hours.range((on, 0)..=(on, 23)) {
            *out.entry(hour).or_default() += r.spend;
        }
    }
    out
}

/// The share of a day's spend usually spent by the end of each hour: the mean over the (up
/// to) [`USUAL_DAYS`](super::history::USUAL_DAYS) days before `on` with streamed spend; even hours without such a day.
fn usual_curve(h: &MonitorHistory, on: NaiveDate) -> ([f64; 24], usize) {
    let mut sum = [0.0; 24];
    let mut days = 0;
    for back in 1..=super::history::USUAL_DAYS {
        let hours = day_hours(h, on - Duration::days(back));
        let total: i64 = hours.values().sum();
        if total <= 0 {
            continue;
        }
        days += 1;
        let mut run = 0;
        for (hour, cell) in sum.iter_mut().enumerate() {
            run += hours.get(&(hour as u32)).copied().unwrap_or(0);
            *cell += run as f64 / total as f64;
        }
    }
    if days == 0 {
        return (std::array::from_fn(|hour| (hour + 1) as f64 / 24.0), 0);
    }
    (sum.map(|v| v / days as f64), days)
}

/// Month-to-date spend at an hour of `on` (the month's days before from the daily rows, the
/// day's streamed hours through that hour) against the plan to that hour: the first hour from
/// `fromHour` off by more than `share`.
pub fn spend_pace_by_hour(
    h: &MonitorHistory,
    on: NaiveDate,
    budget: Option<i64>,
    s: &MonitorSettings,
) -> Vec<Alert> {
    let c = &s.spend_pace_by_hour;
    let Some(budget) = budget.filter(|b| *b > 0) else {
        return Vec::new();
    };
    let before = i64::from(on.day()) - 1;
    if before + 1 < c.min_days {
        return Vec::new();
    }
    let today = day_hours(h, on);
    let Some(&last) = today.keys().next_back() else {
        return Vec::new();
    };
    let first = on.with_day(1).expect("a month's first day");
    let spent_before = h.spend(first..on);
    let (curve, curve_days) = usual_curve(h, on);
    let month_days = days_in_month(on) as f64;
    let mut spent = spent_before;
    let mut pace = Vec::new();
    for hour in 0..=last {
        spent += today.get(&hour).copied().unwrap_or(0);
        let planned = budget as f64 * (before as f64 + curve[hour as usize]) / month_days;
        let off = (spent as f64 - planned) / planned;
        pace.push((hour, spent, planned, off));
    }
    let Some(&(hour, spent, planned, off)) = pace
        .iter()
        .find(|(hour, _, _, off)| i64::from(*hour) >= c.from_hour && off.abs() > c.share)
    else {
        return Vec::new();
    };
    let month = format!("{:04}-{:02}", on.year(), on.month());
    vec![Alert {
        subject: format!("{}:{month}", h.seller),
        brand: None,
        summary: format!(
            "advertising spend by {hour:02}:59 on {on} is {} against a plan of {} to that hour ({:+.0}%)",
            money(spent),
            money(planned.round() as i64),
            off * 100.0
        ),
        evidence: json!({
            "sellerId": h.seller, "month": month, "day": on, "hour": hour,
            "spent": money(spent), "planToHour": money(planned.round() as i64), "monthBudget": money(budget),
            "off": (off * 1000.0).round() / 1000.0, "usualCurveDays": curve_days,
            "pace": pace.iter().map(|(h, s, p, _)| json!({"hour": h, "spent": money(*s), "plan": money(p.round() as i64)})).collect::<Vec<_>>(),
        }),
    }]
}

fn days_in_month(d: NaiveDate) -> i64 {
    let first = d.with_day(1).expect("a month's first day");
    let next = if d.month() == 12 {
        NaiveDate::from_ymd_opt(d.year() + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(d.year(), d.month() + 1, 1)
    }
    .expect("the next month's first day");
    (next - first).num_days()
}

/// The metrics the anomaly monitor watches: name, its value on a day (if its minimum samples
/// hold), and the minimum it needs.
type Metric = (
    &'static str,
    fn(&CampaignDay, &MonitorSettings) -> Option<f64>,
);

const METRICS: &[Metric] = &[
    ("spend", |d, s| {
        (d.clicks >= s.anomaly.min_clicks).then_some(d.spend as f64 / 100.0)
    }),
    ("sales", |d, s| {
        (d.orders >= s.anomaly.min_orders).then_some(d.sales as f64 / 100.0)
    }),
    ("acos", |d, s| {
        (d.orders >= s.anomaly.min_orders && d.sales > 0).then_some(d.spend as f64 / d.sales as f64)
    }),
    ("ctr", |d, s| {
        (d.impressions >= s.anomaly.min_impressions)
            .then_some(d.clicks as f64 / d.impressions as f64)
    }),
    ("conversion", |d, s| {
        (d.clicks >= s.anomaly.min_clicks).then_some(d.orders as f64 / d.clicks as f64)
    }),
];

/// How far `v` stands from `window` (at least `min_days` values with a spread): mean,
/// standard deviation and z.
struct Score {
    mean: f64,
    sd: f64,
    z: f64,
    days: usize,
}

fn score(v: f64, window: &[f64], min_days: i64) -> Option<Score> {
    if (window.len() as i64) < min_days {
        return None;
    }
    let n = window.len() as f64;
    let mean = window.iter().sum::<f64>() / n;
    let sd = (window.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    (sd > 0.0).then(|| Score {
        mean,
        sd,
        z: (v - mean) / sd,
        days: window.len(),
    })
}

/// A campaign's metric on `on` outside its own range over the window before, each with enough
/// samples on the day and on enough days of the window.
pub fn anomalies(h: &MonitorHistory, on: NaiveDate, s: &MonitorSettings) -> Vec<Alert> {
    let c = &s.anomaly;
    let from = on - Duration::days(c.window_days);
    let mut out = Vec::new();
    for (id, days) in &h.campaigns {
        let Some(today) = days.get(&on) else {
            continue;
        };
        for (metric, value) in METRICS {
            let Some(v) = value(today, s) else {
                continue;
            };
            let window: Vec<f64> = days
                .range(from..on)
                .filter_map(|(_, d)| value(d, s))
                .collect();
            let Some(Score { mean, sd, z, days }) =
                score(v, &window, c.min_days).filter(|k| k.z.abs() >= c.z)
            else {
                continue;
            };
            out.push(Alert {
                subject: format!("{}:{id}:{metric}", h.seller),
                brand: h.campaign_brand.get(id).cloned(),
                summary: format!(
                    "campaign {} ({id}): {metric} {} on {on}, against {:.4} ± {:.4} over the {} days before (z {z:+.1})",
                    today.name,
                    round4(v),
                    mean,
                    sd,
                    days
                ),
                evidence: json!({
                    "sellerId": h.seller, "campaignId": id, "campaignName": today.name, "metric": metric, "day": on,
                    "value": round4(v), "mean": round4(mean), "sd": round4(sd), "z": (z * 100.0).round() / 100.0,
                    "windowDays": days, "clicks": today.clicks, "orders": today.orders, "impressions": today.impressions,
                }),
            });
        }
    }
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}

/// The hourly metrics: name, and its value in an hour if its minimum samples hold.
type HourMetric = (&'static str, fn(&HourRow, &MonitorSettings) -> Option<f64>);

const HOUR_METRICS: &[HourMetric] = &[
    ("spend", |r, s| {
        (r.clicks >= s.hourly_anomaly.min_clicks).then_some(r.spend as f64 / 100.0)
    }),
    ("cpc", |r, s| {
        (r.clicks >= s.hourly_anomaly.min_clicks)
            .then_some(r.spend as f64 / 100.0 / r.clicks as f64)
    }),
    ("ctr", |r, s| {
        (r.impressions >= s.hourly_anomaly.min_impressions)
            .then_some(r.clicks as f64 / r.impressions as f64)
    }),
];

/// A campaign's hour of `on` whose metric is outside the range of the same hour over the
/// window before, each with enough samples; one alert per campaign and metric, at its
/// furthest hour.
pub fn hourly_anomalies(h: &MonitorHistory, on: NaiveDate, s: &MonitorSettings) -> Vec<Alert> {
    let c = &s.hourly_anomaly;
    let mut out = Vec::new();
    for (id, hours) in &h.hours {
        for (metric, value) in HOUR_METRICS {
            // the furthest hour of the day: its score, hour, value and row
            let mut worst: Option<(Score, u32, f64, HourRow)> = None;
            for (&(_, hour), row) in hours.range((on, 0)..=(on, 23)) {
                let Some(v) = value(row, s) else {
                    continue;
                };
                let window: Vec<f64> = (1..=c.window_days)
                    .filter_map(|back| hours.get(&(on - Duration::days(back), hour)))
                    .filter_map(|r| value(r, s))
                    .collect();
                let Some(k) = score(v, &window, c.min_days) else {
                    continue;
                };
                if k.z.abs() >= c.z && worst.as_ref().is_none_or(|w| k.z.abs() > w.0.z.abs()) {
                    worst = Some((k, hour, v, *row));
                }
            }
            let Some((Score { mean, sd, z, days }, hour, v, row)) = worst else {
                continue;
            };
            let name = campaign_name(h, *id);
            out.push(Alert {
                subject: format!("{}:{id}:{metric}", h.seller),
                brand: h.campaign_brand.get(id).cloned(),
                summary: format!(
                    "campaign {name} ({id}): {metric} {} at {hour:02}:00 on {on}, against {:.4} ± {:.4} at that hour over {days} days before (z {z:+.1})",
                    round4(v),
                    mean,
                    sd
                ),
                evidence: json!({
                    "sellerId": h.seller, "campaignId": id, "campaignName": name, "metric": metric, "day": on, "hour": hour,
                    "value": round4(v), "mean": round4(mean), "sd": round4(sd), "z": (z * 100.0).round() / 100.0,
                    "windowDays": days, "clicks": row.clicks, "impressions": row.impressions, "spend": money(row.spend),
                }),
            });
        }
    }
    out.sort_by(|a, b| a.subject.cmp(&b.subject));
    out
}

fn round4(v: f64) -> f64 {
    (v * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_stockout_needs_recent_sales_and_a_campaign_needs_its_samples() {
        let mut h = MonitorHistory {
            seller: 1,
            ..MonitorHistory::default()
        };
        let stock = h.stock.entry("B1".into()).or_default();
        stock.insert(d("2026-03-10"), 0);
        stock.insert(d("2026-03-09"), 4);
        h.units
            .entry("B1".into())
            .or_default()
            .insert(d("2026-03-01"), 3);
        h.stock
            .entry("B2".into())
            .or_default()
            .insert(d("2026-03-10"), 0);
        let s = MonitorSettings::default();
        let got = stockouts(&h, d("2026-03-10"), &s);
        assert_eq!(got.len(), 1, "B2 sold nothing: {got:?}");
        assert_eq!(got[0].evidence["lastInStock"], "2026-03-09");

        // a campaign whose day is far off its range, with few clicks: nothing said
        let days = h.campaigns.entry(7).or_default();
        for i in 0..28 {
            let day = d("2026-02-10") + Duration::days(i);
            days.insert(
                day,
                CampaignDay {
                    spend: 1000 + i * 3,
                    clicks: 20,
                    impressions: 500,
                    ..Default::default()
                },
            );
        }
        days.insert(
            d("2026-03-10"),
            CampaignDay {
                spend: 90_000,
                clicks: 25,
                impressions: 600,
                ..Default::default()
            },
        );
        assert!(anomalies(&h, d("2026-03-10"), &s).is_empty());
        let loose = MonitorSettings {
            anomaly: super::super::settings::Anomaly {
                min_clicks: 10,
                ..Default::default()
            },
            ..Default::default()
        };
        let got = anomalies(&h, d("2026-03-10"), &loose);
        assert!(got.iter().any(|a| a.subject == "1:7:spend"), "{got:?}");
    }

    #[test]
    fn a_campaign_out_of_budget_before_the_hour_fires_and_one_that_lasts_does_not() {
        use super::super::history::BudgetUse;
        let mut h = MonitorHistory {
            seller: 3,
            ..MonitorHistory::default()
        };
        let on = d("2026-11-20");
        let usage = |readings: &[(u32, i64)]| BudgetUse {
            budget: 5_000,
            by_hour: readings.iter().copied().collect(),
        };
        // ran out at 15:00; ran out at 19:00; never quite ran out
        h.budget_use
            .entry(11)
            .or_default()
            .insert(on, usage(&[(9, 2_000), (15, 9_600), (16, 9_600)]));
        h.budget_use
            .entry(12)
            .or_default()
            .insert(on, usage(&[(9, 2_000), (19, 9_800)]));
        h.budget_use
            .entry(13)
            .or_default()
            .insert(on, usage(&[(12, 9_400), (22, 9_499)]));
        let s = MonitorSettings::default();
        let fired = out_of_budget_by_hour(&h, on, &s);
        assert_eq!(fired.len(), 1, "{fired:?}");
        assert_eq!(fired[0].subject, "3:11");
        assert_eq!(fired[0].evidence["spentOutInHour"], 15);
        assert!(out_of_budget_by_hour(&h, d("2026-11-21"), &s).is_empty());
        // a later hour in the settings takes the 19:00 campaign in too
        let mut later = s.clone();
        later.out_of_budget_by_hour.hour = 20;
        assert_eq!(out_of_budget_by_hour(&h, on, &later).len(), 2);
    }

    /// A campaign's hours: `days` days before `on` at the usual `per_hour` spend (cents) and
    /// clicks every hour, and `on`'s hours through `through` at `today` times that.
    fn streamed(
        h: &mut MonitorHistory,
        id: i64,
        on: NaiveDate,
        days: i64,
        through: u32,
        today: f64,
    ) {
        let hours = h.hours.entry(id).or_default();
        for back in 0..=days {
            let day = on - Duration::days(back);
            let factor = if back == 0 { today } else { 1.0 };
            for hour in 0..24 {
                if back == 0 && hour > through {
                    break;
                }
                // a little day-to-day variation, so the range has a spread
                let wobble = 1.0 + 0.02 * ((back + i64::from(hour)) % 3 - 1) as f64;
                let clicks = ((40.0 * wobble * factor).round()) as i64;
                hours.insert(
                    (day, hour),
                    HourRow {
                        spend: clicks * 50,
                        clicks,
                        impressions: 1_600 + 16 * ((back * 7 + i64::from(hour)) % 5),
                    },
                );
            }
            h.campaigns.entry(id).or_default().insert(
                day,
                CampaignDay {
                    name: "C".into(),
                    spend: if back == 0 { 0 } else { 24 * 40 * 50 },
                    ..Default::default()
                },
            );
        }
    }

    #[test]
    fn spend_pace_by_the_hour_fires_at_the_first_hour_off_the_plan_to_that_hour() {
        let on = d("2026-11-20");
        let mut h = MonitorHistory {
            seller: 4,
            ..MonitorHistory::default()
        };
        // nineteen days at 480.00 a day, and today at the same pace through 14:00
        streamed(&mut h, 21, on, 19, 14, 1.0);
        let s = MonitorSettings::default();
        let on_plan = 30 * 48_000;
        assert!(
            spend_pace_by_hour(&h, on, Some(on_plan), &s).is_empty(),
            "on the plan's pace"
        );
        // a plan a third lower: over it from the first hour judged
        let fired = spend_pace_by_hour(&h, on, Some(on_plan * 2 / 3), &s);
        assert_eq!(fired.len(), 1, "{fired:?}");
        assert_eq!(fired[0].evidence["hour"], 6);
        assert!(
            fired[0].evidence["off"].as_f64().unwrap() > 0.4,
            "{:?}",
            fired[0]
        );
        assert_eq!(fired[0].evidence["usualCurveDays"], 14);
        // on the 7th, today spending at three times the pace: off the plan once two thirds
        // of the day's usual spend is in (2c / (6 + c) > 0.2)
        let early = d("2026-11-07");
        let mut hot = MonitorHistory {
            seller: 4,
            ..MonitorHistory::default()
        };
        streamed(&mut hot, 21, early, 6, 23, 3.0);
        let fired = spend_pace_by_hour(&hot, early, Some(on_plan), &s);
        assert_eq!(fired.len(), 1, "{fired:?}");
        let hour = fired[0].evidence["hour"].as_u64().unwrap();
        assert!((14..=16).contains(&hour), "{fired:?}");
        assert_eq!(fired[0].evidence["usualCurveDays"], 6);
        // no plan, or too early in the month: nothing said
        assert!(spend_pace_by_hour(&h, on, None, &s).is_empty());
        assert!(spend_pace_by_hour(&h, d("2026-11-03"), Some(1), &s).is_empty());
    }

    #[test]
    fn an_hour_off_its_own_range_fires_once_per_metric_and_a_thin_hour_says_nothing() {
        let on = d("2026-11-20");
        let mut h = MonitorHistory {
            seller: 5,
            ..MonitorHistory::default()
        };
        streamed(&mut h, 31, on, 28, 23, 1.0);
        let s = MonitorSettings::default();
        assert!(
            hourly_anomalies(&h, on, &s).is_empty(),
            "every hour in its range"
        );
        // 15:00 clicks twice as often at twice the spend: spend and CTR off, cost per click not
        let row = h.hours.get_mut(&31).unwrap().get_mut(&(on, 15)).unwrap();
        row.clicks *= 2;
        row.spend *= 2;
        let fired = hourly_anomalies(&h, on, &s);
        let subjects: Vec<&str> = fired.iter().map(|a| a.subject.as_str()).collect();
        assert_eq!(subjects, ["5:31:ctr", "5:31:spend"], "{fired:?}");
        assert!(fired.iter().all(|a| a.evidence["hour"] == 15));
        // the same jump on thin hours (under the minimum clicks and impressions): nothing said
        let mut thin = s.clone();
        thin.hourly_anomaly.min_clicks = 1_000;
        thin.hourly_anomaly.min_impressions = 1_000_000;
        assert!(hourly_anomalies(&h, on, &thin).is_empty());
    }
}
