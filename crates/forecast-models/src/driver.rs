//! A driver (ad spend) for a forecast: sales regressed on the driver by least squares, the
//! rest forecast by the usual models, and the driver's plan put back. The driver is used only
//! when it forecasts better at the same backtest cuts as the plain forecast (with the spend
//! that really happened standing for the plan); the answer says whether it was used and why.

use serde::Serialize;

use crate::backtest::Origin;
use crate::forecaster::{COMBINE, Forecast, Options, Refusal, Study};
use crate::intervals::{self, Calibration};
use crate::{backtest, metrics};

/// A forecast with a driver considered.
#[derive(Debug, Clone, Serialize)]
pub struct Driven {
    pub forecast: Forecast,
    /// The driver improved the backtest and the forecast uses it.
    pub used: bool,
    /// Sales per unit of the driver, and the intercept, fitted on the whole history.
    pub coefficient: f64,
    pub intercept: f64,
    /// The backtest error (over the naive error) with and without the driver.
    pub scaled_error_with: f64,
    pub scaled_error_without: f64,
}

fn regress(y: &[f64], x: &[f64]) -> (f64, f64) {
    let n = y.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = x.iter().zip(y).map(|(a, b)| (a - mx) * (b - my)).sum();
    let sxx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum();
    let b = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    (my - b * mx, b)
}

/// Sales net of the driver, forecast, with the regression that took the driver out.
struct Residual {
    forecast: Forecast,
    /// The residual fit's one-step error spread.
    sigma: f64,
    intercept: f64,
    slope: f64,
}

impl Residual {
    /// The forecast put back on the driver's `plan`.
    fn on(&self, plan: &[f64]) -> Vec<f64> {
        self.forecast
            .mean
            .iter()
            .zip(plan)
            .map(|(r, d)| self.intercept + self.slope * d + r)
            .collect()
    }
}

fn residual_forecast(
    y: &[f64],
    x: &[f64],
    plan: &[f64],
    opts: &Options,
) -> Result<Residual, Refusal> {
    let (intercept, slope) = regress(y, x);
    let rest: Vec<f64> = y
        .iter()
        .zip(x)
        .map(|(v, d)| v - intercept - slope * d)
        .collect();
    let o = Options {
        horizon: plan.len(),
        ..opts.clone()
    };
    let study = Study::new(&rest, &o)?;
    Ok(Residual {
        forecast: study.combine(COMBINE),
        sigma: study.sigma(),
        intercept,
        slope,
    })
}

/// `y`'s forecast with `driver` (its history, as long as `y`) and `plan` (its months ahead,
/// `opts.horizon` of them) considered.
pub fn forecast(
    y: &[f64],
    driver: &[f64],
    plan: &[f64],
    opts: &Options,
) -> Result<Driven, Refusal> {
    if driver.len() != y.len() || plan.len() != opts.horizon {
        return Err(Refusal(
            "the driver must cover the history and every month forecast".into(),
        ));
    }
    let plain = Study::new(y, opts)?.combine(COMBINE);
    let scale = metrics::scale(y, opts.period).max(1e-9);
    let mut origins = Vec::new();
    let mut with = Vec::new();
    for cut in &plain.backtest.cuts {
        let end = cut.train + cut.actual.len();
        let plan = &driver[cut.train..end];
        let Ok(r) = residual_forecast(&y[..cut.train], &driver[..cut.train], plan, opts) else {
            continue;
        };
        with.push(r.on(plan));
        origins.push(Origin {
            train: cut.train,
            actual: cut.actual.clone(),
        });
    }
    let without: Vec<Vec<f64>> = plain
        .backtest
        .cuts
        .iter()
        .filter(|c| origins.iter().any(|o| o.train == c.train))
        .map(|c| c.forecast.clone())
        .collect();
    let (error_with, error_without) = (
        backtest::score(&origins, &with, scale),
        backtest::score(&origins, &without, scale),
    );
    let rest = residual_forecast(y, driver, plan, opts)?;
    let driven = |forecast, used| Driven {
        forecast,
        used,
        coefficient: rest.slope,
        intercept: rest.intercept,
        scaled_error_with: error_with,
        scaled_error_without: error_without,
    };
    if origins.is_empty() || error_with >= error_without {
        return Ok(driven(plain, false));
    }
    let mean = rest.on(plan);
    let positive =
        y.iter().all(|v| *v > 0.0) && with.iter().flatten().chain(&mean).all(|v| *v > 0.0);
    let r = intervals::ranges(
        &mean,
        &Calibration {
            origins: &origins,
            backtest: &with,
            relative: positive,
            scale,
            sigma: rest.sigma,
            level: opts.level,
            period: opts.period,
        },
    );
    let mut forecast = rest.forecast.clone();
    forecast.model.label = format!(
        "{} on sales net of {:.3} per unit of ad spend",
        forecast.model.label, rest.slope
    );
    forecast.model.history_months = y.len();
    forecast.mean = mean;
    forecast.lower = r.lower;
    forecast.upper = r.upper;
    forecast.backtest.cuts = origins
        .iter()
        .zip(&with)
        .map(|(o, f)| crate::forecaster::Cut {
            train: o.train,
            actual: o.actual.clone(),
            forecast: f.clone(),
        })
        .collect();
    forecast.backtest.scaled_error = error_with;
    forecast.backtest.range_errors = r.errors;
    Ok(driven(forecast, true))
}
