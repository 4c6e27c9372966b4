//! Typed lookups the services make in a tenant's warehouse: its merchant rows, the owner of an
//! advertising profile, its brands, a seller's listed ASINs and which seller ids exist. SQL
//! text lives here, with bound parameters, and every row is read through the typed readers
//! of [`crate::row`].

use std::collections::BTreeSet;

use pp_core::{Error, Kind, Result};

use crate::engine::{Engine, QueryRequest};
use crate::limits::Limits;
use crate::params::{Params, Scalar};
use crate::row::{Row, RowMap};

/// One merchant row (`seller`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seller {
    /// `ID`: the service's durable seller id (`legacySellerId`).
    pub id: i64,
    /// `MarketplaceSellerID`: the provider's merchant token.
    pub token: String,
    /// `Marketplace`: the country code.
    pub marketplace: String,
    /// `MarketplaceID`: the provider's marketplace id.
    pub marketplace_id: String,
    /// `AccountType`: `seller` or `vendor`.
    pub account_type: String,
    /// `Name`: the display name.
    pub name: String,
    /// `Currency`: every money column of this seller's rows.
    pub currency: String,
}

impl Seller {
    /// Whether the row is a vendor's (its retail facts are in the vendor tables).
    pub fn is_vendor(&self) -> bool {
        self.account_type == "vendor"
    }
}

/// One brand (`brand`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Brand {
    pub slug: String,
    pub name: String,
}

async fn rows(
    engine: &dyn Engine,
    limits: &Limits,
    sql: &str,
    params: Vec<Scalar>,
) -> Result<Vec<RowMap>> {
    let req = QueryRequest {
        sql: sql.to_owned(),
        params: Params::Positional(params),
        timeout_ms: limits.default_timeout_ms,
    };
    // the warehouse's own words about the gateway's lookup (a table it lacks) are the
    // gateway's fault to log, never the caller's to read
    let r = engine.query(req, limits).await.map_err(|e| match e.kind {
        Kind::SqlError | Kind::ReadOnlyViolation => {
            Error::internal_with(format!("a directory lookup failed ({sql})"), e)
        }
        _ => e,
    })?;
    if r.truncated {
        return Err(Error::internal(format!(
            "a directory lookup was truncated ({:?}): {sql}",
            r.truncation
        )));
    }
    Ok(r.rows)
}

/// Whether the warehouse has a table (or view) named `name`, by introspection.
pub async fn has_table(engine: &dyn Engine, name: &str) -> Result<bool> {
    Ok(engine.tables().await?.iter().any(|t| t.name == name))
}

/// Every merchant row, by id.
pub async fn sellers(engine: &dyn Engine, limits: &Limits) -> Result<Vec<Seller>> {
    rows(
        engine,
        limits,
        "SELECT ID AS id, MarketplaceSellerID AS token, Marketplace AS marketplace, MarketplaceID AS marketplace_id, AccountType AS account_type, Name AS name, Currency AS currency FROM seller ORDER BY ID",
        vec![],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(Seller {
            id: r.int("id")?,
            token: r.text("token")?.to_owned(),
            marketplace: r.text("marketplace")?.to_owned(),
            marketplace_id: r.text("marketplace_id")?.to_owned(),
            account_type: r.text("account_type")?.to_owned(),
            name: r.text("name")?.to_owned(),
            currency: r.text("currency")?.to_owned(),
        })
    })
    .collect()
}

/// An advertising profile of the tenant: the merchant token that owns it and its currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdsProfile {
    pub owner: String,
    pub currency: String,
}

/// Advertising profile `profile_id`, if the tenant has it.
pub async fn ads_profile(
    engine: &dyn Engine,
    limits: &Limits,
    profile_id: i64,
) -> Result<Option<AdsProfile>> {
    let found = rows(
        engine,
        limits,
        "SELECT MarketplaceSellerID AS owner, CurrencyCode AS currency FROM ads_profile WHERE ProfileID = ? LIMIT 1",
        vec![Scalar::Int(profile_id)],
    )
    .await?;
    found
        .first()
        .map(|r| {
            Ok(AdsProfile {
                owner: r.text("owner")?.to_owned(),
                currency: r.text("currency")?.to_owned(),
            })
        })
        .transpose()
}

/// The tenant's brands, by slug; a warehouse without a `brand` table has none.
pub async fn brands(engine: &dyn Engine, limits: &Limits) -> Result<Vec<Brand>> {
    if !has_table(engine, "brand").await? {
        return Ok(Vec::new());
    }
    rows(
        engine,
        limits,
        "SELECT Slug AS slug, Name AS name FROM brand ORDER BY Slug",
        vec![],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(Brand {
            slug: r.text("slug")?.to_owned(),
            name: r.text("name")?.to_owned(),
        })
    })
    .collect()
}

/// The ASINs a seller lists (`catalog_item`), in order; none while the table is missing.
pub async fn listed_asins(
    engine: &dyn Engine,
    limits: &Limits,
    seller_id: i64,
) -> Result<Vec<String>> {
    if !has_table(engine, "catalog_item").await? {
        return Ok(Vec::new());
    }
    rows(
        engine,
        limits,
        "SELECT DISTINCT ASIN AS asin FROM catalog_item WHERE SellerID = ? ORDER BY ASIN",
        vec![Scalar::Int(seller_id)],
    )
    .await?
    .iter()
    .map(|r| Ok(r.text("asin")?.to_owned()))
    .collect()
}

/// The ASINs with a row in a vendor's sales and traffic (`vendor_sales_and_traffic`) on or
/// after `since` (ISO day), in order; none while the table is missing.
pub async fn vendor_asins_since(
    engine: &dyn Engine,
    limits: &Limits,
    seller_id: i64,
    since: &str,
) -> Result<Vec<String>> {
    if !has_table(engine, "vendor_sales_and_traffic").await? {
        return Ok(Vec::new());
    }
    rows(
        engine,
        limits,
        "SELECT DISTINCT ASIN AS asin FROM vendor_sales_and_traffic WHERE SellerID = ? AND Date >= ? ORDER BY ASIN",
        vec![Scalar::Int(seller_id), Scalar::Text(since.to_owned())],
    )
    .await?
    .iter()
    .map(|r| Ok(r.text("asin")?.to_owned()))
    .collect()
}

/// Each listed ASIN's brand (`catalog_item`); none while the table is missing.
pub async fn asin_brands(
    engine: &dyn Engine,
    limits: &Limits,
    seller_id: i64,
) -> Result<std::collections::BTreeMap<String, String>> {
    if !has_table(engine, "catalog_item").await? {
        return Ok(Default::default());
    }
    rows(
        engine,
        limits,
        "SELECT ASIN AS asin, Brand AS brand FROM catalog_item WHERE SellerID = ? AND Brand IS NOT NULL",
        vec![Scalar::Int(seller_id)],
    )
    .await?
    .iter()
    .map(|r| Ok((r.text("asin")?.to_owned(), r.text("brand")?.to_owned())))
    .collect()
}

/// Which of `ids` are seller rows of the warehouse.
pub async fn existing_sellers(
    engine: &dyn Engine,
    limits: &Limits,
    ids: &BTreeSet<i64>,
) -> Result<BTreeSet<i64>> {
    if ids.is_empty() {
        return Ok(BTreeSet::new());
    }
    let marks = vec!["?"; ids.len()].join(", ");
    rows(
        engine,
        limits,
        &format!("SELECT ID AS id FROM seller WHERE ID IN ({marks})"),
        ids.iter().map(|m| Scalar::Int(*m)).collect(),
    )
    .await?
    .iter()
    .map(|r| r.int("id"))
    .collect()
}

/// A SKU a seller sold in a window (`spapi_sales_and_traffic_by_asin`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoldSku {
    pub sku: String,
    pub asin: String,
    /// The first and last day with units ordered in the window.
    pub first: String,
    pub last: String,
    pub units: i64,
    /// Ordered product sales, in cents of the seller's currency.
    pub sales_cents: i64,
}

/// The SKUs seller row `seller_id` sold on the days `from..=to`, by SKU; none while the
/// table is missing.
pub async fn sold_skus(
    engine: &dyn Engine,
    limits: &Limits,
    seller_id: i64,
    from: &str,
    to: &str,
) -> Result<Vec<SoldSku>> {
    if !has_table(engine, "spapi_sales_and_traffic_by_asin").await? {
        return Ok(Vec::new());
    }
    let d = engine.dialect();
    let sql = format!(
        "SELECT SKU AS sku, MIN(ChildASIN) AS asin, MIN(Date) AS first_day, MAX(Date) AS last_day,
         {} AS units, {} AS sales
         FROM spapi_sales_and_traffic_by_asin
         WHERE SellerID = ? AND Date >= ? AND Date <= ? AND UnitsOrdered > 0 AND SKU IS NOT NULL
         GROUP BY SKU ORDER BY SKU",
        d.int("SUM(UnitsOrdered)"),
        d.sum_cents("OrderedProductSales")
    );
    let day = |r: &RowMap, c: &str| -> Result<String> {
        let s = r.text(c)?;
        Ok(s[..s.len().min(10)].to_owned())
    };
    rows(
        engine,
        limits,
        &sql,
        vec![
            Scalar::Int(seller_id),
            Scalar::Text(from.to_owned()),
            Scalar::Text(to.to_owned()),
        ],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(SoldSku {
            sku: r.text("sku")?.to_owned(),
            asin: r.text("asin")?.to_owned(),
            first: day(r, "first_day")?,
            last: day(r, "last_day")?,
            units: r.int("units")?,
            sales_cents: r.int("sales")?,
        })
    })
    .collect()
}

/// One day's totals of the stream's hours beside the daily report's, for one seller and ad
/// product: `[impressions, clicks, cost]` for traffic, `[purchases, sales, 0]` for conversions
/// (money in cents).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamDay {
    pub day: String,
    pub hours: [i64; 3],
    pub report: [i64; 3],
}

/// The days `from..=to` on which the stream's hourly table (`conversion` or traffic) holds rows
/// for seller `seller_id`'s `ad_product`, each with the same totals from
/// `ads_targeting_daily` (zero where the report has no row); none while a table is missing.
pub async fn stream_days(
    engine: &dyn Engine,
    limits: &Limits,
    seller_id: i64,
    ad_product: &str,
    conversion: bool,
    from: &str,
    to: &str,
) -> Result<Vec<StreamDay>> {
    let hourly = if conversion {
        "ads_stream_conversion_hourly"
    } else {
        "ads_stream_traffic_hourly"
    };
    if !has_table(engine, hourly).await? || !has_table(engine, "ads_targeting_daily").await? {
        return Ok(Vec::new());
    }
    let d = engine.dialect();
    let measures = |alias: &str| {
        if conversion {
            format!(
                "{} AS {alias}0, {} AS {alias}1, {} AS {alias}2",
                d.int("SUM(Purchases7d)"),
                d.sum_cents("Sales7d"),
                d.int("0")
            )
        } else {
            format!(
                "{} AS {alias}0, {} AS {alias}1, {} AS {alias}2",
                d.int("SUM(Impressions)"),
                d.int("SUM(Clicks)"),
                d.sum_cents("Cost")
            )
        }
    };
    let read = |table: &str, alias: &str| {
        format!(
            "SELECT Date AS day, {} FROM {table} WHERE SellerID = ? AND AdProduct = ? AND Date >= ? AND Date <= ? GROUP BY Date ORDER BY Date",
            measures(alias)
        )
    };
    let params = || {
        vec![
            Scalar::Int(seller_id),
            Scalar::Text(ad_product.to_owned()),
            Scalar::Text(from.to_owned()),
            Scalar::Text(to.to_owned()),
        ]
    };
    let totals = |r: &RowMap, alias: &str| -> Result<[i64; 3]> {
        Ok([
            r.int(&format!("{alias}0"))?,
            r.int(&format!("{alias}1"))?,
            r.int(&format!("{alias}2"))?,
        ])
    };
    let date = |r: &RowMap| -> Result<String> {
        let s = r.text("day")?;
        Ok(s[..s.len().min(10)].to_owned())
    };
    let mut report = std::collections::BTreeMap::new();
    for r in rows(engine, limits, &read("ads_targeting_daily", "r"), params()).await? {
        report.insert(date(&r)?, totals(&r, "r")?);
    }
    rows(engine, limits, &read(hourly, "h"), params())
        .await?
        .iter()
        .map(|r| {
            let day = date(r)?;
            Ok(StreamDay {
                report: report.get(&day).copied().unwrap_or_default(),
                hours: totals(r, "h")?,
                day,
            })
        })
        .collect()
}
