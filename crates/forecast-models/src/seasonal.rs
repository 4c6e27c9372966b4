//! Seasonality: the autocorrelation test at the seasonal lag (90%, as in the M4 benchmarks)
//! and classical decomposition (a centred moving average, then each calendar position's mean
//! ratio or difference to it). Multiplicative when the series is strictly positive.

/// Seasonal indices by position `t % period`.
#[derive(Debug, Clone)]
pub struct Indices {
    pub multiplicative: bool,
    pub values: Vec<f64>,
}

impl Indices {
    /// `x` with the season taken out; `start` is the position of `x[0]`.
    pub fn adjust(&self, x: &[f64], start: usize) -> Vec<f64> {
        let m = self.values.len();
        x.iter()
            .enumerate()
            .map(|(t, v)| {
                let s = self.values[(start + t) % m];
                if self.multiplicative { v / s } else { v - s }
            })
            .collect()
    }

    /// `f` (the values from position `start` on) with the season put back.
    pub fn restore(&self, f: &[f64], start: usize) -> Vec<f64> {
        let m = self.values.len();
        f.iter()
            .enumerate()
            .map(|(k, v)| {
                let s = self.values[(start + k) % m];
                if self.multiplicative { v * s } else { v + s }
            })
            .collect()
    }
}

fn acf(x: &[f64], lag: usize) -> f64 {
    let n = x.len();
    let mean = x.iter().sum::<f64>() / n as f64;
    let denom: f64 = x.iter().map(|v| (v - mean).powi(2)).sum();
    if denom == 0.0 || lag >= n {
        return 0.0;
    }
    let num: f64 = (lag..n).map(|t| (x[t] - mean) * (x[t - lag] - mean)).sum();
    num / denom
}

/// Whether `x` has a season of `period`: at least two full cycles and, once its straight-line
/// trend is taken out (a trend alone correlates every lag and hides a season), an
/// autocorrelation at the seasonal lag beyond the 90% bound.
pub fn is_seasonal(x: &[f64], period: usize) -> bool {
    let n = x.len();
    if period < 2 || n < 2 * period {
        return false;
    }
    let (a, b) = crate::theta::line(x);
    let x: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(t, v)| v - a - b * t as f64)
        .collect();
    let x = x.as_slice();
    let r: Vec<f64> = (1..=period).map(|k| acf(x, k)).collect();
    let spread: f64 = 1.0 + 2.0 * r[..period - 1].iter().map(|v| v * v).sum::<f64>();
    r[period - 1].abs() > 1.645 * (spread / n as f64).sqrt()
}

/// Classical decomposition's seasonal indices of `x` (`x[0]` at position 0; two full cycles
/// at least).
pub fn indices(x: &[f64], period: usize) -> Indices {
    let m = period;
    let n = x.len();
    let multiplicative = x.iter().all(|v| *v > 0.0);
    let half = m / 2;
    let mut sums = vec![0.0; m];
    let mut counts = vec![0usize; m];
    for t in half..n.saturating_sub(half) {
        // the centred 2×m moving average (m even) or m moving average (m odd)
        let cma = if m.is_multiple_of(2) {
            let inner: f64 = x[t + 1 - half..t + half].iter().sum();
            (inner + 0.5 * (x[t - half] + x[t + half])) / m as f64
        } else {
            x[t - half..=t + half].iter().sum::<f64>() / m as f64
        };
        let r = if multiplicative {
            x[t] / cma
        } else {
            x[t] - cma
        };
        if r.is_finite() {
            sums[t % m] += r;
            counts[t % m] += 1;
        }
    }
    let neutral = if multiplicative { 1.0 } else { 0.0 };
    let mut values: Vec<f64> = sums
        .iter()
        .zip(&counts)
        .map(|(s, c)| if *c > 0 { s / *c as f64 } else { neutral })
        .collect();
    let mean = values.iter().sum::<f64>() / m as f64;
    for v in &mut values {
        if multiplicative {
            *v /= mean;
        } else {
            *v -= mean;
        }
    }
    Indices {
        multiplicative,
        values,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seasonal_series() -> Vec<f64> {
        (0..48)
            .map(|t| 100.0 * if t % 12 == 11 { 1.5 } else { 1.0 })
            .collect()
    }

    #[test]
    fn a_december_peak_is_found_and_taken_out() {
        let x = seasonal_series();
        assert!(is_seasonal(&x, 12));
        let ind = indices(&x, 12);
        assert!(ind.values[11] > 1.3, "{:?}", ind.values);
        let adj = ind.adjust(&x, 0);
        let spread = adj.iter().cloned().fold(f64::MIN, f64::max)
            - adj.iter().cloned().fold(f64::MAX, f64::min);
        assert!(spread < 1e-6);
    }

    #[test]
    fn a_flat_series_is_not_seasonal() {
        let x: Vec<f64> = (0..48).map(|t| 100.0 + ((t * 7919) % 13) as f64).collect();
        assert!(!is_seasonal(&x, 12));
    }
}
