//! Whether a metric moved, judged against the entity's own day-to-day variation before the
//! change (not a fixed band): the difference of the two windows' values over the standard
//! error the before window's daily spread gives it, with minimum samples below which nothing
//! is judged. And a price change's elasticity of conversion, with its range from the same
//! daily spread.

use serde::Serialize;

/// `|t|` at or above which a move is `up` or `down` (about one chance in 80 of calling a move
/// in a quiet week under normal noise).
pub const T_MOVED: f64 = 2.5;
/// Days each window must hold rows on.
pub const MIN_DAYS: usize = 7;
/// The normal quantile of an elasticity's 95% range.
const Z95: f64 = 1.96;

/// How a metric moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "OutcomeVerdict")]
pub enum Verdict {
    Up,
    Down,
    Inconclusive,
}

impl Verdict {
    /// As the result spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Up => "up",
            Verdict::Down => "down",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// A verdict with what it stands on.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OutcomeJudged")]
pub struct Judged {
    pub verdict: Verdict,
    /// The difference over its standard error (absent when not judged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// Why the verdict is `inconclusive`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Judged {
    fn inconclusive(reason: String, t: Option<f64>) -> Self {
        Self {
            verdict: Verdict::Inconclusive,
            t,
            reason: Some(reason),
        }
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// The sample standard deviation (0 for fewer than two values).
pub fn spread(x: &[f64]) -> f64 {
    if x.len() < 2 {
        return 0.0;
    }
    let m = mean(x);
    (x.iter().map(|v| (v - m).powi(2)).sum::<f64>() / (x.len() - 1) as f64).sqrt()
}

/// A minimum a window falls short of: what is counted, the count, the floor.
pub struct Short {
    pub what: &'static str,
    pub before: i64,
    pub after: i64,
    pub floor: i64,
}

/// The first minimum either window falls short of, as a reason.
pub fn short_of(mins: &[Short]) -> Option<String> {
    mins.iter()
        .find(|m| m.before < m.floor || m.after < m.floor)
        .map(|m| {
            format!(
                "too few {} to judge: {} before and {} after the change; each window needs {}",
                m.what, m.before, m.after, m.floor
            )
        })
}

/// Judges a move from `before` to `after` (the windows' values), whose daily values in the
/// before window are `daily_before` and of which the after window has `n_after` days.
pub fn judge(
    before: f64,
    after: f64,
    daily_before: &[f64],
    n_after: usize,
    short: Option<String>,
) -> Judged {
    if let Some(why) = short {
        return Judged::inconclusive(why, None);
    }
    if daily_before.len() < MIN_DAYS || n_after < MIN_DAYS {
        return Judged::inconclusive(
            format!(
                "too few days to judge: {} before and {n_after} after the change; each window needs {MIN_DAYS}",
                daily_before.len()
            ),
            None,
        );
    }
    let diff = after - before;
    let se = spread(daily_before) * (1.0 / daily_before.len() as f64 + 1.0 / n_after as f64).sqrt();
    if se == 0.0 {
        return if diff == 0.0 {
            Judged::inconclusive("it did not move".into(), None)
        } else {
            Judged {
                verdict: if diff > 0.0 {
                    Verdict::Up
                } else {
                    Verdict::Down
                },
                t: None,
                reason: None,
            }
        };
    }
    let t = (diff / se * 100.0).round() / 100.0;
    if t.abs() < T_MOVED {
        return Judged::inconclusive(
            format!(
                "the move is within its day-to-day variation before the change (|t| = {:.2}, under {T_MOVED})",
                t.abs()
            ),
            Some(t),
        );
    }
    Judged {
        verdict: if t > 0.0 { Verdict::Up } else { Verdict::Down },
        t: Some(t),
        reason: None,
    }
}

/// Whether a judged move was `better` or `worse` for a metric whose better direction is
/// `better_up` (none when the metric has no better direction or did not move).
pub fn judgement(v: Verdict, better_up: Option<bool>) -> Option<&'static str> {
    let up = match v {
        Verdict::Up => true,
        Verdict::Down => false,
        Verdict::Inconclusive => return None,
    };
    better_up.map(|b| if b == up { "better" } else { "worse" })
}

/// A measured elasticity of conversion to price, with its 95% range.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Elasticity {
    pub value: f64,
    pub low: f64,
    pub high: f64,
}

/// Conversion's elasticity to price between two windows: the log change of conversion over
/// the log change of price, each window's conversion the ratio of its sums; the range carries
/// the standard error of each window's log conversion, from its daily conversions' spread.
/// `None` when price barely moved (under 1%) or a window has no conversion.
pub fn elasticity(
    conversion: (f64, f64),
    price: (f64, f64),
    daily: (&[f64], &[f64]),
) -> Option<Elasticity> {
    let (c0, c1) = conversion;
    let (p0, p1) = price;
    if c0 <= 0.0 || c1 <= 0.0 || p0 <= 0.0 || p1 <= 0.0 {
        return None;
    }
    let dp = (p1 / p0).ln();
    if dp.abs() < 0.01 {
        return None;
    }
    let value = (c1 / c0).ln() / dp;
    let rel_se = |d: &[f64], c: f64| spread(d) / (c * (d.len().max(1) as f64).sqrt());
    let se = (rel_se(daily.0, c0).powi(2) + rel_se(daily.1, c1).powi(2)).sqrt() / dp.abs();
    let r = |x: f64| (x * 1000.0).round() / 1000.0;
    Some(Elasticity {
        value: r(value),
        low: r(value - Z95 * se),
        high: r(value + Z95 * se),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_inside_the_daily_spread_is_inconclusive() {
        let before = [100.0, 110.0, 90.0, 105.0, 95.0, 100.0, 100.0];
        let j = judge(100.0, 103.0, &before, 7, None);
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert!(j.reason.unwrap().contains("day-to-day"));
        let j = judge(100.0, 140.0, &before, 7, None);
        assert_eq!(j.verdict, Verdict::Up);
        assert_eq!(judgement(j.verdict, Some(false)), Some("worse"));
        let j = judge(100.0, 60.0, &before, 7, None);
        assert_eq!(j.verdict, Verdict::Down);
    }

    #[test]
    fn too_few_samples_say_why() {
        let mins = [Short {
            what: "clicks",
            before: 12,
            after: 40,
            floor: 30,
        }];
        let j = judge(1.0, 9.0, &[1.0; 7], 7, short_of(&mins));
        assert_eq!(j.verdict, Verdict::Inconclusive);
        assert!(j.reason.unwrap().contains("too few clicks"));
        let j = judge(1.0, 9.0, &[1.0; 5], 7, None);
        assert!(j.reason.unwrap().contains("too few days"));
    }

    #[test]
    fn elasticity_reads_back_the_curve_it_was_made_from() {
        // conversion = 0.1 × (price / 10)^-1.5, at 10 and at 11
        let c1 = 0.1 * 1.1_f64.powf(-1.5);
        let e = elasticity(
            (0.1, c1),
            (10.0, 11.0),
            (&[0.099, 0.101, 0.1], &[c1 * 0.99, c1 * 1.01, c1]),
        )
        .unwrap();
        assert!((e.value + 1.5).abs() < 1e-3);
        assert!(e.low < -1.5 && e.high > -1.5);
        assert!(elasticity((0.1, 0.1), (10.0, 10.01), (&[0.1], &[0.1])).is_none());
    }
}
