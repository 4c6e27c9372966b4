//! Monthly forecasting models, in Rust and without a numeric library: exponential smoothing
//! (simple, Holt, damped), the Theta method and its optimised variant, the naive methods,
//! classical seasonal decomposition, rolling-origin backtests that pick and average the
//! methods per series, and 95% ranges calibrated on the backtest errors. `FCT-BASELINE-01`
//! and `FCT-TRACK-01` (crate `pp-intelligence`) forecast with [`forecast`]; the benchmark
//! harness (`examples/benchmark.rs`, `bench/forecast.sh`) scores it on competition data.
//! Forecast *state* (a person's corrections) is the other crate, `pp-forecast-state`.

pub mod backtest;
pub mod driver;
pub mod forecaster;
pub mod holt_winters;
pub mod intervals;
pub mod methods;
pub mod metrics;
pub mod optimize;
pub mod seasonal;
pub mod smoothing;
pub mod theta;

pub use forecaster::{Forecast, Options, Refusal, Study, forecast};
pub use methods::Method;
