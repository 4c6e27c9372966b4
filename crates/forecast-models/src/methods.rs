//! The methods a forecast chooses from, each a point forecast of the next `h` months. The
//! smoothing and Theta methods run on the seasonally adjusted series (when it has a season)
//! scaled to a mean of about 1, and put the season and the scale back; Holt–Winters fits
//! the season itself; `auto_ets` picks among the smoothing models by AICc on the one-step
//! errors in the series' own units.

use serde::Serialize;

use crate::holt_winters;
use crate::seasonal::Indices;
use crate::smoothing::{self, Trend};
use crate::theta;

/// A forecasting method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The last value, repeated.
    Naive,
    /// The value a season ago, repeated.
    SeasonalNaive,
    /// Simple exponential smoothing.
    Ses,
    /// Holt's linear trend.
    Holt,
    /// The damped trend.
    Damped,
    /// The standard Theta method.
    Theta,
    /// Theta with its line's weight fitted.
    OptimisedTheta,
    /// Holt–Winters with an evolving season and no trend.
    HoltWinters,
    /// Holt–Winters with an evolving season and a damped trend.
    HoltWintersDamped,
    /// The smoothing model (simple, Holt, damped, Holt–Winters) with the least AICc.
    AutoEts,
}

impl Method {
    /// Every method, in the order results list them.
    pub const ALL: [Method; 10] = [
        Method::Naive,
        Method::SeasonalNaive,
        Method::Ses,
        Method::Holt,
        Method::Damped,
        Method::Theta,
        Method::OptimisedTheta,
        Method::HoltWinters,
        Method::HoltWintersDamped,
        Method::AutoEts,
    ];

    /// Its name in results.
    pub fn name(self) -> &'static str {
        match self {
            Method::Naive => "naive",
            Method::SeasonalNaive => "seasonal_naive",
            Method::Ses => "ses",
            Method::Holt => "holt",
            Method::Damped => "damped",
            Method::Theta => "theta",
            Method::OptimisedTheta => "optimised_theta",
            Method::HoltWinters => "holt_winters",
            Method::HoltWintersDamped => "holt_winters_damped",
            Method::AutoEts => "auto_ets",
        }
    }
}

/// A forecast and, for the smoothing models, the one-step in-sample forecasts in the series'
/// units with the number of fitted parameters.
struct Run {
    forecast: Vec<f64>,
    fit: Option<(Vec<f64>, usize)>,
}

/// `y` scaled to a mean absolute value of 1, and the scale.
fn scaled(y: &[f64]) -> (Vec<f64>, f64) {
    let scale = y.iter().map(|v| v.abs()).sum::<f64>() / y.len() as f64;
    let scale = if scale > 0.0 { scale } else { 1.0 };
    (y.iter().map(|v| v / scale).collect(), scale)
}

fn run(method: Method, y: &[f64], h: usize, season: Option<&Indices>, period: usize) -> Run {
    let n = y.len();
    let plain = |forecast| Run {
        forecast,
        fit: None,
    };
    match method {
        Method::Naive => return plain(vec![y[n - 1]; h]),
        Method::SeasonalNaive if n >= period => {
            return plain((0..h).map(|k| y[n - period + k % period]).collect());
        }
        Method::SeasonalNaive => return plain(vec![y[n - 1]; h]),
        Method::AutoEts => return auto_ets(y, h, season, period),
        Method::HoltWinters | Method::HoltWintersDamped => {
            let Some(s) = season.filter(|_| n >= 2 * period) else {
                return run(Method::Damped, y, h, None, period);
            };
            let (x, scale) = scaled(y);
            let mut ind = s.clone();
            if !ind.multiplicative {
                ind.values.iter_mut().for_each(|v| *v /= scale);
            }
            let damped = method == Method::HoltWintersDamped;
            let (f, fitted) = holt_winters::forecast(&x, &ind, damped, h);
            let k = if damped { 4 } else { 2 } + 2 + period - 1;
            return Run {
                forecast: f.iter().map(|v| v * scale).collect(),
                fit: fitted.map(|f| (f.iter().map(|v| v * scale).collect(), k)),
            };
        }
        _ => {}
    }
    let adjusted = season.map_or_else(|| y.to_vec(), |s| s.adjust(y, 0));
    let (x, scale) = scaled(&adjusted);
    let smooth = |trend| {
        let f = smoothing::fit(&x, trend);
        let k = match trend {
            Trend::None => 2,
            Trend::Linear => 4,
            Trend::Damped => 5,
        };
        (f.forecast(h), Some((f.fitted, k)))
    };
    let (f, fit) = match method {
        Method::Ses => smooth(Trend::None),
        Method::Holt => smooth(Trend::Linear),
        Method::Damped => smooth(Trend::Damped),
        Method::Theta => (theta::standard(&x, h).0, None),
        Method::OptimisedTheta => (theta::optimised(&x, h).0, None),
        _ => unreachable!("answered above"),
    };
    let back = |v: &[f64], start| {
        let v: Vec<f64> = v.iter().map(|v| v * scale).collect();
        match season {
            Some(s) => s.restore(&v, start),
            None => v,
        }
    };
    Run {
        forecast: back(&f, n),
        fit: fit.map(|(fitted, k)| (back(&fitted, 0), k + season.map_or(0, |_| period - 1))),
    }
}

/// The AICc of a run's one-step fit to `y`: infinite when the run has no fit or too few
/// points for its parameters.
fn aicc(r: &Run, y: &[f64]) -> f64 {
    let Some((fitted, k)) = &r.fit else {
        return f64::INFINITY;
    };
    let n = y.len() as f64;
    let k = *k as f64;
    if n - k - 1.0 <= 0.0 {
        return f64::INFINITY;
    }
    let sse: f64 = y.iter().zip(fitted).map(|(a, f)| (a - f).powi(2)).sum();
    n * (sse / n).max(1e-300).ln() + 2.0 * k + 2.0 * k * (k + 1.0) / (n - k - 1.0)
}

/// Whether the smoothing models fitted with `season` beat, by AICc (the season's indices
/// counted as parameters), every smoothing model fitted without it: a season that the
/// autocorrelation test misses (a trend or an irregular year can hide it) but a fit finds.
pub fn season_fits_better(y: &[f64], season: &Indices, period: usize) -> bool {
    let best = |methods: &[Method], season: Option<&Indices>| {
        methods
            .iter()
            .map(|m| aicc(&run(*m, y, 1, season, period), y))
            .fold(f64::INFINITY, f64::min)
    };
    let with = best(
        &[
            Method::Ses,
            Method::Damped,
            Method::HoltWinters,
            Method::HoltWintersDamped,
        ],
        Some(season),
    );
    with < best(&[Method::Ses, Method::Holt, Method::Damped], None)
}

/// The smoothing model with the least AICc on `y`'s one-step errors.
fn auto_ets(y: &[f64], h: usize, season: Option<&Indices>, period: usize) -> Run {
    let mut candidates = vec![Method::Ses, Method::Holt, Method::Damped];
    if season.is_some() && y.len() >= 2 * period {
        candidates.extend([Method::HoltWinters, Method::HoltWintersDamped]);
    }
    candidates
        .into_iter()
        .map(|m| run(m, y, h, season, period))
        .map(|r| (aicc(&r, y), r))
        .filter(|(a, _)| a.is_finite())
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, r)| r)
        .unwrap_or_else(|| run(Method::Ses, y, h, season, period))
}

/// The next `h` values of `y` by `method`; `season` holds `y`'s seasonal indices (with `y[0]`
/// at position 0) when it has a season; `period` is the season's length.
pub fn point(
    method: Method,
    y: &[f64],
    h: usize,
    season: Option<&Indices>,
    period: usize,
) -> Vec<f64> {
    run(method, y, h, season, period).forecast
}

/// The one-step in-sample error spread of simple smoothing on `y` (adjusted), in `y`'s units.
pub fn one_step_sigma(y: &[f64], season: Option<&Indices>) -> f64 {
    let adjusted = season.map_or_else(|| y.to_vec(), |s| s.adjust(y, 0));
    let (x, scale) = scaled(&adjusted);
    smoothing::fit(&x, Trend::None).sigma * scale
}
