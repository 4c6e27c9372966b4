//! What forecast state says about a scope: its id (`src:<database>:<merchant>`, with
//! `:scope:<key>` for a sub-brand), a sub-brand's labels, the month rows of corrections, and
//! the published copies. Publications live beside the forecast state documents, under `pub:`
//! keys the corrections routes do not serve: each publish or withdrawal adds one entry (keyed
//! by its time), so the history stays and TRACK can read the copy made before a month closed.

use std::collections::BTreeMap;

use pp_core::{Error, Kind, Result};
use pp_store::forecast::DocRow;
use serde_json::Value;

use super::history::Labels;
use crate::engines::{Input, StateStore};

/// The forecast state scope id of a run's scope: one seller row (or its sub-brand); a brand
/// has none (it has no single home for corrections or publications).
pub fn scope_id(input: &Input) -> Option<String> {
    if input.scope.brand.is_some() || input.scope.sellers.len() != 1 {
        return None;
    }
    let base = format!(
        "src:{}:{}",
        input.state.tenant.as_str(),
        input.scope.sellers[0].id
    );
    Some(match &input.forecast.scope_key {
        Some(k) => format!("{base}:scope:{k}"),
        None => base,
    })
}

fn parse(doc: &str) -> Result<Value> {
    serde_json::from_str(doc).map_err(Error::internal_from)
}

/// A sub-brand's labels, from its definition; `not_found` when the merchant has none by that key.
pub async fn labels(st: &StateStore, scope_id: &str, key: &str) -> Result<Labels> {
    let row = st
        .store
        .forecast()
        .doc(st.tenant.as_str(), &format!("fb:scope_def:{scope_id}"))
        .await?;
    let Some(row) = row else {
        return Err(Error::new(Kind::NotFound, format!("this merchant has no sub-brand '{key}'"))
            .with_fix("List the merchant's sub-brands with GET /api/app-state/forecasting/scopes; the key is the part after :scope: of its scopeId."));
    };
    let doc = parse(&row.doc)?;
    let list = |f: &str| -> Vec<String> {
        doc[f]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default()
    };
    Ok(Labels {
        items: list("itemValues"),
        campaigns: list("campaignValues"),
    })
}

/// A stored month row, as corrections apply it.
#[derive(Debug, Clone)]
pub struct MonthRow {
    pub doc: Value,
    pub updated_at: String,
    pub updated_by: String,
}

/// The live documents of exactly scope `scope_id` under key `prefix` (at most 500).
async fn docs(st: &StateStore, prefix: &str, scope_id: &str) -> Result<Vec<DocRow>> {
    st.store
        .forecast()
        .docs(st.tenant.as_str(), prefix, Some(scope_id), None, 500)
        .await
}

/// The scope's month rows by `YYYY-MM`.
pub async fn month_rows(st: &StateStore, scope_id: &str) -> Result<BTreeMap<String, MonthRow>> {
    let rows = docs(st, &format!("fb:override:{scope_id}"), scope_id).await?;
    rows.iter()
        .map(|r| {
            let month = r.key.rsplit(':').next().unwrap_or_default();
            Ok((
                month[..7.min(month.len())].to_owned(),
                MonthRow {
                    doc: parse(&r.doc)?,
                    updated_at: r.updated_at.clone(),
                    updated_by: r.updated_by.clone(),
                },
            ))
        })
        .collect()
}

/// One publication entry: a published copy, or a withdrawal.
#[derive(Debug, Clone)]
pub struct Entry {
    pub doc: Value,
}

impl Entry {
    pub fn withdrawn(&self) -> bool {
        self.doc["withdrawn"].as_bool().unwrap_or(false)
    }

    /// The published copy this entry holds; an error naming why when it does not read (a
    /// stored publication is never served half-read).
    pub fn publication(&self) -> Result<super::publish::Publication> {
        serde_json::from_value(self.doc.clone())
            .map_err(|e| Error::internal_with("a stored forecast publication does not read", e))
    }
}

/// The key prefix of a scope's publications.
pub fn publication_prefix(scope_id: &str) -> String {
    format!("pub:{scope_id}")
}

/// The scope's publication entries, newest first (keys count down from the newest), the
/// newest 500.
pub async fn publications(st: &StateStore, scope_id: &str) -> Result<Vec<Entry>> {
    let rows = docs(st, &publication_prefix(scope_id), scope_id).await?;
    rows.iter()
        .map(|r| {
            Ok(Entry {
                doc: parse(&r.doc)?,
            })
        })
        .collect()
}

/// What forecast state holds for scope `id`: its publication entries (newest first) and its
/// month rows; nothing for a scope without an id (a brand).
pub async fn of(
    st: &StateStore,
    id: Option<&str>,
) -> Result<(Vec<Entry>, BTreeMap<String, MonthRow>)> {
    match id {
        Some(id) => Ok((publications(st, id).await?, month_rows(st, id).await?)),
        None => Ok((Vec::new(), BTreeMap::new())),
    }
}
