//! Brand memory for the demo world: each brand gets context documents, and the world's
//! injected events become stakes on its timeline, each corroborated by the world's ground
//! truth, so the dev server shows a living brand. Runs once per tenant.
//!
//! The stakes keep the timeline's own rule: appended and corroborated on the day of the seed,
//! they read `corroborated` for `CORROBORATED_DAYS` from then and `closed` afterwards.

use std::collections::HashMap;
use std::path::Path;

use pp_core::Result;
use pp_store::brand::{Author, DocPut, NewEvent};
use pp_store::{Store, db_err};
use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

/// The demo world writes as this service name.
const ACTOR: &str = "svc:demo-world";

fn docs_for(name: &str, merchants: &str, groups: &str) -> Vec<(&'static str, String)> {
    vec![
        (
            "overview",
            format!(
                "# {name}\n\n{name} sells through {merchants}. Sub-brands and item groups: {groups}.\n"
            ),
        ),
        (
            "audience",
            format!(
                "# Who buys {name}\n\nValue-minded households buying for everyday use; demand peaks in the Q4 holiday season and during the July event.\n"
            ),
        ),
        (
            "guidelines",
            format!(
                "# Reading {name}'s numbers\n\nCheck the timeline before explaining a change: stock-outs cap sales while traffic continues, promotions lift units at a lower price, and price tests move conversion.\n"
            ),
        ),
    ]
}

/// The stake an injected event becomes. Its status and close date are the corroboration's
/// (set in `from_world`).
fn event(
    e: &Value,
    brand: String,
    category: &str,
    start: &str,
    end: &str,
    interpretation: String,
    affects: &[&str],
) -> NewEvent {
    NewEvent {
        brand,
        kind: "stake".into(),
        occurred_on: start.to_owned(),
        category: Some(category.to_owned()),
        starts_on: Some(start.to_owned()),
        ends_on: Some(end.to_owned()),
        interpretation: Some(interpretation),
        status: Some("proposed".into()),
        source: "demo_world".into(),
        affects: affects.iter().map(|s| (*s).to_owned()).collect(),
        tags: vec!["demo".into()],
        payload: e.clone(),
        ..NewEvent::default()
    }
}

/// Seeds `tenant` from the warehouse and ground truth of a generated world (once).
pub async fn from_world(
    store: &Store,
    tenant: &str,
    warehouse: &Path,
    ground_truth: &Path,
) -> Result<usize> {
    if store.brand().demo_seeded(tenant).await? {
        return Ok(0);
    }
    let wh =
        Connection::open_with_flags(warehouse, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(db_err)?;
    let q = |sql: &str| -> Result<Vec<(String, String)>> {
        let mut st = wh.prepare(sql).map_err(db_err)?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(db_err)?
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(db_err)
    };
    let slug_of: HashMap<String, String> = q("SELECT Name, Slug FROM brand")?.into_iter().collect();
    let brand_of_asin: HashMap<String, String> =
        q("SELECT DISTINCT c.ASIN, b.Slug FROM catalog_item c JOIN brand b ON b.Name = c.Brand")?
            .into_iter()
            .collect();
    let brand_of_campaign: HashMap<String, String> = q("SELECT DISTINCT CAST(c.CampaignID AS TEXT), b.Slug FROM ads_campaign c JOIN brand b ON b.Name = c.Brand")?.into_iter().collect();
    let merchants: HashMap<String, String> = q("SELECT b.Slug, group_concat(DISTINCT s.Name) FROM brand b JOIN catalog_item c ON c.Brand = b.Name JOIN seller s ON s.ID = c.SellerID GROUP BY b.Slug")?.into_iter().collect();
    let groups: HashMap<String, String> = q("SELECT b.Slug, group_concat(DISTINCT c.ItemGroup) FROM brand b JOIN catalog_item c ON c.Brand = b.Name GROUP BY b.Slug")?.into_iter().collect();
    let truth: Value =
        serde_json::from_slice(&std::fs::read(ground_truth).map_err(pp_core::Error::internal)?)
            .map_err(pp_core::Error::internal)?;
    let mut events = Vec::new();
    for e in truth["events"].as_array().into_iter().flatten() {
        let s = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
        match e["kind"].as_str() {
            Some("stock_out") => events.push(event(e, brand_of_asin.get(&s("asin")).cloned().unwrap_or_default(), "stockout", &s("start"), &s("end"),
                format!("{} was out of stock; about {} units of demand went unserved. Read sales in this window as supply-limited, not as lost demand.", s("asin"), e["lost_units"]), &["sales", "units"])),
            Some("price_test") => events.push(event(e, brand_of_asin.get(&s("asin")).cloned().unwrap_or_default(), "price_test", &s("start"), &s("end"),
                format!("{} was priced at {} instead of {}; conversion followed an elasticity of {}. Units and price both moved by design.", s("asin"), e["test_price"], e["list_price"], e["elasticity"]), &["sales", "units", "price"])),
            Some("promotion") => events.push(event(e, s("brand"), "promotional_window", &s("start"), &s("end"),
                format!("A {} promotion cut prices {}% and lifted traffic {}x: units rise while the average price falls.", s("promotion_type"), e["discount_pct"], e["traffic_lift"]), &["sales", "units", "sessions"])),
            Some("launch") => events.push(event(e, brand_of_asin.get(&s("asin")).cloned().unwrap_or_default(), "launch", &s("date"), &s("date"),
                format!("{} went on sale; its demand ramps up over about 60 days, so early weeks are not a baseline.", s("asin")), &["sales", "units"])),
            Some("ad_budget_change") => events.push(event(e, brand_of_campaign.get(&e["campaign_id"].to_string()).cloned().unwrap_or_default(), "budget_change", &s("date"), &s("date"),
                format!("Campaign {} moved from a {} to a {} daily budget; ad clicks and spend change from here on.", e["campaign_id"], e["old_budget"], e["new_budget"]), &["ad_spend", "clicks"])),
            Some("seasonal_peak") => {
                for slug in slug_of.values() {
                    events.push(event(e, slug.clone(), "seasonal_peak", &s("start"), &s("end"),
                        format!("{}: demand runs about {}x an ordinary day; compare with the same window last year, not the weeks before.", s("name"), e["multiplier"]), &["sales", "sessions"]));
                }
            }
            _ => {}
        }
    }
    let mut slugs: Vec<&String> = slug_of.values().collect();
    slugs.sort();
    let mut docs = Vec::new();
    for slug in &slugs {
        let name = slug_of
            .iter()
            .find(|(_, s)| s == slug)
            .map_or(slug.as_str(), |(n, _)| n.as_str());
        let merchants = merchants.get(*slug).map_or("", String::as_str);
        let groups = groups.get(*slug).map_or("", String::as_str);
        for (kind, content) in docs_for(name, merchants, groups) {
            let hash = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(content.as_bytes()));
            docs.push(DocPut {
                brand: (*slug).clone(),
                kind: kind.to_owned(),
                name: String::new(),
                base_revision: 0,
                content,
                hash,
            });
        }
    }
    let total = events.len();
    // Appended today and corroborated today by the ground truth, as `timeline::corroborate`
    // would: the stake stays open for CORROBORATED_DAYS from now.
    let today = chrono::Utc::now().date_naive();
    let closes_on =
        (today + chrono::Duration::days(crate::timeline::CORROBORATED_DAYS)).to_string();
    let events: Vec<(NewEvent, Option<NewEvent>)> = events
        .into_iter()
        .filter(|e| !e.brand.is_empty())
        .map(|stake| {
            let corroboration = NewEvent {
                brand: stake.brand.clone(),
                kind: "corroboration".into(),
                occurred_on: today.to_string(),
                source: "demo_world".into(),
                note: Some("The demo world's ground truth records this event.".into()),
                payload: serde_json::json!({}),
                ..NewEvent::default()
            };
            let stake = NewEvent {
                status: Some("corroborated".into()),
                closes_on: Some(closes_on.clone()),
                ..stake
            };
            (stake, Some(corroboration))
        })
        .collect();
    let by = Author {
        actor: ACTOR.to_owned(),
        surface: "api".to_owned(),
    };
    store.brand().seed(tenant, docs, events, by).await?;
    Ok(total)
}
