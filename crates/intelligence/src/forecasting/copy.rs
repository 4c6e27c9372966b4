//! A forecast copy and how it is served: what `baseline::compute` makes, a publication stores
//! (and reads back), and `FCT-BASELINE-01` and `FCT-TRACK-01` answer — the model, its months
//! with 95% ranges, its backtest and its spend driver; the served months with the month rows
//! of forecast state applied; and the units document.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::state::MonthRow;
use crate::engines::num;
use crate::params::Measure;

/// A served figure: money to the cent (revenue) or whole units; null when it does not exist.
pub type Figure = Option<Number>;

/// A figure rounded to cents (revenue) or whole units.
pub fn round(measure: Measure, x: f64) -> Figure {
    match measure {
        Measure::Revenue => num((x * 100.0).round() / 100.0).and_then(Number::from_f64),
        Measure::Units if x.is_finite() => Some(Number::from(x.round() as i64)),
        Measure::Units => None,
    }
}

/// A score or coefficient to three decimals.
pub fn thousandths(x: f64) -> Option<f64> {
    num((x * 1000.0).round() / 1000.0)
}

/// A method's name as results spell it.
fn method_name(m: pp_forecast_models::Method) -> String {
    serde_json::to_value(m)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .expect("a method serializes as its name")
}

/// A forecast copy of one measure, computed now or read from a publication.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ForecastCopy")]
pub struct Baseline {
    pub model: Model,
    /// The months forecast, keyed `YYYY-MM`, in order.
    pub months: BTreeMap<String, Band>,
    pub backtest: Backtest,
    pub driver: Driver,
}

/// An expectation with its 95% range.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "ForecastBand")]
pub struct Band {
    pub expected: Figure,
    pub lower: Figure,
    pub upper: Figure,
}

/// The model chosen.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ForecastModel")]
pub struct Model {
    pub label: String,
    /// The methods combined (`naive`, `seasonal_naive`, `ses`, `holt`, `damped`, `theta` …).
    pub methods: Vec<String>,
    pub seasonal: bool,
    pub short_history: bool,
    pub history_months: usize,
    /// Always 0.95.
    pub range_level: f64,
}

impl Model {
    /// The model a forecast chose.
    pub fn of(m: pp_forecast_models::forecaster::Model) -> Self {
        Self {
            label: m.label,
            methods: m.methods.into_iter().map(method_name).collect(),
            seasonal: m.seasonal,
            short_history: m.short_history,
            history_months: m.history_months,
            range_level: 0.95,
        }
    }
}

/// The model's rolling-origin backtest.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ForecastBacktest")]
pub struct Backtest {
    pub cuts: Vec<Cut>,
    pub scaled_error: Option<f64>,
    pub method_scores: Vec<MethodScore>,
    /// Backtest months whose actual fell outside the range.
    pub range_errors: usize,
}

impl Backtest {
    /// The backtest of a forecast trained on the months `labels` (`YYYY-MM`, in order).
    pub fn of(
        b: &pp_forecast_models::forecaster::Backtest,
        labels: &[String],
        measure: Measure,
    ) -> Self {
        let cuts = b
            .cuts
            .iter()
            .map(|c| Cut {
                trained_through: labels.get(c.train.saturating_sub(1)).cloned(),
                months: c
                    .actual
                    .iter()
                    .zip(&c.forecast)
                    .enumerate()
                    .map(|(k, (a, p))| CutMonth {
                        month: labels.get(c.train + k).cloned(),
                        actual: round(measure, *a),
                        forecast: round(measure, *p),
                    })
                    .collect(),
            })
            .collect();
        Self {
            cuts,
            scaled_error: thousandths(b.scaled_error),
            method_scores: b
                .scores
                .iter()
                .map(|s| MethodScore {
                    method: method_name(s.method),
                    scaled_error: thousandths(s.scaled_error),
                })
                .collect(),
            range_errors: b.range_errors,
        }
    }
}

/// One backtest origin: the months after it, actual against forecast.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "BacktestCut")]
pub struct Cut {
    /// `YYYY-MM`.
    pub trained_through: Option<String>,
    pub months: Vec<CutMonth>,
}

/// A backtest month.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "BacktestMonth")]
pub struct CutMonth {
    pub month: Option<String>,
    pub actual: Figure,
    pub forecast: Figure,
}

/// A method's backtest score.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MethodScore {
    pub method: String,
    pub scaled_error: Option<f64>,
}

/// Whether planned ad spend drove the forecast.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged, rename_all_fields = "camelCase")]
#[schemars(rename = "ForecastDriver")]
pub enum Driver {
    /// Not considered (units, or no spend plan in forecast state).
    Skipped {
        considered: bool,
        used: bool,
        reason: String,
    },
    /// Considered: used when it beat the model without it in the backtest.
    Considered {
        considered: bool,
        used: bool,
        sales_per_unit_of_spend: Option<f64>,
        backtest_scaled_error_with: Option<f64>,
        backtest_scaled_error_without: Option<f64>,
        spend_basis: String,
    },
}

/// A served month: the copy's month with its month row applied.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ServedMonth {
    /// `YYYY-MM`.
    pub month: String,
    pub expected: Figure,
    pub lower: Figure,
    pub upper: Figure,
    /// The model's own figures, before the correction.
    pub model: Band,
    /// Present (true) when the month row suppresses the month.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressed: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correction: Option<Correction>,
}

/// The month row applied to a served month.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "MonthCorrection")]
pub struct Correction {
    /// `sales` or `units`.
    pub field: &'static str,
    /// `inherit`, `replace` or `suppress`.
    pub mode: String,
    pub value: Option<Number>,
    pub status: String,
    pub note: Option<String>,
    pub updated_by: String,
    pub updated_at: String,
}

/// The served months: the copy's months with the month rows applied (`replace` serves the
/// person's value, `suppress` none, `inherit` the model's).
pub fn corrected(
    measure: Measure,
    months: &BTreeMap<String, Band>,
    rows: &BTreeMap<String, MonthRow>,
) -> Vec<ServedMonth> {
    let field = match measure {
        Measure::Revenue => "sales",
        Measure::Units => "units",
    };
    months
        .iter()
        .map(|(key, model)| {
            let mut out = ServedMonth {
                month: key.clone(),
                expected: model.expected.clone(),
                lower: model.lower.clone(),
                upper: model.upper.clone(),
                model: model.clone(),
                suppressed: None,
                correction: None,
            };
            if let Some(row) = rows.get(key) {
                let c = &row.doc[field];
                let mode = c["mode"].as_str().unwrap_or("inherit");
                match mode {
                    "replace" => {
                        // forecast state refuses a replace without a number; should one be
                        // stored anyway, nothing is served rather than a made-up zero
                        out.expected = c["value"].as_f64().and_then(|v| round(measure, v));
                        (out.lower, out.upper) = (None, None);
                    }
                    "suppress" => {
                        (out.expected, out.lower, out.upper) = (None, None, None);
                        out.suppressed = Some(true);
                    }
                    _ => {}
                }
                out.correction = Some(Correction {
                    field,
                    mode: mode.to_owned(),
                    value: c["value"].as_number().cloned(),
                    status: row.doc["status"].as_str().unwrap_or("auto").to_owned(),
                    note: row.doc["note"].as_str().map(str::to_owned),
                    updated_by: row.updated_by.clone(),
                    updated_at: row.updated_at.clone(),
                });
            }
            out
        })
        .collect()
}
