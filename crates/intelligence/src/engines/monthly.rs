//! `INS-MONTHLY-01`: one month's retail and advertising read against the month before and the
//! same month a year before, with the sales bridge of each comparison. A month still running
//! is read through the last data day and compared with the same days of the other months.

use pp_core::Result;
use serde_json::{Value, json};

use super::{Answer, Input, ads_bridge, money, ops_bridge, pct, ratio};
use crate::data::{self, AdsFacts, ItemFacts, Wh};
use crate::evidence::{Rows, Statement, say_money};
use crate::params::{Grain, Period};

fn retail_json(f: &ItemFacts) -> Value {
    ops_bridge::facts_json(f)
}

fn ads_json(f: &AdsFacts, retail: &ItemFacts) -> Value {
    let mut v = ads_bridge::facts_json(f);
    v["tacos"] = ratio(f.spend, retail.sales);
    v
}

fn comparison(b: &ops_bridge::Bridge, ab: &ads_bridge::Bridge) -> Value {
    json!({
        "salesChange": money(b.change()),
        "salesChangePct": pct(b.before.sales, b.after.sales),
        "effects": ops_bridge::effects_json(&b.effects),
        "largestEffect": b.largest(),
        "adSpendChange": money(ab.after.spend - ab.before.spend),
        "adSpendChangePct": pct(ab.before.spend, ab.after.spend),
        "adSalesChange": money(ab.after.sales - ab.before.sales),
        "adSalesChangePct": pct(ab.before.sales, ab.after.sales),
    })
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer> {
    let scope = &input.scope;
    let month = input.month.expect("checked by the service");
    let full = month.period();
    let complete = full.end <= input.data.end;
    let days = if complete {
        full.days()
    } else {
        (input.data.end - full.start).num_days() + 1
    };
    let current = month.first_days(days);
    let prev_month = month.back(1);
    let previous = if complete {
        prev_month.period()
    } else {
        prev_month.first_days(days)
    };
    let year_ago = month.back(12).first_days(days);
    let mut limitations = vec![
        "Retail figures are ordered sales and units from the sales and traffic report; advertising figures are 7-day attributed sales and spend from the campaign report.".to_owned(),
        "Each comparison carries the sales bridge (traffic, mix, conversion, price), exact to the cent.".to_owned(),
    ];
    if !complete {
        limitations.push(format!(
            "{month} is read through {} ({days} days) and compared with the same days of the other months.",
            input.data.end
        ));
    }
    // the month itself is read once and bridged against both comparisons
    let items_now = data::items(wh, scope, current).await?;
    let ads_now = data::ads(wh, scope, Grain::Campaign, current).await?;
    let mom = ops_bridge::compute(data::items(wh, scope, previous).await?, items_now.clone());
    let ads_mom = ads_bridge::compute(
        data::ads(wh, scope, Grain::Campaign, previous).await?,
        ads_now.clone(),
    );
    let (yoy, ads_yoy) = if year_ago.start >= input.data.start {
        (
            Some(ops_bridge::compute(
                data::items(wh, scope, year_ago).await?,
                items_now,
            )),
            Some(ads_bridge::compute(
                data::ads(wh, scope, Grain::Campaign, year_ago).await?,
                ads_now,
            )),
        )
    } else {
        limitations.push(format!(
            "The warehouse starts {}: there is no year-ago month to compare with.",
            input.data.start
        ));
        (None, None)
    };
    if previous.start < input.data.start {
        limitations.push(format!(
            "The warehouse starts {}: the month before is partly or wholly missing.",
            input.data.start
        ));
    }
    let rtable = data::retail_source(scope).table;
    let mut evidence = vec![Statement::new(
        format!(
            "Ordered sales for {month} were {} against {} the month before ({}).",
            say_money(mom.after.sales, &scope.currency, false),
            say_money(mom.before.sales, &scope.currency, false),
            say_money(mom.change(), &scope.currency, true)
        ),
        &[
            ("sales", money(mom.after.sales)),
            ("previousMonthSales", money(mom.before.sales)),
        ],
        vec![
            Rows::of(scope, rtable, previous),
            Rows::of(scope, rtable, current),
        ],
    )];
    if let Some(y) = &yoy {
        evidence.push(Statement::new(
            format!(
                "A year before, the same days sold {} ({} since), mostly {}.",
                say_money(y.before.sales, &scope.currency, false),
                say_money(y.change(), &scope.currency, true),
                y.largest()
            ),
            &[
                ("yearAgoSales", money(y.before.sales)),
                ("effects", ops_bridge::effects_json(&y.effects)),
            ],
            vec![
                Rows::of(scope, rtable, year_ago),
                Rows::of(scope, rtable, current),
            ],
        ));
    }
    let span = |p: Period| json!({ "start": p.start, "end": p.end });
    Ok(Answer {
        result: json!({
            "currency": scope.currency,
            "month": month.label(),
            "complete": complete,
            "through": current.end,
            "periods": {
                "current": span(current),
                "previousMonth": span(previous),
                "yearAgo": span(year_ago),
            },
            "retail": {
                "current": retail_json(&mom.after),
                "previousMonth": retail_json(&mom.before),
                "yearAgo": yoy.as_ref().map(|y| retail_json(&y.before)),
            },
            "advertising": {
                "current": ads_json(&ads_mom.after, &mom.after),
                "previousMonth": ads_json(&ads_mom.before, &mom.before),
                "yearAgo": match (&ads_yoy, &yoy) { (Some(a), Some(y)) => ads_json(&a.before, &y.before), _ => Value::Null },
            },
            "monthOverMonth": comparison(&mom, &ads_mom),
            "yearOverYear": match (&yoy, &ads_yoy) { (Some(y), Some(a)) => comparison(y, a), _ => Value::Null },
        }),
        limitations,
        evidence,
    })
}
