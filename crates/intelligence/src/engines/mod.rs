//! The INS engines. Each takes the checked [`Input`] and the tenant's warehouse and answers a
//! result, its limitations and its evidence; the service stamps versions and stores the run.
//! The bridges' arithmetic is pure (`ops_bridge::compute`, `ads_bridge::compute`) so it can be
//! checked without a warehouse.

pub mod ads_bridge;
pub mod change_outcome;
pub mod daypart;
pub mod duo;
pub mod lost_sales;
pub mod monthly;
pub mod ops_bridge;
pub mod payout;
pub mod profit;
pub mod profit_bridge;

use schemars::JsonSchema;
use serde_json::Value;

use crate::evidence::Statement;
use pp_core::TenantId;
use pp_store::Store;

use crate::params::{
    ChangeChoices, Grain, Measure, Month, PacingChoices, Period, ProfitChoices, SpendBasis,
};
use crate::scope::Scope;

/// What an engine is given: the resolved scope, the periods (defaults filled, checked against
/// the data), and the caller's other choices.
#[derive(Debug, Clone)]
pub struct Input {
    pub scope: Scope,
    pub period: Option<Period>,
    pub compare_period: Option<Period>,
    pub month: Option<Month>,
    pub grain: Grain,
    pub top: usize,
    /// The days the scope's main table holds.
    pub data: Period,
    /// The forecasting requests' choices.
    pub forecast: ForecastChoices,
    /// The tenant's state store (forecast state, published forecasts, audited writes, the
    /// timeline).
    pub state: StateStore,
    /// The change an outcome judges.
    pub change: ChangeChoices,
    /// What a pacing plan is asked for.
    pub pacing: PacingChoices,
    /// Who asked, with the marketplace a plan's dry run goes through (plan requests only).
    pub caller: Option<crate::plan::Caller>,
    /// What a profit request is asked for.
    pub profit: ProfitChoices,
}

/// What a forecasting request was asked for.
#[derive(Debug, Clone)]
pub struct ForecastChoices {
    pub scope_key: Option<String>,
    pub measure: Measure,
    pub spend_basis: SpendBasis,
    pub horizon: usize,
}

/// The state store and the tenant a run reads it for.
#[derive(Clone)]
pub struct StateStore {
    pub store: Store,
    pub tenant: TenantId,
}

impl std::fmt::Debug for StateStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StateStore({})", self.tenant.as_str())
    }
}

/// What an engine answers: its own result type, its limitations and its evidence. The result
/// becomes JSON once, when the service stores the run; its schema (the OpenAPI document's) is
/// derived from the same type.
#[derive(Debug, Clone)]
pub struct Answer<R> {
    pub result: R,
    pub limitations: Vec<String>,
    pub evidence: Vec<Statement>,
}

impl<R: serde::Serialize> Answer<R> {
    /// The answer with its result as JSON (the one place a result is serialized).
    pub fn into_json(self) -> pp_core::Result<Answer<Value>> {
        Ok(Answer {
            result: serde_json::to_value(&self.result).map_err(pp_core::Error::internal_from)?,
            limitations: self.limitations,
            evidence: self.evidence,
        })
    }
}

/// An amount in the currency's major unit (cents / 100).
pub type Money = f64;

/// The JSON Schemas of result types, drawn by one generator: a result's schema is a `$ref`
/// into the definitions, which hold every named type once, under the OpenAPI document's
/// `components/schemas`. Number formats are left out (JSON has one number type, and strict
/// validators refuse formats they do not know).
pub struct Schemas {
    generator: schemars::SchemaGenerator,
}

impl Default for Schemas {
    fn default() -> Self {
        // OpenAPI 3.1 schemas are JSON Schema 2020-12
        let mut settings = schemars::generate::SchemaSettings::draft2020_12();
        settings.definitions_path = "/components/schemas".into();
        settings.meta_schema = None;
        // what the results are as written: a field always written is required, null or not
        settings.contract = schemars::generate::Contract::Serialize;
        settings.transforms.push(Box::new(NoFormats));
        Self {
            generator: settings.into_generator(),
        }
    }
}

impl Schemas {
    /// The schema of `R` (a `$ref` for a named type).
    pub fn of<R: JsonSchema>(&mut self) -> Value {
        let mut schema = self.generator.subschema_for::<R>();
        schemars::transform::Transform::transform(&mut NoFormats, &mut schema);
        schema.to_value()
    }

    /// Every named type the schemas drawn so far refer to, by name.
    pub fn definitions(mut self) -> serde_json::Map<String, Value> {
        self.generator.take_definitions(true)
    }
}

/// Removes `format` from number and integer schemas (`int64`, `uint`, `double` …).
#[derive(Debug, Clone)]
struct NoFormats;

impl schemars::transform::Transform for NoFormats {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        if let Some(o) = schema.as_object_mut() {
            let numeric = o.get("type").is_some_and(|t| {
                let is = |t: &Value| t == "number" || t == "integer";
                is(t) || t.as_array().is_some_and(|a| a.iter().any(is))
            });
            if numeric {
                o.remove("format");
            }
        }
        schemars::transform::transform_subschemas(self, schema);
    }
}

/// Cents as an amount in the currency's major unit.
pub fn money(cents: i64) -> Money {
    cents as f64 / 100.0
}

/// An amount per unit (price, CPC, AOV) computed in cents, in major units rounded to the cent;
/// none when there was nothing to divide by.
pub fn unit_money(cents: Option<f64>) -> Option<Money> {
    cents.and_then(|c| num(c.round() / 100.0))
}

/// Adds one row's effects into a running total.
pub fn add_to<const N: usize>(total: &mut [i64; N], row: [i64; N]) {
    for (t, v) in total.iter_mut().zip(row) {
        *t += v;
    }
}

/// A finite number (none otherwise: JSON has no NaN).
pub fn num(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// `a / b` to four decimals, none when `b` is 0.
pub fn ratio(a: i64, b: i64) -> Option<f64> {
    if b == 0 {
        None
    } else {
        num((a as f64 / b as f64 * 10_000.0).round() / 10_000.0)
    }
}

/// The change from `before` to `after` in percent (one decimal), none from 0.
pub fn pct(before: i64, after: i64) -> Option<f64> {
    if before == 0 {
        None
    } else {
        num(((after - before) as f64 / before.abs() as f64 * 1000.0).round() / 10.0)
    }
}

/// `Some(x)` when the value is defined for the period, or the other period's value, or 0: a
/// factor that does not exist in one period (no sessions, no units) takes the other period's
/// value, so only the factors that really moved carry the change.
pub fn settle(before: Option<f64>, after: Option<f64>) -> (f64, f64) {
    match (before, after) {
        (Some(b), Some(a)) => (b, a),
        (Some(b), None) => (b, b),
        (None, Some(a)) => (a, a),
        (None, None) => (0.0, 0.0),
    }
}

/// `a / b` when `b` is not 0.
pub fn per(a: i64, b: i64) -> Option<f64> {
    (b != 0).then(|| a as f64 / b as f64)
}
