//! Publishing and withdrawing a scope's forecast (`POST /api/app-state/forecasting/publish`
//! and `…/withdraw`, `appstate:write`). Publishing computes the revenue and units baselines
//! from the warehouse now and stores them as one entry, with who published it and the last
//! day of data it stands on; withdrawing adds an entry that makes the scope's baseline
//! unavailable until the next publish. Entries are never rewritten.

use pp_core::{Error, Kind, Result};
use pp_store::forecast::{DocWrite, Plan};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::copy::Baseline;
use super::history::History;
use super::readiness::{self, REQUIRED};
use super::state::{self, publication_prefix};
use crate::engines::StateStore;
use crate::params::{Measure, SpendBasis};

/// Keys count down from this, so the newest entry sorts first.
const KEY_BASE: i64 = 9_999_999_999_999;

/// Stores `doc` as the scope's newest entry, made at `ms` by `actor`.
async fn add(st: &StateStore, scope_id: &str, actor: &str, ms: i64, doc: Value) -> Result<()> {
    let key = format!("{}:{:013}", publication_prefix(scope_id), KEY_BASE - ms);
    let now = pp_store::rfc3339_ms(ms);
    let write = DocWrite {
        key: key.clone(),
        kind: "published".into(),
        scope_id: scope_id.to_owned(),
        month: None,
        version: 1,
        doc: Some(doc.to_string()),
        created_at: now.clone(),
        updated_at: now,
        updated_by: actor.to_owned(),
    };
    st.store
        .forecast()
        .apply(st.tenant.as_str(), None, vec![key], move |_| {
            Ok((
                Plan {
                    docs: vec![write],
                    revisions: Vec::new(),
                },
                (),
            ))
        })
        .await
}

/// A published forecast, as stored and answered.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Publication {
    pub scope_id: String,
    pub published_at: String,
    pub published_by: String,
    /// The last day of sales the forecast saw.
    pub data_through: String,
    pub spend_basis: String,
    /// The revenue baseline, month by month.
    pub revenue: Baseline,
    /// The units baseline, month by month.
    pub units: Baseline,
}

impl Publication {
    /// The copy of `measure`.
    pub fn copy(&self, measure: Measure) -> &Baseline {
        match measure {
            Measure::Revenue => &self.revenue,
            Measure::Units => &self.units,
        }
    }
}

/// A withdrawn forecast, as stored and answered.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Withdrawal {
    pub scope_id: String,
    /// Always `true`.
    pub withdrawn: bool,
    pub reason: String,
    pub withdrawn_at: String,
    pub withdrawn_by: String,
}

/// Publishes `h`'s baselines for `scope_id` as `actor`; answers the stored entry.
pub async fn publish(
    st: &StateStore,
    scope_id: &str,
    actor: &str,
    h: &History,
    horizon: usize,
    basis: SpendBasis,
) -> Result<Publication> {
    let r = readiness::assess(h);
    if r.months() < REQUIRED {
        return Err(Error::new(
            Kind::NoDataForPeriod,
            format!(
                "{} complete months of sales in a row; publishing a forecast needs {REQUIRED}",
                r.months()
            ),
        )
        .with_field("readiness", crate::evidence::figure(r.view())));
    }
    let rows = state::month_rows(st, scope_id).await?;
    let revenue = super::baseline::compute(h, &r, Measure::Revenue, horizon, basis, &rows)?;
    let units = super::baseline::compute(h, &r, Measure::Units, horizon, basis, &rows)?;
    let ms = pp_store::jobs::now_ms();
    let doc = Publication {
        scope_id: scope_id.to_owned(),
        published_at: pp_store::rfc3339_ms(ms),
        published_by: actor.to_owned(),
        data_through: h.data.end.to_string(),
        spend_basis: basis.as_str().to_owned(),
        revenue,
        units,
    };
    let stored = serde_json::to_value(&doc).map_err(Error::internal_from)?;
    add(st, scope_id, actor, ms, stored).await?;
    Ok(doc)
}

/// Withdraws the scope's published forecast as `actor` with `reason`; `not_found` when
/// nothing is published.
pub async fn withdraw(
    st: &StateStore,
    scope_id: &str,
    actor: &str,
    reason: &str,
) -> Result<Withdrawal> {
    let entries = state::publications(st, scope_id).await?;
    match entries.first() {
        None => {
            return Err(Error::new(
                Kind::NotFound,
                format!("nothing is published for {scope_id}"),
            ));
        }
        Some(e) if e.withdrawn() => {
            return Err(Error::new(
                Kind::Conflict,
                format!("the forecast of {scope_id} is already withdrawn"),
            ));
        }
        Some(_) => {}
    }
    let ms = pp_store::jobs::now_ms();
    let doc = Withdrawal {
        scope_id: scope_id.to_owned(),
        withdrawn: true,
        reason: reason.to_owned(),
        withdrawn_at: pp_store::rfc3339_ms(ms),
        withdrawn_by: actor.to_owned(),
    };
    let stored = serde_json::to_value(&doc).map_err(Error::internal_from)?;
    add(st, scope_id, actor, ms, stored).await?;
    Ok(doc)
}
