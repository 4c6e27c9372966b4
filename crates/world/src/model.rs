//! The world's entities, drawn from the seed: items with their demand parameters, and the
//! advertising structure (profiles, campaigns, ad groups, keywords and targets).

use crate::rng::Rng;
use crate::spec::{BRANDS, DAYS, MerchantDef, WorldSpec};

/// One item of one merchant.
pub struct Item {
    pub merchant: usize,
    pub brand: &'static str,
    pub asin: String,
    pub parent: String,
    pub sku: Option<String>,
    pub group: &'static str,
    pub title: String,
    pub noun: &'static str,
    pub list_cents: i64,
    /// Organic sessions on an ordinary day.
    pub base_sessions: f64,
    /// Conversion at list price.
    pub base_cvr: f64,
    /// Price elasticity of conversion (negative).
    pub elasticity: f64,
    /// Day index of launch (0 = on sale from the first day).
    pub launch_day: i64,
}

/// A keyword or product target.
pub struct Target {
    pub id: i64,
    pub product_target: bool,
    pub text: String,
    pub match_type: &'static str,
    pub bid_cents: i64,
    pub base_impressions: f64,
    pub ctr: f64,
}

/// An ad group and the items it advertises.
pub struct AdGroup {
    pub id: i64,
    pub name: String,
    pub items: Vec<usize>,
    pub targets: Vec<Target>,
    pub default_bid_cents: i64,
}

/// A campaign.
pub struct Campaign {
    pub merchant: usize,
    pub id: i64,
    pub ad_product: &'static str,
    pub name: String,
    pub brand: &'static str,
    pub budget_cents: i64,
    pub ad_groups: Vec<AdGroup>,
}

/// Everything but the daily facts.
pub struct Model {
    /// The world's merchants (an item's and a campaign's `merchant` index them).
    pub merchants: &'static [MerchantDef],
    pub items: Vec<Item>,
    pub campaigns: Vec<Campaign>,
}

/// The advertising profile id of a merchant.
pub fn profile_id(m: &MerchantDef) -> i64 {
    3_100_000_000 + m.id
}

/// A brand's display name.
pub fn brand_name(slug: &str) -> &'static str {
    BRANDS.iter().find(|b| b.0 == slug).map_or("", |b| b.1)
}

fn asin(n: u64) -> String {
    const ALPHABET: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut s = String::from("B0");
    let mut v = n;
    for _ in 0..8 {
        s.insert(2, ALPHABET[(v % 36) as usize] as char);
        v /= 36;
    }
    s
}

fn items(spec: &WorldSpec, rng: &mut Rng) -> Vec<Item> {
    let mut out = Vec::new();
    let per = spec.scale.items_per_brand();
    for (mi, m) in spec.merchants().iter().enumerate() {
        for &slug in m.brands {
            let (_, name, nouns, groups) = *BRANDS.iter().find(|b| b.0 == slug).expect("brand");
            for k in 0..per {
                let noun = nouns[k % nouns.len()];
                let serial = (m.id as u64) * 1_000_000 + out.len() as u64;
                let list_cents = rng.range(1_299, 5_999) * if m.currency == "MXN" { 17 } else { 1 };
                let launch_day = if k == per - 1 && per > 2 {
                    DAYS - 270
                } else {
                    0
                };
                out.push(Item {
                    merchant: mi,
                    brand: slug,
                    asin: asin(serial * 7_919 + 13),
                    parent: asin((serial / 2) * 7_919 + 11),
                    sku: (!m.vendor).then(|| {
                        format!(
                            "{}-{}-{:04}",
                            m.country,
                            slug.split('-').next().unwrap_or(slug).to_uppercase(),
                            k + 1
                        )
                    }),
                    group: groups[k % groups.len()],
                    title: format!("{name} {noun} {}", k + 1),
                    noun,
                    list_cents,
                    base_sessions: 40.0 + 160.0 * rng.unit(),
                    base_cvr: 0.06 + 0.08 * rng.unit(),
                    elasticity: -(0.8 + 1.6 * rng.unit()),
                    launch_day,
                });
            }
        }
    }
    out
}

fn campaigns(merchants: &[MerchantDef], items: &[Item], rng: &mut Rng) -> Vec<Campaign> {
    let mut out = Vec::new();
    let mut next_id = 100_000_i64;
    let mut id = || {
        next_id += 1;
        next_id
    };
    for (mi, m) in merchants.iter().enumerate() {
        if m.vendor {
            continue;
        }
        let pid = profile_id(m);
        for &slug in m.brands {
            let brand_items: Vec<usize> = (0..items.len())
                .filter(|&i| items[i].merchant == mi && items[i].brand == slug)
                .collect();
            // Sponsored Products: one campaign per brand, ad groups of up to five items, three keywords each.
            let sp_id = pid * 100 + id();
            let mut groups = Vec::new();
            for chunk in brand_items.chunks(5) {
                let noun = items[chunk[0]].noun;
                let ag = id();
                let targets = ["EXACT", "PHRASE", "BROAD"]
                    .iter()
                    .enumerate()
                    .map(|(j, mt)| Target {
                        id: ag * 10 + j as i64,
                        product_target: false,
                        text: if j == 0 {
                            format!("{} {noun}", brand_name(slug).to_lowercase())
                        } else {
                            noun.to_owned()
                        },
                        match_type: mt,
                        bid_cents: rng.range(60, 180),
                        base_impressions: 300.0 + 900.0 * rng.unit(),
                        ctr: [0.012, 0.006, 0.004][j],
                    })
                    .collect();
                groups.push(AdGroup {
                    id: ag,
                    name: format!("{noun} group {ag}"),
                    items: chunk.to_vec(),
                    targets,
                    default_bid_cents: 100,
                });
            }
            let budget = (groups.len() as i64) * rng.range(900, 1_800);
            out.push(Campaign {
                merchant: mi,
                id: sp_id,
                ad_product: "SPONSORED_PRODUCTS",
                name: format!("{} SP {} manual", m.country, brand_name(slug)),
                brand: slug,
                budget_cents: budget,
                ad_groups: groups,
            });
            // Sponsored Brands and Display: one campaign, one ad group, one target each.
            for (product, label, product_target, text) in [
                (
                    "SPONSORED_BRANDS",
                    "SB headline",
                    false,
                    brand_name(slug).to_lowercase(),
                ),
                (
                    "SPONSORED_DISPLAY",
                    "SD views",
                    true,
                    format!("views=B0-{slug} lookback=30"),
                ),
            ] {
                let cid = pid * 100 + id();
                let ag = id();
                let target = Target {
                    id: ag * 10,
                    product_target,
                    text,
                    match_type: if product_target {
                        "TARGETING_EXPRESSION"
                    } else {
                        "EXACT"
                    },
                    bid_cents: rng.range(80, 200),
                    base_impressions: 800.0 + 1_600.0 * rng.unit(),
                    ctr: if product_target { 0.003 } else { 0.008 },
                };
                out.push(Campaign {
                    merchant: mi,
                    id: cid,
                    ad_product: product,
                    name: format!("{} {} {label}", m.country, brand_name(slug)),
                    brand: slug,
                    budget_cents: rng.range(1_500, 3_000),
                    ad_groups: vec![AdGroup {
                        id: ag,
                        name: format!("{label} {ag}"),
                        items: brand_items.clone(),
                        targets: vec![target],
                        default_bid_cents: 120,
                    }],
                });
            }
        }
    }
    out
}

/// Draws the model from the spec's seed.
pub fn build(spec: &WorldSpec, rng: &mut Rng) -> Model {
    let items = items(spec, rng);
    let campaigns = campaigns(spec.merchants(), &items, rng);
    Model {
        merchants: spec.merchants(),
        items,
        campaigns,
    }
}
