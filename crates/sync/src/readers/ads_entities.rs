//! Advertising entities: a merchant's Sponsored Products and Sponsored Brands campaigns, ad
//! groups, keywords and product targets as the provider lists them today (every page of the
//! catalogued list operations), written whole as its `ads_campaign`, `ads_ad_group` and
//! `ads_targeting` rows. The provider names no brand on a campaign: a campaign's brand is the
//! brand most of its advertised products have in the synced catalog (a Sponsored Products
//! campaign's product ads, a Sponsored Brands campaign's ads' ASINs), empty when none is known.
//! Sponsored Display entities are not read: the operation catalog has no list for them.

use std::collections::BTreeMap;

use pp_core::{Result, TenantId};
use pp_marketplace::service::{Account, Feeds};
use pp_warehouse::Slice;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::{Map, Value, json};

use crate::reader::{Cx, Days, Fut, Load, Reader, ReadsAs, Seller, Started};

/// The reader.
pub struct AdsEntities;

impl Reader for AdsEntities {
    fn label(&self) -> &'static str {
        "sp/sb list campaigns, ad groups, keywords, targets and ads"
    }

    fn reads_as(&self) -> ReadsAs {
        ReadsAs::AdsProfile
    }

    fn prepare<'a>(&'a self, cx: &'a mut Cx<'_>) -> Fut<'a, Option<String>> {
        Box::pin(super::ads_v3::find_profile(cx))
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, _: Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let listed = read(&cx.feeds(), &cx.tenant, &cx.account()).await?;
            let engine = cx.engine().await?;
            let brands =
                pp_warehouse::directory::asin_brands(engine.as_ref(), cx.limits(), cx.seller.id)
                    .await?;
            let profile = cx.profile.unwrap_or_default();
            Ok(Started::Rows(rows(&cx.seller, profile, &listed, &brands)))
        })
    }
}

/// The provider's largest page.
const PAGE: u64 = 5000;

/// Everything one profile lists.
#[derive(Debug, Default)]
pub struct Listed {
    /// (ad product, campaign) pairs.
    pub campaigns: Vec<(&'static str, Value)>,
    pub ad_groups: Vec<Value>,
    /// (`KEYWORD` or `PRODUCT`, keyword or target).
    pub targets: Vec<(&'static str, Value)>,
    /// (campaign id, ASIN) of every ad.
    pub ads: Vec<(String, String)>,
}

/// Every page of a `POST …/list` operation's `key` array.
async fn pages(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    account: &Account<'_>,
    op: &str,
    key: &str,
) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut body = json!({ "maxResults": PAGE });
        if let Some(t) = &token {
            body["nextToken"] = t.clone().into();
        }
        let mut args = Map::new();
        args.insert("body".into(), body);
        let page = feeds.read(tenant, account, op, &args).await?;
        out.extend(page[key].as_array().into_iter().flatten().cloned());
        match page["nextToken"].as_str() {
            Some(t) if !t.is_empty() => token = Some(t.to_owned()),
            _ => return Ok(out),
        }
    }
}

/// Every Sponsored Brands keyword (a `GET` paged by `startIndex` and `count`).
async fn sb_keywords(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    account: &Account<'_>,
) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    loop {
        let mut args = Map::new();
        args.insert("startIndex".into(), out.len().into());
        args.insert("count".into(), PAGE.into());
        let page = feeds
            .read(tenant, account, "sb.list_keywords", &args)
            .await?;
        let got = page.as_array().cloned().unwrap_or_default();
        let n = got.len() as u64;
        out.extend(got);
        if n < PAGE {
            return Ok(out);
        }
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Reads everything the profile lists.
pub async fn read(feeds: &Feeds<'_>, tenant: &TenantId, account: &Account<'_>) -> Result<Listed> {
    let mut l = Listed::default();
    for c in pages(feeds, tenant, account, "sp.list_campaigns", "campaigns").await? {
        l.campaigns.push(("SPONSORED_PRODUCTS", c));
    }
    for c in pages(feeds, tenant, account, "sb.list_campaigns", "campaigns").await? {
        l.campaigns.push(("SPONSORED_BRANDS", c));
    }
    l.ad_groups = pages(feeds, tenant, account, "sp.list_ad_groups", "adGroups").await?;
    l.ad_groups
        .extend(pages(feeds, tenant, account, "sb.list_ad_groups", "adGroups").await?);
    for k in pages(feeds, tenant, account, "sp.list_keywords", "keywords").await? {
        l.targets.push(("KEYWORD", k));
    }
    for k in sb_keywords(feeds, tenant, account).await? {
        l.targets.push(("KEYWORD", k));
    }
    for t in pages(
        feeds,
        tenant,
        account,
        "sp.list_targets",
        "targetingClauses",
    )
    .await?
    {
        l.targets.push(("PRODUCT", t));
    }
    for t in pages(feeds, tenant, account, "sb.list_targets", "targets").await? {
        l.targets.push(("PRODUCT", t));
    }
    for a in pages(feeds, tenant, account, "sp.list_product_ads", "productAds").await? {
        l.ads.push((text(&a["campaignId"]), text(&a["asin"])));
    }
    for a in pages(feeds, tenant, account, "sb.list_ads", "ads").await? {
        let asins = a["creative"]["asins"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for asin in asins {
            l.ads.push((text(&a["campaignId"]), text(&asin)));
        }
    }
    Ok(l)
}

fn id(v: &Value) -> Cell {
    match v {
        Value::Number(n) => n.as_i64().map_or(Cell::Null, Cell::Int),
        Value::String(s) => s.parse().map_or(Cell::Null, Cell::Int),
        _ => Cell::Null,
    }
}

fn money(v: &Value) -> Cell {
    v.as_f64()
        .map_or(Cell::Null, |f| Cell::Cents((f * 100.0).round() as i64))
}

fn upper(v: &Value) -> Cell {
    v.as_str()
        .map_or(Cell::Null, |s| Cell::Text(s.to_uppercase()))
}

fn opt(v: &Value) -> Cell {
    v.as_str().map_or(Cell::Null, |s| Cell::Text(s.to_owned()))
}

/// The brand most of a campaign's ASINs have (ties to the first by name).
fn brand_of(campaign: &str, ads: &[(String, String)], brands: &BTreeMap<String, String>) -> Cell {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for (c, asin) in ads {
        if c == campaign
            && let Some(b) = brands.get(asin)
        {
            *counts.entry(b.as_str()).or_default() += 1;
        }
    }
    let most = counts.values().copied().max();
    counts
        .into_iter()
        .find(|(_, n)| Some(*n) == most)
        .map_or(Cell::Null, |(b, _)| Cell::Text(b.to_owned()))
}

/// The merchant's three entity tables, whole, from what its profile lists.
pub fn rows(
    seller: &Seller,
    profile: i64,
    l: &Listed,
    brands: &BTreeMap<String, String>,
) -> Vec<Load> {
    let who = || [Cell::Int(seller.id), Cell::Text(seller.token.clone())];
    let campaigns = l
        .campaigns
        .iter()
        .map(|(product, c)| {
            // Sponsored Products nests the amount; Sponsored Brands gives it bare
            let budget = match &c["budget"] {
                Value::Object(b) => money(&b.get("budget").cloned().unwrap_or_default()),
                v => money(v),
            };
            let mut r = who().to_vec();
            r.extend([
                Cell::Int(profile),
                id(&c["campaignId"]),
                Cell::Text((*product).to_owned()),
                opt(&c["name"]),
                brand_of(&text(&c["campaignId"]), &l.ads, brands),
                upper(&c["targetingType"]),
                upper(&c["state"]),
                budget,
                opt(&c["startDate"]),
            ]);
            r
        })
        .collect();
    let groups = l
        .ad_groups
        .iter()
        .map(|g| {
            let mut r = who().to_vec();
            r.extend([
                id(&g["campaignId"]),
                id(&g["adGroupId"]),
                opt(&g["name"]),
                money(&g["defaultBid"]),
                upper(&g["state"]),
            ]);
            r
        })
        .collect();
    let targets = l
        .targets
        .iter()
        .map(|(kind, t)| {
            let (target_id, targeting, match_type) = match *kind {
                "KEYWORD" => (
                    id(&t["keywordId"]),
                    opt(&t["keywordText"]),
                    upper(&t["matchType"]),
                ),
                _ => {
                    let expr = t["expression"]
                        .as_array()
                        .or(t["expressions"].as_array())
                        .and_then(|e| e.first())
                        .map(|e| opt(&e["value"]))
                        .unwrap_or(Cell::Null);
                    (
                        id(&t["targetId"]),
                        expr,
                        Cell::Text("TARGETING_EXPRESSION".into()),
                    )
                }
            };
            let mut r = who().to_vec();
            r.extend([
                id(&t["campaignId"]),
                id(&t["adGroupId"]),
                target_id,
                Cell::Text((*kind).to_owned()),
                targeting,
                match_type,
                money(&t["bid"]),
                upper(&t["state"]),
            ]);
            r
        })
        .collect();
    [
        ("ads_campaign", campaigns),
        ("ads_ad_group", groups),
        ("ads_targeting", targets),
    ]
    .into_iter()
    .map(|(name, rows)| Load {
        slice: Slice {
            table: table(name),
            seller_id: seller.id,
            range: None,
            part: None,
        },
        rows,
    })
    .collect()
}
