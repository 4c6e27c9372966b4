//! The Theta method (Assimakopoulos and Nikolopoulos 2000, in the form of Hyndman and Billah
//! 2003: simple smoothing with a drift of half the series' linear slope) and its optimised
//! variant (Fiorucci et al. 2016: the weight of the theta line fitted with the smoothing).

use crate::optimize::{nelder_mead, squash, unsquash};
use crate::smoothing::{self, Trend};

/// The least-squares line through `x` against `t = 0, 1, …`: intercept and slope.
pub fn line(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mt = (n - 1.0) / 2.0;
    let my = x.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (t, y) in x.iter().enumerate() {
        sxy += (t as f64 - mt) * (y - my);
        sxx += (t as f64 - mt).powi(2);
    }
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - b * mt, b)
}

/// The standard Theta forecast of the next `h` values, and its one-step error spread.
pub fn standard(x: &[f64], h: usize) -> (Vec<f64>, f64) {
    let ses = smoothing::fit(x, Trend::None);
    let (_, b) = line(x);
    let a = ses.alpha;
    let n = x.len() as i32;
    let tail = (1.0 / a) - (1.0 - a).powi(n) / a;
    let f = (1..=h)
        .map(|k| ses.level + b / 2.0 * ((k as f64 - 1.0) + tail))
        .collect();
    (f, ses.sigma)
}

/// Runs smoothing on the theta line `θx + (1−θ)(A + Bt)` and mixes its one-step forecasts
/// with the line: the squared one-step errors against `x`, and the final level.
fn theta_filter(x: &[f64], ab: (f64, f64), alpha: f64, theta: f64, l0: f64) -> (f64, f64) {
    let (a, b) = ab;
    let (mut l, mut sse) = (l0, 0.0);
    for (t, &y) in x.iter().enumerate() {
        let trend = a + b * t as f64;
        let fit = (1.0 - 1.0 / theta) * trend + l / theta;
        sse += (y - fit).powi(2);
        let z = theta * y + (1.0 - theta) * trend;
        l += alpha * (z - l);
    }
    (sse, l)
}

/// The optimised Theta forecast (θ in [1, 5] fitted with the smoothing weight and the
/// initial level), and its one-step error spread.
pub fn optimised(x: &[f64], h: usize) -> (Vec<f64>, f64) {
    let ab = line(x);
    let decode = |p: &[f64]| (squash(p[0], 1e-3, 0.999), squash(p[1], 1.0, 5.0), p[2]);
    let start = [unsquash(0.3, 1e-3, 0.999), unsquash(2.0, 1.0, 5.0), x[0]];
    let best = nelder_mead(
        |p| {
            let (al, th, l0) = decode(p);
            theta_filter(x, ab, al, th, l0).0
        },
        &start,
        0.5,
        450,
    );
    let (alpha, theta, l0) = decode(&best);
    let (sse, level) = theta_filter(x, ab, alpha, theta, l0);
    let n = x.len() as f64;
    let f = (1..=h)
        .map(|k| (1.0 - 1.0 / theta) * (ab.0 + ab.1 * (n - 1.0 + k as f64)) + level / theta)
        .collect();
    (f, (sse / (n - 3.0).max(1.0)).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theta_follows_a_trend_at_half_its_slope_and_more() {
        let x: Vec<f64> = (0..40).map(|t| 10.0 + 0.5 * t as f64).collect();
        let (f, _) = standard(&x, 2);
        assert!(f[1] > f[0] && f[0] > 29.0, "{f:?}");
        let (g, _) = optimised(&x, 2);
        assert!((g[0] - 30.0).abs() < 0.5, "{g:?}");
    }
}
