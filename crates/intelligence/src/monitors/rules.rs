//! The monitors' rules: pure functions of a merchant's [`MonitorHistory`] on one day, each answering
//! the subjects firing that day with the rows they read (the evidence). Whether a firing is a
//! new episode, and when one ends, is the episodes' business (`pp_store::monitors`).

use chrono::{Datelike, Duration, NaiveDate};
use serde_json::{Value, json};

use super::history::{CampaignDay, MonitorHistory};
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
    let spent: i64 = h
        .campaigns
        .values()
        .flat_map(|d| d.range(first..=on).map(|(_, r)| r.spend))
        .sum();
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
            if (window.len() as i64) < c.min_days {
                continue;
            }
            let n = window.len() as f64;
            let mean = window.iter().sum::<f64>() / n;
            let sd = (window.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
            if sd <= 0.0 || ((v - mean) / sd).abs() < c.z {
                continue;
            }
            let z = (v - mean) / sd;
            out.push(Alert {
                subject: format!("{}:{id}:{metric}", h.seller),
                brand: h.campaign_brand.get(id).cloned(),
                summary: format!(
                    "campaign {} ({id}): {metric} {} on {on}, against {:.4} ± {:.4} over the {} days before (z {z:+.1})",
                    today.name,
                    round4(v),
                    mean,
                    sd,
                    window.len()
                ),
                evidence: json!({
                    "sellerId": h.seller, "campaignId": id, "campaignName": today.name, "metric": metric, "day": on,
                    "value": round4(v), "mean": round4(mean), "sd": round4(sd), "z": (z * 100.0).round() / 100.0,
                    "windowDays": window.len(), "clicks": today.clicks, "orders": today.orders, "impressions": today.impressions,
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
}
