//! Rolling-origin backtests: the series is cut at a few origins near its end, every method is
//! fitted on what came before each cut and forecast over what came after, and the errors say
//! which methods to trust and how wide the ranges must be.

use serde::Serialize;

use crate::methods::{self, Method};
use crate::seasonal;

/// Most origins a backtest uses.
pub const MAX_ORIGINS: usize = 4;

/// One cut: the months fitted and the months it forecast.
#[derive(Debug, Clone, Serialize)]
pub struct Origin {
    /// How many months the methods were fitted on.
    pub train: usize,
    /// The months after the cut, as they happened.
    pub actual: Vec<f64>,
}

/// Where to cut a series of `n` months to test `h`-month forecasts, fitting on at least
/// `min_train` months: up to [`MAX_ORIGINS`] cuts a few months apart, each followed by the
/// longest test the series allows (at most `h`). Empty when the series is too short to test.
pub fn plan(n: usize, h: usize, min_train: usize) -> Vec<(usize, usize)> {
    let avail = n.saturating_sub(min_train);
    if avail < 2 {
        return Vec::new();
    }
    let step = (h / 6).max(1);
    for k in (1..=MAX_ORIGINS).rev() {
        let room = avail.saturating_sub((k - 1) * step);
        let test = h.min(room);
        if test >= (h / 2).max(2).min(avail) && room > 0 {
            return (0..k).map(|j| (n - test - j * step, test)).collect();
        }
    }
    vec![(min_train, avail.min(h))]
}

/// Every method's forecasts at every cut of `y` (`seasonal`: fit the season on each window).
pub fn run(
    y: &[f64],
    cuts: &[(usize, usize)],
    pool: &[Method],
    seasonal: bool,
    period: usize,
) -> (Vec<Origin>, Vec<Vec<Vec<f64>>>) {
    let mut origins = Vec::with_capacity(cuts.len());
    // forecasts[method][origin]
    let mut forecasts = vec![Vec::with_capacity(cuts.len()); pool.len()];
    for &(train, test) in cuts {
        let window = &y[..train];
        let season = (seasonal && train >= 2 * period).then(|| seasonal::indices(window, period));
        for (i, m) in pool.iter().enumerate() {
            forecasts[i].push(methods::point(*m, window, test, season.as_ref(), period));
        }
        origins.push(Origin {
            train,
            actual: y[train..train + test].to_vec(),
        });
    }
    (origins, forecasts)
}

/// The mean absolute error of `forecasts` at `origins`, divided by `scale`.
pub fn score(origins: &[Origin], forecasts: &[Vec<f64>], scale: f64) -> f64 {
    let (mut sum, mut count) = (0.0, 0usize);
    for (o, f) in origins.iter().zip(forecasts) {
        for (a, p) in o.actual.iter().zip(f) {
            sum += (a - p).abs();
            count += 1;
        }
    }
    if count == 0 {
        f64::INFINITY
    } else {
        sum / count as f64 / scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_series_get_four_full_cuts() {
        let cuts = plan(300, 24, 24);
        assert_eq!(cuts, vec![(276, 24), (272, 24), (268, 24), (264, 24)]);
    }

    #[test]
    fn short_series_get_shorter_tests() {
        let cuts = plan(30, 18, 24);
        assert_eq!(cuts.len(), 1);
        assert_eq!(cuts[0], (24, 6));
        assert!(plan(13, 12, 12).is_empty());
    }
}
