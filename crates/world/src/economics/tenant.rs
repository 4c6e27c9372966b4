//! What a seller keeps outside the marketplace, as the gateway's tenant data would hold it:
//! each SKU's landed-cost periods (`cost_period`) and the euro reference rates
//! (`exchange_rate`), written into the world's warehouse as a managed warehouse's copy reads,
//! and the cost periods as the gateway's cost file (`landed-costs.csv`).

use chrono::Duration;
use pp_warehouse::schema::{Cell, Table};

use super::rates::CURRENCIES;
use super::truth;
use crate::load::Loader;
use crate::spec::MerchantDef;

fn cents(v: i64) -> String {
    format!("{}.{:02}", v / 100, v % 100)
}

/// The token and marketplace of seller row `id`.
fn merchant(merchants: &[MerchantDef], id: i64) -> &MerchantDef {
    merchants
        .iter()
        .find(|m| m.id == id)
        .expect("a merchant of the world")
}

/// Writes the cost periods and the rates.
pub fn write(
    e: &truth::Economics,
    merchants: &[MerchantDef],
    tables: (&'static Table, &'static Table),
    out: &mut dyn Loader,
) -> Result<(), String> {
    let (costs, rates) = tables;
    for (i, c) in e.costs.iter().enumerate() {
        let m = merchant(merchants, c.seller_id);
        let next = e
            .costs
            .get(i + 1)
            .filter(|n| n.seller_id == c.seller_id && n.sku == c.sku);
        out.insert(
            costs,
            &[
                Cell::Int(c.seller_id),
                Cell::Text(m.token.to_owned()),
                Cell::Text(c.sku.clone()),
                Cell::Text(c.from.to_string()),
                next.map_or(Cell::Null, |n| {
                    Cell::Text((n.from - Duration::days(1)).to_string())
                }),
                Cell::Text(c.currency.to_owned()),
                Cell::Cents(c.unit_cost),
                Cell::Cents(c.freight),
                Cell::Cents(c.duties),
            ],
        )?;
    }
    for day in &e.rates {
        for (code, r) in CURRENCIES.iter().zip(day.per_eur_e4) {
            out.insert(
                rates,
                &[
                    Cell::Text(day.date.to_string()),
                    Cell::Text((*code).to_owned()),
                    Cell::Text(format!("{}.{:04}", r / 10_000, r % 10_000)),
                ],
            )?;
        }
    }
    Ok(())
}

/// The cost periods as the gateway's cost file (`seller_id,marketplace_id,sku,valid_from,
/// currency,unit_cost,freight,duties`), which `costs import` takes.
pub fn costs_csv(e: &truth::Economics, merchants: &[MerchantDef]) -> String {
    let mut out =
        String::from("seller_id,marketplace_id,sku,valid_from,currency,unit_cost,freight,duties\n");
    for c in &e.costs {
        let m = merchant(merchants, c.seller_id);
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{}\n",
            m.token,
            m.marketplace_id,
            c.sku,
            c.from,
            c.currency,
            cents(c.unit_cost),
            cents(c.freight),
            cents(c.duties)
        ));
    }
    out
}
