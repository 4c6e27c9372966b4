//! Tenant write policies: the bounds no advertising write crosses, whoever proposes it. A
//! tenant's policy is one document (stored by `pp_store::Policies`; a tenant that never set
//! one has `Policy::default()`): bid and budget floors and ceilings per currency, the largest
//! change relative to the current value, the most items and distinct campaigns one commit may
//! touch, operations that are never allowed, and whether creates may start `ENABLED`.
//!
//! `findings` checks a planned write against a policy. The dry run reports every finding (per
//! item, and for the plan as a whole); a commit with any finding is refused with
//! `policy_violation` and nothing is sent.

use std::collections::{BTreeMap, BTreeSet};

use pp_core::{Error, Result};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::catalog::{Operation, WriteAction};
use crate::writes::items::at;

/// A floor and a ceiling, either may be absent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    #[serde(default)]
    pub min: Option<f64>,
    #[serde(default)]
    pub max: Option<f64>,
}

/// A tenant's write policy. Fields left out of a stored document take the default's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Policy {
    /// Bid floors and ceilings by the profile's currency (`USD` …), in that currency.
    pub bids: BTreeMap<String, Bounds>,
    /// Daily budget floors and ceilings by currency.
    pub budgets: BTreeMap<String, Bounds>,
    /// A write may set a bid or budget to at most this many times its current value.
    pub max_raise: f64,
    /// … and to no less than its current value divided by this.
    pub max_cut: f64,
    /// The most items one commit may carry.
    pub max_items: usize,
    /// The most distinct campaigns one commit may touch.
    pub max_campaigns: usize,
    /// Operations (catalog ids, such as `sp.delete_keywords`) never allowed.
    pub forbidden_operations: Vec<String>,
    /// Whether a create may start `ENABLED` (serving and billing at once).
    pub enabled_creates: bool,
    /// Which commits wait for a person's approval.
    pub approval: ApprovalRules,
}

/// Which commits a person must approve before anything is sent. Every rule applies to the
/// caller who previewed the plan as to the caller who commits it, whichever door each came
/// through.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ApprovalRules {
    /// Every commit of an AI client: made through an MCP session, or with a token an
    /// application that registered itself (RFC 7591, as AI clients do) obtained.
    pub mcp: bool,
    /// Every commit by these service credentials (`cred_…` ids).
    pub credentials: Vec<String>,
    /// Every commit by a person signed in through these applications (client ids).
    pub applications: Vec<String>,
    /// Every commit of more than this many items.
    pub over_items: Option<usize>,
    /// Every commit of these operations (catalog ids).
    pub operations: Vec<String>,
    /// Hours a held commit waits for a person before it expires (1 to 168).
    pub hours: u32,
    /// Whether a person may approve a commit they requested themselves (off: four eyes).
    pub self_approval: bool,
}

impl Default for ApprovalRules {
    /// Nothing waits for approval until the tenant says so; a held commit waits a day, and
    /// nobody approves their own.
    fn default() -> Self {
        Self {
            mcp: false,
            credentials: Vec::new(),
            applications: Vec::new(),
            over_items: None,
            operations: Vec::new(),
            hours: 24,
            self_approval: false,
        }
    }
}

/// Who previewed or commits a plan, as the approval rules see them.
#[derive(Debug, Clone, Copy)]
pub struct Hand<'a> {
    pub surface: &'a pp_core::Surface,
    pub credential_id: &'a str,
    pub app: Option<&'a pp_core::App>,
}

impl<'a> Hand<'a> {
    /// The caller of a request.
    pub fn of(p: &'a pp_core::Principal) -> Self {
        Self {
            surface: &p.surface,
            credential_id: &p.credential_id,
            app: p.app.as_ref(),
        }
    }
}

impl ApprovalRules {
    /// Why a commit of `op` with `items` items must wait for a person because of who `hand`
    /// is, if it must.
    pub fn for_hand(&self, hand: Hand<'_>) -> Option<String> {
        if self.mcp && *hand.surface == pp_core::Surface::Mcp {
            return Some("the account's policy has a person approve every commit made through an MCP session".into());
        }
        if let Some(app) = hand.app {
            if self.mcp && app.self_registered {
                return Some(format!(
                    "the account's policy has a person approve every commit of an AI client, and {} registered itself",
                    app.client_id
                ));
            }
            if self.applications.contains(&app.client_id) {
                return Some(format!(
                    "the account's policy has a person approve every commit made through application {}",
                    app.client_id
                ));
            }
        }
        if self.credentials.iter().any(|c| c == hand.credential_id) {
            return Some(format!(
                "the account's policy has a person approve every commit of credential {}",
                hand.credential_id
            ));
        }
        None
    }

    /// Why a commit of `op` with `items` items must wait for a person whoever makes it, if it
    /// must.
    pub fn for_write(&self, op: &str, items: usize) -> Option<String> {
        if let Some(n) = self.over_items.filter(|n| items > *n) {
            return Some(format!(
                "the account's policy has a person approve commits of more than {n} items ({items} here)"
            ));
        }
        if self.operations.iter().any(|o| o == op) {
            return Some(format!(
                "the account's policy has a person approve every {op} commit"
            ));
        }
        None
    }

    /// Why a commit must wait for a person: by what it writes, by who commits it, or by who
    /// previewed it (`previewer`, when another hand or door than the committer's).
    pub fn required(
        &self,
        op: &str,
        items: usize,
        committer: Hand<'_>,
        previewer: Option<Hand<'_>>,
    ) -> Option<String> {
        self.for_write(op, items)
            .or_else(|| self.for_hand(committer))
            .or_else(|| {
                previewer.and_then(|h| self.for_hand(h)).map(|why| {
                    format!("{why}; this plan was previewed there, whichever door commits it")
                })
            })
    }
}

fn bounds(min: f64, max: f64) -> Bounds {
    Bounds {
        min: Some(min),
        max: Some(max),
    }
}

impl Default for Policy {
    /// What a new tenant gets: bounds in the demo marketplaces' and the common currencies,
    /// changes of at most ×3 up and ÷3 down, 200 items and 25 campaigns a commit, every
    /// operation allowed, `ENABLED` creates allowed.
    fn default() -> Self {
        let per = |pairs: &[(&str, f64, f64)]| {
            pairs
                .iter()
                .map(|(c, lo, hi)| ((*c).to_owned(), bounds(*lo, *hi)))
                .collect()
        };
        Self {
            bids: per(&[
                ("USD", 0.02, 50.0),
                ("CAD", 0.02, 50.0),
                ("EUR", 0.02, 50.0),
                ("GBP", 0.02, 50.0),
                ("MXN", 0.1, 1000.0),
            ]),
            budgets: per(&[
                ("USD", 1.0, 10_000.0),
                ("CAD", 1.0, 10_000.0),
                ("EUR", 1.0, 10_000.0),
                ("GBP", 1.0, 10_000.0),
                ("MXN", 10.0, 200_000.0),
            ]),
            max_raise: 3.0,
            max_cut: 3.0,
            max_items: 200,
            max_campaigns: 25,
            forbidden_operations: Vec::new(),
            enabled_creates: true,
            approval: ApprovalRules::default(),
        }
    }
}

fn bad(message: String) -> Error {
    Error::new(pp_core::Kind::BadParams, message)
}

impl Policy {
    /// Reads a policy document, refusing one that cannot mean anything (an unknown field, a
    /// ratio below 1, a floor above its ceiling, an operation that is not a catalogued write).
    pub fn parse(doc: &Value) -> Result<Self> {
        let p: Policy = pp_core::wire::from_value(doc.clone())
            .map_err(|e| bad(format!("not a write policy: {e}")))?;
        for (name, v) in [("maxRaise", p.max_raise), ("maxCut", p.max_cut)] {
            if !(v.is_finite() && v >= 1.0) {
                return Err(bad(format!("{name} is a ratio of at least 1, not {v}")));
            }
        }
        if !(1..=1000).contains(&p.max_items) || p.max_campaigns == 0 {
            return Err(bad(
                "maxItems is 1 to 1000 and maxCampaigns at least 1".into()
            ));
        }
        for (what, map) in [("bids", &p.bids), ("budgets", &p.budgets)] {
            for (currency, b) in map {
                if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
                    return Err(bad(format!(
                        "{what}: {currency:?} is not a currency code (three capital letters)"
                    )));
                }
                let ok = |v: Option<f64>| v.is_none_or(|v| v.is_finite() && v >= 0.0);
                if !ok(b.min)
                    || !ok(b.max)
                    || matches!((b.min, b.max), (Some(lo), Some(hi)) if lo > hi)
                {
                    return Err(bad(format!(
                        "{what}.{currency}: min and max are amounts of at least 0, min not above max"
                    )));
                }
            }
        }
        if !(1..=168).contains(&p.approval.hours) {
            return Err(bad(format!(
                "approval.hours is 1 to 168, not {}",
                p.approval.hours
            )));
        }
        if p.approval.over_items == Some(0) {
            return Err(bad(
                "approval.overItems is at least 1 (leave it out for no size rule)".into(),
            ));
        }
        if let Some(c) = p
            .approval
            .credentials
            .iter()
            .find(|c| !c.starts_with("cred_"))
        {
            return Err(bad(format!(
                "approval.credentials names service credentials by id (cred_…, as the credential list shows), not {c:?}"
            )));
        }
        for op in p.forbidden_operations.iter().chain(&p.approval.operations) {
            let write =
                crate::catalog::find(crate::catalog::ads(), op).is_some_and(|o| o.write.is_some());
            if !write {
                return Err(bad(format!(
                    "{op} is not an advertising write of the catalog"
                )));
            }
        }
        Ok(p)
    }
}

/// The tenant's policy in force, with its stored row (none while it has the defaults). A
/// stored policy that no longer reads is a failure, never the default.
pub async fn in_force(
    store: &pp_store::Store,
    tenant: &str,
) -> Result<(Policy, Option<pp_store::PolicyRow>)> {
    match store.policies().get(tenant).await? {
        Some(row) => {
            let p = Policy::parse(&row.doc).map_err(|e| {
                Error::internal(format!(
                    "the stored write policy of {tenant} does not read: {}",
                    e.message()
                ))
            })?;
            Ok((p, Some(row)))
        }
        None => Ok((Policy::default(), None)),
    }
}

/// Replaces the tenant's policy with `doc` (checked first; fields left out take the
/// defaults), recorded as `by`; the policy now in force.
pub async fn set(
    store: &pp_store::Store,
    tenant: &str,
    doc: &Value,
    by: &str,
) -> Result<(Policy, pp_store::PolicyRow)> {
    let p = Policy::parse(doc)?;
    named_in_tenant(store, tenant, &p.approval).await?;
    let full = serde_json::to_value(&p).map_err(Error::internal_from)?;
    let row = store.policies().put(tenant, &full, by).await?;
    Ok((p, row))
}

/// Refuses approval rules that name a credential or an application the tenant's callers
/// cannot use: another tenant's, a revoked one, or one that does not exist.
async fn named_in_tenant(
    store: &pp_store::Store,
    tenant: &str,
    rules: &ApprovalRules,
) -> Result<()> {
    for id in &rules.credentials {
        let live = match store.credentials().find(id).await {
            Ok(c) => c.tenant_id == tenant && c.id == *id && c.revoked_at.is_none(),
            Err(e) if e.kind == pp_core::Kind::NotFound => false,
            Err(e) => return Err(e),
        };
        if !live {
            return Err(bad(format!(
                "approval.credentials: {id} is not a live credential of this account"
            )));
        }
    }
    for id in &rules.applications {
        let usable = store.clients().get(id).await?.is_some_and(|c| {
            c.revoked_at.is_none() && c.tenant_id.as_deref().is_none_or(|t| t == tenant)
        });
        if !usable {
            return Err(bad(format!(
                "approval.applications: {id} is not an application this account's people can sign in through"
            )));
        }
    }
    Ok(())
}

/// One rule a planned write breaks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyFinding {
    /// `bid_ceiling`, `bid_floor`, `budget_ceiling`, `budget_floor`, `raise_limit`,
    /// `cut_limit`, `enabled_create` (an item's), or `operation_forbidden`, `max_items`,
    /// `max_campaigns` (the plan's).
    pub rule: String,
    /// The item's index, for an item's finding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The item field (a dotted path), or `items`, `campaigns`, `operation`.
    pub field: String,
    pub current: Value,
    pub proposed: Value,
    pub bound: Value,
    pub message: String,
}

/// The money fields an item may set: the path and whether it is a bid or a budget.
const MONEY: &[(&str, Measure)] = &[
    ("bid", Measure::Bid),
    ("defaultBid", Measure::Bid),
    ("budget", Measure::Budget),
    ("budget.budget", Measure::Budget),
    ("dailyBudget", Measure::Budget),
];

#[derive(Debug, Clone, Copy, PartialEq)]
enum Measure {
    Bid,
    Budget,
}

impl Measure {
    fn name(self) -> &'static str {
        match self {
            Measure::Bid => "bid",
            Measure::Budget => "budget",
        }
    }
}

fn round(v: f64) -> Value {
    json!((v * 10_000.0).round() / 10_000.0)
}

/// Every finding of `items` (with each one's `current` entity where the dry run read it)
/// against `policy`, in the profile's `currency` when it is known.
pub fn findings(
    policy: &Policy,
    op: &Operation,
    items: &[Value],
    current: &[Option<Value>],
    currency: Option<&str>,
) -> Vec<PolicyFinding> {
    let mut out = Vec::new();
    if policy.forbidden_operations.contains(&op.id) {
        out.push(PolicyFinding {
            rule: "operation_forbidden".into(),
            index: None,
            field: "operation".into(),
            current: Value::Null,
            proposed: json!(op.id),
            bound: json!(policy.forbidden_operations),
            message: format!("the account's policy never allows {}", op.id),
        });
    }
    if items.len() > policy.max_items {
        out.push(PolicyFinding {
            rule: "max_items".into(),
            index: None,
            field: "items".into(),
            current: Value::Null,
            proposed: json!(items.len()),
            bound: json!(policy.max_items),
            message: format!(
                "{} items in one commit; the account's policy allows {}",
                items.len(),
                policy.max_items
            ),
        });
    }
    let campaigns: BTreeSet<String> = items
        .iter()
        .zip(current.iter().chain(std::iter::repeat(&None)))
        .filter_map(|(item, now)| {
            let id = item
                .get("campaignId")
                .or_else(|| now.as_ref()?.get("campaignId"))?;
            crate::writes::items::id_text(id)
        })
        .collect();
    if campaigns.len() > policy.max_campaigns {
        out.push(PolicyFinding {
            rule: "max_campaigns".into(),
            index: None,
            field: "campaigns".into(),
            current: Value::Null,
            proposed: json!(campaigns.len()),
            bound: json!(policy.max_campaigns),
            message: format!(
                "{} campaigns in one commit; the account's policy allows {}",
                campaigns.len(),
                policy.max_campaigns
            ),
        });
    }
    let create = op
        .write
        .as_ref()
        .is_some_and(|w| w.action == WriteAction::Create);
    for (i, item) in items.iter().enumerate() {
        let now = current.get(i).and_then(Option::as_ref);
        if create && !policy.enabled_creates && item["state"].as_str() == Some("ENABLED") {
            out.push(PolicyFinding {
                rule: "enabled_create".into(),
                index: Some(i),
                field: "state".into(),
                current: Value::Null,
                proposed: json!("ENABLED"),
                bound: json!("PAUSED"),
                message: "the account's policy has creates start PAUSED: create it PAUSED and enable it later".into(),
            });
        }
        for (path, measure) in MONEY {
            let Some(proposed) = at(item, path).and_then(Value::as_f64) else {
                continue;
            };
            let was = now.and_then(|e| at(e, path)).and_then(Value::as_f64);
            out.extend(money(policy, i, path, *measure, proposed, was, currency));
        }
        out.extend(bid_rule_raise(policy, i, item));
    }
    out
}

/// A schedule bid rule's raise (`action.actionDetails`: `INCREMENT` by a `PERCENT`) holds to
/// `maxRaise` as a bid write does: bids × (1 + percent / 100) at most ×`maxRaise`.
fn bid_rule_raise(policy: &Policy, index: usize, item: &Value) -> Option<PolicyFinding> {
    let d = at(item, "action.actionDetails")?;
    if d["actionOperator"] != "INCREMENT" || d["actionUnit"] != "PERCENT" {
        return None;
    }
    let percent = match &d["value"] {
        Value::String(s) => s.parse::<f64>().ok(),
        v => v.as_f64(),
    }?;
    let most = (policy.max_raise - 1.0) * 100.0;
    (percent > most).then(|| PolicyFinding {
        rule: "raise_limit".into(),
        index: Some(index),
        field: "action.actionDetails.value".into(),
        current: Value::Null,
        proposed: round(percent),
        bound: round(most),
        message: format!(
            "a rule raising bids by {percent} % takes them past ×{} their current value",
            policy.max_raise
        ),
    })
}

/// The findings of one money field.
fn money(
    policy: &Policy,
    index: usize,
    path: &str,
    measure: Measure,
    proposed: f64,
    was: Option<f64>,
    currency: Option<&str>,
) -> Vec<PolicyFinding> {
    let mut out = Vec::new();
    let name = measure.name();
    let finding = |rule: String, bound: f64, message: String| PolicyFinding {
        rule,
        index: Some(index),
        field: path.to_owned(),
        current: was.map_or(Value::Null, round),
        proposed: round(proposed),
        bound: round(bound),
        message,
    };
    let table = match measure {
        Measure::Bid => &policy.bids,
        Measure::Budget => &policy.budgets,
    };
    if let Some((currency, b)) = currency.and_then(|c| Some((c, table.get(c)?))) {
        if let Some(max) = b.max.filter(|max| proposed > *max) {
            out.push(finding(
                format!("{name}_ceiling"),
                max,
                format!("a {name} of {proposed} {currency} is above the account's ceiling of {max} {currency}"),
            ));
        }
        if let Some(min) = b.min.filter(|min| proposed < *min) {
            out.push(finding(
                format!("{name}_floor"),
                min,
                format!("a {name} of {proposed} {currency} is below the account's floor of {min} {currency}"),
            ));
        }
    }
    if let Some(was) = was.filter(|w| *w > 0.0) {
        if proposed > was * policy.max_raise {
            out.push(finding(
                "raise_limit".into(),
                was * policy.max_raise,
                format!(
                    "the {name} goes from {was} to {proposed}, more than ×{} the current value",
                    policy.max_raise
                ),
            ));
        }
        if proposed < was / policy.max_cut {
            out.push(finding(
                "cut_limit".into(),
                was / policy.max_cut,
                format!(
                    "the {name} goes from {was} to {proposed}, less than the current value ÷{}",
                    policy.max_cut
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(id: &str) -> &'static Operation {
        crate::catalog::find(crate::catalog::ads(), id).unwrap()
    }

    #[test]
    fn a_bid_over_the_ceiling_and_a_budget_raised_past_the_ratio_are_findings() {
        let p = Policy::default();
        let kw = findings(
            &p,
            op("sp.update_keywords"),
            &[json!({"keywordId": "1", "bid": 90.0})],
            &[Some(
                json!({"keywordId": "1", "bid": 1.0, "campaignId": "5"}),
            )],
            Some("USD"),
        );
        let rules: Vec<&str> = kw.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, ["bid_ceiling", "raise_limit"]);
        assert_eq!(kw[0].bound, json!(50.0));
        assert_eq!(kw[1].current, json!(1.0));
        let budget = findings(
            &p,
            op("sp.update_campaigns"),
            &[json!({"campaignId": "5", "budget": {"budget": 500.0, "budgetType": "DAILY"}})],
            &[Some(json!({"campaignId": "5", "budget": {"budget": 10.0}}))],
            Some("USD"),
        );
        assert_eq!(budget.len(), 1);
        assert_eq!(
            (budget[0].rule.as_str(), budget[0].field.as_str()),
            ("raise_limit", "budget.budget")
        );
        // within every bound: nothing
        assert!(
            findings(
                &p,
                op("sp.update_keywords"),
                &[json!({"keywordId": "1", "bid": 1.2})],
                &[Some(json!({"keywordId": "1", "bid": 1.0}))],
                Some("USD"),
            )
            .is_empty()
        );
    }

    #[test]
    fn a_schedule_rule_raising_bids_past_max_raise_is_a_finding() {
        let p = Policy {
            max_raise: 1.5,
            ..Policy::default()
        };
        let rule = |v: &str| json!({ "action": { "actionDetails": { "actionOperator": "INCREMENT", "actionUnit": "PERCENT", "value": v } } });
        let op = op("sp.create_optimization_rules");
        let f = findings(&p, op, &[rule("60"), rule("50")], &[], Some("USD"));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].rule.as_str(), f[0].index), ("raise_limit", Some(0)));
        assert_eq!(f[0].bound, json!(50.0));
    }

    #[test]
    fn plan_wide_rules_count_items_campaigns_and_forbidden_operations() {
        let p = Policy {
            max_items: 2,
            max_campaigns: 1,
            forbidden_operations: vec!["sp.update_keywords".into()],
            ..Policy::default()
        };
        let items: Vec<Value> = (0..3)
            .map(|i| json!({"keywordId": i.to_string(), "state": "PAUSED"}))
            .collect();
        let now: Vec<Option<Value>> = (0..3)
            .map(|i| Some(json!({"keywordId": i.to_string(), "campaignId": i.to_string()})))
            .collect();
        let f = findings(&p, op("sp.update_keywords"), &items, &now, None);
        let rules: Vec<&str> = f.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, ["operation_forbidden", "max_items", "max_campaigns"]);
    }

    #[test]
    fn approval_rules_hold_mcp_commits_large_commits_and_named_operations() {
        use pp_core::{App, Surface};
        let rules = ApprovalRules {
            mcp: true,
            over_items: Some(10),
            operations: vec!["sp.update_campaigns".into()],
            credentials: vec!["cred_held".into()],
            applications: vec!["ppapp_held".into()],
            ..ApprovalRules::default()
        };
        fn hand<'a>(
            surface: &'a Surface,
            credential_id: &'a str,
            app: Option<&'a App>,
        ) -> Hand<'a> {
            Hand {
                surface,
                credential_id,
                app,
            }
        }
        let (api_door, mcp_door) = (Surface::Api, Surface::Mcp);
        let api = hand(&api_door, "cred_1", None);
        let held = |op: &str, n: usize, h: Hand<'_>, pre: Option<Hand<'_>>| {
            rules.required(op, n, h, pre).is_some()
        };
        assert!(held(
            "sp.update_keywords",
            1,
            hand(&mcp_door, "cred_1", None),
            None
        ));
        assert!(!held("sp.update_keywords", 1, api, None));
        assert!(held("sp.update_keywords", 11, api, None));
        assert!(held("sp.update_campaigns", 1, api, None));
        // the previewer's hand holds a commit whoever makes it
        assert!(held(
            "sp.update_keywords",
            1,
            api,
            Some(hand(&mcp_door, "cred_1", None))
        ));
        // named credentials and applications, and an AI client's own registration
        assert!(held(
            "sp.update_keywords",
            1,
            hand(&api_door, "cred_held", None),
            None
        ));
        let ai_client = App {
            client_id: "ppapp_ai".into(),
            self_registered: true,
        };
        assert!(held(
            "sp.update_keywords",
            1,
            hand(&api_door, "grant_1", Some(&ai_client)),
            None
        ));
        let named = App {
            client_id: "ppapp_held".into(),
            self_registered: false,
        };
        let other = App {
            client_id: "ppapp_other".into(),
            self_registered: false,
        };
        let by = |app: &App| {
            rules
                .required(
                    "sp.update_keywords",
                    1,
                    hand(&api_door, "grant_1", Some(app)),
                    None,
                )
                .is_some()
        };
        assert!(by(&named));
        assert!(!by(&other));
        assert!(
            ApprovalRules::default()
                .required(
                    "sp.update_keywords",
                    200,
                    hand(&mcp_door, "cred_held", Some(&ai_client)),
                    None
                )
                .is_none(),
            "nothing is held by default"
        );
    }

    #[test]
    fn a_policy_document_is_checked_and_fills_in_the_defaults() {
        let p = Policy::parse(&json!({"maxRaise": 2, "bids": {"USD": {"max": 5}}})).unwrap();
        assert_eq!(p.max_raise, 2.0);
        assert_eq!(p.max_cut, 3.0);
        assert_eq!(p.bids["USD"].max, Some(5.0));
        assert!(
            !p.bids.contains_key("CAD"),
            "a map given replaces the default's"
        );
        for wrong in [
            json!({"maxRaise": 0.5}),
            json!({"bids": {"usd": {"max": 5}}}),
            json!({"bids": {"USD": {"min": 6, "max": 5}}}),
            json!({"forbiddenOperations": ["sp.list_keywords"]}),
            json!({"maxItems": 0}),
            json!({"ceiling": 5}),
            json!({"approval": {"hours": 0}}),
            json!({"approval": {"overItems": 0}}),
            json!({"approval": {"operations": ["sp.list_keywords"]}}),
            json!({"approval": {"everyone": true}}),
            json!({"approval": {"credentials": ["ppc_abc"]}}),
        ] {
            assert!(Policy::parse(&wrong).is_err(), "{wrong}");
        }
    }
}
