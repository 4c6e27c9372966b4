//! `FCT-BASELINE-01`: the forecast a plan rests on. A published copy always wins; with none,
//! a baseline is computed from the warehouse (`source: computed`) when the scope meets the
//! 12-month floor; a withdrawn copy, a scope below the floor, or nothing to compute from
//! answers `available: false` with the reason. The month rows of forecast state are applied
//! to the served months exactly as their modes say (`replace` serves the person's value,
//! `suppress` serves none, `inherit` the model's).

use std::collections::BTreeMap;

use pp_core::{Error, Result};
use pp_forecast_models::{Options, driver};
use schemars::JsonSchema;
use serde::Serialize;

use super::copy::{
    Backtest, Band, Baseline, Driver, Figure, Model, ServedMonth, corrected, round, thousandths,
};
use super::history::History;
use super::publish::Publication;
use super::readiness::{self, REQUIRED, Readiness};
use super::state::{self, Entry, MonthRow};
use super::units;
use crate::data::Wh;
use crate::engines::{Answer, Input};
use crate::params::{Measure, Month, SpendBasis};

/// What `FCT-BASELINE-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "BaselineResult")]
pub struct BaselineAnswer {
    /// The forecast state scope; null for a brand of several seller rows.
    pub scope_id: Option<String>,
    /// `revenue` or `units`.
    pub measure: &'static str,
    #[serde(rename = "spend_basis")]
    pub spend_basis: &'static str,
    pub currency: String,
    pub readiness: readiness::View,
    pub data_through: chrono::NaiveDate,
    #[serde(flatten)]
    pub served: Availability,
}

/// Whether a forecast is served, and if so which.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "BaselineAvailability")]
pub enum Availability {
    /// Nothing is served (`available: false`), and why.
    Unavailable {
        available: bool,
        reason: String,
    },
    Available(Box<Available>),
}

/// The forecast served (`available: true`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "BaselineServed")]
pub struct Available {
    /// `published` or `computed`.
    pub source: &'static str,
    /// The publication served, when `source` is `published`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<PublishedRef>,
    pub available: bool,
    /// The last complete months (up to 24), in the measure's unit.
    pub history: Vec<Actual>,
    pub model: Model,
    pub backtest: Backtest,
    pub driver: Driver,
    /// The served months (revenue).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub months: Option<Vec<ServedMonth>>,
    /// The units document (units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub document: Option<units::Document>,
}

/// Who published the copy served, and when.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "BaselinePublished")]
pub struct PublishedRef {
    pub published_at: String,
    pub published_by: String,
    pub data_through: String,
    pub age_days: Option<i64>,
}

/// A complete month's actual.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "MonthActual")]
pub struct Actual {
    pub month: String,
    pub actual: Figure,
}

/// The spend plan forecast state holds for `months` (every month's `adSpend`, with
/// `dspSpend` on `ads_plus_dsp`, set by `replace`), if complete.
fn spend_plan(
    rows: &BTreeMap<String, MonthRow>,
    months: &[Month],
    basis: SpendBasis,
) -> Option<Vec<f64>> {
    months
        .iter()
        .map(|m| {
            let row = rows.get(&m.label())?;
            let replaced = |f: &str| {
                (row.doc[f]["mode"] == "replace")
                    .then(|| row.doc[f]["value"].as_f64())
                    .flatten()
            };
            let ads = replaced("adSpend")?;
            let dsp = if basis == SpendBasis::AdsPlusDsp {
                replaced("dspSpend").unwrap_or(0.0)
            } else {
                0.0
            };
            Some(ads + dsp)
        })
        .collect()
}

/// A baseline computed from the warehouse: the model's months (keyed `YYYY-MM`), its
/// description, its backtest, and whether ad spend drove it.
pub fn compute(
    h: &History,
    r: &Readiness,
    measure: Measure,
    horizon: usize,
    basis: SpendBasis,
    rows: &BTreeMap<String, MonthRow>,
) -> Result<Baseline> {
    let facts: Vec<_> = h
        .complete
        .iter()
        .filter(|(m, _)| r.window.contains(m))
        .collect();
    let y: Vec<f64> = facts.iter().map(|(_, f)| f.measure(measure)).collect();
    let first = r
        .last_complete
        .map(|m| m.back(-1))
        .ok_or_else(|| Error::internal("a baseline needs a complete month"))?;
    let months: Vec<Month> = (0..horizon).map(|k| first.back(-(k as i32))).collect();
    let opts = Options {
        horizon,
        ..Options::default()
    };
    let plan = if measure == Measure::Revenue {
        spend_plan(rows, &months, basis)
    } else {
        None
    };
    let (f, driver_view) = match plan {
        Some(plan) => {
            let x: Vec<f64> = facts.iter().map(|(_, f)| f.spend(basis)).collect();
            let d = driver::forecast(&y, &x, &plan, &opts).map_err(|e| Error::internal(e.0))?;
            let view = Driver::Considered {
                considered: true,
                used: d.used,
                sales_per_unit_of_spend: thousandths(d.coefficient),
                backtest_scaled_error_with: thousandths(d.scaled_error_with),
                backtest_scaled_error_without: thousandths(d.scaled_error_without),
                spend_basis: basis.as_str().to_owned(),
            };
            (d.forecast, view)
        }
        None => (
            pp_forecast_models::forecast(&y, &opts).map_err(|e| Error::internal(e.0))?,
            Driver::Skipped {
                considered: false,
                used: false,
                reason: if measure == Measure::Units {
                    "units are forecast from their own history"
                } else {
                    "no spend plan in forecast state (adSpend replace values for every month forecast)"
                }
                .to_owned(),
            },
        ),
    };
    let out = months
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let band = Band {
                expected: round(measure, f.mean[k]),
                lower: round(measure, f.lower[k]),
                upper: round(measure, f.upper[k]),
            };
            (m.label(), band)
        })
        .collect();
    let labels: Vec<String> = facts.iter().map(|(m, _)| m.label()).collect();
    Ok(Baseline {
        backtest: Backtest::of(&f.backtest, &labels, measure),
        model: Model::of(f.model),
        months: out,
        driver: driver_view,
    })
}

/// What is served for a scope now: the latest publication entry, a computed baseline, or
/// the reason there is none.
pub enum Served {
    Published(Box<Publication>),
    Computed(Box<Baseline>),
    Unavailable(String),
}

/// Decides the copy: the latest publication wins (a withdrawal makes it unavailable);
/// otherwise a computed baseline when the scope meets the floor.
pub fn choose(
    entries: &[Entry],
    h: &History,
    r: &Readiness,
    input: &Input,
    rows: &BTreeMap<String, MonthRow>,
) -> Result<Served> {
    if let Some(latest) = entries.first() {
        if latest.withdrawn() {
            let why = latest.doc["reason"].as_str().unwrap_or("no reason given");
            return Ok(Served::Unavailable(format!(
                "the published forecast was withdrawn: {why}"
            )));
        }
        return Ok(Served::Published(Box::new(latest.publication()?)));
    }
    if !h.complete.iter().any(|(_, f)| f.has_sales()) {
        return Ok(Served::Unavailable(
            "nothing published and no sales in the warehouse to compute from".into(),
        ));
    }
    if r.months() < REQUIRED {
        return Ok(Served::Unavailable(format!(
            "nothing published, and the warehouse holds {} complete months of sales in a row; a computed baseline needs {REQUIRED}",
            r.months()
        )));
    }
    let c = compute(
        h,
        r,
        input.forecast.measure,
        input.forecast.horizon,
        input.forecast.spend_basis,
        rows,
    )?;
    Ok(Served::Computed(Box::new(c)))
}

/// How many complete months an answer shows before the forecast.
const HISTORY_SHOWN: usize = 24;

/// The last complete months the warehouse holds (up to [`HISTORY_SHOWN`]), in the measure's
/// unit, so a reader sees the forecast beside what it continues.
fn history(h: &History, measure: Measure) -> Vec<Actual> {
    let skip = h.complete.len().saturating_sub(HISTORY_SHOWN);
    h.complete[skip..]
        .iter()
        .map(|(m, f)| Actual {
            month: m.label(),
            actual: round(measure, f.measure(measure)),
        })
        .collect()
}

/// Days since an RFC 3339 time.
fn age_days(at: &str) -> Option<i64> {
    let t = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    Some((chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_days())
}

/// What is served of `copy`: its months with the month rows applied (or the units document),
/// beside its model, backtest and driver; or why nothing is.
fn serve(
    copy: Served,
    h: &History,
    input: &Input,
    (scope_id, rows): (Option<String>, &BTreeMap<String, MonthRow>),
) -> Availability {
    let measure = input.forecast.measure;
    let (source, published, copy) = match copy {
        Served::Unavailable(reason) => {
            return Availability::Unavailable {
                available: false,
                reason,
            };
        }
        Served::Published(p) => {
            let at = p.published_at.clone();
            let by = PublishedRef {
                age_days: age_days(&at),
                published_at: at,
                published_by: p.published_by.clone(),
                data_through: p.data_through.clone(),
            };
            ("published", Some(by), p.copy(measure).clone())
        }
        Served::Computed(c) => ("computed", None, *c),
    };
    let served = corrected(measure, &copy.months, rows);
    let (months, document) = if measure == Measure::Units {
        let about = units::About {
            scope_id,
            source: Some(source),
            data_through: h.data.end,
            spend_basis: input.forecast.spend_basis.as_str(),
            model: Some(&copy.model),
        };
        (None, Some(units::document(about, &served)))
    } else {
        (Some(served), None)
    };
    Availability::Available(Box::new(Available {
        source,
        published,
        available: true,
        history: history(h, measure),
        model: copy.model,
        backtest: copy.backtest,
        driver: copy.driver,
        months,
        document,
    }))
}

/// The request.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<BaselineAnswer>> {
    let (h, id) = super::load(wh, input).await?;
    let r = readiness::assess(&h);
    let measure = input.forecast.measure;
    let (entries, rows) = state::of(&input.state, id.as_deref()).await?;
    let mut limitations = vec![
        "Ranges are 95% ranges calibrated on the model's own rolling-origin backtest errors; a month with a replaced value has no range.".to_owned(),
    ];
    if id.is_none() {
        limitations.push("A brand of several seller rows has no forecast state: corrections and published copies belong to one merchant or one sub-brand.".into());
    }
    let served = serve(
        choose(&entries, &h, &r, input, &rows)?,
        &h,
        input,
        (id.clone(), &rows),
    );
    Ok(Answer {
        result: BaselineAnswer {
            scope_id: id,
            measure: measure.as_str(),
            spend_basis: input.forecast.spend_basis.as_str(),
            currency: input.scope.currency.clone(),
            readiness: r.view(),
            data_through: h.data.end,
            served,
        },
        limitations,
        evidence: Vec::new(),
    })
}
