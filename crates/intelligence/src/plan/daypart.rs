//! `PLN-DAYPART-01`: a schedule of bid increases for the hours each campaign converts best, in
//! the provider's schedule bid-rule shape. It reads `INS-DAYPART-01`'s answer (each enabled
//! Sponsored Products campaign's best four hours of the day, named only on enough clicks) and
//! proposes, per campaign, one rule raising its bids in those hours every day of the week by
//! the hours' lift over the campaign's conversion (a whole 1–100 percent, within the write
//! policy's `maxRaise`; increase-only, as the provider's rules are).
//!
//! A rule takes effect once it is associated with its campaign, and the association needs the
//! id the provider gives the rule: the plan is therefore two commits. Asked first, it answers
//! the rules' creation as a dry run; asked again after that commit, it finds its rules by name
//! (the name carries the campaign, hours and percent) and answers their associations' dry
//! runs; asked once more, it says every rule is in place. A campaign already holding
//! [`MAX_PER_CAMPAIGN`] rules gets none. The request itself never writes.

use chrono::{Duration, NaiveDate};
use pp_core::{Error, Result};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Value, json};

use super::{Caller, ads_call};
use crate::daily;
use crate::data::Wh;
use crate::engines::daypart::{self, BestHours, DAYS, DEFAULT_DAYS};
use crate::engines::{Answer, Input};
use crate::params::Period;

/// Schedule rules the provider lets one campaign hold.
pub const MAX_PER_CAMPAIGN: usize = 20;

/// The least lift (best hours' conversion over the campaign's) worth a rule.
pub const MIN_LIFT: f64 = 1.05;

/// Every rule this plan makes starts its name with this.
const PREFIX: &str = "pp-daypart";

/// What `PLN-DAYPART-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DaypartPlan {
    pub currency: String,
    pub period: Period,
    /// Days of the period with streamed hours.
    pub days_with_hours: i64,
    /// The most a rule raises bids, in percent (the provider's 100, or the write policy's
    /// `maxRaise`).
    pub max_increase_percent: u32,
    pub campaigns: Vec<CampaignRule>,
    /// The dry runs of this step (rules to create, or rules to associate): commit each to send
    /// it, then ask again for the next step.
    pub plans: Vec<Plan>,
    pub assumptions: Vec<String>,
}

/// One campaign's rule and where it stands.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CampaignRule {
    pub campaign_id: String,
    pub name: String,
    pub ad_product: String,
    pub profile_id: Option<String>,
    pub best_hours: Option<BestHours>,
    /// The bid increase in the best hours, in percent.
    pub increase_percent: Option<u32>,
    pub rule_name: Option<String>,
    /// The provider's id of the rule, once created.
    pub rule_id: Option<String>,
    /// `create_rule`, `associate_rule`, `in_place`, or why there is no rule: `too_thin`,
    /// `no_lift`, `not_sponsored_products`, `not_enabled`, `rule_limit`, `policy`.
    pub step: &'static str,
    pub why: String,
}

/// One dry run.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "DaypartDryRun")]
pub struct Plan {
    /// `sp.create_optimization_rules` or `sp.associate_optimization_rules`.
    pub operation: &'static str,
    pub profile_id: Option<String>,
    pub campaign_ids: Vec<String>,
    /// The call the dry run previewed (`marketplace_ads_call`'s arguments).
    pub call: Value,
    /// The marketplace's dry-run answer: its plan id is what a commit sends.
    pub dry_run: Value,
}

/// The bid increase a lift earns: the whole percent by which the best hours convert better,
/// from 1 to `most`; none under [`MIN_LIFT`].
pub fn increase(index: f64, most: u32) -> Option<u32> {
    (index >= MIN_LIFT && most >= 1)
        .then(|| (((index - 1.0) * 100.0).round() as u32).clamp(1, most))
}

/// The rule's name: the plan finds its rules again by it.
pub fn rule_name(campaign_id: &str, b: &BestHours, percent: u32) -> String {
    format!(
        "{PREFIX} {campaign_id} {:02}-{:02}h +{percent}%",
        b.start_hour, b.end_hour
    )
}

/// The rule, in the provider's v2 shape: bids up `percent` in the best hours, every day.
pub fn rule(name: &str, b: &BestHours, percent: u32, from: NaiveDate) -> Value {
    json!({
        "ruleName": name,
        "ruleCategory": "BID",
        "ruleSubCategory": "SCHEDULE",
        "status": "ENABLED",
        "action": { "actionType": "ADOPT", "actionDetails": {
            "actionOperator": "INCREMENT", "actionUnit": "PERCENT", "value": percent,
        } },
        "recurrence": {
            "type": "WEEKLY",
            "daysOfWeek": DAYS,
            "timesOfDay": [{
                "startTime": format!("{:02}:00", b.start_hour),
                "endTime": format!("{:02}:00", b.end_hour),
            }],
            "duration": { "startTime": format!("{from}T00:00:00Z") },
        },
    })
}

/// The most a rule may raise bids under the write policy, in whole percent.
fn most_percent(max_raise: f64) -> u32 {
    (((max_raise - 1.0) * 100.0).floor().max(0.0) as u32).min(100)
}

/// The rules a search finds (one page of up to 300: a campaign holds 20, this plan makes one a
/// campaign).
async fn search(caller: &Caller, profile: &str, filter: Value) -> Result<Vec<Value>> {
    let mut body = filter;
    body["maxResults"] = 300.into();
    let answer = ads_call(
        caller,
        &json!({ "operation": "sp.search_optimization_rules", "profileId": profile, "query": { "body": body } }),
    )
    .await?;
    Ok(answer["data"]["optimizationRules"]
        .as_array()
        .cloned()
        .unwrap_or_default())
}

/// A campaign's rule before the provider is asked about it.
fn proposed(h: &daypart::CampaignHours, c: &daily::Campaign, most: u32) -> CampaignRule {
    let mut r = CampaignRule {
        campaign_id: c.id.clone(),
        name: c.name.clone(),
        ad_product: c.ad_product.clone(),
        profile_id: c.profile_id.map(|p| p.to_string()),
        best_hours: h.best_hours.clone(),
        increase_percent: None,
        rule_name: None,
        rule_id: None,
        step: "create_rule",
        why: String::new(),
    };
    let mut no = |step, why: String| {
        r.step = step;
        r.why = why;
    };
    if c.ad_product != "SPONSORED_PRODUCTS" {
        no(
            "not_sponsored_products",
            "schedule bid rules are Sponsored Products'".into(),
        );
    } else if c.state != "ENABLED" {
        no("not_enabled", format!("the campaign is {}", c.state));
    } else if most == 0 {
        no(
            "policy",
            "the write policy's maxRaise allows no bid increase".into(),
        );
    } else {
        match &h.best_hours {
            None => no(
                "too_thin",
                format!(
                    "fewer than {} hours of the day have {} clicks: no best hours named",
                    daypart::MIN_MEASURED_HOURS,
                    daypart::MIN_HOUR_CLICKS
                ),
            ),
            Some(b) => match b.index.and_then(|i| increase(i, most)) {
                None => no(
                    "no_lift",
                    format!(
                        "its best hours convert less than {:.0} % better than the campaign",
                        (MIN_LIFT - 1.0) * 100.0
                    ),
                ),
                Some(p) => {
                    r.increase_percent = Some(p);
                    r.rule_name = Some(rule_name(&c.id, b, p));
                }
            },
        }
    }
    r
}

/// Where each proposed rule stands at the provider: made yet, associated yet, room left.
async fn standing(caller: &Caller, rules: &mut [CampaignRule]) -> Result<()> {
    let profiles: std::collections::BTreeSet<String> = rules
        .iter()
        .filter(|r| r.rule_name.is_some())
        .filter_map(|r| r.profile_id.clone())
        .collect();
    for profile in profiles {
        let ours = search(
            caller,
            &profile,
            json!({ "optimizationRuleFilter": { "ruleName": { "filterType": "BROAD_MATCH", "values": [PREFIX] } } }),
        )
        .await?;
        for r in rules
            .iter_mut()
            .filter(|r| r.rule_name.is_some() && r.profile_id.as_deref() == Some(profile.as_str()))
        {
            let name = r.rule_name.as_deref().unwrap_or_default();
            r.rule_id = ours
                .iter()
                .find(|x| x["ruleName"] == name)
                .and_then(|x| x["optimizationRuleId"].as_str())
                .map(str::to_owned);
            let on = search(
                caller,
                &profile,
                json!({ "campaignFilter": { "campaignId": { "filterType": "EXACT_MATCH", "values": [r.campaign_id] } } }),
            )
            .await?;
            let associated = r
                .rule_id
                .as_ref()
                .is_some_and(|id| on.iter().any(|x| x["optimizationRuleId"] == id.as_str()));
            (r.step, r.why) = match (&r.rule_id, associated) {
                (_, true) => ("in_place", "the rule is made and associated".into()),
                _ if on.len() >= MAX_PER_CAMPAIGN => (
                    "rule_limit",
                    format!(
                        "the campaign already holds {} rules (at most {MAX_PER_CAMPAIGN})",
                        on.len()
                    ),
                ),
                (Some(_), false) => (
                    "associate_rule",
                    "the rule is made: associate it with the campaign".into(),
                ),
                (None, _) => (
                    "create_rule",
                    "create the rule, then ask again to associate it".into(),
                ),
            };
        }
    }
    Ok(())
}

/// The dry runs of this step: each profile's rules to create in one call, each campaign's
/// association in its own (the campaign is in the path).
async fn dry_runs(caller: &Caller, rules: &[CampaignRule], from: NaiveDate) -> Result<Vec<Plan>> {
    let mut plans = Vec::new();
    let mut creates: std::collections::BTreeMap<&str, Vec<&CampaignRule>> = Default::default();
    for r in rules.iter().filter(|r| r.step == "create_rule") {
        if let Some(p) = r.profile_id.as_deref() {
            creates.entry(p).or_default().push(r);
        }
    }
    for (profile, list) in creates {
        let items: Vec<Value> = list
            .iter()
            .filter_map(|r| {
                Some(rule(
                    r.rule_name.as_deref()?,
                    r.best_hours.as_ref()?,
                    r.increase_percent?,
                    from,
                ))
            })
            .collect();
        let call = json!({
            "operation": "sp.create_optimization_rules", "profileId": profile,
            "query": { "body": { "optimizationRules": items } },
        });
        plans.push(Plan {
            operation: "sp.create_optimization_rules",
            profile_id: Some(profile.to_owned()),
            campaign_ids: list.iter().map(|r| r.campaign_id.clone()).collect(),
            dry_run: ads_call(caller, &call).await?,
            call,
        });
    }
    for r in rules.iter().filter(|r| r.step == "associate_rule") {
        let call = json!({
            "operation": "sp.associate_optimization_rules", "profileId": r.profile_id,
            "query": { "campaignId": r.campaign_id, "body": { "optimizationRuleIds": [r.rule_id] } },
        });
        plans.push(Plan {
            operation: "sp.associate_optimization_rules",
            profile_id: r.profile_id.clone(),
            campaign_ids: vec![r.campaign_id.clone()],
            dry_run: ads_call(caller, &call).await?,
            call,
        });
    }
    Ok(plans)
}

/// The request's engine.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<DaypartPlan>> {
    let caller = input
        .caller
        .as_ref()
        .ok_or_else(|| Error::internal("a plan request runs with its caller"))?;
    let period = input.period.unwrap_or(Period {
        start: (input.data.end - Duration::days(DEFAULT_DAYS - 1)).max(input.data.start),
        end: input.data.end,
    });
    let (hours, days) = daypart::read(wh, &input.scope, period).await?;
    let hours = daypart::campaigns(hours);
    let campaigns = daily::campaigns(wh, &input.scope).await?;
    let (policy, _) =
        pp_marketplace::policy::in_force(&input.state.store, input.state.tenant.as_str()).await?;
    let most = most_percent(policy.max_raise);
    let mut rules: Vec<CampaignRule> = hours
        .iter()
        .filter_map(|h| {
            let c = campaigns.iter().find(|c| c.id == h.campaign_id)?;
            Some(proposed(h, c, most))
        })
        .collect();
    standing(caller, &mut rules).await?;
    let from = input.data.end + Duration::days(1);
    let plans = dry_runs(caller, &rules, from).await?;
    let assumptions = vec![
        format!("Best hours are INS-DAYPART-01's over {} to {} ({days} days with streamed hours): four consecutive hours of the day, named only when {} hours have {} clicks.", period.start, period.end, daypart::MIN_MEASURED_HOURS, daypart::MIN_HOUR_CLICKS),
        "The increase is the best hours' conversion over the campaign's, as a whole percent: a click there is worth that much more, so its bid may be too. Rules only raise bids (the provider's schedule rules are increase-only).".to_owned(),
        format!("Each rule runs every day of the week from {from}, in the hours as the stream reports them (the marketplace's time)."),
        "A rule does nothing until associated with its campaign, and the association needs the rule's id: commit the creation, ask again, commit the associations.".to_owned(),
    ];
    Ok(Answer {
        result: DaypartPlan {
            currency: input.scope.currency.clone(),
            period,
            days_with_hours: days,
            max_increase_percent: most,
            campaigns: rules,
            plans,
            assumptions,
        },
        limitations: vec![
            "A plan is a proposal: nothing is written until a caller commits each plan (POST /api/marketplace/ads/commit or marketplace_ads_commit), under the account's write policy and approval rules.".to_owned(),
            "Conversions of the last 14 days still grow as late purchases are attributed; the best hours can move as they do.".to_owned(),
        ],
        evidence: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_increase_is_the_lift_in_whole_percent_within_the_policy() {
        assert_eq!(increase(1.37, 100), Some(37));
        assert_eq!(increase(1.04, 100), None, "under the least lift");
        assert_eq!(increase(3.5, 100), Some(100), "the provider's most");
        assert_eq!(increase(1.8, 50), Some(50), "the policy's most");
        assert_eq!(most_percent(3.0), 100);
        assert_eq!(most_percent(1.255), 25);
        assert_eq!(most_percent(1.0), 0);
    }

    #[test]
    fn a_rule_raises_bids_in_the_best_hours_every_day() {
        let b = BestHours {
            start_hour: 20,
            end_hour: 24,
            conversion: Some(0.1),
            index: Some(1.3),
        };
        let name = rule_name("123", &b, 30);
        assert_eq!(name, "pp-daypart 123 20-24h +30%");
        let r = rule(&name, &b, 30, NaiveDate::from_ymd_opt(2026, 12, 1).unwrap());
        assert_eq!(
            r["recurrence"]["timesOfDay"][0],
            json!({ "startTime": "20:00", "endTime": "24:00" })
        );
        assert_eq!(r["recurrence"]["daysOfWeek"].as_array().unwrap().len(), 7);
        assert_eq!(r["action"]["actionDetails"]["value"], 30);
    }
}
