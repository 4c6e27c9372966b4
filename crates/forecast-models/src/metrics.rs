//! Accuracy measures as the M competitions score them: sMAPE, MASE (absolute errors over the
//! in-sample seasonal-naive error), and for 95% ranges their coverage and the MSIS.

/// The in-sample mean absolute error of the seasonal naive forecast (lag `m`, or 1 when the
/// series is shorter than a season and a step): MASE's and MSIS's denominator.
pub fn scale(insample: &[f64], m: usize) -> f64 {
    let lag = if insample.len() > m { m } else { 1 };
    let n = insample.len();
    if n <= lag {
        return f64::NAN;
    }
    (lag..n)
        .map(|t| (insample[t] - insample[t - lag]).abs())
        .sum::<f64>()
        / (n - lag) as f64
}

/// Symmetric MAPE in percent (a point where both are 0 counts as 0).
pub fn smape(actual: &[f64], forecast: &[f64]) -> f64 {
    let total: f64 = actual
        .iter()
        .zip(forecast)
        .map(|(a, f)| {
            let d = a.abs() + f.abs();
            if d == 0.0 {
                0.0
            } else {
                200.0 * (a - f).abs() / d
            }
        })
        .sum();
    total / actual.len() as f64
}

/// Mean absolute scaled error.
pub fn mase(actual: &[f64], forecast: &[f64], scale: f64) -> f64 {
    let mae: f64 = actual
        .iter()
        .zip(forecast)
        .map(|(a, f)| (a - f).abs())
        .sum::<f64>()
        / actual.len() as f64;
    mae / scale
}

/// The share of `actual` inside `[lower, upper]`.
pub fn coverage(actual: &[f64], lower: &[f64], upper: &[f64]) -> f64 {
    let inside = actual
        .iter()
        .zip(lower.iter().zip(upper))
        .filter(|(a, (l, u))| *l <= *a && *a <= *u)
        .count();
    inside as f64 / actual.len() as f64
}

/// Mean scaled interval score of a `1 − alpha` range.
pub fn msis(actual: &[f64], lower: &[f64], upper: &[f64], scale: f64, alpha: f64) -> f64 {
    let total: f64 = actual
        .iter()
        .zip(lower.iter().zip(upper))
        .map(|(a, (l, u))| (u - l) + 2.0 / alpha * ((l - a).max(0.0) + (a - u).max(0.0)))
        .sum();
    total / actual.len() as f64 / scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measures_of_a_known_case() {
        assert!((smape(&[100.0], &[50.0]) - 200.0 * 50.0 / 150.0).abs() < 1e-9);
        let s = scale(&[1.0, 2.0, 3.0, 4.0], 12);
        assert!((s - 1.0).abs() < 1e-12);
        assert!((mase(&[5.0, 6.0], &[4.0, 4.0], s) - 1.5).abs() < 1e-12);
        assert_eq!(coverage(&[1.0, 5.0], &[0.0, 0.0], &[2.0, 2.0]), 0.5);
        // width 2, one miss by 3: (2 + 40·3 + 2) / 2
        assert!((msis(&[1.0, 5.0], &[0.0, 0.0], &[2.0, 2.0], 1.0, 0.05) - 62.0).abs() < 1e-9);
    }
}
