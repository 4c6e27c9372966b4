//! `PLN-BUDGET-PACING-01`: each campaign's daily budget for the rest of a month so the month's
//! ad spend lands on its budget. The budget is the request's figure or forecast state's
//! `adBudget` for the month; month-to-date spend is the warehouse's. What is left, over the days
//! left, is shared among the enabled campaigns a budget write can reach (Sponsored Products and
//! Sponsored Brands) by weight — recent spend, scaled by recent return against the account's
//! and by the share of recent days the campaign ran out of budget — each within the tenant's
//! write policy (its floor and ceiling, and `maxCut`/`maxRaise` of the current budget). Other
//! enabled campaigns keep their budgets and are counted as spending them. The answer is the
//! budget updates' dry runs: plans the existing commit sends, never a write of its own.

use chrono::{Duration, NaiveDate};
use pp_core::{Error, Kind, Result};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::Caller;
use super::allocate::{Slot, allocate};
use crate::daily::{self, Campaign, Pace};
use crate::data::Wh;
use crate::engines::{Answer, Input, Money, money};
use crate::params::{Month, Period};

/// What `PLN-BUDGET-PACING-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BudgetPacing {
    /// `YYYY-MM`.
    pub month: String,
    pub budget: Money,
    /// `request` or `forecast_state`.
    pub budget_source: &'static str,
    pub month_to_date_spend: Money,
    /// Null before the month's first data day.
    pub month_to_date_through: Option<NaiveDate>,
    pub remaining_from: NaiveDate,
    pub remaining_days: i64,
    /// The proposed daily budgets, summed.
    pub daily_total: Money,
    pub lands_at: Money,
    /// Where the month lands against its budget.
    pub gap: Money,
    pub gap_why: Vec<String>,
    pub campaigns: Vec<CampaignPlan>,
    /// The budget updates' dry runs: commit each to send it.
    pub plans: Vec<Plan>,
    pub assumptions: Vec<String>,
}

/// A campaign's proposed budget and what it stands on.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "PacedCampaign")]
pub struct CampaignPlan {
    pub campaign_id: String,
    pub name: String,
    pub ad_product: String,
    pub current_budget: Money,
    pub proposed_budget: Money,
    pub changed: bool,
    /// Whether a budget write reaches it (Sponsored Products and Brands).
    pub writable: bool,
    pub floor: Option<Money>,
    pub ceiling: Option<Money>,
    pub weight: f64,
    pub recent: Recent,
    pub month_to_date_spend: Money,
}

/// A campaign's recent pace.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "CampaignPace")]
pub struct Recent {
    pub spend: Money,
    pub sales: Money,
    /// Attributed sales per spend; null without spend.
    pub roas: Option<f64>,
    pub days: i64,
    pub days_out_of_budget: i64,
}

/// One budget update's dry run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "PacingPlan")]
pub struct Plan {
    /// `sp.update_campaigns` or `sb.update_campaigns`.
    pub operation: &'static str,
    pub profile_id: Option<String>,
    pub campaign_ids: Vec<String>,
    /// The call the dry run previewed (`marketplace_ads_call`'s arguments).
    pub call: Call,
    /// The marketplace's dry-run answer, as `POST /api/marketplace/ads/call` gives it: its
    /// plan id is what a commit sends.
    pub dry_run: Value,
}

/// An advertising call, as `marketplace_ads_call` takes it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "PacingCall")]
pub struct Call {
    pub operation: &'static str,
    pub profile_id: Option<String>,
    pub query: CallQuery,
}

/// The call's body.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "PacingCallQuery")]
pub struct CallQuery {
    pub body: CallBody,
}

/// The campaigns the call updates.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "PacingCallBody")]
pub struct CallBody {
    pub campaigns: Vec<Item>,
}

/// A campaign's budget update, as its ad product's write takes it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged, rename_all_fields = "camelCase")]
#[schemars(rename = "BudgetUpdate")]
pub enum Item {
    /// Sponsored Products: a daily budget object.
    Products {
        campaign_id: String,
        budget: DailyBudget,
    },
    /// Sponsored Brands: the amount.
    Brands { campaign_id: String, budget: Money },
}

/// A Sponsored Products budget.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DailyBudget {
    pub budget: Money,
    /// `DAILY`.
    pub budget_type: &'static str,
}

/// A budget update's item for a campaign id and a budget in cents.
type MakeItem = fn(&str, i64) -> Item;

/// The write that sets a campaign's daily budget, by ad product, and the item it takes.
fn budget_write(ad_product: &str) -> Option<(&'static str, MakeItem)> {
    match ad_product {
        "SPONSORED_PRODUCTS" => Some(("sp.update_campaigns", |id, cents| Item::Products {
            campaign_id: id.to_owned(),
            budget: DailyBudget {
                budget: money(cents),
                budget_type: "DAILY",
            },
        })),
        "SPONSORED_BRANDS" => Some(("sb.update_campaigns", |id, cents| Item::Brands {
            campaign_id: id.to_owned(),
            budget: money(cents),
        })),
        _ => None,
    }
}

/// Items one dry run carries, by operation (Sponsored Brands v4 takes 10).
fn max_items(operation: &str) -> usize {
    if operation.starts_with("sb.") {
        10
    } else {
        100
    }
}

/// The provider's smallest daily budget, in cents, where the policy sets no floor.
const PROVIDER_FLOOR: i64 = 100;

/// A campaign in the plan.
#[derive(Debug, Clone)]
pub struct Paced {
    pub campaign: Campaign,
    pub recent: Pace,
    pub month_to_date: i64,
    /// The write that reaches it, if any.
    pub operation: Option<&'static str>,
    pub floor: i64,
    pub ceiling: i64,
    pub weight: f64,
    pub proposed: i64,
}

/// The month's figures the plan stands on.
#[derive(Debug, Clone)]
pub struct MonthFigures {
    pub budget: i64,
    pub month_to_date: i64,
    pub remaining_days: i64,
}

/// Weighs `campaigns` (enabled ones, each with its floor and ceiling) and sets their daily
/// budgets for `m`; answers how far from the budget they land, and why.
pub fn propose(
    m: &MonthFigures,
    campaigns: &mut [Paced],
    lookback_days: i64,
) -> (i64, Vec<String>) {
    let (spend, sales) = campaigns
        .iter()
        .fold((0, 0), |(s, v), c| (s + c.recent.spend, v + c.recent.sales));
    let account_roas = (spend > 0).then(|| sales as f64 / spend as f64);
    for c in campaigns.iter_mut() {
        let per_day = c.recent.spend as f64 / lookback_days as f64;
        let roas = (c.recent.spend > 0).then(|| c.recent.sales as f64 / c.recent.spend as f64);
        let factor = match (roas, account_roas) {
            (Some(r), Some(a)) if a > 0.0 => (r / a).clamp(0.5, 2.0),
            _ => 1.0,
        };
        let constrained = c.recent.out_of_budget as f64 / lookback_days as f64;
        c.weight = per_day.max(c.campaign.budget as f64 * 0.25) * factor * (1.0 + constrained);
    }
    let fixed: i64 = campaigns
        .iter()
        .filter(|c| c.operation.is_none())
        .map(|c| c.campaign.budget)
        .sum();
    let days = m.remaining_days;
    let left = m.budget - m.month_to_date - days * fixed;
    // the whole cents a day closest to what is left
    let daily = (left as f64 / days as f64).round() as i64;
    let writable: Vec<usize> = (0..campaigns.len())
        .filter(|&i| campaigns[i].operation.is_some())
        .collect();
    let slots: Vec<Slot> = writable
        .iter()
        .map(|&i| Slot {
            weight: campaigns[i].weight,
            lo: campaigns[i].floor,
            hi: campaigns[i].ceiling,
        })
        .collect();
    let cents = allocate(daily, &slots);
    for (k, &i) in writable.iter().enumerate() {
        campaigns[i].proposed = cents[k];
    }
    for c in campaigns.iter_mut().filter(|c| c.operation.is_none()) {
        c.proposed = c.campaign.budget;
    }
    let lands = m.month_to_date + days * campaigns.iter().map(|c| c.proposed).sum::<i64>();
    let gap = m.budget - lands;
    let mut why = Vec::new();
    let (lo, hi): (i64, i64) = slots.iter().fold((0, 0), |(l, h), s| (l + s.lo, h + s.hi));
    if writable.is_empty() {
        why.push(
            "no enabled campaign can take a budget write (Sponsored Products or Sponsored Brands)"
                .to_owned(),
        );
    } else if daily > hi {
        why.push(format!(
            "every campaign the plan can change is at its ceiling (the policy's budget ceiling, or maxRaise times its budget): together {} a day, short of the {} a day the budget needs",
            money(hi), money(daily)
        ));
    } else if m.budget < m.month_to_date {
        why.push(format!(
            "month-to-date spend ({}) is already over the month's budget",
            money(m.month_to_date)
        ));
    } else if daily < lo {
        why.push(format!(
            "every campaign the plan can change is at its floor (the policy's budget floor, the provider's minimum, or its budget divided by maxCut): together {} a day, over the {} a day the budget leaves",
            money(lo), money(daily.max(0))
        ));
    }
    if gap != 0 && why.is_empty() {
        why.push(format!(
            "daily budgets are whole cents: {days} days of them land {} from the budget",
            money(gap.abs())
        ));
    }
    (gap, why)
}

/// The month's budget in cents: the request's, else forecast state's `adBudget` set for the
/// month; and where it came from.
async fn month_budget(input: &Input, m: Month) -> Result<(i64, &'static str)> {
    if let Some(b) = input.pacing.budget_cents {
        return Ok((b, "request"));
    }
    let missing = || {
        Error::new(
            Kind::BadParams,
            format!(
                "no ad budget for {m}: send budget, or set adBudget (mode replace) on the month's forecast state row"
            ),
        )
    };
    let scope_id = crate::forecasting::state::scope_id(input).ok_or_else(missing)?;
    let rows = crate::forecasting::state::month_rows(&input.state, &scope_id).await?;
    let b = &rows.get(&m.label()).ok_or_else(missing)?.doc["adBudget"];
    match (b["mode"].as_str(), b["value"].as_f64()) {
        (Some("replace"), Some(v)) if v > 0.0 => Ok(((v * 100.0).round() as i64, "forecast_state")),
        _ => Err(missing()),
    }
}

/// The tenant's policy bounds of a campaign's new budget, in cents: (floor, ceiling). Each is
/// stepped inward by a cent until it passes the policy's own check, which compares amounts in
/// the currency's unit (`proposed > current × maxRaise`), so a bound never fails it by a
/// rounding.
fn bounds(policy: &pp_marketplace::policy::Policy, currency: &str, current: i64) -> (i64, i64) {
    let b = policy.budgets.get(currency);
    let (min, max) = (b.and_then(|b| b.min), b.and_then(|b| b.max));
    let unit = |c: i64| c as f64 / 100.0;
    let was = unit(current);
    let fits = |c: i64| {
        let v = unit(c);
        min.is_none_or(|m| v >= m)
            && max.is_none_or(|m| v <= m)
            && v <= was * policy.max_raise
            && v >= was / policy.max_cut
            && c >= PROVIDER_FLOOR
    };
    let mut lo = PROVIDER_FLOOR
        .max(min.map_or(0, |m| (m * 100.0).floor() as i64))
        .max((current as f64 / policy.max_cut).floor() as i64);
    let mut hi = max
        .map_or(i64::MAX / 4, |m| (m * 100.0).ceil() as i64)
        .min((current as f64 * policy.max_raise).ceil() as i64);
    while lo <= hi && !fits(lo) {
        lo += 1;
    }
    while hi >= lo && !fits(hi) {
        hi -= 1;
    }
    if lo > hi {
        // no new budget passes (the current one is outside the policy's bounds): keep it
        return (current, current);
    }
    (lo, hi)
}

/// The request's engine.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<BudgetPacing>> {
    let caller = input
        .caller
        .as_ref()
        .ok_or_else(|| Error::internal("a plan request runs with its caller"))?;
    let next = input.data.end + Duration::days(1);
    let m = input.month.unwrap_or_else(|| Month::of(next));
    let mp = m.period();
    if mp.end < next {
        return Err(Error::new(
            Kind::BadParams,
            format!(
                "{m} has no days left to pace: the data runs through {}",
                input.data.end
            ),
        ));
    }
    let from = mp.start.max(next);
    let remaining_days = (mp.end - from).num_days() + 1;
    let (budget, budget_source) = month_budget(input, m).await?;
    let mtd_period = (input.data.end >= mp.start).then_some(Period {
        start: mp.start,
        end: input.data.end,
    });
    let mtd = match mtd_period {
        Some(p) => daily::paces(wh, &input.scope, p).await?,
        None => Default::default(),
    };
    let lookback = Period {
        start: input.data.end - Duration::days(input.pacing.lookback_days - 1),
        end: input.data.end,
    };
    let recent = daily::paces(wh, &input.scope, lookback).await?;
    let (policy, _) =
        pp_marketplace::policy::in_force(&input.state.store, input.state.tenant.as_str()).await?;
    let month_to_date: i64 = mtd.values().map(|p| p.spend).sum();
    let mut campaigns: Vec<Paced> = daily::campaigns(wh, &input.scope)
        .await?
        .into_iter()
        .filter(|c| c.state == "ENABLED")
        .map(|c| {
            let operation = budget_write(&c.ad_product).map(|(op, _)| op);
            let (floor, ceiling) = bounds(&policy, &input.scope.currency, c.budget);
            Paced {
                recent: recent.get(&c.id).cloned().unwrap_or_default(),
                month_to_date: mtd.get(&c.id).map_or(0, |p| p.spend),
                operation,
                floor,
                ceiling,
                weight: 0.0,
                proposed: c.budget,
                campaign: c,
            }
        })
        .collect();
    let figures = MonthFigures {
        budget,
        month_to_date,
        remaining_days,
    };
    let (gap, why) = propose(&figures, &mut campaigns, input.pacing.lookback_days);
    let plans = dry_runs(caller, &campaigns).await?;
    let daily_total: i64 = campaigns.iter().map(|c| c.proposed).sum();
    let assumptions = vec![
        format!("Every enabled campaign spends its daily budget on each of the {remaining_days} days from {from} to {}: the plan paces budgets, and a campaign that does not reach its budget leaves the month under.", mp.end),
        format!("Month-to-date spend is the warehouse's campaign spend from {} through {} (all campaigns, paused ones included); today's spend so far is not in it.", mp.start, input.data.end),
        format!("Weights are each campaign's spend per day over the last {} days, scaled by its return (attributed sales per spend) against the account's (between half and twice) and raised by the share of those days it ran out of budget; a campaign that spent little weighs at least a quarter of its budget.", input.pacing.lookback_days),
        "Campaigns no budget write reaches (Sponsored Display) keep their budgets and count as spending them; paused campaigns are left out.".to_owned(),
        "Current budgets are the warehouse's campaign table; each dry run reads the live campaigns again and shows their values, and a commit sends only what it previewed.".to_owned(),
    ];
    Ok(Answer {
        result: BudgetPacing {
            month: m.label(),
            budget: money(budget),
            budget_source,
            month_to_date_spend: money(month_to_date),
            month_to_date_through: mtd_period.map(|p| p.end),
            remaining_from: from,
            remaining_days,
            daily_total: money(daily_total),
            lands_at: money(month_to_date + remaining_days * daily_total),
            gap: money(gap),
            gap_why: why,
            campaigns: campaigns.iter().map(campaign_plan).collect(),
            plans,
            assumptions,
        },
        limitations: assumptions_short(),
        evidence: Vec::new(),
    })
}

fn assumptions_short() -> Vec<String> {
    vec![
        "A plan is a proposal: nothing is written until a caller commits each plan (POST /api/marketplace/ads/commit or marketplace_ads_commit), under the account's write policy and approval rules.".to_owned(),
        "Spend lands on the budget only if every campaign spends its budget each day; a campaign limited by its bids or its audience spends less.".to_owned(),
    ]
}

fn campaign_plan(c: &Paced) -> CampaignPlan {
    let roas = (c.recent.spend > 0)
        .then(|| (c.recent.sales as f64 / c.recent.spend as f64 * 100.0).round() / 100.0);
    CampaignPlan {
        campaign_id: c.campaign.id.clone(),
        name: c.campaign.name.clone(),
        ad_product: c.campaign.ad_product.clone(),
        current_budget: money(c.campaign.budget),
        proposed_budget: money(c.proposed),
        changed: c.proposed != c.campaign.budget,
        writable: c.operation.is_some(),
        floor: c.operation.map(|_| money(c.floor)),
        ceiling: c.operation.map(|_| money(c.ceiling)),
        weight: (c.weight * 100.0).round() / 100.0,
        recent: Recent {
            spend: money(c.recent.spend),
            sales: money(c.recent.sales),
            roas,
            days: c.recent.days,
            days_out_of_budget: c.recent.out_of_budget,
        },
        month_to_date_spend: money(c.month_to_date),
    }
}

/// The dry runs of the changed budgets: one per operation and profile (and per `max_items`),
/// made through the marketplace as the caller.
async fn dry_runs(caller: &Caller, campaigns: &[Paced]) -> Result<Vec<Plan>> {
    let mut groups: std::collections::BTreeMap<(&str, Option<i64>), Vec<&Paced>> =
        Default::default();
    for c in campaigns.iter().filter(|c| c.proposed != c.campaign.budget) {
        if let Some(op) = c.operation {
            groups
                .entry((op, c.campaign.profile_id))
                .or_default()
                .push(c);
        }
    }
    let mut plans = Vec::new();
    for ((op, profile), list) in groups {
        let (_, item) = budget_write(&list[0].campaign.ad_product)
            .ok_or_else(|| Error::internal("a grouped campaign has a budget write"))?;
        for chunk in list.chunks(max_items(op)) {
            let call = Call {
                operation: op,
                profile_id: profile.map(|p| p.to_string()),
                query: CallQuery {
                    body: CallBody {
                        campaigns: chunk
                            .iter()
                            .map(|c| item(&c.campaign.id, c.proposed))
                            .collect(),
                    },
                },
            };
            let wire = serde_json::to_value(&call).map_err(Error::internal_from)?;
            plans.push(Plan {
                operation: op,
                profile_id: call.profile_id.clone(),
                campaign_ids: chunk.iter().map(|c| c.campaign.id.clone()).collect(),
                call,
                dry_run: super::ads_call(caller, &wire).await?,
            });
        }
    }
    Ok(plans)
}
