//! Writes the entity tables: sellers, brands, items, advertising structure, DSP advertiser.

use crate::load::Loader;
use crate::model::{Model, brand_name, profile_id};
use crate::sim::{DSP_ADVERTISER_ID, DSP_SEAT_ID};
use crate::spec::{BRANDS, WorldSpec};
use chrono::Duration;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;

/// Writes every entity row.
pub fn write(
    spec: &WorldSpec,
    model: &Model,
    plan: &crate::events::Plan,
    out: &mut dyn Loader,
) -> Result<(), String> {
    for m in spec.merchants() {
        let row = [
            m.id.into(),
            m.token.into(),
            m.name.into(),
            (if m.vendor { "vendor" } else { "seller" }).into(),
            m.country.into(),
            m.marketplace_id.into(),
            m.currency.into(),
        ];
        out.insert(table("seller"), &row)?;
    }
    for (i, (slug, name, _, _)) in BRANDS.iter().enumerate() {
        out.insert(
            table("brand"),
            &[(i as i64 + 1).into(), (*slug).into(), (*name).into()],
        )?;
    }
    for it in &model.items {
        let m = &spec.merchants()[it.merchant];
        let custom = m.vendor.then(|| format!("{} Pro", brand_name(it.brand)));
        let launch = (spec.first_day() + Duration::days(it.launch_day)).to_string();
        let row = [
            m.id.into(),
            m.token.into(),
            it.asin.as_str().into(),
            it.parent.as_str().into(),
            it.sku.clone().into(),
            brand_name(it.brand).into(),
            custom.into(),
            it.group.into(),
            it.title.as_str().into(),
            Cell::Cents(it.list_cents),
            Cell::Text(launch),
        ];
        out.insert(table("catalog_item"), &row)?;
    }
    for m in spec.merchants().iter().filter(|m| !m.vendor) {
        let row = [
            m.id.into(),
            m.token.into(),
            profile_id(m).into(),
            m.country.into(),
            m.currency.into(),
            m.timezone.into(),
            "seller".into(),
        ];
        out.insert(table("ads_profile"), &row)?;
    }
    for (ci, c) in model.campaigns.iter().enumerate() {
        let m = &spec.merchants()[c.merchant];
        // the budget in force on the last day: the campaign table and the daily table agree
        let budget = plan
            .budget_changes
            .iter()
            .filter(|(i, from, _)| *i == ci && *from < spec.days())
            .map(|(_, _, new)| *new)
            .next_back()
            .unwrap_or(c.budget_cents);
        let targeting = if c.ad_product == "SPONSORED_PRODUCTS" {
            "MANUAL"
        } else {
            "AUTO"
        };
        let row = [
            m.id.into(),
            m.token.into(),
            profile_id(m).into(),
            c.id.into(),
            c.ad_product.into(),
            c.name.as_str().into(),
            brand_name(c.brand).into(),
            targeting.into(),
            "ENABLED".into(),
            Cell::Cents(budget),
            Cell::Text(spec.first_day().to_string()),
        ];
        out.insert(table("ads_campaign"), &row)?;
        for g in &c.ad_groups {
            out.insert(
                table("ads_ad_group"),
                &[
                    m.id.into(),
                    m.token.into(),
                    c.id.into(),
                    g.id.into(),
                    g.name.as_str().into(),
                    Cell::Cents(g.default_bid_cents),
                    "ENABLED".into(),
                ],
            )?;
            for t in &g.targets {
                let kind = if t.product_target {
                    "PRODUCT"
                } else {
                    "KEYWORD"
                };
                let row = [
                    m.id.into(),
                    m.token.into(),
                    c.id.into(),
                    g.id.into(),
                    t.id.into(),
                    kind.into(),
                    t.text.as_str().into(),
                    t.match_type.into(),
                    Cell::Cents(t.bid_cents),
                    "ENABLED".into(),
                ];
                out.insert(table("ads_targeting"), &row)?;
            }
        }
    }
    if let Some(m) = spec.merchants().iter().find(|m| m.vendor) {
        out.insert(
            table("dsp_advertiser"),
            &[
                m.id.into(),
                m.token.into(),
                DSP_ADVERTISER_ID.into(),
                DSP_SEAT_ID.into(),
                format!("{} DSP", m.name).into(),
                m.currency.into(),
            ],
        )?;
    }
    Ok(())
}
