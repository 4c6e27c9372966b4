//! The catalog: a seller's all-listings report (`GET_MERCHANT_LISTINGS_ALL_DATA`), then each
//! listed ASIN's catalog item, twenty to a call (brand, product line, parent, list price,
//! release date): today's listings, replaced whole. A vendor has no listings: its catalog is
//! the catalog items of the ASINs in its synced sales and traffic over the last
//! [`VENDOR_RECENT_DAYS`] days (with the vendor's own brand label), waiting until those days
//! are loaded. Each load adds the brands it names to the tenant's `brand` table (the loader
//! does, in the same transaction).

use std::collections::BTreeMap;

use pp_core::Result;
use pp_marketplace::ledger::Family;
use pp_warehouse::Slice;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::Value;

use super::unreadable;
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started};

const REPORT: &str = "GET_MERCHANT_LISTINGS_ALL_DATA";

/// The reader.
pub struct Catalog;

impl Reader for Catalog {
    fn label(&self) -> &'static str {
        "GET_MERCHANT_LISTINGS_ALL_DATA and catalog items"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, d: Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let body = cx.spapi_request(REPORT, None, Value::Null);
            let id = cx.create(Family::Spapi, body, d, "").await?;
            Ok(Started::Asked(ReportCk::new(id, d)))
        })
    }

    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            let Some(text) = cx.spapi_done(r, &r.id).await? else {
                return Ok(None);
            };
            let listings = match &text {
                Some(t) => pp_marketplace::documents::tsv("all-listings", t)?,
                None => Vec::new(),
            };
            let listed = listed(&listings)?;
            let items = items(cx, &listed).await?;
            Ok(Some(vec![rows(&cx.seller, &listed, &items)?]))
        })
    }
}

/// How many days of a vendor's sales and traffic name the items of its catalog.
pub const VENDOR_RECENT_DAYS: u64 = 35;

/// A vendor's catalog.
pub struct VendorCatalog;

impl Reader for VendorCatalog {
    fn label(&self) -> &'static str {
        "catalog items of the ASINs in the vendor's recent sales and traffic"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, (_, last): Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let since = last - chrono::Days::new(VENDOR_RECENT_DAYS - 1);
            let engine = cx.engine().await?;
            let asins = pp_warehouse::directory::vendor_asins_since(
                engine.as_ref(),
                cx.limits(),
                cx.seller.id,
                &since.to_string(),
            )
            .await?;
            if asins.is_empty() {
                return Ok(Started::Wait {
                    note: format!(
                        "waits for the vendor's sales and traffic since {since}: the provider lists a vendor's items by ASIN"
                    ),
                    after: cx.look_again(),
                });
            }
            let listed: Vec<(String, Option<String>)> =
                asins.into_iter().map(|a| (a, None)).collect();
            let items = items(cx, &listed).await?;
            Ok(Started::Rows(vec![rows(&cx.seller, &listed, &items)?]))
        })
    }
}

/// Each listing's ASIN and SKU.
fn listed(listings: &[BTreeMap<String, String>]) -> Result<Vec<(String, Option<String>)>> {
    let field = |l: &BTreeMap<String, String>, k: &str| -> Result<String> {
        l.get(k)
            .cloned()
            .ok_or_else(|| unreadable("all-listings", format!("a listing has no {k}")))
    };
    listings
        .iter()
        .map(|l| Ok((field(l, "asin1")?, Some(field(l, "seller-sku")?))))
        .collect()
}

/// The catalog items of the listed ASINs, twenty to a call.
async fn items(cx: &Cx<'_>, listed: &[(String, Option<String>)]) -> Result<Vec<Value>> {
    let mut asins: Vec<&str> = listed.iter().map(|(a, _)| a.as_str()).collect();
    asins.sort_unstable();
    asins.dedup();
    let (feeds, account) = (cx.feeds(), cx.account());
    let mut items = Vec::new();
    for chunk in asins.chunks(20) {
        let mut args = serde_json::Map::new();
        args.insert("identifiers".into(), chunk.join(",").into());
        args.insert("identifiersType".into(), "ASIN".into());
        args.insert("pageSize".into(), 20.into());
        args.insert(
            "includedData".into(),
            "summaries,attributes,relationships,vendorDetails".into(),
        );
        let body = feeds
            .read(&cx.tenant, &account, "catalog.search_catalog_items", &args)
            .await?;
        items.extend(body["items"].as_array().into_iter().flatten().cloned());
    }
    Ok(items)
}

/// The catalog: one row per listed ASIN and SKU (a vendor's without), its item's attributes
/// from catalog items (`items`, by ASIN). A listing whose item the provider did not return is
/// left out.
pub fn rows(seller: &Seller, listed: &[(String, Option<String>)], items: &[Value]) -> Result<Load> {
    let t = table("catalog_item");
    let mut rows = Vec::new();
    for (asin, sku) in listed {
        let Some(item) = items.iter().find(|i| i["asin"] == asin.as_str()) else {
            continue;
        };
        let summary = &item["summaries"][0];
        let text =
            |v: &Value| -> Cell { v.as_str().map_or(Cell::Null, |s| Cell::Text(s.to_owned())) };
        let parent = item["relationships"][0]["relationships"][0]["parentAsins"][0]
            .as_str()
            .unwrap_or(asin)
            .to_owned();
        let price = &item["attributes"]["list_price"][0]["value"];
        rows.push(vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(asin.clone()),
            Cell::Text(parent),
            sku.clone().map_or(Cell::Null, Cell::Text),
            text(&summary["brand"]),
            text(&item["vendorDetails"][0]["brandCode"]),
            text(&item["attributes"]["model_name"][0]["value"]),
            text(&summary["itemName"]),
            match price {
                Value::Null => Cell::Null,
                p => Cell::Cents(pp_marketplace::documents::json_cents("catalog item", p)?),
            },
            text(&summary["releaseDate"]),
        ]);
    }
    Ok(Load {
        slice: Slice {
            table: t,
            seller_id: seller.id,
            range: None,
            part: None,
        },
        rows,
    })
}
