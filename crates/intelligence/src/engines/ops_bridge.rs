//! `INS-OPS-BRIDGE-01`: why ordered sales moved between two periods, item by item.
//!
//! Each item's sales are `traffic × share × conversion × price`: the scope's sessions (glance
//! views for a vendor), the item's share of them, its units per session and its sales per
//! unit. The change of every item is split among the four by Shapley values (exact for any
//! data, including items that sold nothing in one period), rounded to cents that sum to the
//! item's observed change; the scope's effects are the items' sums, so they add up to the
//! observed change to the cent, with no residual.

use std::collections::BTreeMap;

use pp_core::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, add_to, money, pct, per, ratio, settle, unit_money};
use crate::data::{self, ItemFacts, ItemKey, Wh};
use crate::evidence::{Rows, Statement, figure, say_money};
use crate::params::Period;
use crate::scope::Scope;
use crate::shapley::{round_exact, shapley};

/// The effects, in the order they are computed.
pub const EFFECTS: [&str; 4] = ["traffic", "mix", "conversion", "price"];

/// One item's bridge.
#[derive(Debug, Clone)]
pub struct ItemBridge {
    pub key: ItemKey,
    pub before: ItemFacts,
    pub after: ItemFacts,
    /// Cents per effect (`EFFECTS` order); they sum to `after.sales - before.sales`.
    pub effects: [i64; 4],
}

impl ItemBridge {
    pub fn change(&self) -> i64 {
        self.after.sales - self.before.sales
    }
}

/// A scope's bridge.
#[derive(Debug, Clone)]
pub struct Bridge {
    pub before: ItemFacts,
    pub after: ItemFacts,
    pub effects: [i64; 4],
    /// Items, largest change first.
    pub items: Vec<ItemBridge>,
    /// Items with sales but no traffic or units in a period (their change counts as mix).
    pub unfactored: usize,
}

impl Bridge {
    pub fn change(&self) -> i64 {
        self.after.sales - self.before.sales
    }

    /// The effect with the largest size.
    pub fn largest(&self) -> &'static str {
        let i = (0..4).max_by_key(|&i| self.effects[i].abs()).unwrap_or(0);
        EFFECTS[i]
    }
}

fn sum(a: &ItemFacts, b: &ItemFacts) -> ItemFacts {
    ItemFacts {
        sales: a.sales + b.sales,
        units: a.units + b.units,
        traffic: a.traffic + b.traffic,
    }
}

/// The bridge from the `before` items to the `after` items.
pub fn compute(before: Vec<(ItemKey, ItemFacts)>, after: Vec<(ItemKey, ItemFacts)>) -> Bridge {
    let mut all: BTreeMap<ItemKey, (ItemFacts, ItemFacts)> = BTreeMap::new();
    for (k, f) in before {
        all.entry(k).or_default().0 = f;
    }
    for (k, f) in after {
        all.entry(k).or_default().1 = f;
    }
    let zero = ItemFacts::default();
    let t0 = all.values().map(|v| v.0.traffic).sum::<i64>();
    let t1 = all.values().map(|v| v.1.traffic).sum::<i64>();
    let mut unfactored = 0;
    let mut items: Vec<ItemBridge> = all
        .into_iter()
        .filter(|(_, (b, a))| *b != zero || *a != zero)
        .map(|(key, (b, a))| {
            let change = a.sales - b.sales;
            let broken = |f: &ItemFacts| f.sales != 0 && (f.traffic == 0 || f.units == 0);
            let effects = if broken(&b)
                || broken(&a)
                || (b.sales != 0 && t0 == 0)
                || (a.sales != 0 && t1 == 0)
            {
                unfactored += 1;
                [0, change, 0, 0]
            } else {
                let share = |f: &ItemFacts, t: i64| per(f.traffic, t).unwrap_or(0.0);
                let (c0, c1) = settle(per(b.units, b.traffic), per(a.units, a.traffic));
                let (p0, p1) = settle(per(b.sales, b.units), per(a.sales, a.units));
                let v = shapley(
                    &[t0 as f64, share(&b, t0), c0, p0],
                    &[t1 as f64, share(&a, t1), c1, p1],
                );
                let r = round_exact(change, &v);
                [r[0], r[1], r[2], r[3]]
            };
            ItemBridge {
                key,
                before: b,
                after: a,
                effects,
            }
        })
        .collect();
    items.sort_by(|x, y| {
        y.change()
            .abs()
            .cmp(&x.change().abs())
            .then(x.key.cmp(&y.key))
    });
    let mut effects = [0i64; 4];
    let (mut b, mut a) = (zero.clone(), zero);
    for it in &items {
        add_to(&mut effects, it.effects);
        b = sum(&b, &it.before);
        a = sum(&a, &it.after);
    }
    Bridge {
        before: b,
        after: a,
        effects,
        items,
        unfactored,
    }
}

/// The scope's bridge from `compare` to `period`, read from the warehouse.
pub async fn read(wh: &Wh, scope: &Scope, compare: Period, period: Period) -> Result<Bridge> {
    let before = data::items(wh, scope, compare).await?;
    let after = data::items(wh, scope, period).await?;
    Ok(compute(before, after))
}

/// What `INS-OPS-BRIDGE-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpsBridge {
    pub currency: String,
    pub period: Period,
    pub compare_period: Period,
    /// `sessions`, or `glance_views` for a vendor.
    pub traffic_measure: &'static str,
    pub totals: OpsTotals,
    pub item_count: usize,
    /// The largest changes, one by one.
    pub items: Vec<ItemView>,
    pub other_items: Others,
}

/// The sales change split four ways, in the currency; the four sum to the change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "OpsEffects")]
pub struct Effects {
    pub traffic: Money,
    pub mix: Money,
    pub conversion: Money,
    pub price: Money,
}

impl Effects {
    pub fn of(e: &[i64; 4]) -> Self {
        Self {
            traffic: money(e[0]),
            mix: money(e[1]),
            conversion: money(e[2]),
            price: money(e[3]),
        }
    }
}

/// A period's ordered sales, units and traffic.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OpsFacts")]
pub struct OpsFacts {
    pub sales: Money,
    pub units: i64,
    pub traffic: i64,
    /// Units per traffic; null without traffic.
    pub conversion: Option<f64>,
    /// Sales per unit; null without units.
    pub average_price: Option<Money>,
}

impl OpsFacts {
    pub fn of(f: &ItemFacts) -> Self {
        Self {
            sales: money(f.sales),
            units: f.units,
            traffic: f.traffic,
            conversion: ratio(f.units, f.traffic),
            average_price: unit_money(per(f.sales, f.units)),
        }
    }
}

/// The scope-level part of a bridge.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OpsTotals")]
pub struct OpsTotals {
    pub before: OpsFacts,
    pub after: OpsFacts,
    pub change: Money,
    /// Percent, one decimal; null from zero sales.
    pub change_pct: Option<f64>,
    pub effects: Effects,
    /// `traffic`, `mix`, `conversion` or `price`.
    pub largest_effect: &'static str,
}

impl OpsTotals {
    pub fn of(b: &Bridge) -> Self {
        Self {
            before: OpsFacts::of(&b.before),
            after: OpsFacts::of(&b.after),
            change: money(b.change()),
            change_pct: pct(b.before.sales, b.after.sales),
            effects: Effects::of(&b.effects),
            largest_effect: b.largest(),
        }
    }
}

/// One item's bridge.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "OpsItem")]
pub struct ItemView {
    pub legacy_seller_id: i64,
    pub asin: String,
    pub before: OpsFacts,
    pub after: OpsFacts,
    pub change: Money,
    pub effects: Effects,
}

/// The items past the listed ones, summed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "OpsOthers")]
pub struct Others {
    pub count: usize,
    pub change: Money,
    pub effects: Effects,
}

/// Items: the `top` largest one by one, the rest summed.
pub fn items(b: &Bridge, top: usize) -> (Vec<ItemView>, Others) {
    let listed = b
        .items
        .iter()
        .take(top)
        .map(|it| ItemView {
            legacy_seller_id: it.key.0,
            asin: it.key.1.clone(),
            before: OpsFacts::of(&it.before),
            after: OpsFacts::of(&it.after),
            change: money(it.change()),
            effects: Effects::of(&it.effects),
        })
        .collect();
    let rest = &b.items[b.items.len().min(top)..];
    let mut e = [0i64; 4];
    for it in rest {
        add_to(&mut e, it.effects);
    }
    let others = Others {
        count: rest.len(),
        change: money(rest.iter().map(ItemBridge::change).sum()),
        effects: Effects::of(&e),
    };
    (listed, others)
}

pub fn limitations(scope: &Scope, b: &Bridge) -> Vec<String> {
    let mut l = vec![
        "Ordered sales are as the sales and traffic report states them: ordered, before cancellations and returns, in the merchant's currency.".to_owned(),
        "Traffic is the scope's total sessions; mix is the shift of those sessions between items; conversion is units per session; price is sales per unit (it moves with promotions and coupons as well as list prices).".to_owned(),
        "Effects are Shapley values over the four factors: each is the average, over every order the factors could have moved in, of what its move added; they are attributions, not experiments.".to_owned(),
    ];
    if scope.vendor {
        l.push(
            "Vendor traffic is glance views (the vendor traffic report has no sessions).".into(),
        );
    }
    if b.unfactored > 0 {
        l.push(format!(
            "{} item(s) had sales with no traffic or units recorded in a period; their change is counted as mix.",
            b.unfactored
        ));
    }
    l
}

/// Sentences for a bridge.
pub fn evidence(scope: &Scope, b: &Bridge, compare: Period, period: Period) -> Vec<Statement> {
    let cur = &scope.currency;
    let table = data::retail_source(scope).table;
    let rows = vec![
        Rows::of(scope, table, compare),
        Rows::of(scope, table, period),
    ];
    let mut out = vec![Statement::new(
        format!(
            "Ordered sales were {} from {} and {} from {}: a change of {}.",
            say_money(b.before.sales, cur, false),
            compare.label(),
            say_money(b.after.sales, cur, false),
            period.label(),
            say_money(b.change(), cur, true)
        ),
        &[
            ("salesBefore", money(b.before.sales).into()),
            ("salesAfter", money(b.after.sales).into()),
            ("change", money(b.change()).into()),
        ],
        rows.clone(),
    )];
    let named: Vec<String> = EFFECTS
        .iter()
        .zip(b.effects)
        .map(|(n, v)| format!("{n} {}", say_money(v, cur, true)))
        .collect();
    out.push(Statement::new(
        format!(
            "The change splits into {}; the largest is {}.",
            named.join(", "),
            b.largest()
        ),
        &[("effects", figure(Effects::of(&b.effects)))],
        rows.clone(),
    ));
    out.push(Statement::new(
        format!(
            "Traffic went from {} to {}; units from {} to {}.",
            b.before.traffic, b.after.traffic, b.before.units, b.after.units
        ),
        &[
            ("trafficBefore", b.before.traffic.into()),
            ("trafficAfter", b.after.traffic.into()),
            ("unitsBefore", b.before.units.into()),
            ("unitsAfter", b.after.units.into()),
        ],
        rows.clone(),
    ));
    if let Some(it) = b.items.first() {
        let (i, _) = it
            .effects
            .iter()
            .enumerate()
            .max_by_key(|(_, v)| v.abs())
            .unwrap_or((0, &0));
        out.push(Statement::new(
            format!(
                "Item {} moved the most: {}, mostly {} ({}).",
                it.key.1,
                say_money(it.change(), cur, true),
                EFFECTS[i],
                say_money(it.effects[i], cur, true)
            ),
            &[
                ("asin", it.key.1.clone().into()),
                ("change", money(it.change()).into()),
                ("effects", figure(Effects::of(&it.effects))),
            ],
            rows.into_iter()
                .map(|r| r.asin(it.key.0, &it.key.1))
                .collect(),
        ));
    }
    out
}

/// The request.
pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<OpsBridge>> {
    let period = input.period.expect("checked by the service");
    let compare = input.compare_period.expect("filled by the service");
    let b = read(wh, &input.scope, compare, period).await?;
    let (items, other_items) = items(&b, input.top);
    Ok(Answer {
        result: OpsBridge {
            currency: input.scope.currency.clone(),
            period,
            compare_period: compare,
            traffic_measure: if input.scope.vendor {
                "glance_views"
            } else {
                "sessions"
            },
            totals: OpsTotals::of(&b),
            item_count: b.items.len(),
            items,
            other_items,
        },
        limitations: limitations(&input.scope, &b),
        evidence: evidence(&input.scope, &b, compare, period),
    })
}
