//! Which change an outcome judges, from what the caller named: an audited write (`auditId`:
//! its campaigns, in force from the day after its commit, the commit's own day left out of
//! both windows), a timeline stake (`stakeId`: its first day, and the campaign or item its
//! record names), or a day with the campaigns and items it touched (`date`).

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result};
use pp_store::ads_writes::ANSWERED;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::engines::Input;

/// What named the change, as the result shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged, rename_all_fields = "camelCase")]
#[schemars(rename = "OutcomeChange")]
pub enum Named {
    /// A day with the campaigns and items it touched.
    Day {
        date: NaiveDate,
        campaign_ids: Vec<String>,
        asins: Vec<String>,
    },
    /// An audited write.
    Audit {
        audit_id: String,
        operation: String,
        /// RFC 3339.
        committed_at: String,
        campaign_ids: Vec<String>,
    },
    /// A timeline stake.
    Stake {
        stake_id: i64,
        category: Option<String>,
        campaign_ids: Vec<String>,
        asins: Vec<String>,
    },
}

/// A change, resolved.
#[derive(Debug, Clone)]
pub struct Change {
    /// What named it, as the result shows it.
    pub named: Named,
    /// The first day it was in force all day.
    pub first_day: NaiveDate,
    /// A day it took effect part-way through (left out of both windows).
    pub partial_day: Option<NaiveDate>,
    pub campaigns: Vec<String>,
    pub asins: Vec<String>,
    /// The audited write it is (left out of its own confounders).
    pub audit_id: Option<String>,
    /// The stake it is.
    pub stake_id: Option<i64>,
}

fn bad(msg: String) -> Error {
    Error::new(Kind::BadParams, msg)
}

/// Resolves the change `input` names.
pub async fn resolve(input: &Input) -> Result<Change> {
    let c = &input.change;
    if let Some(id) = &c.audit_id {
        return audited(input, id).await;
    }
    if let Some(id) = c.stake_id {
        return staked(input, id).await;
    }
    let Some(date) = c.date else {
        return Err(bad(
            "name the change: auditId (an audited write), stakeId (a timeline stake) or date (with campaignIds or asins)".into(),
        ));
    };
    Ok(Change {
        named: Named::Day {
            date,
            campaign_ids: c.campaign_ids.clone(),
            asins: c.asins.clone(),
        },
        first_day: date,
        partial_day: None,
        campaigns: c.campaign_ids.clone(),
        asins: c.asins.clone(),
        audit_id: None,
        stake_id: None,
    })
}

/// The campaign ids an audited write touched: each applied item's own `campaignId`, or its
/// entity's as read before the write.
fn audited_campaigns(answer: &Value, snapshot: &Value) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for ch in answer["changes"].as_array().into_iter().flatten() {
        let index = ch["index"].as_u64().unwrap_or(u64::MAX) as usize;
        let id = [&ch["after"]["campaignId"], &snapshot[index]["campaignId"]]
            .into_iter()
            .find_map(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            });
        if let Some(id) = id
            && !ids.contains(&id)
        {
            ids.push(id);
        }
    }
    ids
}

async fn audited(input: &Input, id: &str) -> Result<Change> {
    let st = &input.state;
    let row = st
        .store
        .ads_writes()
        .get(&st.tenant, id)
        .await?
        .ok_or_else(|| {
            Error::new(
                Kind::NotFound,
                format!("no audited write '{id}' in this account"),
            )
            .with_fix("Read auditId from a commit's answer or GET /api/marketplace/audit.")
        })?;
    let answer = row.answer.clone().unwrap_or(Value::Null);
    let applied = answer["changes"].as_array().is_some_and(|a| !a.is_empty());
    if row.status != ANSWERED || !applied {
        return Err(bad(format!(
            "audited write {id} changed nothing at the provider (status {}): there is no outcome to read",
            row.status
        )));
    }
    if !input.scope.sellers.iter().any(|s| s.token == row.merchant) {
        return Err(bad(format!(
            "audited write {id} acted as merchant {}; name that merchant (sellerId) to read its outcome",
            row.merchant
        )));
    }
    let campaigns = audited_campaigns(&answer, &row.snapshot);
    let first_day = pp_core::outcome::first_full_day(row.created_ms);
    Ok(Change {
        named: Named::Audit {
            audit_id: id.to_owned(),
            operation: row.operation.clone(),
            committed_at: pp_store::rfc3339_ms(row.created_ms),
            campaign_ids: campaigns.clone(),
        },
        first_day,
        partial_day: first_day.pred_opt(),
        campaigns,
        asins: Vec::new(),
        audit_id: Some(id.to_owned()),
        stake_id: None,
    })
}

async fn staked(input: &Input, id: i64) -> Result<Change> {
    let st = &input.state;
    let row = st
        .store
        .brand()
        .event(st.tenant.as_str(), id)
        .await?
        .filter(|e| e.kind == "stake")
        .ok_or_else(|| Error::new(Kind::NotFound, format!("no timeline stake {id}")))?;
    let first = row.starts_on.as_deref().unwrap_or(&row.occurred_on);
    let first_day = NaiveDate::parse_from_str(first, "%Y-%m-%d")
        .map_err(|e| Error::internal_with(format!("stake {id} starts on {first}"), e))?;
    if let Some(seller) = row.payload["seller_id"].as_i64()
        && !input.scope.sellers.iter().any(|s| s.id == seller)
    {
        return Err(bad(format!(
            "stake {id} is about seller row {seller}, which this merchant is not"
        )));
    }
    let campaigns = match &row.payload["campaign_id"] {
        Value::Number(n) => vec![n.to_string()],
        Value::String(s) => vec![s.clone()],
        _ => Vec::new(),
    };
    let asins = row.payload["asin"]
        .as_str()
        .map(|a| vec![a.to_owned()])
        .unwrap_or_default();
    Ok(Change {
        named: Named::Stake {
            stake_id: id,
            category: row.category.clone(),
            campaign_ids: campaigns.clone(),
            asins: asins.clone(),
        },
        first_day,
        partial_day: None,
        campaigns,
        asins,
        audit_id: None,
        stake_id: Some(id),
    })
}
