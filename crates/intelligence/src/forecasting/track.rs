//! `FCT-TRACK-01`: one report month against its forecast. The month's actual; for a closed
//! month the forecast as it was made before the month closed (the latest published copy whose
//! data ended before the month's last day, or else a baseline computed from the months before
//! it) and the projection of the current model, each under its own name, with a beat or miss
//! stated against the forecast; the year to date; the months to come; what the forecast
//! stands on; `forecast_state` and `spend_basis` on every spend and budget figure.

use std::collections::BTreeMap;

use pp_core::Result;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Number;

use super::baseline::{self, Served};
use super::copy::{Baseline, Figure, ServedMonth, corrected, round};
use super::history::History;
use super::readiness::{self, REQUIRED};
use super::state::{self, Entry, MonthRow};
use super::units;
use crate::data::Wh;
use crate::engines::{Answer, Input, num};
use crate::params::{Measure, Month, SpendBasis};

/// What `FCT-TRACK-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "TrackResult")]
pub struct Track {
    pub scope_id: Option<String>,
    /// `revenue` or `units`.
    pub measure: &'static str,
    #[serde(rename = "spend_basis")]
    pub spend_basis: &'static str,
    /// `provided_current`, `stale` or `not_provided`.
    #[serde(rename = "forecast_state")]
    pub forecast_state: &'static str,
    pub currency: String,
    pub month: TrackMonth,
    pub year_to_date: YearToDate,
    pub months_to_come: Vec<ToCome>,
    pub stands_on: StandsOn,
    pub data_through: chrono::NaiveDate,
    /// The units document (units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<units::Document>,
}

/// The report month.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackMonth {
    /// `YYYY-MM`.
    pub month: String,
    /// Whether the warehouse holds its last day.
    pub closed: bool,
    pub actual: Figure,
    pub ad_spend: SpendFigure,
    /// The month row's `adBudget`, when forecast state has one.
    pub ad_budget: Option<BudgetFigure>,
    /// A closed month's actual against its forecast, when both exist.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beat_or_miss: Option<BeatOrMiss>,
    /// A closed month's forecast as made before it closed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forecast: Option<BeforeClose>,
    pub projection: Option<Projection>,
}

/// The month's ad spend.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "TrackSpend")]
pub struct SpendFigure {
    pub value: Option<f64>,
    pub spend_basis: &'static str,
    pub forecast_state: &'static str,
}

/// The month's ad budget in forecast state.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "TrackBudget")]
pub struct BudgetFigure {
    pub value: Option<Number>,
    pub mode: Option<String>,
    pub spend_basis: &'static str,
    pub forecast_state: &'static str,
}

/// The actual against the forecast.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct BeatOrMiss {
    /// Always `forecast`.
    pub against: &'static str,
    /// `beat` or `miss`.
    pub verdict: &'static str,
    pub difference: Figure,
    /// Percent, one decimal; null against a zero forecast.
    pub percent: Option<f64>,
}

/// A closed month's forecast as made before it closed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged, rename_all_fields = "camelCase")]
#[schemars(rename = "TrackForecast")]
pub enum BeforeClose {
    /// The latest copy published before the month closed (`source: published`).
    Published {
        source: &'static str,
        expected: Figure,
        lower: Figure,
        upper: Figure,
        published_at: String,
        data_through: String,
    },
    /// A baseline computed from the months before it (`source: computed_before_close`).
    Computed {
        source: &'static str,
        expected: Figure,
        lower: Figure,
        upper: Figure,
        data_through: chrono::NaiveDate,
    },
    /// None (`source: null`), and why.
    None { source: (), reason: String },
}

impl BeforeClose {
    fn expected(&self) -> Option<f64> {
        match self {
            BeforeClose::Published { expected, .. } | BeforeClose::Computed { expected, .. } => {
                expected.as_ref().and_then(Number::as_f64)
            }
            BeforeClose::None { .. } => None,
        }
    }
}

/// The current model's figure for the month.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "TrackProjection")]
pub enum Projection {
    /// The served month, when the current model covers it.
    Served(Box<ServedMonth>),
    /// A closed month the current model does not cover: the actual stands.
    Actual {
        basis: &'static str,
        expected: Figure,
    },
    /// A running month, from the current model.
    Model {
        basis: &'static str,
        expected: Figure,
        lower: Figure,
        upper: Figure,
    },
}

/// The year to date.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct YearToDate {
    pub figure_id: String,
    pub from: String,
    pub through: String,
    pub actual: Figure,
}

/// A month after the report month, as served.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "TrackMonthToCome")]
pub struct ToCome {
    pub figure_id: String,
    pub month: String,
    pub expected: Figure,
    pub lower: Figure,
    pub upper: Figure,
}

/// What the current forecast stands on.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged, rename_all_fields = "camelCase")]
#[schemars(rename = "TrackStandsOn")]
pub enum StandsOn {
    Published {
        /// `published`.
        source: &'static str,
        published_at: String,
        published_by: String,
        data_through: String,
    },
    Computed {
        /// `computed`.
        source: &'static str,
        data_through: chrono::NaiveDate,
    },
    /// Nothing is served (`source: null`), and why.
    None { source: (), reason: String },
}

impl StandsOn {
    fn source(&self) -> Option<&'static str> {
        match self {
            StandsOn::Published { source, .. } | StandsOn::Computed { source, .. } => Some(source),
            StandsOn::None { .. } => None,
        }
    }
}

fn actual(measure: Measure, h: &History, m: Month) -> Option<f64> {
    h.get(m).map(|f| f.measure(measure))
}

fn spend_figure(h: &History, m: Month, basis: SpendBasis, state: &'static str) -> SpendFigure {
    SpendFigure {
        value: h.get(m).and_then(|f| num(f.spend(basis))),
        spend_basis: basis.as_str(),
        forecast_state: state,
    }
}

/// The forecast of `m` as made before it closed.
fn before_close(
    entries: &[Entry],
    h: &History,
    input: &Input,
    rows: &BTreeMap<String, MonthRow>,
    m: Month,
) -> Result<BeforeClose> {
    let measure = input.forecast.measure;
    let end = m.period().end.to_string();
    for e in entries.iter().filter(|e| !e.withdrawn()) {
        let p = e.publication()?;
        if p.data_through.as_str() < end.as_str()
            && let Some(fig) = p.copy(measure).months.get(&m.label())
        {
            return Ok(BeforeClose::Published {
                source: "published",
                expected: fig.expected.clone(),
                lower: fig.lower.clone(),
                upper: fig.upper.clone(),
                published_at: p.published_at.clone(),
                data_through: p.data_through.clone(),
            });
        }
    }
    // computed from the complete months before `m` only
    let before = h.before(m);
    let r = readiness::assess(&before);
    if r.months() < REQUIRED {
        return Ok(BeforeClose::None {
            source: (),
            reason: format!(
                "no copy was published before {m} closed, and {} complete months preceded it (a baseline needs {REQUIRED})",
                r.months()
            ),
        });
    }
    let c = baseline::compute(&before, &r, measure, 1, input.forecast.spend_basis, rows)?;
    let fig = c.months.get(&m.label());
    Ok(BeforeClose::Computed {
        source: "computed_before_close",
        expected: fig.and_then(|f| f.expected.clone()),
        lower: fig.and_then(|f| f.lower.clone()),
        upper: fig.and_then(|f| f.upper.clone()),
        data_through: before.data.end,
    })
}

/// Whether forecast state's latest publication is current, stale or missing.
fn forecast_state(latest: Option<&Entry>, last_complete: Option<Month>) -> &'static str {
    match (latest, last_complete) {
        (None, _) => "not_provided",
        (Some(e), Some(last))
            if e.doc["dataThrough"].as_str().unwrap_or("")
                >= last.period().end.to_string().as_str() =>
        {
            "provided_current"
        }
        (Some(_), _) => "stale",
    }
}

/// The copy served now and what it stands on.
fn current(copy: Served, h: &History, measure: Measure) -> (Option<Baseline>, StandsOn) {
    match copy {
        Served::Published(p) => (
            Some(p.copy(measure).clone()),
            StandsOn::Published {
                source: "published",
                published_at: p.published_at.clone(),
                published_by: p.published_by.clone(),
                data_through: p.data_through.clone(),
            },
        ),
        Served::Computed(c) => (
            Some(*c),
            StandsOn::Computed {
                source: "computed",
                data_through: h.data.end,
            },
        ),
        Served::Unavailable(why) => (
            None,
            StandsOn::None {
                source: (),
                reason: why,
            },
        ),
    }
}

/// The report month: its actual, spend and budget, and for a closed month its forecast and
/// the beat or miss.
fn report_month(
    h: &History,
    input: &Input,
    (entries, rows): (&[Entry], &BTreeMap<String, MonthRow>),
    served: &[ServedMonth],
    (m, forecast_state): (Month, &'static str),
) -> Result<TrackMonth> {
    let measure = input.forecast.measure;
    let basis = input.forecast.spend_basis;
    let closed = h.complete.iter().any(|(x, _)| *x == m);
    let served_of = served.iter().find(|v| v.month == m.label());
    let mut month = TrackMonth {
        month: m.label(),
        closed,
        actual: actual(measure, h, m).and_then(|v| round(measure, v)),
        ad_spend: spend_figure(h, m, basis, forecast_state),
        ad_budget: rows.get(&m.label()).map(|row| BudgetFigure {
            value: row.doc["adBudget"]["value"].as_number().cloned(),
            mode: row.doc["adBudget"]["mode"].as_str().map(str::to_owned),
            spend_basis: basis.as_str(),
            forecast_state,
        }),
        beat_or_miss: None,
        forecast: None,
        projection: None,
    };
    if closed {
        let f = before_close(entries, h, input, rows, m)?;
        if let (Some(a), Some(e)) = (actual(measure, h, m), f.expected()) {
            month.beat_or_miss = Some(BeatOrMiss {
                against: "forecast",
                verdict: if a >= e { "beat" } else { "miss" },
                difference: round(measure, a - e),
                percent: if e != 0.0 {
                    num(((a - e) / e * 1000.0).round() / 10.0)
                } else {
                    None
                },
            });
        }
        month.forecast = Some(f);
        month.projection = Some(match served_of {
            Some(v) => Projection::Served(Box::new(v.clone())),
            None => Projection::Actual {
                basis: "the current model does not cover a closed month; the actual stands",
                expected: month.actual.clone(),
            },
        });
    } else {
        month.projection = served_of.map(|v| Projection::Model {
            basis: "current model",
            expected: v.expected.clone(),
            lower: v.lower.clone(),
            upper: v.upper.clone(),
        });
    }
    Ok(month)
}

/// The request.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<Track>> {
    let (h, id) = super::load(wh, input).await?;
    let measure = input.forecast.measure;
    let basis = input.forecast.spend_basis;
    let m = input.month.expect("FCT-TRACK-01 requires month");
    let r = readiness::assess(&h);
    let (entries, rows) = state::of(&input.state, id.as_deref()).await?;
    let latest = entries.first().filter(|e| !e.withdrawn());
    let forecast_state = forecast_state(latest, r.last_complete);
    let (current, stands_on) = current(
        baseline::choose(&entries, &h, &r, input, &rows)?,
        &h,
        measure,
    );
    let served = current
        .as_ref()
        .map(|c| corrected(measure, &c.months, &rows))
        .unwrap_or_default();
    let month = report_month(&h, input, (&entries, &rows), &served, (m, forecast_state))?;
    let jan = Month {
        year: m.year,
        month: 1,
    };
    let ytd: f64 = (0..m.month)
        .filter_map(|k| actual(measure, &h, jan.back(-(k as i32))))
        .sum();
    let months_to_come = served
        .iter()
        .filter(|v| v.month > m.label())
        .map(|v| ToCome {
            figure_id: units::figure_id(measure, &v.month),
            month: v.month.clone(),
            expected: v.expected.clone(),
            lower: v.lower.clone(),
            upper: v.upper.clone(),
        })
        .collect();
    let document = (measure == Measure::Units).then(|| {
        let about = units::About {
            scope_id: id.clone(),
            source: stands_on.source(),
            data_through: h.data.end,
            spend_basis: basis.as_str(),
            model: current.as_ref().map(|c| &c.model),
        };
        units::document(about, &served)
    });
    Ok(Answer {
        result: Track {
            scope_id: id,
            measure: measure.as_str(),
            spend_basis: basis.as_str(),
            forecast_state,
            currency: input.scope.currency.clone(),
            month,
            year_to_date: YearToDate {
                figure_id: units::figure_id(measure, &format!("ytd.{}", m.year)),
                from: jan.label(),
                through: m.label(),
                actual: round(measure, ytd),
            },
            months_to_come,
            stands_on,
            data_through: h.data.end,
            document,
        },
        limitations: vec!["A month is closed when the warehouse holds its last day; a running month is compared with the days so far only as an actual to date.".into()],
        evidence: Vec::new(),
    })
}
