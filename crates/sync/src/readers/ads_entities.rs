//! Advertising entities: a merchant's Sponsored Products, Sponsored Brands and Sponsored
//! Display campaigns, ad groups, keywords and targets as the provider lists them today (every
//! page of the catalogued list operations), written whole as its `ads_campaign`,
//! `ads_ad_group` and `ads_targeting` rows. The provider names no brand on a campaign: a
//! campaign's brand is the brand most of its advertised products have in the synced catalog (a
//! Sponsored Products campaign's product ads, a Sponsored Brands campaign's ads' ASINs), empty
//! when none is known (a Sponsored Display campaign lists no products). A target's expression
//! is written as text, one `type=value` a clause (an audience clause as its type and first
//! value, then its other parts: `views=B0-northwind lookback=30`).

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
        "sp/sb/sd list campaigns, ad groups, keywords, targets and ads"
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

/// Every entity of a `GET` list paged by `startIndex` and `count` (Sponsored Brands keywords,
/// Sponsored Display's lists), answered as a bare array.
async fn indexed(
    feeds: &Feeds<'_>,
    tenant: &TenantId,
    account: &Account<'_>,
    op: &str,
) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    loop {
        let mut args = Map::new();
        args.insert("startIndex".into(), out.len().into());
        args.insert("count".into(), PAGE.into());
        let page = feeds.read(tenant, account, op, &args).await?;
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
    for k in indexed(feeds, tenant, account, "sb.list_keywords").await? {
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
    for c in indexed(feeds, tenant, account, "sd.list_campaigns").await? {
        l.campaigns.push(("SPONSORED_DISPLAY", c));
    }
    l.ad_groups
        .extend(indexed(feeds, tenant, account, "sd.list_ad_groups").await?);
    for t in indexed(feeds, tenant, account, "sd.list_targets").await? {
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

/// A day as ISO text (Sponsored Display writes `20241122`).
fn date(v: &Value) -> Cell {
    match v.as_str() {
        Some(d) if d.len() == 8 && d.bytes().all(|b| b.is_ascii_digit()) => {
            Cell::Text(format!("{}-{}-{}", &d[..4], &d[4..6], &d[6..]))
        }
        _ => opt(v),
    }
}

/// A target's expression as text: a plain clause's value (an ASIN, a category), or, for
/// clauses that nest (Sponsored Display audiences), `type=value` a clause, an audience as its
/// type and first value followed by its other parts.
fn expression(t: &Value) -> Cell {
    let Some(clauses) = t["expression"].as_array().or(t["expressions"].as_array()) else {
        return Cell::Null;
    };
    if let [only] = clauses.as_slice()
        && !only["value"].is_array()
    {
        return opt(&only["value"]);
    }
    let parts: Vec<String> = clauses
        .iter()
        .flat_map(|c| match c["value"].as_array() {
            Some(inner) => {
                let head = inner.first().map(|i| text(&i["value"])).unwrap_or_default();
                let rest = inner
                    .iter()
                    .skip(1)
                    .map(|i| format!("{}={}", text(&i["type"]), text(&i["value"])));
                std::iter::once(format!("{}={head}", text(&c["type"])))
                    .chain(rest)
                    .collect::<Vec<_>>()
            }
            None => vec![format!("{}={}", text(&c["type"]), text(&c["value"]))],
        })
        .collect();
    Cell::Text(parts.join(" "))
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
                date(&c["startDate"]),
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
                _ => (
                    id(&t["targetId"]),
                    expression(t),
                    Cell::Text("TARGETING_EXPRESSION".into()),
                ),
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
