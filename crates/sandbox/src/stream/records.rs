//! Amazon Marketing Stream's records from the world: a day of one profile's report rows split
//! into placement hours (`pp_world::hours`) and written as the stream's datasets write them —
//! `sp-traffic`, `sb-traffic`, `sd-traffic` (impressions, clicks, cost), `sp-conversion`,
//! `sb-conversion`, `sd-conversion` (the 7-day attributed conversions and sales the world's
//! reports carry) and `budget-usage` (each campaign's share of its budget spent by the end of
//! each hour it served). Every record has an `idempotency_id` made from what it is about and
//! its version: a restatement is a new record (a delta) with a new id.

use chrono::{FixedOffset, NaiveDate, TimeZone};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use pp_world::hours::{self, Measures, PLACEMENTS};

use crate::error::SimError;
use crate::world::World;

/// The datasets the sandbox streams, with the ad product each covers (`None`: every one).
pub const DATASETS: &[(&str, Option<&str>)] = &[
    ("sp-traffic", Some("SPONSORED_PRODUCTS")),
    ("sp-conversion", Some("SPONSORED_PRODUCTS")),
    ("sb-traffic", Some("SPONSORED_BRANDS")),
    ("sb-conversion", Some("SPONSORED_BRANDS")),
    ("sd-traffic", Some("SPONSORED_DISPLAY")),
    ("sd-conversion", Some("SPONSORED_DISPLAY")),
    ("budget-usage", None),
];

/// Whether `dataset` is a conversion dataset (restated as attribution arrives).
pub fn restates(dataset: &str) -> bool {
    dataset.ends_with("-conversion")
}

/// A profile's place: its advertiser (the merchant token), marketplace, currency and offset.
pub struct Place {
    pub advertiser: String,
    pub marketplace_id: String,
    pub currency: String,
    pub offset: FixedOffset,
}

/// The standard offset of a profile's time zone (the world keeps no daylight saving time);
/// a zone the world does not use is an error, not UTC.
fn offset_of(tz: &str) -> Result<FixedOffset, SimError> {
    let hours = match tz {
        "America/Los_Angeles" => -8,
        "America/Denver" => -7,
        "America/Chicago" | "America/Mexico_City" => -6,
        "America/New_York" | "America/Toronto" => -5,
        other => {
            return Err(SimError::internal(format!(
                "the world's profile time zone {other} has no offset in the sandbox"
            )));
        }
    };
    Ok(FixedOffset::east_opt(hours * 3600).expect("a whole-hour offset"))
}

/// Where profile `profile` is.
pub fn place(world: &World, profile: i64) -> Result<Place, SimError> {
    let rows = world.rows(
        "SELECT p.MarketplaceSellerID AS token, p.Timezone AS tz, s.MarketplaceID AS market, s.Currency AS currency
         FROM ads_profile p JOIN seller s ON s.ID = p.SellerID WHERE p.ProfileID = ?1",
        &[&profile],
    )?;
    let r = rows
        .first()
        .ok_or_else(|| SimError::not_found(format!("no profile {profile}")))?;
    let s = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
    Ok(Place {
        advertiser: s("token"),
        marketplace_id: s("market"),
        currency: s("currency"),
        offset: offset_of(r["tz"].as_str().unwrap_or_default())?,
    })
}

fn cents(v: &Value) -> i64 {
    (v.as_f64().unwrap_or_default() * 100.0).round() as i64
}

fn money(cents: i64) -> Value {
    json!(cents as f64 / 100.0)
}

/// An id made from `parts`, shaped like a UUID.
fn idempotency_id(parts: &[&dyn std::fmt::Display]) -> String {
    let text: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    crate::store::uuid_of(&hex::encode(Sha256::digest(text.join("|").as_bytes())))
}

/// One placement hour of one report row, before it is written as a record.
#[derive(Debug, Clone, PartialEq)]
pub struct HourRow {
    pub campaign: i64,
    pub ad_group: i64,
    pub target: i64,
    pub placement: usize,
    pub hour: u32,
    pub m: Measures,
}

/// The hours of `profile`'s `ad_product` targets on `date`, split from the day's report rows.
pub fn target_hours(
    world: &World,
    seed: u64,
    profile: i64,
    ad_product: &str,
    date: NaiveDate,
) -> Result<Vec<HourRow>, SimError> {
    let day = date.to_string();
    let spent = world.rows(
        "SELECT CampaignID, CampaignBudget, Cost FROM ads_campaign_daily WHERE ProfileID = ?1 AND Date = ?2 AND AdProduct = ?3",
        &[&profile, &day, &ad_product],
    )?;
    let ran_out = |campaign: i64| {
        spent
            .iter()
            .find(|r| r["CampaignID"].as_i64() == Some(campaign))
            .filter(|r| {
                cents(&r["Cost"]) as f64 >= hours::SPENT_SHARE * cents(&r["CampaignBudget"]) as f64
            })
            .map(|_| hours::out_of_budget_hour(seed, campaign, date))
    };
    let rows = world.rows(
        "SELECT CampaignID, AdGroupID, TargetingID, Impressions, Clicks, Cost, Purchases7d, Sales7d
         FROM ads_targeting_daily WHERE ProfileID = ?1 AND Date = ?2 AND AdProduct = ?3
         ORDER BY CampaignID, AdGroupID, TargetingID",
        &[&profile, &day, &ad_product],
    )?;
    let mut out = Vec::new();
    for r in rows {
        let campaign = r["CampaignID"].as_i64().unwrap_or_default();
        let m = Measures {
            impressions: r["Impressions"].as_i64().unwrap_or_default(),
            clicks: r["Clicks"].as_i64().unwrap_or_default(),
            cost: cents(&r["Cost"]),
            purchases: r["Purchases7d"].as_i64().unwrap_or_default(),
            sales: cents(&r["Sales7d"]),
        };
        let profile_of = hours::profile(seed, campaign);
        for c in hours::split_day(&profile_of, date, m, ran_out(campaign)) {
            out.push(HourRow {
                campaign,
                ad_group: r["AdGroupID"].as_i64().unwrap_or_default(),
                target: r["TargetingID"].as_i64().unwrap_or_default(),
                placement: c.placement,
                hour: c.hour,
                m: c.m,
            });
        }
    }
    Ok(out)
}

/// Local time `h:m:s` of `date` at the profile's offset, in ISO 8601 with the offset: the
/// start of an hour (`time_window_start`) or its last second (a usage reading).
fn local_time(place: &Place, date: NaiveDate, (h, m, sec): (u32, u32, u32)) -> String {
    let local = date.and_hms_opt(h, m, sec).expect("a time of the day");
    // a fixed offset maps every local time to exactly one instant
    place
        .offset
        .from_local_datetime(&local)
        .single()
        .expect("one instant at a fixed offset")
        .to_rfc3339()
}

/// A traffic or conversion record of `dataset` for one hour row, `version` 0 for the first
/// delivery (a restatement's version is the day it was restated on).
pub fn hour_record(
    dataset: &str,
    place: &Place,
    date: NaiveDate,
    r: &HourRow,
    version: &str,
) -> Value {
    let id = idempotency_id(&[
        &dataset,
        &place.advertiser,
        &place.marketplace_id,
        &r.campaign,
        &r.ad_group,
        &r.target,
        &r.placement,
        &date,
        &r.hour,
        &version,
    ]);
    let target_key = if dataset.starts_with("sd-") {
        "target_id"
    } else {
        "keyword_id"
    };
    let mut v = json!({
        "idempotency_id": id,
        "dataset_id": dataset,
        "marketplace_id": place.marketplace_id,
        "currency": place.currency,
        "advertiser_id": place.advertiser,
        "campaign_id": r.campaign.to_string(),
        "ad_group_id": r.ad_group.to_string(),
        target_key: r.target.to_string(),
        "placement": PLACEMENTS[r.placement],
        "time_window_start": local_time(place, date, (r.hour, 0, 0)),
    });
    let o = v.as_object_mut().expect("an object");
    if restates(dataset) {
        o.insert("attributed_conversions_7d".into(), r.m.purchases.into());
        o.insert("attributed_sales_7d".into(), money(r.m.sales));
    } else {
        o.insert("impressions".into(), r.m.impressions.into());
        o.insert("clicks".into(), r.m.clicks.into());
        o.insert("cost".into(), money(r.m.cost));
    }
    v
}

/// The records of a day of `dataset` for `profile`: every hour row's, or for `budget-usage`
/// each campaign's usage at the end of every hour it served.
pub fn day_records(
    world: &World,
    seed: u64,
    dataset: &str,
    profile: i64,
    date: NaiveDate,
) -> Result<Vec<Value>, SimError> {
    let place = place(world, profile)?;
    let Some(&(_, product)) = DATASETS.iter().find(|d| d.0 == dataset) else {
        return Err(SimError::invalid(format!("no dataset {dataset}")));
    };
    match product {
        Some(product) => Ok(target_hours(world, seed, profile, product, date)?
            .iter()
            .filter(|r| {
                if restates(dataset) {
                    r.m.purchases != 0 || r.m.sales != 0
                } else {
                    r.m.impressions != 0 || r.m.clicks != 0 || r.m.cost != 0
                }
            })
            .map(|r| hour_record(dataset, &place, date, r, "0"))
            .collect()),
        None => budget_usage(world, seed, &place, profile, date),
    }
}

/// Each campaign's budget used by the end of each hour it spent in, as `budget-usage` says it.
fn budget_usage(
    world: &World,
    seed: u64,
    place: &Place,
    profile: i64,
    date: NaiveDate,
) -> Result<Vec<Value>, SimError> {
    let budgets = world.rows(
        "SELECT AdProduct, CampaignID, CampaignBudget FROM ads_campaign_daily WHERE ProfileID = ?1 AND Date = ?2 ORDER BY CampaignID",
        &[&profile, &date.to_string()],
    )?;
    let mut out = Vec::new();
    for product in [
        "SPONSORED_PRODUCTS",
        "SPONSORED_BRANDS",
        "SPONSORED_DISPLAY",
    ] {
        let rows = target_hours(world, seed, profile, product, date)?;
        for b in budgets.iter().filter(|b| b["AdProduct"] == product) {
            let campaign = b["CampaignID"].as_i64().unwrap_or_default();
            let budget = cents(&b["CampaignBudget"]);
            let mut by_hour = [0i64; 24];
            for r in rows.iter().filter(|r| r.campaign == campaign) {
                by_hour[r.hour as usize] += r.m.cost;
            }
            let mut spent = 0;
            for (hour, cost) in by_hour.iter().enumerate() {
                if *cost == 0 {
                    continue;
                }
                spent += cost;
                let at = local_time(place, date, (hour as u32, 59, 59));
                out.push(json!({
                    "idempotency_id": idempotency_id(&[&"budget-usage", &place.advertiser, &campaign, &date, &hour]),
                    "dataset_id": "budget-usage",
                    "advertiser_id": place.advertiser,
                    "marketplace_id": place.marketplace_id,
                    "budget_scope_id": campaign.to_string(),
                    "budget_scope_type": "CAMPAIGN",
                    "advertising_product_type": product,
                    "budget": money(budget),
                    "budget_usage_percentage": if budget > 0 { (spent as f64 * 10_000.0 / budget as f64).round() / 100.0 } else { 0.0 },
                    "usage_updated_timestamp": at,
                }));
            }
        }
    }
    Ok(out)
}

/// The delta records that restate `dataset`'s day `date` from what `before` said to what
/// `after` says: one per hour row whose conversions changed, `version` naming the restatement.
pub fn restated(
    before: &World,
    after: &World,
    seed: u64,
    dataset: &str,
    profile: i64,
    date: NaiveDate,
    version: &str,
) -> Result<Vec<Value>, SimError> {
    let Some(&(_, Some(product))) = DATASETS.iter().find(|d| d.0 == dataset) else {
        return Ok(Vec::new());
    };
    let place = place(after, profile)?;
    let old = target_hours(before, seed, profile, product, date)?;
    let new = target_hours(after, seed, profile, product, date)?;
    let key = |r: &HourRow| (r.campaign, r.ad_group, r.target, r.placement, r.hour);
    let mut was: std::collections::BTreeMap<_, Measures> =
        old.iter().map(|r| (key(r), r.m)).collect();
    let mut out = Vec::new();
    for r in &new {
        let prior = was.remove(&key(r)).unwrap_or_default();
        let delta = HourRow {
            m: Measures {
                purchases: r.m.purchases - prior.purchases,
                sales: r.m.sales - prior.sales,
                ..Measures::default()
            },
            ..r.clone()
        };
        if delta.m.purchases != 0 || delta.m.sales != 0 {
            out.push(hour_record(dataset, &place, date, &delta, version));
        }
    }
    // an hour that had conversions and now has none
    for ((campaign, ad_group, target, placement, hour), m) in was {
        if m.purchases != 0 || m.sales != 0 {
            let gone = HourRow {
                campaign,
                ad_group,
                target,
                placement,
                hour,
                m: Measures {
                    purchases: -m.purchases,
                    sales: -m.sales,
                    ..Measures::default()
                },
            };
            out.push(hour_record(dataset, &place, date, &gone, version));
        }
    }
    Ok(out)
}
