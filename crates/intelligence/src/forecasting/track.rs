//! `FCT-TRACK-01`: one report month against its forecast. The month's actual; for a closed
//! month the forecast as it was made before the month closed (the latest published copy whose
//! data ended before the month's last day, or else a baseline computed from the months before
//! it) and the projection of the current model, each under its own name, with a beat or miss
//! stated against the forecast; the year to date; the months to come; what the forecast
//! stands on; `forecast_state` and `spend_basis` on every spend and budget figure.

use std::collections::BTreeMap;

use pp_core::Result;
use serde_json::{Value, json};

use super::baseline::{self, Served, round};
use super::history::History;
use super::readiness::{self, REQUIRED};
use super::state::{self, Entry, MonthRow};
use super::units;
use crate::data::Wh;
use crate::engines::{Answer, Input, num};
use crate::params::{Measure, Month, SpendBasis};

fn actual(measure: Measure, h: &History, m: Month) -> Option<f64> {
    h.get(m).map(|f| f.measure(measure))
}

fn spend_figure(h: &History, m: Month, basis: SpendBasis, state: &str) -> Value {
    let v = h.get(m).map(|f| num(f.spend(basis)));
    json!({ "value": v, "spend_basis": basis.as_str(), "forecast_state": state })
}

/// The forecast of `m` as made before it closed.
fn before_close(
    entries: &[Entry],
    h: &History,
    input: &Input,
    rows: &BTreeMap<String, MonthRow>,
    m: Month,
) -> Result<Value> {
    let measure = input.forecast.measure;
    let end = m.period().end.to_string();
    for e in entries.iter().filter(|e| !e.withdrawn()) {
        let through = e.doc["dataThrough"].as_str().unwrap_or("9999");
        let fig = &e.doc[measure.as_str()]["months"][m.label()];
        if through < end.as_str() && !fig.is_null() {
            return Ok(
                json!({ "source": "published", "expected": fig["expected"], "lower": fig["lower"], "upper": fig["upper"], "publishedAt": e.doc["publishedAt"], "dataThrough": through }),
            );
        }
    }
    // computed from the complete months before `m` only
    let before = h.before(m);
    let r = readiness::assess(&before);
    if r.months() < REQUIRED {
        return Ok(
            json!({ "source": null, "reason": format!("no copy was published before {m} closed, and {} complete months preceded it (a baseline needs {REQUIRED})", r.months()) }),
        );
    }
    let c = baseline::compute(&before, &r, measure, 1, input.forecast.spend_basis, rows)?;
    let fig = &c["months"][m.label()];
    Ok(
        json!({ "source": "computed_before_close", "expected": fig["expected"], "lower": fig["lower"], "upper": fig["upper"], "dataThrough": before.data.end.to_string() }),
    )
}

/// The request.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer> {
    let (h, id) = super::load(wh, input).await?;
    let measure = input.forecast.measure;
    let basis = input.forecast.spend_basis;
    let m = input.month.expect("FCT-TRACK-01 requires month");
    let r = readiness::assess(&h);
    let (entries, rows) = state::of(&input.state, id.as_deref()).await?;
    let latest = entries.first().filter(|e| !e.withdrawn());
    let forecast_state = match (latest, r.last_complete) {
        (None, _) => "not_provided",
        (Some(e), Some(last))
            if e.doc["dataThrough"].as_str().unwrap_or("")
                >= last.period().end.to_string().as_str() =>
        {
            "provided_current"
        }
        (Some(_), _) => "stale",
    };
    let closed = h.complete.iter().any(|(x, _)| *x == m);
    let copy = baseline::choose(&entries, &h, &r, input, &rows)?;
    let (current, stands_on) = match &copy {
        Served::Published(e) => (
            e.doc[measure.as_str()].clone(),
            json!({ "source": "published", "publishedAt": e.doc["publishedAt"], "publishedBy": e.doc["publishedBy"], "dataThrough": e.doc["dataThrough"] }),
        ),
        Served::Computed(c) => (
            c.clone(),
            json!({ "source": "computed", "dataThrough": h.data.end.to_string() }),
        ),
        Served::Unavailable(why) => (Value::Null, json!({ "source": null, "reason": why })),
    };
    let served = baseline::corrected(measure, &current["months"], &rows);
    let served_of = |x: Month| served.iter().find(|v| v["month"] == x.label()).cloned();

    let mut month = json!({
        "month": m.label(),
        "closed": closed,
        "actual": actual(measure, &h, m).map(|v| round(measure, v)),
        "adSpend": spend_figure(&h, m, basis, forecast_state),
        "adBudget": rows.get(&m.label()).map(|row| json!({ "value": row.doc["adBudget"]["value"], "mode": row.doc["adBudget"]["mode"], "spend_basis": basis.as_str(), "forecast_state": forecast_state })),
    });
    if closed {
        let f = before_close(&entries, &h, input, &rows, m)?;
        if let (Some(a), Some(e)) = (actual(measure, &h, m), f["expected"].as_f64()) {
            month["beatOrMiss"] = json!({
                "against": "forecast",
                "verdict": if a >= e { "beat" } else { "miss" },
                "difference": round(measure, a - e),
                "percent": if e != 0.0 { num(((a - e) / e * 1000.0).round() / 10.0) } else { Value::Null },
            });
        }
        month["forecast"] = f;
        month["projection"] = served_of(m).unwrap_or_else(|| json!({ "basis": "the current model does not cover a closed month; the actual stands" , "expected": month["actual"] }));
    } else {
        month["projection"] = served_of(m).map_or(Value::Null, |v| json!({ "basis": "current model", "expected": v["expected"], "lower": v["lower"], "upper": v["upper"] }));
    }
    let jan = Month {
        year: m.year,
        month: 1,
    };
    let ytd: f64 = (0..m.month)
        .filter_map(|k| actual(measure, &h, jan.back(-(k as i32))))
        .sum();
    let to_come: Vec<Value> = served
        .iter()
        .filter(|v| v["month"].as_str().is_some_and(|s| s > m.label().as_str()))
        .map(|v| json!({ "figureId": units::figure_id(measure, v["month"].as_str().unwrap_or_default()), "month": v["month"], "expected": v["expected"], "lower": v["lower"], "upper": v["upper"] }))
        .collect();
    let mut result = json!({
        "scopeId": id,
        "measure": measure.as_str(),
        "spend_basis": basis.as_str(),
        "forecast_state": forecast_state,
        "currency": input.scope.currency,
        "month": month,
        "yearToDate": { "figureId": units::figure_id(measure, &format!("ytd.{}", m.year)), "from": jan.label(), "through": m.label(), "actual": round(measure, ytd) },
        "monthsToCome": to_come,
        "standsOn": stands_on,
        "dataThrough": h.data.end.to_string(),
    });
    if measure == Measure::Units {
        let mut doc_src = result.clone();
        doc_src["source"] = result["standsOn"]["source"].clone();
        doc_src["model"] = current["model"].clone();
        result["document"] = units::document(&doc_src, &served);
    }
    Ok(Answer {
        result,
        limitations: vec!["A month is closed when the warehouse holds its last day; a running month is compared with the days so far only as an actual to date.".into()],
        evidence: Vec::new(),
    })
}
