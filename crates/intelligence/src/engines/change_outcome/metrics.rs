//! Each metric of a section (an entity or the account) over the two windows: its values, its
//! change, the direction in which it is better, and its verdict. Advertising sections read
//! spend, clicks, CPC, sales, ACOS, units (purchases) and conversion (purchases per click);
//! retail sections sales, units, sessions, conversion (units per session) and price.

use chrono::NaiveDate;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Number;

use super::stats::{Judged, Short, judge, judgement, short_of};
use crate::daily::Daily;
use crate::data::{AdsFacts, ItemFacts};
use crate::engines::{money, num, pct, per, unit_money};
use crate::params::Period;

/// Clicks each window needs before spend, clicks, CPC and conversion are judged.
pub const MIN_CLICKS: i64 = 30;
/// Orders (attributed purchases, or units) each window needs before sales, ACOS, units and
/// price are judged.
pub const MIN_ORDERS: i64 = 10;
/// Sessions each window needs before traffic and conversion are judged.
pub const MIN_SESSIONS: i64 = 100;

/// One metric's move.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OutcomeMetric")]
pub struct Metric {
    pub metric: &'static str,
    /// Money in the currency's major unit, a count, or a ratio; null when a window has
    /// nothing to divide by.
    pub before: Option<Number>,
    pub after: Option<Number>,
    pub change: Option<Number>,
    pub change_pct: Option<f64>,
    /// The direction in which it is better (`up`, `down`), or null when neither is.
    pub better: Option<&'static str>,
    #[serde(flatten)]
    pub judged: Judged,
    /// `better` or `worse` for a metric that has a better direction and moved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<&'static str>,
}

/// How a value is written.
#[derive(Clone, Copy)]
enum Shape {
    /// Cents, as money.
    Cents,
    Count,
    /// Cents per unit, as money to the cent.
    CentsPer,
    /// A ratio, to four decimals.
    Ratio,
}

fn show(shape: Shape, v: Option<f64>) -> Option<Number> {
    match (shape, v?) {
        (Shape::Cents, c) => Number::from_f64(money(c.round() as i64)),
        (Shape::Count, n) => Some(Number::from(n.round() as i64)),
        (Shape::CentsPer, c) => unit_money(Some(c)).and_then(Number::from_f64),
        (Shape::Ratio, r) => num((r * 10_000.0).round() / 10_000.0).and_then(Number::from_f64),
    }
}

/// A section's days over a window, every day present (days without rows are zero), and how
/// many days had rows.
pub fn fill<F: Clone + Default>(rows: &Daily<F>, p: Period) -> (Vec<F>, i64) {
    let mut out = Vec::with_capacity(p.days() as usize);
    let mut had = 0;
    let mut d: NaiveDate = p.start;
    while d <= p.end {
        match rows.iter().find(|(x, _)| *x == d) {
            Some((_, f)) => {
                had += 1;
                out.push(f.clone());
            }
            None => out.push(F::default()),
        }
        d += chrono::Duration::days(1);
    }
    (out, had)
}

/// One window's days and what they sum to.
pub struct Window<F> {
    pub days: Vec<F>,
    pub sum: F,
    pub had: i64,
}

/// A minimum: what is counted, how it is counted from a window's sums, and the floor.
type Need<F> = (&'static str, fn(&F) -> i64, i64);

struct Def<F: 'static> {
    name: &'static str,
    better_up: Option<bool>,
    shape: Shape,
    /// The numerator, and the denominator of a rate (a total has none).
    num: fn(&F) -> i64,
    den: Option<fn(&F) -> i64>,
    /// What must be counted, by the window's sums.
    needs: &'static [Need<F>],
}

fn metric<F: 'static>(d: &Def<F>, b: &Window<F>, a: &Window<F>) -> Metric {
    let mut mins: Vec<Short> = vec![Short {
        what: "days with data",
        before: b.had,
        after: a.had,
        floor: super::stats::MIN_DAYS as i64,
    }];
    mins.extend(d.needs.iter().map(|(what, count, floor)| Short {
        what,
        before: count(&b.sum),
        after: count(&a.sum),
        floor: *floor,
    }));
    let short = short_of(&mins);
    let (nb, na) = ((d.num)(&b.sum), (d.num)(&a.sum));
    let (before, after, judged) = match d.den {
        None => {
            let daily: Vec<f64> = b.days.iter().map(|f| (d.num)(f) as f64).collect();
            let (mb, ma) = (
                nb as f64 / b.days.len().max(1) as f64,
                na as f64 / a.days.len().max(1) as f64,
            );
            let j = judge(mb, ma, &daily, a.days.len(), short);
            (Some(nb as f64), Some(na as f64), j)
        }
        Some(den) => {
            let rb = per(nb, den(&b.sum));
            let ra = per(na, den(&a.sum));
            let daily: Vec<f64> = b
                .days
                .iter()
                .filter_map(|f| per((d.num)(f), den(f)))
                .collect();
            let n_after = a.days.iter().filter(|f| den(f) != 0).count();
            let j = match (rb, ra) {
                (Some(x), Some(y)) => judge(x, y, &daily, n_after, short),
                _ => judge(
                    0.0,
                    0.0,
                    &[],
                    0,
                    short.or(Some("a window has nothing to divide by".into())),
                ),
            };
            (rb, ra, j)
        }
    };
    let change = match (before, after) {
        (Some(x), Some(y)) => show(d.shape, Some(y - x)),
        _ => None,
    };
    let change_pct = match (d.den, before, after) {
        (None, _, _) => pct(nb, na),
        (Some(_), Some(x), Some(y)) if x != 0.0 => num(((y - x) / x.abs() * 1000.0).round() / 10.0),
        _ => None,
    };
    Metric {
        metric: d.name,
        before: show(d.shape, before),
        after: show(d.shape, after),
        change,
        change_pct,
        better: d.better_up.map(|up| if up { "up" } else { "down" }),
        judgement: judgement(judged.verdict, d.better_up),
        judged,
    }
}

const CLICKS: Need<AdsFacts> = ("clicks", |f| f.clicks, MIN_CLICKS);
const PURCHASES: Need<AdsFacts> = ("attributed purchases", |f| f.purchases, MIN_ORDERS);
const UNITS: Need<ItemFacts> = ("units", |f| f.units, MIN_ORDERS);
const SESSIONS: Need<ItemFacts> = ("sessions", |f| f.traffic, MIN_SESSIONS);

/// An advertising section's metrics.
pub fn ads(b: &Window<AdsFacts>, a: &Window<AdsFacts>) -> Vec<Metric> {
    let defs: [Def<AdsFacts>; 7] = [
        Def {
            name: "spend",
            better_up: None,
            shape: Shape::Cents,
            num: |f| f.spend,
            den: None,
            needs: &[CLICKS],
        },
        Def {
            name: "clicks",
            better_up: None,
            shape: Shape::Count,
            num: |f| f.clicks,
            den: None,
            needs: &[CLICKS],
        },
        Def {
            name: "cpc",
            better_up: Some(false),
            shape: Shape::CentsPer,
            num: |f| f.spend,
            den: Some(|f| f.clicks),
            needs: &[CLICKS],
        },
        Def {
            name: "sales",
            better_up: Some(true),
            shape: Shape::Cents,
            num: |f| f.sales,
            den: None,
            needs: &[PURCHASES],
        },
        Def {
            name: "acos",
            better_up: Some(false),
            shape: Shape::Ratio,
            num: |f| f.spend,
            den: Some(|f| f.sales),
            needs: &[PURCHASES],
        },
        Def {
            name: "units",
            better_up: None,
            shape: Shape::Count,
            num: |f| f.purchases,
            den: None,
            needs: &[PURCHASES],
        },
        Def {
            name: "conversion",
            better_up: Some(true),
            shape: Shape::Ratio,
            num: |f| f.purchases,
            den: Some(|f| f.clicks),
            needs: &[CLICKS, PURCHASES],
        },
    ];
    defs.iter().map(|d| metric(d, b, a)).collect()
}

/// A retail section's metrics.
pub fn retail(b: &Window<ItemFacts>, a: &Window<ItemFacts>) -> Vec<Metric> {
    let defs: [Def<ItemFacts>; 5] = [
        Def {
            name: "sales",
            better_up: Some(true),
            shape: Shape::Cents,
            num: |f| f.sales,
            den: None,
            needs: &[UNITS],
        },
        Def {
            name: "units",
            better_up: None,
            shape: Shape::Count,
            num: |f| f.units,
            den: None,
            needs: &[UNITS],
        },
        Def {
            name: "sessions",
            better_up: None,
            shape: Shape::Count,
            num: |f| f.traffic,
            den: None,
            needs: &[SESSIONS],
        },
        Def {
            name: "conversion",
            better_up: Some(true),
            shape: Shape::Ratio,
            num: |f| f.units,
            den: Some(|f| f.traffic),
            needs: &[SESSIONS, UNITS],
        },
        Def {
            name: "price",
            better_up: None,
            shape: Shape::CentsPer,
            num: |f| f.sales,
            den: Some(|f| f.units),
            needs: &[UNITS],
        },
    ];
    defs.iter().map(|d| metric(d, b, a)).collect()
}
