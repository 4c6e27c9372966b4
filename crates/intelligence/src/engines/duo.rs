//! `INS-DUO-01`: both bridges over one period pair, joined: TACOS (ad spend over ordered
//! sales), attributed share (ad sales over ordered sales), paid pressure (ad clicks over
//! traffic) and ad AOV against the average selling price.

use pp_core::Result;
use serde_json::{Value, json};

use super::{Answer, Input, ads_bridge, num, ops_bridge, per, ratio, unit_money};
use crate::data::{self, AdsFacts, ItemFacts, Wh};
use crate::evidence::{Rows, Statement};
use crate::params::Grain;

/// The joined ratios of one period.
fn ratios(r: &ItemFacts, a: &AdsFacts) -> Value {
    let asp = per(r.sales, r.units);
    let ad_aov = per(a.sales, a.purchases);
    json!({
        "tacos": ratio(a.spend, r.sales),
        "attributedShare": ratio(a.sales, r.sales),
        "paidPressure": ratio(a.clicks, r.traffic),
        "adAov": unit_money(ad_aov),
        "averagePrice": unit_money(asp),
        "adAovToAveragePrice": match (ad_aov, asp) {
            (Some(x), Some(y)) if y != 0.0 => num((x / y * 10_000.0).round() / 10_000.0),
            _ => Value::Null,
        },
    })
}

fn pct_of(a: i64, b: i64) -> String {
    if b == 0 {
        "n/a".into()
    } else {
        format!("{:.1}%", a as f64 / b as f64 * 100.0)
    }
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer> {
    let scope = &input.scope;
    let period = input.period.expect("checked by the service");
    let compare = input.compare_period.expect("filled by the service");
    let retail = ops_bridge::read(wh, scope, compare, period).await?;
    let ads = ads_bridge::read(wh, scope, Grain::Campaign, compare, period).await?;
    let (items, others) = ops_bridge::items_json(&retail, input.top.min(10));
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
            ("retailSalesBefore", super::money(retail.before.sales)),
            ("retailSalesAfter", super::money(retail.after.sales)),
            ("adSpendBefore", super::money(ads.before.spend)),
            ("adSpendAfter", super::money(ads.after.spend)),
            ("adSalesBefore", super::money(ads.before.sales)),
            ("adSalesAfter", super::money(ads.after.sales)),
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
        result: json!({
            "currency": scope.currency,
            "period": period,
            "comparePeriod": compare,
            "retail": ops_bridge::totals_json(&retail),
            "advertising": ads_bridge::totals_json(&ads),
            "ratios": {
                "before": ratios(&retail.before, &ads.before),
                "after": ratios(&retail.after, &ads.after),
            },
            "topItems": items,
            "otherItems": others,
        }),
        limitations,
        evidence,
    })
}
