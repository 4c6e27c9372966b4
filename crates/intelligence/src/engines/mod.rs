//! The INS engines. Each takes the checked [`Input`] and the tenant's warehouse and answers a
//! result, its limitations and its evidence; the service stamps versions and stores the run.
//! The bridges' arithmetic is pure (`ops_bridge::compute`, `ads_bridge::compute`) so it can be
//! checked without a warehouse.

pub mod ads_bridge;
pub mod change_outcome;
pub mod duo;
pub mod lost_sales;
pub mod monthly;
pub mod ops_bridge;

use serde_json::{Number, Value};

use crate::evidence::Statement;
use pp_core::TenantId;
use pp_store::Store;

use crate::params::{ChangeChoices, Grain, Measure, Month, PacingChoices, Period, SpendBasis};
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

/// What an engine answers.
#[derive(Debug, Clone)]
pub struct Answer {
    pub result: Value,
    pub limitations: Vec<String>,
    pub evidence: Vec<Statement>,
}

/// Cents as a JSON amount in the currency's major unit.
pub fn money(cents: i64) -> Value {
    num(cents as f64 / 100.0)
}

/// An amount per unit (price, CPC, AOV) computed in cents, as JSON in major units rounded to
/// the cent; `null` when there was nothing to divide by.
pub fn unit_money(cents: Option<f64>) -> Value {
    cents.map_or(Value::Null, |c| num(c.round() / 100.0))
}

/// Adds one row's effects into a running total.
pub fn add_to<const N: usize>(total: &mut [i64; N], row: [i64; N]) {
    for (t, v) in total.iter_mut().zip(row) {
        *t += v;
    }
}

/// A finite number as JSON (`null` otherwise).
pub fn num(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// `a / b` to four decimals, `null` when `b` is 0.
pub fn ratio(a: i64, b: i64) -> Value {
    if b == 0 {
        Value::Null
    } else {
        num((a as f64 / b as f64 * 10_000.0).round() / 10_000.0)
    }
}

/// The change from `before` to `after` in percent (one decimal), `null` from 0.
pub fn pct(before: i64, after: i64) -> Value {
    if before == 0 {
        Value::Null
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
