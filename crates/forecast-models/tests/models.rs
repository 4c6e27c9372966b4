//! The forecaster as a planner meets it: a seasonal peak is forecast as seasonal (also one
//! that a wandering level hides from the autocorrelation test), a short
//! history gets wider ranges than a long one, ranges hold the forecast, and ad spend is used
//! as a driver where it explains sales (the shared insurance quotes and TV adverts series,
//! read from `../shared`).

use pp_forecast_models::{Options, driver, forecast};

/// 48 months of a December peak ×1.5 on a slow trend, with a little deterministic noise.
fn peaked(months: usize) -> Vec<f64> {
    (0..months)
        .map(|t| {
            let season = if t % 12 == 11 {
                1.5
            } else if t % 12 == 10 {
                1.15
            } else {
                1.0
            };
            let noise = 1.0 + 0.03 * ((t * 7919 % 13) as f64 / 13.0 - 0.5);
            1000.0 * (1.0 + 0.004 * t as f64) * season * noise
        })
        .collect()
}

#[test]
fn a_december_peak_is_forecast_as_seasonal() {
    let y = peaked(47); // the last month is a November
    let f = forecast(&y, &Options::default()).unwrap();
    assert!(f.model.seasonal, "{:?}", f.model);
    // the first month ahead is December, the next January
    assert!(f.mean[0] > 1.3 * f.mean[1], "{:?}", &f.mean[..3]);
    assert!(
        f.lower
            .iter()
            .zip(&f.mean)
            .zip(&f.upper)
            .all(|((l, m), u)| l <= m && m <= u)
    );
    assert!(!f.backtest.cuts.is_empty());
}

#[test]
fn a_short_history_gets_a_simple_model_and_wider_ranges() {
    let long = peaked(48);
    let short = &long[long.len() - 14..];
    let fs = forecast(short, &Options::default()).unwrap();
    let fl = forecast(&long, &Options::default()).unwrap();
    assert!(fs.model.short_history && !fs.model.seasonal);
    let rel = |f: &pp_forecast_models::Forecast, k: usize| (f.upper[k] - f.lower[k]) / f.mean[k];
    assert!(
        rel(&fs, 11) > rel(&fl, 11),
        "{} vs {}",
        rel(&fs, 11),
        rel(&fl, 11)
    );
    // and they widen with the step
    assert!(rel(&fs, 11) > rel(&fs, 0));
    assert!(forecast(&short[..5], &Options::default()).is_err());
}

/// The insurance quotes and TV adverts series, or `None` (with why, printed) on a clone with
/// no `../shared` beside it.
fn insurance() -> Option<(Vec<f64>, Vec<f64>)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/benchmarks/forecast/insurance_quotes_tvadverts.csv"
    );
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!(
                "SKIPPED: the public benchmark series is not beside the project ({path}: {e})"
            );
            return None;
        }
    };
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (q, tv) = (
        header.iter().position(|h| *h == "Quotes").unwrap(),
        header.iter().position(|h| *h == "TVadverts").unwrap(),
    );
    let series: (Vec<f64>, Vec<f64>) = lines
        .map(|l| l.split(',').collect::<Vec<_>>())
        .map(|f| (f[q].parse::<f64>().unwrap(), f[tv].parse::<f64>().unwrap()))
        .unzip();
    Some(series)
}

#[test]
fn tv_adverts_drive_insurance_quotes() {
    let Some((quotes, tv)) = insurance() else {
        return;
    };
    let h = 6;
    let (y, x) = (&quotes[..quotes.len() - h], &tv[..tv.len() - h]);
    let plan = &tv[tv.len() - h..];
    let opts = Options {
        horizon: h,
        ..Options::default()
    };
    let d = driver::forecast(y, x, plan, &opts).unwrap();
    assert!(
        d.used,
        "with {} vs without {}",
        d.scaled_error_with, d.scaled_error_without
    );
    assert!(
        d.coefficient > 0.5,
        "quotes per unit of TV advert spend: {}",
        d.coefficient
    );
    // forecasting the held-out months with the real spend beats ignoring it
    let plain = forecast(y, &opts).unwrap();
    let actual = &quotes[quotes.len() - h..];
    let err = |f: &[f64]| {
        f.iter()
            .zip(actual)
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>()
    };
    assert!(
        err(&d.forecast.mean) < err(&plain.mean),
        "{} vs {}",
        err(&d.forecast.mean),
        err(&plain.mean)
    );
    // a driver that explains nothing is not used
    let flat = vec![1.0; y.len()];
    let none = driver::forecast(y, &flat, &vec![1.0; h], &opts).unwrap();
    assert!(!none.used);
}

/// 72 months of a wandering level (a random walk of deterministic steps of up to ±4%) with a
/// spring high and an autumn low of ±3%.
fn wandering_with_a_season() -> Vec<f64> {
    let mut level = 1000.0;
    (0..72)
        .map(|t: usize| {
            let step = ((t * 7919 + 17) % 101) as f64 / 101.0 - 0.5;
            level *= 1.0 + 0.08 * step;
            let angle = 2.0 * std::f64::consts::PI * (t % 12) as f64 / 12.0;
            level * (1.0 + 0.03 * angle.sin())
        })
        .collect()
}

#[test]
fn a_season_the_autocorrelation_test_misses_is_found_by_the_fit() {
    let y = wandering_with_a_season();
    // the wandering level hides the season from the autocorrelation test…
    assert!(!pp_forecast_models::seasonal::is_seasonal(&y, 12));
    // …but the seasonal smoothing fits better, and the forecast keeps the season
    let f = forecast(&y, &Options::default()).unwrap();
    assert!(f.model.seasonal, "{}", f.model.label);
    // month 72 is at position 0: the high is 3 months ahead, the low 9
    assert!(f.mean[3] > 1.03 * f.mean[9], "{:?}", f.mean);
}
