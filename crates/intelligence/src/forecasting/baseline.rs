//! `FCT-BASELINE-01`: the forecast a plan rests on. A published copy always wins; with none,
//! a baseline is computed from the warehouse (`source: computed`) when the scope meets the
//! 12-month floor; a withdrawn copy, a scope below the floor, or nothing to compute from
//! answers `available: false` with the reason. The month rows of forecast state are applied
//! to the served months exactly as their modes say (`replace` serves the person's value,
//! `suppress` serves none, `inherit` the model's).

use std::collections::BTreeMap;

use pp_core::{Error, Result};
use pp_forecast_models::{Options, driver};
use serde_json::{Map, Value, json};

use super::history::History;
use super::readiness::{self, REQUIRED, Readiness};
use super::state::{self, Entry, MonthRow};
use super::units;
use crate::data::Wh;
use crate::engines::{Answer, Input, num};
use crate::params::{Measure, Month, SpendBasis};

/// A served figure rounded to cents (revenue) or whole units.
pub fn round(measure: Measure, x: f64) -> Value {
    match measure {
        Measure::Revenue => num((x * 100.0).round() / 100.0),
        Measure::Units if x.is_finite() => Value::from(x.round() as i64),
        Measure::Units => Value::Null,
    }
}

/// A score or coefficient to three decimals.
fn thousandths(x: f64) -> Value {
    num((x * 1000.0).round() / 1000.0)
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
) -> Result<Value> {
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
            let view = json!({
                "considered": true,
                "used": d.used,
                "salesPerUnitOfSpend": thousandths(d.coefficient),
                "backtestScaledErrorWith": thousandths(d.scaled_error_with),
                "backtestScaledErrorWithout": thousandths(d.scaled_error_without),
                "spendBasis": basis.as_str(),
            });
            (d.forecast, view)
        }
        None => (
            pp_forecast_models::forecast(&y, &opts).map_err(|e| Error::internal(e.0))?,
            json!({ "considered": false, "used": false, "reason": if measure == Measure::Units { "units are forecast from their own history" } else { "no spend plan in forecast state (adSpend replace values for every month forecast)" } }),
        ),
    };
    let mut out = Map::new();
    for (k, m) in months.iter().enumerate() {
        out.insert(
            m.label(),
            json!({ "expected": round(measure, f.mean[k]), "lower": round(measure, f.lower[k]), "upper": round(measure, f.upper[k]) }),
        );
    }
    let label_of = |train: usize| facts.get(train.saturating_sub(1)).map(|(m, _)| m.label());
    let cuts: Vec<Value> = f
        .backtest
        .cuts
        .iter()
        .map(|c| {
            json!({
                "trainedThrough": label_of(c.train),
                "months": c.actual.iter().zip(&c.forecast).enumerate().map(|(k, (a, p))| json!({
                    "month": facts.get(c.train + k).map(|(m, _)| m.label()),
                    "actual": round(measure, *a),
                    "forecast": round(measure, *p),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    Ok(json!({
        "model": {
            "label": f.model.label,
            "methods": f.model.methods,
            "seasonal": f.model.seasonal,
            "shortHistory": f.model.short_history,
            "historyMonths": f.model.history_months,
            "rangeLevel": 0.95,
        },
        "months": out,
        "backtest": {
            "cuts": cuts,
            "scaledError": thousandths(f.backtest.scaled_error),
            "methodScores": f.backtest.scores.iter().map(|s| json!({ "method": s.method, "scaledError": thousandths(s.scaled_error) })).collect::<Vec<_>>(),
            "rangeErrors": f.backtest.range_errors,
        },
        "driver": driver_view,
    }))
}

/// The served months: the copy's months with the month rows applied.
pub fn corrected(
    measure: Measure,
    months: &Value,
    rows: &BTreeMap<String, MonthRow>,
) -> Vec<Value> {
    let field = match measure {
        Measure::Revenue => "sales",
        Measure::Units => "units",
    };
    let Some(map) = months.as_object() else {
        return Vec::new();
    };
    map.iter()
        .map(|(key, model)| {
            let mut out = json!({ "month": key, "expected": model["expected"], "lower": model["lower"], "upper": model["upper"], "model": model });
            if let Some(row) = rows.get(key) {
                let c = &row.doc[field];
                let mode = c["mode"].as_str().unwrap_or("inherit");
                match mode {
                    "replace" => {
                        // forecast state refuses a replace without a number; should one be
                        // stored anyway, nothing is served rather than a made-up zero
                        out["expected"] = c["value"].as_f64().map_or(Value::Null, |v| round(measure, v));
                        out["lower"] = Value::Null;
                        out["upper"] = Value::Null;
                    }
                    "suppress" => {
                        out["expected"] = Value::Null;
                        out["lower"] = Value::Null;
                        out["upper"] = Value::Null;
                        out["suppressed"] = true.into();
                    }
                    _ => {}
                }
                out["correction"] = json!({
                    "field": field,
                    "mode": mode,
                    "value": c.get("value").cloned().unwrap_or(Value::Null),
                    "status": row.doc.get("status").cloned().unwrap_or_else(|| "auto".into()),
                    "note": row.doc.get("note").cloned().unwrap_or(Value::Null),
                    "updatedBy": row.updated_by,
                    "updatedAt": row.updated_at,
                });
            }
            out
        })
        .collect()
}

/// What is served for a scope now: the latest publication entry, a computed baseline, or
/// the reason there is none.
pub enum Served {
    Published(Entry),
    Computed(Value),
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
        return Ok(Served::Published(latest.clone()));
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
    Ok(Served::Computed(c))
}

/// How many complete months an answer shows before the forecast.
const HISTORY_SHOWN: usize = 24;

/// The last complete months the warehouse holds (up to [`HISTORY_SHOWN`]), in the measure's
/// unit, so a reader sees the forecast beside what it continues.
fn history_json(h: &History, measure: Measure) -> Value {
    let skip = h.complete.len().saturating_sub(HISTORY_SHOWN);
    h.complete[skip..]
        .iter()
        .map(|(m, f)| json!({ "month": m.label(), "actual": round(measure, f.measure(measure)) }))
        .collect()
}

/// Days since an RFC 3339 time.
fn age_days(at: &str) -> Option<i64> {
    let t = chrono::DateTime::parse_from_rfc3339(at).ok()?;
    Some((chrono::Utc::now() - t.with_timezone(&chrono::Utc)).num_days())
}

/// The request.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer> {
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
    let mut result = json!({
        "scopeId": id,
        "measure": measure.as_str(),
        "spend_basis": input.forecast.spend_basis.as_str(),
        "currency": input.scope.currency,
        "readiness": r.view(),
        "dataThrough": h.data.end.to_string(),
    });
    let copy = match choose(&entries, &h, &r, input, &rows)? {
        Served::Unavailable(reason) => {
            result["available"] = false.into();
            result["reason"] = reason.into();
            return Ok(Answer {
                result,
                limitations,
                evidence: Vec::new(),
            });
        }
        Served::Published(e) => {
            let body = e.doc[measure.as_str()].clone();
            let at = e.doc["publishedAt"].as_str().unwrap_or_default().to_owned();
            result["source"] = "published".into();
            result["published"] = json!({ "publishedAt": at, "publishedBy": e.doc["publishedBy"], "dataThrough": e.doc["dataThrough"], "ageDays": age_days(&at) });
            body
        }
        Served::Computed(c) => {
            result["source"] = "computed".into();
            c
        }
    };
    result["available"] = true.into();
    result["history"] = history_json(&h, measure);
    let served = corrected(measure, &copy["months"], &rows);
    result["model"] = copy["model"].clone();
    result["backtest"] = copy["backtest"].clone();
    result["driver"] = copy["driver"].clone();
    if measure == Measure::Units {
        result["document"] = units::document(&result, &served);
    } else {
        result["months"] = Value::Array(served);
    }
    Ok(Answer {
        result,
        limitations,
        evidence: Vec::new(),
    })
}
