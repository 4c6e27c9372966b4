//! Exponential smoothing with additive errors on a (seasonally adjusted) series: simple
//! (level only), Holt's linear trend and the damped trend. Smoothing weights, damping and the
//! initial states are fitted by least squares on one-step errors.

use crate::optimize::{nelder_mead, squash, unsquash};

/// Which trend the model carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trend {
    None,
    Linear,
    Damped,
}

/// A fitted model: its parameters and final states.
#[derive(Debug, Clone)]
pub struct Fitted {
    pub alpha: f64,
    pub beta: f64,
    pub phi: f64,
    pub level: f64,
    pub slope: f64,
    /// The standard deviation of the one-step in-sample errors.
    pub sigma: f64,
    /// The one-step in-sample forecasts.
    pub fitted: Vec<f64>,
}

impl Fitted {
    /// The next `h` values.
    pub fn forecast(&self, h: usize) -> Vec<f64> {
        let mut out = Vec::with_capacity(h);
        let mut damp = 0.0;
        let mut p = 1.0;
        for _ in 0..h {
            p *= self.phi;
            damp += p;
            out.push(self.level + damp * self.slope);
        }
        out
    }
}

struct Params {
    alpha: f64,
    beta: f64,
    phi: f64,
    l0: f64,
    b0: f64,
}

fn decode(trend: Trend, p: &[f64]) -> Params {
    let alpha = squash(p[0], 1e-4, 0.9999);
    match trend {
        Trend::None => Params {
            alpha,
            beta: 0.0,
            phi: 0.0,
            l0: p[1],
            b0: 0.0,
        },
        Trend::Linear => Params {
            alpha,
            beta: alpha * squash(p[1], 1e-4, 0.9999),
            phi: 1.0,
            l0: p[2],
            b0: p[3],
        },
        Trend::Damped => Params {
            alpha,
            beta: alpha * squash(p[1], 1e-4, 0.9999),
            phi: squash(p[4], 0.8, 0.98),
            l0: p[2],
            b0: p[3],
        },
    }
}

/// Runs the recursions: the sum of squared one-step errors and the final level and slope.
fn filter(x: &[f64], q: &Params, mut fitted: Option<&mut Vec<f64>>) -> (f64, f64, f64) {
    let (mut l, mut b, mut sse) = (q.l0, q.b0, 0.0);
    for &y in x {
        let fit = l + q.phi * b;
        if let Some(f) = fitted.as_deref_mut() {
            f.push(fit);
        }
        let e = y - fit;
        sse += e * e;
        l = fit + q.alpha * e;
        b = q.phi * b + q.beta * e;
    }
    (sse, l, b)
}

/// The least-squares slope of `x` over its first `k` points.
fn initial_slope(x: &[f64], k: usize) -> f64 {
    let k = k.min(x.len());
    if k < 2 {
        return 0.0;
    }
    let mt = (k as f64 - 1.0) / 2.0;
    let my = x[..k].iter().sum::<f64>() / k as f64;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (t, y) in x[..k].iter().enumerate() {
        sxy += (t as f64 - mt) * (y - my);
        sxx += (t as f64 - mt).powi(2);
    }
    sxy / sxx
}

/// Fits the model to `x` (scaled to about 1, at least 3 points).
pub fn fit(x: &[f64], trend: Trend) -> Fitted {
    let b0 = initial_slope(x, 12);
    let l0 = x[0] - b0;
    let a = unsquash(0.3, 1e-4, 0.9999);
    let start: Vec<f64> = match trend {
        Trend::None => vec![a, x[0]],
        Trend::Linear => vec![a, unsquash(0.1, 1e-4, 0.9999), l0, b0],
        Trend::Damped => vec![
            a,
            unsquash(0.1, 1e-4, 0.9999),
            l0,
            b0,
            unsquash(0.95, 0.8, 0.98),
        ],
    };
    let best = nelder_mead(
        |p| filter(x, &decode(trend, p), None).0,
        &start,
        0.5,
        150 * start.len(),
    );
    let q = decode(trend, &best);
    let mut fitted = Vec::with_capacity(x.len());
    let (sse, level, slope) = filter(x, &q, Some(&mut fitted));
    let dof = (x.len() as f64 - start.len() as f64).max(1.0);
    Fitted {
        alpha: q.alpha,
        beta: q.beta,
        phi: q.phi,
        level,
        slope,
        sigma: (sse / dof).sqrt(),
        fitted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_straight_line_is_continued_by_holt() {
        let x: Vec<f64> = (0..30).map(|t| 1.0 + 0.05 * t as f64).collect();
        let f = fit(&x, Trend::Linear).forecast(3);
        for (h, v) in f.iter().enumerate() {
            let want = 1.0 + 0.05 * (30 + h) as f64;
            assert!((v - want).abs() < 0.01, "{h}: {v} vs {want}");
        }
    }

    #[test]
    fn simple_smoothing_is_flat() {
        let x: Vec<f64> = (0..24)
            .map(|t| 1.0 + 0.1 * ((t % 2) as f64 - 0.5))
            .collect();
        let f = fit(&x, Trend::None).forecast(4);
        assert!(f.windows(2).all(|w| (w[0] - w[1]).abs() < 1e-12));
        assert!((f[0] - 1.0).abs() < 0.1);
    }
}
