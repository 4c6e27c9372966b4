//! `INS-CHANGE-OUTCOME-01`: did a change work? For an audited write, a timeline stake, or a
//! day with the campaigns or items it touched, the weeks after the change against as many
//! before it (`windows`), for each entity it touched and for the account: every metric's move
//! with the direction in which it is better and a verdict judged against the entity's own
//! day-to-day variation before the change (`stats`, `metrics`), the advertising or sales bridge
//! of the move (so the parts sum to the change to the cent), a price change's measured
//! elasticity with its range, and what else happened in the windows (`context`).

mod change;
mod context;
mod metrics;
pub mod stats;
mod windows;

use pp_core::{Error, Kind, Result};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, ads_bridge, ops_bridge};
use crate::daily;
use crate::data::{self, AdsFacts, ItemFacts, Wh};
use crate::evidence::{Rows, Statement};
use crate::params::Grain;
use metrics::Window;
use windows::Windows;

pub use metrics::{MIN_CLICKS, MIN_ORDERS, MIN_SESSIONS};

/// What `INS-CHANGE-OUTCOME-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangeOutcome {
    pub change: change::Named,
    pub windows: WindowsView,
    /// A section per campaign and item the change touched.
    pub entities: Vec<Section>,
    /// The account's advertising and retail sections.
    pub account: Vec<Section>,
    pub confounders: Vec<context::Confounder>,
}

/// The two windows compared.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OutcomeWindows")]
pub struct WindowsView {
    pub before: crate::params::Period,
    pub after: crate::params::Period,
    pub days: i64,
    pub left_out: Vec<windows::LeftOut>,
}

/// A section: an entity's or the account's metrics and bridge.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "OutcomeSection")]
pub enum Section {
    Advertising(Box<AdsSection>),
    Retail(Box<RetailSection>),
}

/// `advertising` or `retail`.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "OutcomeFamily")]
pub enum Family {
    Advertising,
    Retail,
}

/// An advertising section (a campaign's, or the account's).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "OutcomeAdsSection")]
pub struct AdsSection {
    pub family: Family,
    pub metrics: Vec<metrics::Metric>,
    pub bridge: ads_bridge::AdsTotals,
    /// The campaign, for an entity's section.
    #[serde(flatten)]
    pub campaign: Option<CampaignRef>,
}

/// The campaign an entity section is about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CampaignRef {
    /// `campaign`.
    pub kind: &'static str,
    pub id: String,
    /// The name the report rows carry; null when they carry none.
    pub name: Option<String>,
}

/// A retail section (an item's, or the account's).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "OutcomeRetailSection")]
pub struct RetailSection {
    pub family: Family,
    pub metrics: Vec<metrics::Metric>,
    pub bridge: ops_bridge::OpsTotals,
    /// An item's price elasticity (item sections only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elasticity: Option<Elasticity>,
    /// The item, for an entity's section.
    #[serde(flatten)]
    pub item: Option<ItemRef>,
}

/// The item an entity section is about.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ItemRef {
    /// `item`.
    pub kind: &'static str,
    /// The ASIN.
    pub id: String,
}

/// Conversion's elasticity to price, or why there is none.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(rename = "OutcomeElasticity")]
pub enum Elasticity {
    #[serde(rename_all = "camelCase")]
    Measured {
        value: f64,
        low: f64,
        high: f64,
        price_change_pct: Option<f64>,
        note: &'static str,
    },
    Unmeasured {
        /// Always null.
        value: (),
        why: &'static str,
    },
}

impl Section {
    /// The entity's kind and id, and the metric that leads its sentence.
    fn lead(&self) -> Option<(&'static str, &str, &'static str, &[metrics::Metric])> {
        match self {
            Section::Advertising(s) => {
                let c = s.campaign.as_ref()?;
                Some((c.kind, c.id.as_str(), "spend", &s.metrics))
            }
            Section::Retail(s) => {
                let i = s.item.as_ref()?;
                Some((i.kind, i.id.as_str(), "sales", &s.metrics))
            }
        }
    }
}

fn ads_sum(days: &[AdsFacts]) -> AdsFacts {
    days.iter().fold(AdsFacts::default(), |a, f| AdsFacts {
        impressions: a.impressions + f.impressions,
        clicks: a.clicks + f.clicks,
        spend: a.spend + f.spend,
        purchases: a.purchases + f.purchases,
        sales: a.sales + f.sales,
    })
}

fn item_sum(days: &[ItemFacts]) -> ItemFacts {
    days.iter().fold(ItemFacts::default(), |a, f| ItemFacts {
        sales: a.sales + f.sales,
        units: a.units + f.units,
        traffic: a.traffic + f.traffic,
    })
}

fn window<F: Clone + Default>(
    rows: &daily::Daily<F>,
    p: crate::params::Period,
    sum: fn(&[F]) -> F,
) -> Window<F> {
    let (days, had) = metrics::fill(rows, p);
    Window {
        sum: sum(&days),
        days,
        had,
    }
}

/// A window pair's rows grouped by campaign or item, read once for every section.
type Grouped<K, F> = (Vec<(K, F)>, Vec<(K, F)>);

/// The rows of `g` whose key `wanted` keeps, in both windows.
fn kept<K: Clone, F: Clone>(g: &Grouped<K, F>, wanted: impl Fn(&K) -> bool) -> Grouped<K, F> {
    let keep = |rows: &[(K, F)]| rows.iter().filter(|(k, _)| wanted(k)).cloned().collect();
    (keep(&g.0), keep(&g.1))
}

/// An advertising section: the campaigns' (or the account's) metrics and bridge, from the
/// windows' `campaign` rows.
async fn ads_section(
    wh: &Wh,
    input: &Input,
    w: &Windows,
    campaigns: &[String],
    by_campaign: &Grouped<data::AdsKey, AdsFacts>,
) -> Result<AdsSection> {
    let s = &input.scope;
    let rows_b = daily::ads(wh, s, campaigns, w.before).await?;
    let rows_a = daily::ads(wh, s, campaigns, w.after).await?;
    let (b, a) = (
        window(&rows_b, w.before, ads_sum),
        window(&rows_a, w.after, ads_sum),
    );
    let (before, after) = kept(by_campaign, |k| {
        campaigns.is_empty() || campaigns.contains(&k.key)
    });
    let bridge = ads_bridge::compute(before, after);
    Ok(AdsSection {
        family: Family::Advertising,
        metrics: metrics::ads(&b, &a),
        bridge: ads_bridge::AdsTotals::of(&bridge),
        campaign: None,
    })
}

/// A retail section: the items' (or the account's) metrics and bridge, from the windows'
/// `by_item` rows, with the elasticity of an item whose price moved.
async fn retail_section(
    wh: &Wh,
    input: &Input,
    w: &Windows,
    asins: &[String],
    by_item: &Grouped<data::ItemKey, ItemFacts>,
) -> Result<RetailSection> {
    let s = &input.scope;
    let rows_b = daily::retail(wh, s, asins, w.before).await?;
    let rows_a = daily::retail(wh, s, asins, w.after).await?;
    let (b, a) = (
        window(&rows_b, w.before, item_sum),
        window(&rows_a, w.after, item_sum),
    );
    let (before, after) = kept(by_item, |k| asins.is_empty() || asins.contains(&k.1));
    let bridge = ops_bridge::compute(before, after);
    let mut section = RetailSection {
        family: Family::Retail,
        metrics: metrics::retail(&b, &a),
        bridge: ops_bridge::OpsTotals::of(&bridge),
        elasticity: None,
        item: None,
    };
    if !asins.is_empty() {
        let conv = |f: &ItemFacts| crate::engines::per(f.units, f.traffic);
        let daily =
            |x: &Window<ItemFacts>| -> Vec<f64> { x.days.iter().filter_map(conv).collect() };
        let price = |f: &ItemFacts| crate::engines::per(f.sales, f.units);
        let e = match (conv(&b.sum), conv(&a.sum), price(&b.sum), price(&a.sum)) {
            (Some(c0), Some(c1), Some(p0), Some(p1)) => {
                stats::elasticity((c0, c1), (p0, p1), (&daily(&b), &daily(&a)))
            }
            _ => None,
        };
        section.elasticity = Some(match e {
            Some(e) => Elasticity::Measured {
                value: e.value,
                low: e.low,
                high: e.high,
                price_change_pct: crate::engines::pct(
                    b.sum.sales * a.sum.units,
                    a.sum.sales * b.sum.units,
                ),
                note: "conversion's elasticity to price: the log change of units per session over the log change of sales per unit, with its 95% range from the days' spread",
            },
            None => Elasticity::Unmeasured {
                value: (),
                why: "the price did not move by 1% or more, or a window sold nothing",
            },
        });
    }
    Ok(section)
}

/// What the change touched and the families the account section reads.
struct Families {
    ads: bool,
    retail: bool,
}

/// A section per campaign and per item the change touched.
async fn entities(
    wh: &Wh,
    input: &Input,
    w: &Windows,
    change: &change::Change,
    (by_campaign, by_item): (
        &Grouped<data::AdsKey, AdsFacts>,
        &Grouped<data::ItemKey, ItemFacts>,
    ),
) -> Result<Vec<Section>> {
    let mut entities = Vec::new();
    for c in &change.campaigns {
        let mut sec = ads_section(wh, input, w, std::slice::from_ref(c), by_campaign).await?;
        // the name the report rows carry (the later window's first)
        let name = by_campaign
            .1
            .iter()
            .chain(&by_campaign.0)
            .find(|(k, _)| k.key == *c);
        sec.campaign = Some(CampaignRef {
            kind: "campaign",
            id: c.clone(),
            name: name.map(|(k, _)| k.name.clone()),
        });
        entities.push(Section::Advertising(Box::new(sec)));
    }
    for asin in &change.asins {
        let mut sec = retail_section(wh, input, w, std::slice::from_ref(asin), by_item).await?;
        sec.item = Some(ItemRef {
            kind: "item",
            id: asin.clone(),
        });
        entities.push(Section::Retail(Box::new(sec)));
    }
    Ok(entities)
}

/// The request's engine.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<ChangeOutcome>> {
    let change = change::resolve(input).await?;
    let none = change.campaigns.is_empty() && change.asins.is_empty();
    let fam = Families {
        ads: !change.campaigns.is_empty() || none,
        retail: !change.asins.is_empty() || none,
    };
    let ads_range = if fam.ads {
        let r = daily::ads_coverage(wh, &input.scope).await?;
        if r.is_none() && !change.campaigns.is_empty() {
            return Err(Error::new(
                Kind::NoDataForPeriod,
                "the warehouse holds no advertising rows for this merchant",
            ));
        }
        r
    } else {
        None
    };
    let w = windows::of(
        &change,
        input.change.window_days,
        fam.retail.then_some(input.data),
        ads_range,
    )?;
    let s = &input.scope;
    let by_campaign: Grouped<data::AdsKey, AdsFacts> = if fam.ads && ads_range.is_some() {
        (
            data::ads(wh, s, Grain::Campaign, w.before).await?,
            data::ads(wh, s, Grain::Campaign, w.after).await?,
        )
    } else {
        Default::default()
    };
    let by_item: Grouped<data::ItemKey, ItemFacts> = if fam.retail {
        (
            data::items(wh, s, w.before).await?,
            data::items(wh, s, w.after).await?,
        )
    } else {
        Default::default()
    };
    let entities = entities(wh, input, &w, &change, (&by_campaign, &by_item)).await?;
    let mut account = Vec::new();
    if fam.ads && ads_range.is_some() {
        let sec = ads_section(wh, input, &w, &[], &by_campaign).await?;
        account.push(Section::Advertising(Box::new(sec)));
    }
    if fam.retail {
        let sec = retail_section(wh, input, &w, &[], &by_item).await?;
        account.push(Section::Retail(Box::new(sec)));
    }
    let (confounders, said) = context::confounders(wh, input, &change, w.span()).await?;
    let mut limitations = vec![
        format!("Each window holds {} days, the same weekdays; the after window starts the first day the change was in force all day.", w.days()),
        format!("A verdict compares the two windows against the section's own day-to-day spread in the window before (|t| of at least {}); below {MIN_CLICKS} clicks, {MIN_ORDERS} orders or {MIN_SESSIONS} sessions in a window, or fewer than 7 days with data, a metric is inconclusive and says why.", stats::T_MOVED),
        "Windows compare before with after: what else moved in them (listed) is not separated from the change, and an effect that takes longer than the window to show is not seen.".to_owned(),
        "Advertising sales and purchases are 7-day attributed figures.".to_owned(),
    ];
    limitations.extend(said);
    let evidence = evidence(input, &w, &entities);
    Ok(Answer {
        result: ChangeOutcome {
            change: change.named,
            windows: WindowsView {
                before: w.before,
                after: w.after,
                days: w.days(),
                left_out: w.left_out,
            },
            entities,
            account,
            confounders,
        },
        limitations,
        evidence,
    })
}

/// A statement per entity: how its spend or sales moved, on the rows it stands on.
fn evidence(input: &Input, w: &Windows, entities: &[Section]) -> Vec<Statement> {
    let figure =
        |v: &Option<serde_json::Number>| v.clone().map_or(serde_json::Value::Null, Into::into);
    entities
        .iter()
        .filter_map(|e| {
            let (kind, id, lead, metrics) = e.lead()?;
            let m = metrics.iter().find(|m| m.metric == lead)?;
            let table = match e {
                Section::Advertising(_) => data::ADS_TABLE,
                Section::Retail(_) => data::retail_source(&input.scope).table,
            };
            let (before, after) = (figure(&m.before), figure(&m.after));
            Some(Statement::new(
                format!(
                    "{kind} {id}'s {lead} went from {before} to {after} ({}).",
                    m.judged.verdict.as_str()
                ),
                &[("before", before), ("after", after)],
                vec![Rows::of(&input.scope, table, w.span())],
            ))
        })
        .collect()
}
