//! What else happened in an outcome's windows, listed as confounders: the account's other
//! audited writes, the timeline's stakes (promotions, price tests, peaks, launches, other
//! budget changes), and the stock-outs the inventory shows.

use chrono::{Duration, NaiveDate};
use pp_core::Result;
use pp_store::ads_writes::{ANSWERED, AuditFilter};
use pp_store::brand::TimelineQuery;
use schemars::JsonSchema;
use serde::Serialize;

use super::change::Change;
use crate::data::{self, Wh};
use crate::engines::Input;
use crate::params::Period;

/// Confounders listed one by one at most (the rest are counted).
const LISTED: usize = 25;

fn day_ms(d: NaiveDate) -> i64 {
    d.and_hms_opt(0, 0, 0)
        .map(|t| t.and_utc().timestamp_millis())
        .unwrap_or_default()
}

/// Something else that happened in the windows.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schemars(rename = "OutcomeConfounder")]
pub enum Confounder {
    /// Another audited write for the merchant.
    #[serde(rename_all = "camelCase")]
    AuditedWrite {
        audit_id: String,
        operation: String,
        /// RFC 3339.
        at: String,
        actor: String,
    },
    /// A timeline stake about the merchant.
    #[serde(rename_all = "camelCase")]
    Stake {
        stake_id: i64,
        category: String,
        brand: String,
        start: String,
        end: String,
        interpretation: Option<String>,
    },
    /// An item without sellable stock.
    StockOut {
        asin: String,
        start: NaiveDate,
        end: NaiveDate,
    },
}

/// A confounder and the sentence that tells it.
type Found = (Confounder, String);

/// The confounders over `span`, and a sentence for each.
pub async fn confounders(
    wh: &Wh,
    input: &Input,
    change: &Change,
    span: Period,
) -> Result<(Vec<Confounder>, Vec<String>)> {
    let mut found = audited(input, change, span).await?;
    found.extend(staked(input, change, span).await?);
    // vendors have no inventory snapshots
    if !input.scope.vendor {
        for (asin, first, last) in stock_outs(wh, input, span).await? {
            found.push((
                Confounder::StockOut {
                    asin: asin.clone(),
                    start: first,
                    end: last,
                },
                format!("{asin} had no sellable stock from {first} to {last}: it sold nothing and served no ads on those days."),
            ));
        }
    }
    let more = found.len().saturating_sub(LISTED);
    let (list, mut said): (Vec<Confounder>, Vec<String>) = found.into_iter().take(LISTED).unzip();
    if more > 0 {
        said.push(format!("{more} more confounders are not listed."));
    }
    Ok((list, said))
}

/// The merchant's other answered audited writes in `span`, oldest first.
async fn audited(input: &Input, change: &Change, span: Period) -> Result<Vec<Found>> {
    let st = &input.state;
    let tokens: Vec<&str> = input
        .scope
        .sellers
        .iter()
        .map(|s| s.token.as_str())
        .collect();
    let audits = st
        .store
        .ads_writes()
        .list(
            &st.tenant,
            &AuditFilter {
                since_ms: Some(day_ms(span.start)),
                until_ms: Some(day_ms(span.end + Duration::days(1))),
                limit: 200,
                ..AuditFilter::default()
            },
        )
        .await?;
    let others = audits.iter().rev().filter(|a| {
        a.status == ANSWERED
            && Some(&a.id) != change.audit_id.as_ref()
            && tokens.contains(&a.merchant.as_str())
    });
    Ok(others
        .map(|a| {
            let at = pp_store::rfc3339_ms(a.created_ms);
            let said = format!(
                "Another audited write landed in the windows: {} ({}) at {at} by {}.",
                a.operation, a.id, a.actor
            );
            let c = Confounder::AuditedWrite {
                audit_id: a.id.clone(),
                operation: a.operation.clone(),
                at,
                actor: a.actor.clone(),
            };
            (c, said)
        })
        .collect())
}

/// The timeline's stakes about the merchant overlapping `span`, oldest first, less the change
/// itself.
async fn staked(input: &Input, change: &Change, span: Period) -> Result<Vec<Found>> {
    let st = &input.state;
    let stakes = st
        .store
        .brand()
        .timeline(
            st.tenant.as_str(),
            &TimelineQuery {
                today: chrono::Utc::now().date_naive().to_string(),
                kind: Some("stake".into()),
                overlaps: Some((span.start.to_string(), span.end.to_string())),
                limit: 500,
                ..TimelineQuery::default()
            },
        )
        .await?;
    let ids = input.scope.seller_ids();
    let mut found = Vec::new();
    for s in stakes.iter().rev() {
        let p = &s.payload;
        let mine = p["seller_id"].as_i64().is_none_or(|id| ids.contains(&id));
        let starts = s.starts_on.as_deref().unwrap_or(&s.occurred_on);
        let itself = Some(s.id) == change.stake_id
            || (starts == change.first_day.to_string()
                && (change.campaigns.contains(&p["campaign_id"].to_string())
                    || p["asin"]
                        .as_str()
                        .is_some_and(|a| change.asins.iter().any(|x| x == a))));
        if !mine || itself {
            continue;
        }
        let (category, end) = (
            s.category.clone().unwrap_or_default(),
            s.ends_on.clone().unwrap_or_else(|| starts.to_owned()),
        );
        let said = format!(
            "A {} stake on {} runs {starts} to {end}: {}",
            category.replace('_', " "),
            s.brand,
            s.interpretation.as_deref().unwrap_or("")
        );
        let c = Confounder::Stake {
            stake_id: s.id,
            category,
            brand: s.brand.clone(),
            start: starts.to_owned(),
            end,
            interpretation: s.interpretation.clone(),
        };
        found.push((c, said));
    }
    Ok(found)
}

/// Each item's runs of days without sellable stock inside `span`.
async fn stock_outs(
    wh: &Wh,
    input: &Input,
    span: Period,
) -> Result<Vec<(String, NaiveDate, NaiveDate)>> {
    let mut runs: Vec<(String, NaiveDate, NaiveDate)> = Vec::new();
    for d in data::empty_days(wh, &input.scope, span).await? {
        match runs.last_mut() {
            Some((asin, _, last)) if *asin == d.asin && *last + Duration::days(1) == d.date => {
                *last = d.date;
            }
            _ => runs.push((d.asin, d.date, d.date)),
        }
    }
    Ok(runs)
}
