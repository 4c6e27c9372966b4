//! The units document, `forecast_bridge.units_document/v1` (contract 0.2.0): how a units
//! forecast is served, by `FCT-BASELINE-01` and `FCT-TRACK-01` alike, every figure under a
//! stable figure id (`units.<YYYY-MM>`, `units.ytd.<YYYY>`). Its JSON Schema is
//! `docs/schemas/forecast_bridge.units_document.v1.json`; the API tests validate every units
//! answer against it.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Number;

use super::copy::{Figure, ServedMonth};
use crate::params::Measure;

pub const SCHEMA: &str = "forecast_bridge.units_document/v1";
pub const CONTRACT: &str = "0.2.0";

/// A figure's id: the measure, then the month (`units.2026-11`) or the year to date
/// (`units.ytd.2026`).
pub fn figure_id(measure: Measure, what: &str) -> String {
    format!("{}.{what}", measure.as_str())
}

/// The units document.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "UnitsDocument")]
pub struct Document {
    /// Always `forecast_bridge.units_document/v1`.
    pub schema: &'static str,
    pub contract_version: &'static str,
    pub scope_id: Option<String>,
    /// `published`, `computed`, or null when nothing is served.
    pub source: Option<&'static str>,
    pub data_through: chrono::NaiveDate,
    pub spend_basis: &'static str,
    pub model: DocModel,
    pub months: Vec<DocMonth>,
}

/// The model behind the document (null fields when nothing is served).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "UnitsDocumentModel")]
pub struct DocModel {
    pub label: Option<String>,
    pub seasonal: Option<bool>,
}

/// One month of the document.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "UnitsDocumentMonth")]
pub struct DocMonth {
    pub figure_id: String,
    pub month: String,
    pub expected: Figure,
    pub lower: Figure,
    pub upper: Figure,
    pub model_expected: Figure,
    pub correction: Option<DocCorrection>,
}

/// A month's correction, as the document carries it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "UnitsDocumentCorrection")]
pub struct DocCorrection {
    pub mode: String,
    pub value: Option<Number>,
    pub status: String,
}

/// What a document is made for besides its months.
pub struct About<'a> {
    pub scope_id: Option<String>,
    pub source: Option<&'static str>,
    pub data_through: chrono::NaiveDate,
    pub spend_basis: &'static str,
    pub model: Option<&'a super::copy::Model>,
}

/// The document for `about` and its served months.
pub fn document(about: About<'_>, months: &[ServedMonth]) -> Document {
    Document {
        schema: SCHEMA,
        contract_version: CONTRACT,
        scope_id: about.scope_id,
        source: about.source,
        data_through: about.data_through,
        spend_basis: about.spend_basis,
        model: DocModel {
            label: about.model.map(|m| m.label.clone()),
            seasonal: about.model.map(|m| m.seasonal),
        },
        months: months
            .iter()
            .map(|m| DocMonth {
                figure_id: figure_id(Measure::Units, &m.month),
                month: m.month.clone(),
                expected: m.expected.clone(),
                lower: m.lower.clone(),
                upper: m.upper.clone(),
                model_expected: m.model.expected.clone(),
                correction: m.correction.as_ref().map(|c| DocCorrection {
                    mode: c.mode.clone(),
                    value: c.value.clone(),
                    status: c.status.clone(),
                }),
            })
            .collect(),
    }
}
