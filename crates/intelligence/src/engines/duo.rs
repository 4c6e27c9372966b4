//! `INS-DUO-01`: both bridges over one period pair, joined: TACOS (ad spend over ordered
//! sales), attributed share (ad sales over ordered sales), paid pressure (ad clicks over
//! traffic) and ad AOV against the average selling price.

use pp_core::Result;
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, ads_bridge, num, ops_bridge, per, ratio, unit_money};
use crate::data::{self, AdsFacts, ItemFacts, Wh};
use crate::evidence::{Rows, Statement};
use crate::params::{Grain, Period};

/// What `INS-DUO-01` answers.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Duo {
    pub currency: String,
    pub period: Period,
    pub compare_period: Period,
    pub retail: ops_bridge::OpsTotals,
    pub advertising: ads_bridge::AdsTotals,
    pub ratios: BeforeAfter<Ratios>,
    /// The ten largest item changes at most.
    pub top_items: Vec<ops_bridge::ItemView>,
    pub other_items: ops_bridge::Others,
}

/// A figure in the compare period and in the period.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "BeforeAfter_{T}")]
pub struct BeforeAfter<T> {
    pub before: T,
    pub after: T,
}

/// The joined ratios of one period; each null when its denominator is zero.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "DuoRatios")]
pub struct Ratios {
    /// Ad spend over ordered sales.
    pub tacos: Option<f64>,
    /// Ad sales over ordered sales.
    pub attributed_share: Option<f64>,
    /// Ad clicks over traffic.
    pub paid_pressure: Option<f64>,
    pub ad_aov: Option<Money>,
    pub average_price: Option<Money>,
    pub ad_aov_to_average_price: Option<f64>,
}

impl Ratios {
    fn of(r: &ItemFacts, a: &AdsFacts) -> Self {
        let asp = per(r.sales, r.units);
        let ad_aov = per(a.sales, a.purchases);
        Self {
            tacos: ratio(a.spend, r.sales),
            attributed_share: ratio(a.sales, r.sales),
            paid_pressure: ratio(a.clicks, r.traffic),
            ad_aov: unit_money(ad_aov),
            average_price: unit_money(asp),
            ad_aov_to_average_price: match (ad_aov, asp) {
                (Some(x), Some(y)) if y != 0.0 => num((x / y * 10_000.0).round() / 10_000.0),
                _ => None,
            },
        }
    }
}

fn pct_of(a: i64, b: i64) -> String {
    if b == 0 {
        "n/a".into()
    } else {
        format!("{:.1}%", a as f64 / b as f64 * 100.0)
    }
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<Duo>> {
    let scope = &input.scope;
    let period = input.period.expect("checked by the service");
    let compare = input.compare_period.expect("filled by the service");
    let retail = ops_bridge::read(wh, scope, compare, period).await?;
    let ads = ads_bridge::read(wh, scope, Grain::Campaign, compare, period).await?;
    let (top_items, other_items) = ops_bridge::items(&retail, input.top.min(10));
    let mut limitations = ops_bridge::limitations(scope, &retail);
    limitations.extend(ads_bridge::limitations(&ads));
    limitations.push("TACOS, attributed share and paid pressure set advertising's attributed figures against the whole account's ordered sales and traffic; attributed sales can exceed what advertising caused.".into());
    let rtable = data::retail_source(scope).table;
    let mut evidence = vec![Statement::new(
        format!(
            "TACOS was {} before and {} after; advertising was credited with {} of ordered sales before and {} after.",
            pct_of(ads.before.spend, retail.before.sales),
            pct_of(ads.after.spend, retail.after.sales),
            pct_of(ads.before.sales, retail.before.sales),
            pct_of(ads.after.sales, retail.after.sales),
        ),
        &[
            (
                "retailSalesBefore",
                super::money(retail.before.sales).into(),
            ),
            ("retailSalesAfter", super::money(retail.after.sales).into()),
            ("adSpendBefore", super::money(ads.before.spend).into()),
            ("adSpendAfter", super::money(ads.after.spend).into()),
            ("adSalesBefore", super::money(ads.before.sales).into()),
            ("adSalesAfter", super::money(ads.after.sales).into()),
        ],
        vec![
            Rows::of(scope, rtable, compare),
            Rows::of(scope, rtable, period),
            Rows::of(scope, data::ADS_TABLE, compare),
            Rows::of(scope, data::ADS_TABLE, period),
        ],
    )];
    evidence.extend(ops_bridge::evidence(scope, &retail, compare, period));
    evidence.extend(ads_bridge::evidence(
        scope,
        &ads,
        compare,
        period,
        data::ADS_TABLE,
    ));
    Ok(Answer {
        result: Duo {
            currency: scope.currency.clone(),
            period,
            compare_period: compare,
            retail: ops_bridge::OpsTotals::of(&retail),
            advertising: ads_bridge::AdsTotals::of(&ads),
            ratios: BeforeAfter {
                before: Ratios::of(&retail.before, &ads.before),
                after: Ratios::of(&retail.after, &ads.after),
            },
            top_items,
            other_items,
        },
        limitations,
        evidence,
    })
}
