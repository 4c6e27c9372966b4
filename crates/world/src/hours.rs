//! The world by the hour. Every campaign has an hour-of-week traffic profile, an hour-of-day
//! conversion profile (a few hours of the day convert better than the rest: what dayparting
//! looks for) and its traffic's shares and conversion across placements; a day's report row
//! (of a target, an ad group or a campaign) splits into placement hours that add up to it
//! exactly, in every measure ([`split_day`]). A day the campaign spent its whole budget ends
//! early: nothing is served after the hour its budget ran out ([`out_of_budget_hour`]).
//!
//! The profiles are drawn from a stream of their own (the seed and the campaign id), so the
//! daily facts are unchanged by them; `ground-truth.json` keeps them (`hours`) for the tests
//! that must find them. The sandbox streams these hours (Amazon Marketing Stream's
//! `sp-traffic`, `sp-conversion`, `budget-usage` …); the world's warehouse holds days only.

use chrono::{Datelike, NaiveDate};
use serde::Serialize;

use crate::rng::Rng;

/// The placements a stream record names, in the provider's words.
pub const PLACEMENTS: [&str; 3] = [
    "Top of Search on-Amazon",
    "Detail Page on-Amazon",
    "Other on-Amazon",
];

/// A share of a day's cost at or above which the day counts as having spent its whole budget.
pub const SPENT_SHARE: f64 = 0.95;

/// One campaign's hours.
#[derive(Debug, Clone, Serialize)]
pub struct HourProfile {
    pub campaign_id: i64,
    /// Traffic weight of each hour of the week, Monday 00:00 first (168, summing to 1 over a
    /// day).
    pub traffic: Vec<f64>,
    /// Conversion-rate multiplier of each hour of the day (24).
    pub conversion: Vec<f64>,
    /// The first of the four hours of the day that convert best (its multiplier 1.8).
    pub best_hour: u32,
    /// Each placement's share of the traffic ([`PLACEMENTS`]' order).
    pub placement_share: [f64; 3],
    /// Each placement's conversion-rate multiplier.
    pub placement_conversion: [f64; 3],
}

/// The stream a campaign's profile is drawn from: the seed and the campaign, nothing else.
fn stream(seed: u64, campaign_id: i64, salt: u64) -> Rng {
    Rng::new(seed ^ 0x4A0E_5000_0000_0000 ^ (campaign_id as u64).wrapping_mul(0x9E37) ^ salt)
}

/// The campaign's profile in the world of `seed`.
pub fn profile(seed: u64, campaign_id: i64) -> HourProfile {
    let mut rng = stream(seed, campaign_id, 0);
    // shoppers: few at night, a morning rise, a lunch bump and the evening peak, which each
    // campaign's audience has an hour or two earlier or later; weekends start later
    let shift = rng.range(-2, 2) as f64;
    let mut traffic = Vec::with_capacity(168);
    for dow in 0..7 {
        let weekend = dow >= 5;
        let day: Vec<f64> = (0..24)
            .map(|h| {
                let h = f64::from(h) - shift;
                let night = 0.15;
                let morning = bump(h, if weekend { 10.5 } else { 8.5 }, 2.0) * 0.6;
                let lunch = bump(h, 12.5, 1.5) * 0.5;
                let evening = bump(h, 20.5, 2.5) * if weekend { 0.9 } else { 1.0 };
                night + morning + lunch + evening
            })
            .collect();
        let sum: f64 = day.iter().sum();
        traffic.extend(day.iter().map(|w| w / sum));
    }
    let best_hour = rng.range(6, 19) as u32;
    let conversion = (0..24)
        .map(|h| {
            if (best_hour..best_hour + 4).contains(&h) {
                1.8
            } else if h < 6 {
                0.6
            } else {
                1.0
            }
        })
        .collect();
    let top = 0.25 + 0.3 * rng.unit();
    let detail = (1.0 - top) * (0.4 + 0.3 * rng.unit());
    HourProfile {
        campaign_id,
        traffic,
        conversion,
        best_hour,
        placement_share: [top, detail, 1.0 - top - detail],
        placement_conversion: [1.4, 0.9, 0.7],
    }
}

/// A smooth bump of height 1 at `centre`, `width` hours wide, wrapping round midnight.
fn bump(h: f64, centre: f64, width: f64) -> f64 {
    let d = (h - centre).rem_euclid(24.0);
    let d = d.min(24.0 - d);
    (-(d * d) / (2.0 * width * width)).exp()
}

/// The hour (0–23, marketplace time) a campaign that spent its whole budget on `date` ran out:
/// from 15:00 to 22:00, drawn from the campaign and the day.
pub fn out_of_budget_hour(seed: u64, campaign_id: i64, date: NaiveDate) -> u32 {
    let mut rng = stream(
        seed,
        campaign_id,
        u64::from(date.num_days_from_ce() as u32) << 20,
    );
    rng.range(15, 22) as u32
}

/// What a report row counts, money in cents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Measures {
    pub impressions: i64,
    pub clicks: i64,
    pub cost: i64,
    pub purchases: i64,
    pub sales: i64,
}

impl Measures {
    pub fn add(&mut self, o: &Measures) {
        self.impressions += o.impressions;
        self.clicks += o.clicks;
        self.cost += o.cost;
        self.purchases += o.purchases;
        self.sales += o.sales;
    }

    pub fn is_zero(&self) -> bool {
        *self == Measures::default()
    }
}

/// One placement hour of a day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    /// Index into [`PLACEMENTS`].
    pub placement: usize,
    pub hour: u32,
    pub m: Measures,
}

/// Splits a day's row into its placement hours (only those with something in them), adding up
/// to `day` exactly in every measure. `ran_out` is the hour the campaign's budget ran out that
/// day, if it did: no hour after it serves. Clicks and cost follow the traffic profile, with
/// impressions never fewer than clicks in an hour; purchases and sales follow traffic times
/// the hour's and placement's conversion.
pub fn split_day(
    p: &HourProfile,
    date: NaiveDate,
    day: Measures,
    ran_out: Option<u32>,
) -> Vec<Cell> {
    let dow = date.weekday().num_days_from_monday() as usize;
    let mut traffic = Vec::with_capacity(72);
    let mut converting = Vec::with_capacity(72);
    for (pl, share) in p.placement_share.iter().enumerate() {
        for h in 0..24u32 {
            let served = ran_out.is_none_or(|last| h <= last);
            let w = if served {
                p.traffic[dow * 24 + h as usize] * share
            } else {
                0.0
            };
            traffic.push(w);
            converting.push(w * p.conversion[h as usize] * p.placement_conversion[pl]);
        }
    }
    let u = |salt: u64| offset(p.campaign_id, date, &day, salt);
    let clicks = dithered(day.clicks, &traffic, u(1));
    let cost = largest_remainder(day.cost, &by_counts_or(&clicks, &traffic));
    let unclicked = dithered(day.impressions - day.clicks, &traffic, u(2));
    let purchases = dithered(day.purchases, &converting, u(3));
    let sales = largest_remainder(day.sales, &by_counts_or(&purchases, &converting));
    (0..traffic.len())
        .map(|i| Cell {
            placement: i / 24,
            hour: (i % 24) as u32,
            m: Measures {
                impressions: clicks[i] + unclicked[i],
                clicks: clicks[i],
                cost: cost[i],
                purchases: purchases[i],
                sales: sales[i],
            },
        })
        .filter(|c| !c.m.is_zero())
        .collect()
}

/// The dither offset of one measure's split of a day (in [0, 1)), drawn from the campaign, the
/// day, the row's impressions and clicks (which no restatement changes, so a restated day's
/// conversions are split with the offset its first split had) and the measure.
fn offset(campaign_id: i64, date: NaiveDate, day: &Measures, salt: u64) -> f64 {
    let mut x = (campaign_id as u64)
        ^ (i64::from(date.num_days_from_ce()) as u64).rotate_left(20)
        ^ (day.impressions as u64).rotate_left(40)
        ^ (day.clicks as u64).wrapping_mul(0x9E37_79B9)
        ^ salt.wrapping_mul(0xD1B5_4A32_D192_ED03);
    // splitmix64's finalizer
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^= x >> 31;
    (x >> 11) as f64 / (1u64 << 53) as f64
}

/// Splits `total` by `weights` into integers adding up to it, each the floor or the ceiling
/// of its exact share, by systematic sampling at offset `u` (in [0, 1)): the cumulative
/// shares rounded at `u`. Unlike the largest remainders, a small total does not always land
/// on the heaviest parts: over many offsets each part gets its exact share on average (a few
/// conversions a day spread over the hours as the hours' rates say, not all on the busiest).
pub fn dithered(total: i64, weights: &[f64], u: f64) -> Vec<i64> {
    let sum: f64 = weights.iter().sum();
    let mut out = vec![0; weights.len()];
    if weights.is_empty() {
        return out;
    }
    if sum <= 0.0 {
        out[0] = total;
        return out;
    }
    if total < 0 {
        return dithered(-total, weights, u).iter().map(|p| -p).collect();
    }
    let (mut cumulative, mut before) = (0.0, 0);
    let last = weights.len() - 1;
    for (i, w) in weights.iter().enumerate() {
        cumulative += w;
        let through = if i == last {
            total
        } else {
            (total as f64 * cumulative / sum + u).floor() as i64
        };
        out[i] = through - before;
        before = through;
    }
    out
}

/// Weights proportional to `counts`, or `fallback` where the counts are all zero.
fn by_counts_or(counts: &[i64], fallback: &[f64]) -> Vec<f64> {
    if counts.iter().any(|&c| c > 0) {
        counts.iter().map(|&c| c as f64).collect()
    } else {
        fallback.to_vec()
    }
}

/// Splits `total` by `weights` into integers adding up to it: each part rounded down, the rest
/// given one by one to the largest remainders (the earlier on a tie). A total with no weight
/// to go by (all zero) goes to the first part, so nothing is ever lost.
pub fn largest_remainder(total: i64, weights: &[f64]) -> Vec<i64> {
    let sum: f64 = weights.iter().sum();
    let mut out = vec![0; weights.len()];
    if weights.is_empty() {
        return out;
    }
    if sum <= 0.0 {
        out[0] = total;
        return out;
    }
    let mut rest = total;
    let mut remainders = Vec::with_capacity(weights.len());
    for (i, w) in weights.iter().enumerate() {
        let exact = total as f64 * w / sum;
        let part = exact.floor() as i64;
        out[i] = part;
        rest -= part;
        remainders.push((exact - part as f64, i));
    }
    remainders.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    for (_, i) in remainders.iter().cycle().take(rest.max(0) as usize) {
        out[*i] += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> Measures {
        Measures {
            impressions: 4_321,
            clicks: 57,
            cost: 6_789,
            purchases: 6,
            sales: 17_994,
        }
    }

    #[test]
    fn a_days_hours_add_up_to_the_day_in_every_measure() {
        let date = NaiveDate::from_ymd_opt(2026, 11, 14).unwrap();
        for campaign in 1..40 {
            let p = profile(7, campaign);
            for ran_out in [None, Some(16)] {
                let cells = split_day(&p, date, day(), ran_out);
                let mut sum = Measures::default();
                for c in &cells {
                    sum.add(&c.m);
                    assert!(c.m.clicks <= c.m.impressions, "{c:?}");
                    if let Some(last) = ran_out {
                        assert!(c.hour <= last, "served after its budget ran out: {c:?}");
                    }
                }
                assert_eq!(sum, day());
            }
        }
    }

    #[test]
    fn the_best_hours_convert_better_than_the_rest_of_the_day() {
        let p = profile(11, 5);
        let date = NaiveDate::from_ymd_opt(2026, 11, 11).unwrap();
        let big = Measures {
            impressions: 10_000_000,
            clicks: 1_000_000,
            cost: 90_000_000,
            purchases: 100_000,
            sales: 250_000_000,
        };
        let cells = split_day(&p, date, big, None);
        let rate = |best: bool| {
            let (mut clicks, mut purchases) = (0, 0);
            for c in cells.iter().filter(|c| {
                (c.hour >= p.best_hour && c.hour < p.best_hour + 4) == best && c.hour >= 6
            }) {
                clicks += c.m.clicks;
                purchases += c.m.purchases;
            }
            purchases as f64 / clicks as f64
        };
        assert!(
            rate(true) > 1.5 * rate(false),
            "{} vs {}",
            rate(true),
            rate(false)
        );
    }

    #[test]
    fn dithering_keeps_the_total_and_gives_each_part_its_share_on_average() {
        let weights = [5.0, 1.0, 0.0, 3.0, 1.0];
        let mut sums = [0_i64; 5];
        for k in 0..1000 {
            let parts = dithered(3, &weights, k as f64 / 1000.0);
            assert_eq!(parts.iter().sum::<i64>(), 3);
            assert!(parts.iter().all(|&p| p >= 0), "{parts:?}");
            for (s, p) in sums.iter_mut().zip(parts) {
                *s += p;
            }
        }
        // each part's exact share of 3 × 1000: 1500, 300, 0, 900, 300
        assert_eq!(sums, [1500, 300, 0, 900, 300]);
        assert_eq!(dithered(-4, &[1.0, 1.0], 0.5).iter().sum::<i64>(), -4);
        assert_eq!(dithered(5, &[0.0, 0.0], 0.3), vec![5, 0]);
    }

    #[test]
    fn largest_remainder_keeps_the_total() {
        assert_eq!(largest_remainder(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
        assert_eq!(largest_remainder(5, &[0.0, 0.0]), vec![5, 0]);
        assert_eq!(largest_remainder(-7, &[1.0, 3.0]).iter().sum::<i64>(), -7);
    }
}
