//! 95% ranges calibrated by the backtest: the errors the chosen forecast made at every cut
//! and step are put on one scale (relative to the forecast for a positive series, otherwise
//! over the series' naive error) and divided by the way they grow with the step (`step^p`,
//! `p` read from the errors, or 0.5 — a random walk — when there are too few). The range is
//! their mean ± Student's t times their spread, with the cuts' degrees of freedom (the
//! errors of one cut move together). The spread is read robustly (the median absolute
//! deviation), so one freak month in the backtest does not widen every range, and is never
//! narrower than the fit's one-step error over the forecast's average level across a season:
//! a short history with one cut or none gets a wide range, not a narrow one.

use crate::backtest::Origin;

/// A range's two sides, step by step.
#[derive(Debug, Clone)]
pub struct Ranges {
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    /// The backtest cuts and errors they were read from.
    pub cuts: usize,
    pub errors: usize,
}

/// What calibration needs about the series.
pub struct Calibration<'a> {
    pub origins: &'a [Origin],
    /// The chosen forecast at each cut.
    pub backtest: &'a [Vec<f64>],
    /// Errors are relative to the forecast (the series and its forecasts are positive).
    pub relative: bool,
    /// Absolute errors are divided by this.
    pub scale: f64,
    /// The one-step spread of the fit, in the series' units.
    pub sigma: f64,
    pub level: f64,
    /// The season's length (the floor is read against the forecast's average over it).
    pub period: usize,
}

fn t_quantile(df: usize, p: f64) -> f64 {
    // Cornish-Fisher expansion of Student's t around the normal quantile (good to 1e-3 for df ≥ 3)
    let z = normal_quantile(p);
    let d = df.max(1) as f64;
    let z3 = z.powi(3);
    let z5 = z.powi(5);
    z + (z3 + z) / (4.0 * d) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * d * d)
}

fn normal_quantile(p: f64) -> f64 {
    // Acklam's rational approximation
    let a = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.38357751867269e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    let b = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    let c = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    let d = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let q = p.min(1.0 - p);
    let x = if q < 0.02425 {
        let r = (-2.0 * q.ln()).sqrt();
        (((((c[0] * r + c[1]) * r + c[2]) * r + c[3]) * r + c[4]) * r + c[5])
            / ((((d[0] * r + d[1]) * r + d[2]) * r + d[3]) * r + 1.0)
    } else {
        let r = q - 0.5;
        let s = r * r;
        (((((a[0] * s + a[1]) * s + a[2]) * s + a[3]) * s + a[4]) * s + a[5]) * r
            / (((((b[0] * s + b[1]) * s + b[2]) * s + b[3]) * s + b[4]) * s + 1.0)
    };
    if p < 0.5 { -x.abs() } else { x.abs() }
}

/// How errors grow with the step: `p` in `|e_k| ∝ k^p`, read by least squares on the mean
/// absolute error at each step, kept within [0, 1].
fn growth(errors: &[(usize, f64)]) -> f64 {
    let steps = errors.iter().map(|(k, _)| *k).max().unwrap_or(0);
    let pts: Vec<(f64, f64)> = (1..=steps)
        .filter_map(|k| {
            let at: Vec<f64> = errors
                .iter()
                .filter(|(s, _)| *s == k)
                .map(|(_, e)| e.abs())
                .collect();
            let m = at.iter().sum::<f64>() / at.len().max(1) as f64;
            (m > 0.0).then(|| ((k as f64).ln(), m.ln()))
        })
        .collect();
    if pts.len() < 3 {
        return 0.5;
    }
    let (mx, my) = (
        pts.iter().map(|p| p.0).sum::<f64>() / pts.len() as f64,
        pts.iter().map(|p| p.1).sum::<f64>() / pts.len() as f64,
    );
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (sxy / sxx).clamp(0.0, 1.0)
}

/// The standard deviation of `u` around `mean` as read from the median absolute deviation
/// (× 1.4826, its ratio for normal errors); 0 with fewer than two errors.
fn robust_spread(u: &[f64], mean: f64) -> f64 {
    if u.len() < 2 {
        return 0.0;
    }
    let mut d: Vec<f64> = u.iter().map(|v| (v - mean).abs()).collect();
    d.sort_by(f64::total_cmp);
    let mid = d.len() / 2;
    let median = if d.len().is_multiple_of(2) {
        (d[mid - 1] + d[mid]) / 2.0
    } else {
        d[mid]
    };
    1.4826 * median
}

/// The ranges around `point` (the forecast of the steps after the series).
pub fn ranges(point: &[f64], c: &Calibration) -> Ranges {
    let mut errors: Vec<(usize, f64)> = Vec::new();
    for (o, f) in c.origins.iter().zip(c.backtest) {
        for (k, (a, p)) in o.actual.iter().zip(f).enumerate() {
            let e = if c.relative {
                (a - p) / p
            } else {
                (a - p) / c.scale
            };
            errors.push((k + 1, e));
        }
    }
    let alpha = 1.0 - c.level;
    let p = if errors.len() >= 20 {
        growth(&errors)
    } else {
        0.5
    };
    let u: Vec<f64> = errors
        .iter()
        .map(|(k, e)| e / (*k as f64).powf(p))
        .collect();
    let n = u.len();
    // the one-step spread of the fit, on the errors' scale: no range is narrower. A relative
    // floor is read against the forecast's average over a season, not its first month (a
    // low month would widen every month's range, a high one narrow it)
    let floor = if c.relative {
        let k = point.len().clamp(1, c.period.max(1));
        let level = point.iter().take(k).map(|v| v.abs()).sum::<f64>() / k as f64;
        c.sigma / level.max(1e-9)
    } else {
        c.sigma / c.scale
    };
    let mean = if n > 0 {
        u.iter().sum::<f64>() / n as f64
    } else {
        0.0
    };
    let sd = robust_spread(&u, mean).max(floor);
    // the errors of one cut move together: the degrees of freedom are the cuts', not the
    // errors' (and 2 with no backtest at all)
    let t = t_quantile(c.origins.len() + 1, 1.0 - alpha / 2.0);
    let (lo, hi) = (mean - t * sd, mean + t * sd);
    let (mut lower, mut upper) = (
        Vec::with_capacity(point.len()),
        Vec::with_capacity(point.len()),
    );
    for (k, f) in point.iter().enumerate() {
        let g = ((k + 1) as f64).powf(p);
        if c.relative {
            lower.push(f * (1.0 + lo * g));
            upper.push(f * (1.0 + hi * g));
        } else {
            lower.push(f + lo * g * c.scale);
            upper.push(f + hi * g * c.scale);
        }
    }
    Ranges {
        lower,
        upper,
        cuts: c.origins.len(),
        errors: n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_of_the_normal_and_t() {
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-5);
        assert!((normal_quantile(0.025) + 1.959964).abs() < 1e-5);
        assert!((t_quantile(10, 0.975) - 2.228).abs() < 0.01);
    }

    #[test]
    fn no_backtest_widens_with_the_step() {
        let point = vec![100.0; 6];
        let r = ranges(
            &point,
            &Calibration {
                origins: &[],
                backtest: &[],
                relative: true,
                scale: 10.0,
                sigma: 10.0,
                level: 0.95,
                period: 12,
            },
        );
        assert_eq!((r.cuts, r.errors), (0, 0));
        let widths: Vec<f64> = r.upper.iter().zip(&r.lower).map(|(u, l)| u - l).collect();
        assert!(widths.windows(2).all(|w| w[1] > w[0]), "{widths:?}");
        assert!(
            r.lower[0] < 80.0 && r.upper[0] > 120.0,
            "{:?}",
            (r.lower[0], r.upper[0])
        );
    }

    #[test]
    fn the_floor_does_not_depend_on_the_month_a_forecast_starts_in() {
        let season = |start: usize| -> Vec<f64> {
            (0..12)
                .map(|k| {
                    if (start + k).is_multiple_of(12) {
                        50.0
                    } else {
                        100.0
                    }
                })
                .collect()
        };
        let relative_width = |point: &[f64]| {
            let r = ranges(
                point,
                &Calibration {
                    origins: &[],
                    backtest: &[],
                    relative: true,
                    scale: 10.0,
                    sigma: 5.0,
                    level: 0.95,
                    period: 12,
                },
            );
            (r.upper[0] - r.lower[0]) / point[0]
        };
        // starting in the low month must not widen every month's range
        let (low, high) = (relative_width(&season(0)), relative_width(&season(1)));
        assert!((low - high).abs() < 1e-9, "{low} vs {high}");
    }
}
