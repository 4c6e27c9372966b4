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
use serde_json::{Value, json};

use super::{Answer, Input, add_to, money, pct, per, ratio, settle, unit_money};
use crate::data::{self, AdsFacts, AdsKey, Wh};
use crate::evidence::{Rows, Statement, say_money};
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

fn named<const N: usize>(names: [&str; N], v: &[i64; N]) -> Value {
    Value::Object(
        names
            .iter()
            .zip(v)
            .map(|(n, v)| ((*n).to_owned(), money(*v)))
            .collect(),
    )
}

/// A period's advertising totals as JSON.
pub fn facts_json(f: &AdsFacts) -> Value {
    json!({
        "impressions": f.impressions,
        "clicks": f.clicks,
        "spend": money(f.spend),
        "purchases": f.purchases,
        "sales": money(f.sales),
        "ctr": ratio(f.clicks, f.impressions),
        "cvr": ratio(f.purchases, f.clicks),
        "cpc": unit_money(per(f.spend, f.clicks)),
        "aov": unit_money(per(f.sales, f.purchases)),
        "acos": acos_bp(f).map_or(Value::Null, |bp| super::num(bp as f64 / 100.0)),
    })
}

fn points(bp: i64) -> Value {
    super::num(bp as f64 / 100.0)
}

/// The scope-level part of the bridge as JSON.
pub fn totals_json(b: &Bridge) -> Value {
    json!({
        "before": facts_json(&b.before),
        "after": facts_json(&b.after),
        "sales": {
            "change": money(b.after.sales - b.before.sales),
            "changePct": pct(b.before.sales, b.after.sales),
            "effects": named(SALES_EFFECTS, &b.sales),
        },
        "spend": {
            "change": money(b.after.spend - b.before.spend),
            "changePct": pct(b.before.spend, b.after.spend),
            "effects": named(SPEND_EFFECTS, &b.spend),
        },
        "acos": b.acos.as_ref().map(|a| json!({
            "before": points(a.before),
            "after": points(a.after),
            "changePoints": points(a.after - a.before),
            "effects": Value::Object(ACOS_EFFECTS.iter().zip(a.effects).map(|(n, v)| ((*n).to_owned(), points(v))).collect()),
        })),
    })
}

fn rows_json(b: &Bridge, top: usize) -> (Value, Value) {
    let listed = b
        .rows
        .iter()
        .take(top)
        .map(|r| {
            json!({
                "key": r.key.key,
                "name": r.key.name,
                "before": facts_json(&r.before),
                "after": facts_json(&r.after),
                "salesChange": money(r.sales_change()),
                "salesEffects": named(SALES_EFFECTS, &r.sales),
                "spendChange": money(r.spend_change()),
                "spendEffects": named(SPEND_EFFECTS, &r.spend),
            })
        })
        .collect();
    let rest = &b.rows[b.rows.len().min(top)..];
    let (mut s, mut p) = ([0i64; 4], [0i64; 3]);
    for r in rest {
        add_to(&mut s, r.sales);
        add_to(&mut p, r.spend);
    }
    let others = json!({
        "count": rest.len(),
        "salesChange": money(rest.iter().map(RowBridge::sales_change).sum()),
        "salesEffects": named(SALES_EFFECTS, &s),
        "spendChange": money(rest.iter().map(RowBridge::spend_change).sum()),
        "spendEffects": named(SPEND_EFFECTS, &p),
    });
    (Value::Array(listed), others)
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
                ("salesBefore", money(b.before.sales)),
                ("salesAfter", money(b.after.sales)),
                ("spendBefore", money(b.before.spend)),
                ("spendAfter", money(b.after.spend)),
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
            &[("salesEffects", named(SALES_EFFECTS, &b.sales))],
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
                ("acosBefore", points(a.before)),
                ("acosAfter", points(a.after)),
            ],
            rows,
        ));
    }
    out
}

/// The request.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer> {
    let period = input.period.expect("checked by the service");
    let compare = input.compare_period.expect("filled by the service");
    let b = read(wh, &input.scope, input.grain, compare, period).await?;
    let (rows, others) = rows_json(&b, input.top);
    Ok(Answer {
        result: json!({
            "currency": input.scope.currency,
            "grain": input.grain.as_str(),
            "period": period,
            "comparePeriod": compare,
            "totals": totals_json(&b),
            "rowCount": b.rows.len(),
            "rows": rows,
            "otherRows": others,
        }),
        limitations: limitations(&b),
        evidence: evidence(&input.scope, &b, compare, period, data::ADS_TABLE),
    })
}
