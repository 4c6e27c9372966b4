//! Sponsored Brands v4 on the bulk surfaces — campaigns (`bidding` replaced whole by an
//! update), ad groups (no bids) and ads — and the five ad-type creates with the provider's
//! creative rules: every asset id must be in the profile's asset library; on Store-landing
//! types every ASIN must be on the brand's Store page; `VIDEO` takes `asins` and
//! `videoAssetIds` only (brand fields fail validation); Store Spotlight has no top-level
//! `asins` (they ride in `subpages`).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::post;
use serde_json::{Map, Value, json};

use super::assets::{asset, brands, store_asins};
use super::bulk::{self, Surface, apply, check_state, invalid, new_id, parent, require, s};
use super::entities::Kind;
use super::{body, media, profile};
use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::sim::Sim;

pub static CAMPAIGNS: Kind = Kind {
    name: "sb_campaign",
    id_field: "campaignId",
    plural: "campaigns",
    singular: "campaign",
    error_type: "CAMPAIGN",
    world_sql: "SELECT CampaignID, Name, State, DailyBudget, StartDate, Brand FROM ads_campaign WHERE ProfileID = ?1 AND AdProduct = 'SPONSORED_BRANDS'",
    shape: |r: &Map<String, Value>| {
        json!({
            "campaignId": s(&r["CampaignID"]), "name": r["Name"], "state": r["State"], "budget": r["DailyBudget"], "budgetType": "DAILY",
            "startDate": r["StartDate"], "brandEntityId": format!("ENTITY{}", r["Brand"].as_str().unwrap_or("").to_uppercase().replace(' ', "")),
            "goal": "BRAND_IMPRESSION_SHARE", "costType": "CPC",
            "bidding": { "bidOptimization": true, "bidAdjustmentsByPlacement": [], "shopperCohortBidAdjustments": [] },
        })
    },
};

pub static AD_GROUPS: Kind = Kind {
    name: "sb_ad_group",
    id_field: "adGroupId",
    plural: "adGroups",
    singular: "adGroup",
    error_type: "AD_GROUP",
    world_sql: "SELECT g.AdGroupID, g.CampaignID, g.Name, g.State FROM ads_ad_group g
                JOIN ads_campaign c ON c.CampaignID = g.CampaignID AND c.SellerID = g.SellerID WHERE c.ProfileID = ?1 AND c.AdProduct = 'SPONSORED_BRANDS'",
    shape: |r: &Map<String, Value>| json!({ "adGroupId": s(&r["AdGroupID"]), "campaignId": s(&r["CampaignID"]), "name": r["Name"], "state": r["State"] }),
};

pub static ADS: Kind = Kind {
    name: "sb_ad",
    id_field: "adId",
    plural: "ads",
    singular: "ad",
    error_type: "AD",
    world_sql: "SELECT NULL AS x WHERE ?1 IS NULL AND 0",
    shape: |_| Value::Null,
};

const CAMPAIGN_MEDIA: &str = "application/vnd.sbcampaignresource.v4+json";
const AD_GROUP_MEDIA: &str = "application/vnd.sbadgroupresource.v4+json";
const AD_MEDIA: &str = "application/vnd.sbadresource.v4+json";

fn new_campaign(sim: &Sim, _p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(i, k, &["name", "state", "budget", "budgetType"])?;
    check_state(i, &k["state"])?;
    if k["budget"].as_f64().is_none_or(|b| b < 1.0) {
        return Err(invalid(i, "budget must be at least 1"));
    }
    let mut campaign = json!({
        "campaignId": new_id(sim, i, "sb-campaign", 9_000_000_000)?,
        "name": k["name"], "state": k["state"], "budget": k["budget"], "budgetType": k["budgetType"],
        "startDate": k.get("startDate").cloned().unwrap_or_else(|| sim.world().today().to_string().into()),
        "goal": k.get("goal").cloned().unwrap_or_else(|| "BRAND_IMPRESSION_SHARE".into()), "costType": "CPC",
        "bidding": k.get("bidding").cloned().unwrap_or_else(|| json!({ "bidOptimization": true, "bidAdjustmentsByPlacement": [], "shopperCohortBidAdjustments": [] })),
    });
    // a brand entity only when one was named (sellers have none): a string, never null
    if let Some(e) = k.get("brandEntityId").filter(|v| v.is_string()) {
        campaign["brandEntityId"] = e.clone();
    }
    Ok(campaign)
}

fn new_ad_group(sim: &Sim, p: i64, i: usize, k: &Value) -> Result<Value, Value> {
    require(i, k, &["campaignId", "name", "state"])?;
    check_state(i, &k["state"])?;
    if k.get("bid").is_some() || k.get("defaultBid").is_some() {
        return Err(invalid(
            i,
            "Sponsored Brands ad groups take no bid: bids live on keywords and targets",
        ));
    }
    parent(sim, p, i, &CAMPAIGNS, &k["campaignId"])?;
    Ok(
        json!({ "adGroupId": new_id(sim, i, "sb-ad-group", 9_100_000_000)?, "campaignId": s(&k["campaignId"]), "name": k["name"], "state": k["state"] }),
    )
}

fn no_create(_: &Sim, _: i64, i: usize, _: &Value) -> Result<Value, Value> {
    Err(invalid(
        i,
        "create Sponsored Brands ads through /sb/v4/ads/<adType>",
    ))
}

/// Items one Sponsored Brands v4 write may carry (the documents' `maxItems`).
pub const SB_MAX_ITEMS: usize = 10;

/// The Sponsored Brands v4 operations; each answers its errors in its resource's media type,
/// as the documents have them.
macro_rules! ops {
    ($media:ident: $($stat:ident = $name:literal;)*) => {
        $(static $stat: Op = Op { name: $name, family: Family::AdsEntity, rate: 10.0, burst: 10.0, error_media: Some($media) };)*
    };
}

ops! { CAMPAIGN_MEDIA:
    LIST_CAMPAIGNS = "sb.listCampaigns"; CREATE_CAMPAIGNS = "sb.createCampaigns"; UPDATE_CAMPAIGNS = "sb.updateCampaigns"; DELETE_CAMPAIGNS = "sb.deleteCampaigns";
}
ops! { AD_GROUP_MEDIA:
    LIST_AD_GROUPS = "sb.listAdGroups"; CREATE_AD_GROUPS = "sb.createAdGroups"; UPDATE_AD_GROUPS = "sb.updateAdGroups"; DELETE_AD_GROUPS = "sb.deleteAdGroups";
}
ops! { AD_MEDIA:
    LIST_ADS = "sb.listAds"; CREATE_ADS = "sb.createAds"; UPDATE_ADS = "sb.updateAds"; DELETE_ADS = "sb.deleteAds";
    PRODUCT_COLLECTION = "sb.createProductCollectionAds"; BRAND_VIDEO = "sb.createBrandVideoAds"; VIDEO = "sb.createVideoAds";
    STORE_SPOTLIGHT = "sb.createStoreSpotlightAds"; EXTENDED = "sb.createExtendedProductCollectionAds";
}

/// Budget usage answers its errors as `{ code, details }`, unlike the entity calls.
static BUDGET_USAGE: Op = Op {
    name: "sb.campaignsBudgetUsage",
    family: Family::Ads,
    rate: 10.0,
    burst: 10.0,
    error_media: None,
};

static SURFACES: [Surface; 3] = [
    Surface {
        kind: &CAMPAIGNS,
        media: CAMPAIGN_MEDIA,
        path: "/sb/v4/campaigns",
        ops: [
            &LIST_CAMPAIGNS,
            &CREATE_CAMPAIGNS,
            &UPDATE_CAMPAIGNS,
            &DELETE_CAMPAIGNS,
        ],
        create: new_campaign,
        updatable: &["name", "state", "budget", "bidding", "endDate"],
        update_needs: &[],
        max_items: SB_MAX_ITEMS,
    },
    Surface {
        kind: &AD_GROUPS,
        media: AD_GROUP_MEDIA,
        path: "/sb/v4/adGroups",
        ops: [
            &LIST_AD_GROUPS,
            &CREATE_AD_GROUPS,
            &UPDATE_AD_GROUPS,
            &DELETE_AD_GROUPS,
        ],
        create: new_ad_group,
        updatable: &["name", "state"],
        update_needs: &[],
        max_items: SB_MAX_ITEMS,
    },
    Surface {
        kind: &ADS,
        media: AD_MEDIA,
        path: "/sb/v4/ads",
        ops: [&LIST_ADS, &CREATE_ADS, &UPDATE_ADS, &DELETE_ADS],
        create: no_create,
        updatable: &["name", "state"],
        update_needs: &[],
        max_items: SB_MAX_ITEMS,
    },
];

/// What an ad type requires and refuses in its `creative`.
struct AdType {
    name: &'static str,
    path: &'static str,
    op: &'static Op,
    creative: &'static [&'static str],
    forbidden: &'static [&'static str],
    store_landing: bool,
}

static AD_TYPES: [AdType; 5] = [
    AdType {
        name: "PRODUCT_COLLECTION",
        path: "/sb/v4/ads/productCollection",
        op: &PRODUCT_COLLECTION,
        creative: &[
            "asins",
            "brandName",
            "brandLogoAssetID",
            "brandLogoCrop",
            "headline",
        ],
        forbidden: &[],
        store_landing: true,
    },
    AdType {
        name: "PRODUCT_COLLECTION_EXTENDED",
        path: "/sb/v4/ads/productCollectionExtended",
        op: &EXTENDED,
        creative: &[
            "asins",
            "brandName",
            "brandLogoAssetID",
            "brandLogoCrop",
            "headline",
        ],
        forbidden: &[],
        store_landing: true,
    },
    AdType {
        name: "BRAND_VIDEO",
        path: "/sb/v4/ads/brandVideo",
        op: &BRAND_VIDEO,
        creative: &[
            "asins",
            "videoAssetIds",
            "brandName",
            "brandLogoAssetID",
            "brandLogoCrop",
            "headline",
        ],
        forbidden: &[],
        store_landing: true,
    },
    AdType {
        name: "VIDEO",
        path: "/sb/v4/ads/video",
        op: &VIDEO,
        creative: &["asins", "videoAssetIds"],
        forbidden: &["brandName", "brandLogoAssetID", "brandLogoCrop", "headline"],
        store_landing: false,
    },
    AdType {
        name: "STORE_SPOTLIGHT",
        path: "/sb/v4/ads/storeSpotlight",
        op: &STORE_SPOTLIGHT,
        creative: &[
            "brandName",
            "brandLogoAssetID",
            "brandLogoCrop",
            "headline",
            "subpages",
        ],
        forbidden: &["asins"],
        store_landing: true,
    },
];

/// Every asset id a creative names.
fn asset_ids(c: &Value) -> Vec<String> {
    let mut ids: Vec<String> = c["videoAssetIds"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    for k in ["brandLogoAssetID", "customImageAssetId"] {
        if let Some(id) = c[k].as_str() {
            ids.push(id.to_owned());
        }
    }
    if let Some(imgs) = c["customImages"].as_array() {
        ids.extend(
            imgs.iter()
                .filter_map(|i| i["assetId"].as_str().map(str::to_owned)),
        );
    }
    ids
}

fn new_ad(sim: &Sim, p: i64, i: usize, k: &Value, t: &AdType) -> Result<Value, Value> {
    require(i, k, &["adGroupId", "name", "state", "creative"])?;
    check_state(i, &k["state"])?;
    let c = &k["creative"];
    if let Some(f) = t.forbidden.iter().find(|f| c.get(**f).is_some()) {
        return Err(invalid(
            i,
            format!("{f} is not a field of a {} creative", t.name),
        ));
    }
    require(i, c, t.creative)?;
    let group = parent(sim, p, i, &AD_GROUPS, &k["adGroupId"])?;
    for id in asset_ids(c) {
        if asset(sim, p, &id).ok().flatten().is_none() {
            return Err(invalid(
                i,
                format!("asset {id} is not in this profile's creative asset library"),
            ));
        }
    }
    if t.store_landing {
        let campaign = parent(sim, p, i, &CAMPAIGNS, &group["campaignId"])?;
        let brand = sim
            .world()
            .rows(
                "SELECT Brand FROM ads_campaign WHERE CampaignID = ?1",
                &[&campaign["campaignId"].as_str().unwrap_or("")],
            )
            .ok()
            .and_then(|r| {
                r.first()
                    .and_then(|r| r["Brand"].as_str().map(str::to_owned))
            });
        // a campaign made through the API has no world brand: its Store is any of the
        // profile's brands' Stores
        let brands = match brand {
            Some(b) => vec![b],
            None => brands(sim, p).map_err(|_| invalid(i, "no Store for this profile"))?,
        };
        let mut on_store = Vec::new();
        for b in &brands {
            on_store
                .extend(store_asins(sim, p, b).map_err(|_| invalid(i, "no Store for this brand"))?);
        }
        let asins: Vec<String> = match c["asins"].as_array() {
            Some(a) => a
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            None => c["subpages"]
                .as_array()
                .map(|s| {
                    s.iter()
                        .filter_map(|p| p["asin"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
        };
        if let Some(a) = asins.iter().find(|a| !on_store.contains(a)) {
            return Err(invalid(
                i,
                format!("ASIN {a} is not on the brand's Store page"),
            ));
        }
    }
    let mut ad = json!({
        "adId": new_id(sim, i, "sb-ad", 9_200_000_000)?,
        "adGroupId": s(&k["adGroupId"]), "campaignId": group["campaignId"], "name": k["name"], "state": k["state"],
        "adType": t.name, "creative": c,
    });
    // the documents' landingPage is an object: an ad without one has no key, not null
    if let Some(page) = k.get("landingPage").filter(|v| v.is_object()) {
        ad["landingPage"] = page.clone();
    }
    Ok(ad)
}

async fn create_ads(
    t: &'static AdType,
    sim: Arc<Sim>,
    c: Caller,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    media(&h, AD_MEDIA)?;
    let p = profile(&sim, &c, &h)?;
    let b = body(&b)?;
    let list = b["ads"]
        .as_array()
        .filter(|a| !a.is_empty() && a.len() <= SB_MAX_ITEMS)
        .ok_or_else(|| {
            SimError::new(
                400,
                "400",
                format!("ads must hold 1 to {SB_MAX_ITEMS} items"),
            )
            .for_family(Family::AdsEntity)
        })?;
    apply(&ADS, AD_MEDIA, &sim, p, list, |i, item| {
        new_ad(&sim, p, i, item, t)
    })
}

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    let mut r = bulk::routes(sim, &SURFACES).route(
        "/sb/campaigns/budget/usage",
        op(sim, &BUDGET_USAGE, post(budget_usage)),
    );
    for t in &AD_TYPES {
        r = r.route(
            t.path,
            op(
                sim,
                t.op,
                post(move |State(s), Extension(who), h, b| create_ads(t, s, who, h, b)),
            ),
        );
    }
    r
}

const USAGE_MEDIA: &str = "application/vnd.sbcampaignbudgetusage.v1+json";

async fn budget_usage(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    h: HeaderMap,
    b: Bytes,
) -> Result<Response, SimError> {
    super::sp::budget_usage_of(&CAMPAIGNS, USAGE_MEDIA, &sim, &c, &h, &b)
}
