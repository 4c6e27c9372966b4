//! The forecasting requests (`FCT-*`): readiness, the baseline with a person's corrections,
//! and the month tracker, with publishing and withdrawing a forecast. They read a scope's
//! months from the warehouse (`history`), forecast state (`state`), and forecast with
//! `pp_forecast_models`; units are served as the `forecast_bridge.units_document/v1`
//! document (`units`).

pub mod baseline;
pub mod copy;
pub mod history;
pub mod publish;
pub mod readiness;
pub mod state;
pub mod track;
pub mod units;

use pp_core::Result;

use crate::data::Wh;
use crate::engines::Input;
use history::History;

/// The scope's months (a sub-brand's by its labels) and its forecast state scope id.
pub async fn load(wh: &Wh, input: &Input) -> Result<(History, Option<String>)> {
    let id = state::scope_id(input);
    let labels = match (&input.forecast.scope_key, &id) {
        (Some(k), Some(id)) => Some(state::labels(&input.state, id, k).await?),
        _ => None,
    };
    let h = history::read(wh, &input.scope, labels.as_ref(), input.data).await?;
    Ok((h, id))
}
