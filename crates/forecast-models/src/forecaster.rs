//! The forecast of one monthly series: look for a season (the autocorrelation test, or a
//! seasonal fit that beats every plain one by AICc), backtest every method of the pool at
//! rolling origins, average the methods that forecast best there, and calibrate the 95%
//! ranges on the average's own backtest errors. [`Study`] holds the backtests so a benchmark
//! can score each method and each way of combining them without fitting twice.

use serde::Serialize;

use crate::backtest::{self, Origin};
use crate::intervals::{self, Calibration};
use crate::methods::{self, Method};
use crate::metrics;
use crate::seasonal;

/// Months of history under which a series counts as short and gets the simpler pool.
pub const SHORT_HISTORY: usize = 18;
/// The fewest months a forecast is made from.
pub const MIN_HISTORY: usize = 6;
/// How many of the best-backtested methods are averaged.
pub const COMBINE: usize = 4;

/// What to forecast.
#[derive(Debug, Clone)]
pub struct Options {
    pub horizon: usize,
    /// The season's length in months.
    pub period: usize,
    /// The ranges' coverage (0.95).
    pub level: f64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            horizon: 12,
            period: 12,
            level: 0.95,
        }
    }
}

/// Why a series cannot be forecast.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The model a forecast was made with.
#[derive(Debug, Clone, Serialize)]
pub struct Model {
    /// How results name it (`mean of theta, damped, ses on the seasonally adjusted series`).
    pub label: String,
    pub methods: Vec<Method>,
    pub seasonal: bool,
    pub multiplicative_season: bool,
    pub history_months: usize,
    pub short_history: bool,
}

/// A method's backtest score.
#[derive(Debug, Clone, Serialize)]
pub struct Score {
    pub method: Method,
    /// Mean absolute error over the series' naive error.
    pub scaled_error: f64,
}

/// One backtest cut with the chosen forecast at it.
#[derive(Debug, Clone, Serialize)]
pub struct Cut {
    pub train: usize,
    pub actual: Vec<f64>,
    pub forecast: Vec<f64>,
}

/// The backtest behind a forecast.
#[derive(Debug, Clone, Serialize)]
pub struct Backtest {
    pub cuts: Vec<Cut>,
    pub scores: Vec<Score>,
    /// The chosen forecast's score.
    pub scaled_error: f64,
    /// How many backtest errors the ranges were calibrated on.
    pub range_errors: usize,
}

/// A forecast: the months ahead with their ranges, the model and its backtest.
#[derive(Debug, Clone, Serialize)]
pub struct Forecast {
    pub model: Model,
    pub mean: Vec<f64>,
    pub lower: Vec<f64>,
    pub upper: Vec<f64>,
    pub backtest: Backtest,
}

/// Every method of the pool fitted and backtested on one series.
pub struct Study<'a> {
    y: &'a [f64],
    opts: Options,
    pub pool: Vec<Method>,
    seasonal: bool,
    multiplicative: bool,
    origins: Vec<Origin>,
    /// `[method][origin]`
    backtests: Vec<Vec<Vec<f64>>>,
    /// `[method]`
    forecasts: Vec<Vec<f64>>,
    scale: f64,
    sigma: f64,
}

impl<'a> Study<'a> {
    /// Tests, backtests and fits every method of the pool on `y`.
    pub fn new(y: &'a [f64], opts: &Options) -> Result<Self, Refusal> {
        let n = y.len();
        if n < MIN_HISTORY {
            return Err(Refusal(format!(
                "{n} months of history; a forecast needs at least {MIN_HISTORY}"
            )));
        }
        if opts.horizon == 0 {
            return Err(Refusal("the horizon must be at least one month".into()));
        }
        if y.iter().any(|v| !v.is_finite()) {
            return Err(Refusal(
                "the series holds a value that is not a number".into(),
            ));
        }
        let m = opts.period;
        let short = n < SHORT_HISTORY;
        let season = if short { None } else { season_of(y, m) };
        let seasonal = season.is_some();
        let pool: Vec<Method> = if short {
            vec![Method::Naive, Method::Ses, Method::Damped]
        } else {
            // Holt's undamped trend stays a candidate of auto_ets only: alone, its straight
            // line overshoots at long horizons (the worst method on both benchmark sets)
            let mut p = vec![
                Method::Ses,
                Method::Damped,
                Method::Theta,
                Method::OptimisedTheta,
                Method::AutoEts,
            ];
            if seasonal {
                p.extend([
                    Method::SeasonalNaive,
                    Method::HoltWinters,
                    Method::HoltWintersDamped,
                ]);
            }
            p
        };
        let min_train = if short {
            MIN_HISTORY
        } else if seasonal {
            2 * m
        } else {
            12
        };
        let cuts = backtest::plan(n, opts.horizon, min_train);
        let (origins, backtests) = backtest::run(y, &cuts, &pool, seasonal, m);
        let forecasts = pool
            .iter()
            .map(|meth| methods::point(*meth, y, opts.horizon, season.as_ref(), m))
            .collect();
        let scale = metrics::scale(y, m);
        let scale = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            (y.iter().map(|v| v.abs()).sum::<f64>() / n as f64).max(1e-9)
        };
        Ok(Self {
            y,
            opts: opts.clone(),
            pool,
            seasonal,
            multiplicative: season.as_ref().is_some_and(|s| s.multiplicative),
            origins,
            backtests,
            forecasts,
            scale,
            sigma: methods::one_step_sigma(y, season.as_ref()),
        })
    }

    /// One method's forecast of the horizon.
    pub fn method_forecast(&self, m: Method) -> Option<&[f64]> {
        self.pool
            .iter()
            .position(|p| *p == m)
            .map(|i| self.forecasts[i].as_slice())
    }

    /// Every method's backtest score, best first.
    pub fn scores(&self) -> Vec<Score> {
        let mut s: Vec<Score> = self
            .pool
            .iter()
            .zip(&self.backtests)
            .map(|(m, f)| Score {
                method: *m,
                scaled_error: backtest::score(&self.origins, f, self.scale),
            })
            .collect();
        s.sort_by(|a, b| a.scaled_error.total_cmp(&b.scaled_error));
        s
    }

    /// The one-step in-sample error spread of simple smoothing on the (adjusted) series, in
    /// its units: the narrowest a range may be.
    pub fn sigma(&self) -> f64 {
        self.sigma
    }

    fn mean_of(rows: &[&Vec<f64>], w: &[f64]) -> Vec<f64> {
        let len = rows[0].len();
        let total: f64 = w.iter().sum();
        (0..len)
            .map(|k| rows.iter().zip(w).map(|(r, w)| r[k] * w).sum::<f64>() / total)
            .collect()
    }

    /// The forecast averaging the `k` best-backtested methods (all of them when the series
    /// is too short to backtest).
    pub fn combine(&self, k: usize) -> Forecast {
        let scores = self.scores();
        let chosen: Vec<Method> = if self.origins.is_empty() {
            self.pool.clone()
        } else {
            scores.iter().take(k.max(1)).map(|s| s.method).collect()
        };
        self.weighted(chosen, None, scores)
    }

    /// The forecast averaging `methods` (those of the pool; all of the pool when none is).
    pub fn average(&self, methods: Vec<Method>) -> Forecast {
        self.weighted(methods, None, self.scores())
    }

    /// The forecast weighting every method of the pool by the inverse of its backtest score
    /// raised to `power`.
    pub fn inverse_score(&self, power: f64) -> Forecast {
        let scores = self.scores();
        if self.origins.is_empty() {
            return self.weighted(self.pool.clone(), None, scores);
        }
        let w: Vec<f64> = self
            .pool
            .iter()
            .map(|m| {
                let s = scores.iter().find(|s| s.method == *m).expect("scored");
                s.scaled_error.max(1e-6).powf(-power)
            })
            .collect();
        self.weighted(self.pool.clone(), Some(w), scores)
    }

    /// The forecast weighting `methods` (by `weights`, given per method of the pool, or
    /// equally), its ranges calibrated on the same weighting's backtest.
    fn weighted(
        &self,
        methods: Vec<Method>,
        weights: Option<Vec<f64>>,
        scores: Vec<Score>,
    ) -> Forecast {
        let mut chosen: Vec<Method> = methods
            .into_iter()
            .filter(|m| self.pool.contains(m))
            .collect();
        if chosen.is_empty() {
            chosen = self.pool.clone();
        }
        let idx: Vec<usize> = chosen
            .iter()
            .map(|m| self.pool.iter().position(|p| p == m).expect("in the pool"))
            .collect();
        let w: Vec<f64> = match &weights {
            Some(w) => idx.iter().map(|i| w[*i]).collect(),
            None => vec![1.0; idx.len()],
        };
        let nonneg = self.y.iter().all(|v| *v >= 0.0);
        let clamp = |v: Vec<f64>| {
            if nonneg {
                v.into_iter().map(|x| x.max(0.0)).collect()
            } else {
                v
            }
        };
        let mean = clamp(Self::mean_of(
            &idx.iter().map(|i| &self.forecasts[*i]).collect::<Vec<_>>(),
            &w,
        ));
        let backtest: Vec<Vec<f64>> = (0..self.origins.len())
            .map(|o| {
                clamp(Self::mean_of(
                    &idx.iter()
                        .map(|i| &self.backtests[*i][o])
                        .collect::<Vec<_>>(),
                    &w,
                ))
            })
            .collect();
        let positive = self.y.iter().all(|v| *v > 0.0)
            && backtest.iter().flatten().chain(&mean).all(|v| *v > 0.0);
        let r = intervals::ranges(
            &mean,
            &Calibration {
                origins: &self.origins,
                backtest: &backtest,
                relative: positive,
                scale: self.scale,
                sigma: self.sigma,
                level: self.opts.level,
                period: self.opts.period,
            },
        );
        let scaled_error = backtest::score(&self.origins, &backtest, self.scale);
        let names: Vec<&str> = chosen.iter().map(|m| m.name()).collect();
        let label = format!(
            "{}{}",
            if names.len() == 1 {
                names[0].to_owned()
            } else {
                format!("mean of {}", names.join(", "))
            },
            if self.seasonal {
                " on the seasonally adjusted series"
            } else {
                ""
            }
        );
        Forecast {
            model: Model {
                label,
                methods: chosen,
                seasonal: self.seasonal,
                multiplicative_season: self.multiplicative,
                history_months: self.y.len(),
                short_history: self.y.len() < SHORT_HISTORY,
            },
            lower: clamp(r.lower),
            upper: r.upper,
            mean,
            backtest: Backtest {
                cuts: self
                    .origins
                    .iter()
                    .zip(backtest)
                    .map(|(o, f)| Cut {
                        train: o.train,
                        actual: o.actual.clone(),
                        forecast: f,
                    })
                    .collect(),
                scores,
                scaled_error,
                range_errors: r.errors,
            },
        }
    }
}

/// `y`'s seasonal indices when it has a season of `period` months: with two full cycles, the
/// autocorrelation test finds one, or the seasonal smoothing fits beat the plain ones by AICc.
fn season_of(y: &[f64], period: usize) -> Option<seasonal::Indices> {
    if period < 2 || y.len() < 2 * period {
        return None;
    }
    let indices = seasonal::indices(y, period);
    (seasonal::is_seasonal(y, period) || methods::season_fits_better(y, &indices, period))
        .then_some(indices)
}

/// The forecast of `y`'s next `opts.horizon` months.
pub fn forecast(y: &[f64], opts: &Options) -> Result<Forecast, Refusal> {
    Ok(Study::new(y, opts)?.combine(COMBINE))
}
