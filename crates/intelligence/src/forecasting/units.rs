//! The units document, `forecast_bridge.units_document/v1` (contract 0.2.0): how a units
//! forecast is served, by `FCT-BASELINE-01` and `FCT-TRACK-01` alike, every figure under a
//! stable figure id (`units.<YYYY-MM>`, `units.ytd.<YYYY>`). Its JSON Schema is
//! `docs/schemas/forecast_bridge.units_document.v1.json`; the API tests validate every units
//! answer against it.

use serde_json::{Value, json};

use crate::params::Measure;

pub const SCHEMA: &str = "forecast_bridge.units_document/v1";
pub const CONTRACT: &str = "0.2.0";

/// A figure's id: the measure, then the month (`units.2026-11`) or the year to date
/// (`units.ytd.2026`).
pub fn figure_id(measure: Measure, what: &str) -> String {
    format!("{}.{what}", measure.as_str())
}

/// The document for a result (`scopeId`, `source`, `dataThrough`, `spend_basis`, `model`)
/// and its served months.
pub fn document(result: &Value, months: &[Value]) -> Value {
    json!({
        "schema": SCHEMA,
        "contractVersion": CONTRACT,
        "scopeId": result["scopeId"],
        "source": result["source"],
        "dataThrough": result["dataThrough"],
        "spendBasis": result["spend_basis"],
        "model": { "label": result["model"]["label"], "seasonal": result["model"]["seasonal"] },
        "months": months.iter().map(|m| json!({
            "figureId": figure_id(Measure::Units, m["month"].as_str().unwrap_or_default()),
            "month": m["month"],
            "expected": m["expected"],
            "lower": m["lower"],
            "upper": m["upper"],
            "modelExpected": m["model"]["expected"],
            "correction": m.get("correction").map(|c| json!({ "mode": c["mode"], "value": c["value"], "status": c["status"] })).unwrap_or(Value::Null),
        })).collect::<Vec<_>>(),
    })
}
