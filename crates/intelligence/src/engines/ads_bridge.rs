//! `INS-ADS-BRIDGE-01`: why advertising results moved between two periods, at campaign, ad
//! group, keyword or target, search term or ASIN grain.
//!
//! Per row, sales are `impressions × CTR × CVR × AOV` and spend is `impressions × CTR × CPC`;
//! each change is split among its factors by Shapley values and rounded to cents that sum to
//! the row's observed change, so the scope's effects sum to its change exactly. ACOS (spend
//! over sales) is `CPC ÷ (CVR × AOV)` for the whole scope; its change in points is split the
//! same way, in hundredths of a point.

use std::collections::BTreeMap;

use pp_core::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, add_to, money, num, pct, per, ratio, settle, unit_money};
use crate::data::{self, AdsFacts, AdsKey, Wh};
use crate::evidence::{Rows, Statement, figure, say_money};
use crate::params::{Grain, Period};
use crate::scope::Scope;
use crate::shapley::{round_exact, shapley};

/// Sales effects, in order.
pub const SALES_EFFECTS: [&str; 4] = ["impressions", "ctr", "cvr", "aov"];
/// Spend effects, in order.
pub const SPEND_EFFECTS: [&str; 3] = ["impressions", "ctr", "cpc"];
/// ACOS effects, in order.
pub const ACOS_EFFECTS: [&str; 3] = ["cpc", "cvr", "aov"];

/// One row's bridge.
#[derive(Debug, Clone)]
pub struct RowBridge {
    pub key: AdsKey,
    pub before: AdsFacts,
    pub after: AdsFacts,
    pub sales: [i64; 4],
    pub spend: [i64; 3],
}

impl RowBridge {
    pub fn sales_change(&self) -> i64 {
        self.after.sales - self.before.sales
    }
    pub fn spend_change(&self) -> i64 {
        self.after.spend - self.before.spend
    }
}

/// ACOS in hundredths of a percent point, before and after, and its effects.
#[derive(Debug, Clone)]
pub struct AcosBridge {
    pub before: i64,
    pub after: i64,
    pub effects: [i64; 3],
}

/// A scope's advertising bridge.
#[derive(Debug, Clone)]
pub struct Bridge {
    pub before: AdsFacts,
    pub after: AdsFacts,
    pub sales: [i64; 4],
    pub spend: [i64; 3],
    pub acos: Option<AcosBridge>,
    pub rows: Vec<RowBridge>,
    /// Rows with sales or spend but no clicks or impressions in a period.
    pub unfactored: usize,
}

fn add(a: &AdsFacts, b: &AdsFacts) -> AdsFacts {
    AdsFacts {
        impressions: a.impressions + b.impressions,
        clicks: a.clicks + b.clicks,
        spend: a.spend + b.spend,
        purchases: a.purchases + b.purchases,
        sales: a.sales + b.sales,
    }
}

fn sales_effects(b: &AdsFacts, a: &AdsFacts) -> Option<[i64; 4]> {
    let broken =
        |f: &AdsFacts| f.sales != 0 && (f.impressions == 0 || f.clicks == 0 || f.purchases == 0);
    if broken(b) || broken(a) {
        return None;
    }
    let (ctr0, ctr1) = settle(per(b.clicks, b.impressions), per(a.clicks, a.impressions));
    let (cvr0, cvr1) = settle(per(b.purchases, b.clicks), per(a.purchases, a.clicks));
    let (aov0, aov1) = settle(per(b.sales, b.purchases), per(a.sales, a.purchases));
    let v = shapley(
        &[b.impressions as f64, ctr0, cvr0, aov0],
        &[a.impressions as f64, ctr1, cvr1, aov1],
    );
    let r = round_exact(a.sales - b.sales, &v);
    Some([r[0], r[1], r[2], r[3]])
}

fn spend_effects(b: &AdsFacts, a: &AdsFacts) -> Option<[i64; 3]> {
    let broken = |f: &AdsFacts| f.spend != 0 && (f.impressions == 0 || f.clicks == 0);
    if broken(b) || broken(a) {
        return None;
    }
    let (ctr0, ctr1) = settle(per(b.clicks, b.impressions), per(a.clicks, a.impressions));
    let (cpc0, cpc1) = settle(per(b.spend, b.clicks), per(a.spend, a.clicks));
    let v = shapley(
        &[b.impressions as f64, ctr0, cpc0],
        &[a.impressions as f64, ctr1, cpc1],
    );
    let r = round_exact(a.spend - b.spend, &v);
    Some([r[0], r[1], r[2]])
}

/// ACOS in hundredths of a point (`spend / sales × 10,000`), when there were sales.
pub fn acos_bp(f: &AdsFacts) -> Option<i64> {
    per(f.spend, f.sales).map(|x| (x * 10_000.0).round() as i64)
}

fn acos(b: &AdsFacts, a: &AdsFacts) -> Option<AcosBridge> {
    let parts = |f: &AdsFacts| -> Option<[f64; 3]> {
        Some([
            per(f.spend, f.clicks)?,
            per(f.clicks, f.purchases)?,
            per(f.purchases, f.sales)?,
        ])
    };
    let (x0, x1) = (parts(b)?, parts(a)?);
    let (before, after) = (acos_bp(b)?, acos_bp(a)?);
    let v: Vec<f64> = shapley(&x0, &x1).iter().map(|v| v * 10_000.0).collect();
    let r = round_exact(after - before, &v);
    Some(AcosBridge {
        before,
        after,
        effects: [r[0], r[1], r[2]],
    })
}

/// The bridge from the `before` rows to the `after` rows.
pub fn compute(before: Vec<(AdsKey, AdsFacts)>, after: Vec<(AdsKey, AdsFacts)>) -> Bridge {
    // keyed on the key alone: a row's name may differ between periods (a renamed campaign);
    // the later name wins
    let mut by_key: BTreeMap<String, (AdsKey, AdsFacts, AdsFacts)> = BTreeMap::new();
    for (k, f) in before {
        let e = by_key
            .entry(k.key.clone())
            .or_insert_with(|| (k.clone(), AdsFacts::default(), AdsFacts::default()));
        e.1 = add(&e.1, &f);
    }
    for (k, f) in after {
        let e = by_key
            .entry(k.key.clone())
            .or_insert_with(|| (k.clone(), AdsFacts::default(), AdsFacts::default()));
        e.0 = k;
        e.2 = add(&e.2, &f);
    }
    let zero = AdsFacts::default();
    let mut unfactored = 0;
    let mut rows: Vec<RowBridge> = by_key
        .into_values()
        .filter(|(_, b, a)| *b != zero || *a != zero)
        .map(|(key, b, a)| {
            let sales = sales_effects(&b, &a);
            let spend = spend_effects(&b, &a);
            if sales.is_none() || spend.is_none() {
                unfactored += 1;
            }
            RowBridge {
                sales: sales.unwrap_or([a.sales - b.sales, 0, 0, 0]),
                spend: spend.unwrap_or([a.spend - b.spend, 0, 0]),
                key,
                before: b,
                after: a,
            }
        })
        .collect();
    rows.sort_by(|x, y| {
        let size = |r: &RowBridge| r.sales_change().abs() + r.spend_change().abs();
        size(y).cmp(&size(x)).then(x.key.cmp(&y.key))
    });
    let (mut b, mut a) = (zero.clone(), zero);
    let (mut sales, mut spend) = ([0i64; 4], [0i64; 3]);
    for r in &rows {
        b = add(&b, &r.before);
        a = add(&a, &r.after);
        add_to(&mut sales, r.sales);
        add_to(&mut spend, r.spend);
    }
    Bridge {
        acos: acos(&b, &a),
        before: b,
        after: a,
        sales,
        spend,
        rows,
        unfactored,
    }
}

/// The scope's bridge at `grain` from `compare` to `period`, read from the warehouse.
pub async fn read(
    wh: &Wh,
    scope: &Scope,
    grain: Grain,
    compare: Period,
    period: Period,
) -> Result<Bridge> {
    let before = data::ads(wh, scope, grain, compare).await?;
    let after = data::ads(wh, scope, grain, period).await?;
    Ok(compute(before, after))
}

/// What `INS-ADS-BRIDGE-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdsBridge {
    pub currency: String,
    /// `campaign`, `ad_group`, `target`, `search_term` or `asin`.
    pub grain: &'static str,
    pub period: Period,
    pub compare_period: Period,
    pub totals: AdsTotals,
    pub row_count: usize,
    /// The largest sales changes, one by one.
    pub rows: Vec<RowView>,
    pub other_rows: Others,
}

/// Sales split by impressions, CTR, CVR and AOV, in the currency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "AdsSalesEffects")]
pub struct SalesEffects {
    pub impressions: Money,
    pub ctr: Money,
    pub cvr: Money,
    pub aov: Money,
}

impl SalesEffects {
    pub fn of(v: &[i64; 4]) -> Self {
        Self {
            impressions: money(v[0]),
            ctr: money(v[1]),
            cvr: money(v[2]),
            aov: money(v[3]),
        }
    }
}

/// Spend split by impressions, CTR and CPC, in the currency.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "AdsSpendEffects")]
pub struct SpendEffects {
    pub impressions: Money,
    pub ctr: Money,
    pub cpc: Money,
}

impl SpendEffects {
    pub fn of(v: &[i64; 3]) -> Self {
        Self {
            impressions: money(v[0]),
            ctr: money(v[1]),
            cpc: money(v[2]),
        }
    }
}

/// A period's advertising totals.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "AdsFacts")]
pub struct AdsPeriodFacts {
    pub impressions: i64,
    pub clicks: i64,
    pub spend: Money,
    pub purchases: i64,
    pub sales: Money,
    pub ctr: Option<f64>,
    pub cvr: Option<f64>,
    pub cpc: Option<Money>,
    pub aov: Option<Money>,
    /// Spend over sales, in percent; null without sales.
    pub acos: Option<f64>,
}

impl AdsPeriodFacts {
    pub fn of(f: &AdsFacts) -> Self {
        Self {
            impressions: f.impressions,
            clicks: f.clicks,
            spend: money(f.spend),
            purchases: f.purchases,
            sales: money(f.sales),
            ctr: ratio(f.clicks, f.impressions),
            cvr: ratio(f.purchases, f.clicks),
            cpc: unit_money(per(f.spend, f.clicks)),
            aov: unit_money(per(f.sales, f.purchases)),
            acos: acos_bp(f).and_then(points),
        }
    }
}

/// Hundredths of a point as percent points.
fn points(bp: i64) -> Option<f64> {
    num(bp as f64 / 100.0)
}

/// A change with its split.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "Change_of_{E}")]
pub struct Change<E> {
    pub change: Money,
    pub change_pct: Option<f64>,
    pub effects: E,
}

/// ACOS before and after, in percent points, its change split by CPC, CVR and AOV.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "AdsAcos")]
pub struct AcosView {
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub change_points: Option<f64>,
    pub effects: AcosEffects,
}

/// ACOS points split by CPC, CVR and AOV.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "AdsAcosEffects")]
pub struct AcosEffects {
    pub cpc: Option<f64>,
    pub cvr: Option<f64>,
    pub aov: Option<f64>,
}

/// The scope-level part of the bridge.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "AdsTotals")]
pub struct AdsTotals {
    pub before: AdsPeriodFacts,
    pub after: AdsPeriodFacts,
    pub sales: Change<SalesEffects>,
    pub spend: Change<SpendEffects>,
    /// Null when a period had no clicks, purchases or sales.
    pub acos: Option<AcosView>,
}

impl AdsTotals {
    pub fn of(b: &Bridge) -> Self {
        Self {
            before: AdsPeriodFacts::of(&b.before),
            after: AdsPeriodFacts::of(&b.after),
            sales: Change {
                change: money(b.after.sales - b.before.sales),
                change_pct: pct(b.before.sales, b.after.sales),
                effects: SalesEffects::of(&b.sales),
            },
            spend: Change {
                change: money(b.after.spend - b.before.spend),
                change_pct: pct(b.before.spend, b.after.spend),
                effects: SpendEffects::of(&b.spend),
            },
            acos: b.acos.as_ref().map(|a| AcosView {
                before: points(a.before),
                after: points(a.after),
                change_points: points(a.after - a.before),
                effects: AcosEffects {
                    cpc: points(a.effects[0]),
                    cvr: points(a.effects[1]),
                    aov: points(a.effects[2]),
                },
            }),
        }
    }
}

/// One row's bridge.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "AdsRow")]
pub struct RowView {
    /// The grain's id (campaign id, keyword id, search term, ASIN …).
    pub key: String,
    pub name: String,
    pub before: AdsPeriodFacts,
    pub after: AdsPeriodFacts,
    pub sales_change: Money,
    pub sales_effects: SalesEffects,
    pub spend_change: Money,
    pub spend_effects: SpendEffects,
}

/// The rows past the listed ones, summed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "AdsOthers")]
pub struct Others {
    pub count: usize,
    pub sales_change: Money,
    pub sales_effects: SalesEffects,
    pub spend_change: Money,
    pub spend_effects: SpendEffects,
}

fn rows(b: &Bridge, top: usize) -> (Vec<RowView>, Others) {
    let listed = b
        .rows
        .iter()
        .take(top)
        .map(|r| RowView {
            key: r.key.key.clone(),
            name: r.key.name.clone(),
            before: AdsPeriodFacts::of(&r.before),
            after: AdsPeriodFacts::of(&r.after),
            sales_change: money(r.sales_change()),
            sales_effects: SalesEffects::of(&r.sales),
            spend_change: money(r.spend_change()),
            spend_effects: SpendEffects::of(&r.spend),
        })
        .collect();
    let rest = &b.rows[b.rows.len().min(top)..];
    let (mut s, mut p) = ([0i64; 4], [0i64; 3]);
    for r in rest {
        add_to(&mut s, r.sales);
        add_to(&mut p, r.spend);
    }
    let others = Others {
        count: rest.len(),
        sales_change: money(rest.iter().map(RowBridge::sales_change).sum()),
        sales_effects: SalesEffects::of(&s),
        spend_change: money(rest.iter().map(RowBridge::spend_change).sum()),
        spend_effects: SpendEffects::of(&p),
    };
    (listed, others)
}

pub fn limitations(b: &Bridge) -> Vec<String> {
    let mut l = vec![
        "Advertising sales and purchases are the ad products' 7-day attributed figures; they overlap ordered sales and are not additive with them.".to_owned(),
        "Sales effects are Shapley values over impressions, CTR, CVR and AOV; spend effects over impressions, CTR and CPC; ACOS effects over CPC, CVR and AOV for the whole scope (in percent points).".to_owned(),
        "Rows are keyed at the grain; a search term sums every keyword it matched.".to_owned(),
    ];
    if b.acos.is_none() {
        l.push("ACOS is not bridged: a period had no clicks, purchases or sales.".into());
    }
    if b.unfactored > 0 {
        l.push(format!(
            "{} row(s) had sales or spend with no impressions or clicks recorded (view-through or cost-per-impression buys); their change is counted as impressions.",
            b.unfactored
        ));
    }
    l
}

pub fn evidence(
    scope: &Scope,
    b: &Bridge,
    compare: Period,
    period: Period,
    table: &'static str,
) -> Vec<Statement> {
    let cur = &scope.currency;
    let rows = vec![
        Rows::of(scope, table, compare),
        Rows::of(scope, table, period),
    ];
    let mut out = vec![
        Statement::new(
            format!(
                "Advertising sales went from {} to {} ({}) while spend went from {} to {} ({}).",
                say_money(b.before.sales, cur, false),
                say_money(b.after.sales, cur, false),
                say_money(b.after.sales - b.before.sales, cur, true),
                say_money(b.before.spend, cur, false),
                say_money(b.after.spend, cur, false),
                say_money(b.after.spend - b.before.spend, cur, true),
            ),
            &[
                ("salesBefore", money(b.before.sales).into()),
                ("salesAfter", money(b.after.sales).into()),
                ("spendBefore", money(b.before.spend).into()),
                ("spendAfter", money(b.after.spend).into()),
            ],
            rows.clone(),
        ),
        Statement::new(
            format!(
                "Sales moved by impressions {}, CTR {}, CVR {}, AOV {}.",
                say_money(b.sales[0], cur, true),
                say_money(b.sales[1], cur, true),
                say_money(b.sales[2], cur, true),
                say_money(b.sales[3], cur, true)
            ),
            &[("salesEffects", figure(SalesEffects::of(&b.sales)))],
            rows.clone(),
        ),
    ];
    if let Some(a) = &b.acos {
        out.push(Statement::new(
            format!(
                "ACOS went from {:.2}% to {:.2}%.",
                a.before as f64 / 100.0,
                a.after as f64 / 100.0
            ),
            &[
                ("acosBefore", points(a.before).into()),
                ("acosAfter", points(a.after).into()),
            ],
            rows,
        ));
    }
    out
}

/// The request.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<AdsBridge>> {
    let period = input.period.expect("checked by the service");
    let compare = input.compare_period.expect("filled by the service");
    let b = read(wh, &input.scope, input.grain, compare, period).await?;
    let (rows, other_rows) = rows(&b, input.top);
    Ok(Answer {
        result: AdsBridge {
            currency: input.scope.currency.clone(),
            grain: input.grain.as_str(),
            period,
            compare_period: compare,
            totals: AdsTotals::of(&b),
            row_count: b.rows.len(),
            rows,
            other_rows,
        },
        limitations: limitations(&b),
        evidence: evidence(&input.scope, &b, compare, period, data::ADS_TABLE),
    })
}
