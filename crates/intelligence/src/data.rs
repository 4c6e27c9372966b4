//! The intelligence requests' reads of a tenant's warehouse (the merchant rows themselves come
//! from `pp_warehouse::directory`): the brand's seller rows, a scope's data range and item count, and the grouped facts the engines compute from (items per period,
//! advertising rows per grain, stock-out days, an item's days around a gap, inventory). Every
//! query groups in the warehouse and binds its values; money comes back as integer cents
//! (`Dialect::sum_cents`), so sums are exact on every engine.

use std::sync::Arc;

use chrono::NaiveDate;
use pp_core::{Error, Kind, Result};
use pp_warehouse::params::{Params, Scalar};
use pp_warehouse::row::{Row, RowMap};
use pp_warehouse::{Dialect, Engine, Limits, QueryRequest};

use crate::params::{Grain, Period};
use crate::scope::Scope;

/// Rows one read may return: a scope with more items or search terms than this is refused
/// rather than read in part.
pub const MAX_ROWS: usize = 200_000;

/// A tenant's warehouse and the limits intelligence reads run under.
#[derive(Clone)]
pub struct Wh {
    pub engine: Arc<dyn Engine>,
    pub limits: Limits,
}

impl Wh {
    /// `engine` with `base`'s timeouts, and caps sized for grouped reads.
    pub fn new(engine: Arc<dyn Engine>, base: &Limits) -> Self {
        let mut limits = base.clone();
        limits.max_rows = MAX_ROWS;
        limits.max_bytes = 128 * 1024 * 1024;
        Self { engine, limits }
    }

    pub fn dialect(&self) -> Dialect {
        self.engine.dialect()
    }

    /// Every row of one grouped read.
    pub async fn rows(&self, sql: &str, params: Vec<Scalar>) -> Result<Vec<RowMap>> {
        let req = QueryRequest {
            sql: sql.to_owned(),
            params: Params::Positional(params),
            timeout_ms: self.limits.max_timeout_ms,
        };
        let r = self
            .engine
            .query(req, &self.limits)
            .await
            .map_err(|e| match e.kind {
                Kind::SqlError | Kind::ReadOnlyViolation => {
                    Error::internal_with(format!("intelligence read failed ({sql})"), e)
                }
                _ => e,
            })?;
        if r.truncated {
            return Err(Error::new(
                Kind::TooLarge,
                format!(
                    "the scope has more than {MAX_ROWS} rows at this grain; narrow it (a brand, a shorter period, a coarser grain)"
                ),
            ));
        }
        Ok(r.rows)
    }
}

pub(crate) fn text(s: impl Into<String>) -> Scalar {
    Scalar::Text(s.into())
}

pub(crate) fn day(d: NaiveDate) -> Scalar {
    Scalar::Text(d.to_string())
}

/// A date column read back (text on SQLite and MySQL, a date on PostgreSQL: both as text).
pub fn date(r: &RowMap, column: &str) -> Result<NaiveDate> {
    let s = r.text(column)?;
    NaiveDate::parse_from_str(&s[..s.len().min(10)], "%Y-%m-%d")
        .map_err(|e| Error::internal_with(format!("warehouse column {column}: {s}"), e))
}

/// A key column that is a number on some rows and text on others, as text.
pub(crate) fn key(r: &RowMap, column: &str) -> Result<String> {
    match r.opt_int(column) {
        Ok(Some(v)) => Ok(v.to_string()),
        _ => Ok(r.text(column)?.to_owned()),
    }
}

/// The seller rows whose catalog carries `brand_name` (as its brand or a vendor's custom brand).
pub async fn brand_sellers(wh: &Wh, brand_name: &str) -> Result<Vec<i64>> {
    wh.rows(
        "SELECT DISTINCT SellerID AS id FROM catalog_item WHERE Brand = ? ORDER BY SellerID",
        vec![text(brand_name)],
    )
    .await?
    .iter()
    .map(|r| r.int("id"))
    .collect()
}

/// `?, ?, …`: `n` placeholders.
pub fn marks(n: usize) -> String {
    vec!["?"; n].join(", ")
}

/// `?, ?, …` for the scope's sellers, and their ids bound.
pub fn in_list(scope: &Scope) -> (String, Vec<Scalar>) {
    (
        marks(scope.sellers.len()),
        scope.sellers.iter().map(|s| Scalar::Int(s.id)).collect(),
    )
}

/// Where a scope's retail facts live.
pub struct RetailSource {
    pub table: &'static str,
    pub asin: &'static str,
    pub sales: &'static str,
    pub units: &'static str,
    /// Sessions (sellers) or glance views (vendors).
    pub traffic: &'static str,
}

/// The seller table or the vendor table.
pub fn retail_source(scope: &Scope) -> RetailSource {
    if scope.vendor {
        RetailSource {
            table: "vendor_sales_and_traffic",
            asin: "ASIN",
            sales: "OrderedRevenue",
            units: "OrderedUnits",
            traffic: "GlanceViews",
        }
    } else {
        RetailSource {
            table: "spapi_sales_and_traffic_by_asin",
            asin: "ChildASIN",
            sales: "OrderedProductSales",
            units: "UnitsOrdered",
            traffic: "Sessions",
        }
    }
}

/// `FROM … WHERE` for a scope's rows of `table` (alias `t`) over `period`, restricted to the
/// brand's items through the catalog when the scope is a brand.
pub(crate) fn scoped_from(
    scope: &Scope,
    table: &str,
    asin_column: Option<&str>,
    period: Period,
) -> (String, Vec<Scalar>) {
    let (marks, mut params) = in_list(scope);
    let mut sql = format!("FROM {table} t");
    if let (Some(brand), Some(asin)) = (&scope.brand, asin_column) {
        sql.push_str(&format!(
            " JOIN catalog_item c ON c.SellerID = t.SellerID AND c.ASIN = t.{asin} AND c.Brand = ?"
        ));
        params.insert(0, text(&brand.name));
    }
    sql.push_str(&format!(
        " WHERE t.SellerID IN ({marks}) AND t.Date BETWEEN ? AND ?"
    ));
    params.push(day(period.start));
    params.push(day(period.end));
    (sql, params)
}

/// The first and last day a scope has rows of `table`, if any.
pub async fn data_range(wh: &Wh, scope: &Scope, table: &str) -> Result<Option<Period>> {
    let mut range: Option<Period> = None;
    for s in &scope.sellers {
        let rows = wh
            .rows(
                &format!("SELECT MIN(Date) AS first_day, MAX(Date) AS last_day FROM {table} WHERE SellerID = ?"),
                vec![Scalar::Int(s.id)],
            )
            .await?;
        let Some(r) = rows.first() else { continue };
        if r.opt_text("first_day")?.is_none() {
            continue;
        }
        let (a, b) = (date(r, "first_day")?, date(r, "last_day")?);
        range = Some(match range {
            None => Period { start: a, end: b },
            Some(p) => Period {
                start: p.start.min(a),
                end: p.end.max(b),
            },
        });
    }
    Ok(range)
}

/// Items in the scope's catalog (what a request's size is judged by).
pub async fn item_count(wh: &Wh, scope: &Scope) -> Result<i64> {
    let (marks, mut params) = in_list(scope);
    let mut sql = format!("SELECT COUNT(*) AS n FROM catalog_item WHERE SellerID IN ({marks})");
    if let Some(b) = &scope.brand {
        sql.push_str(" AND Brand = ?");
        params.push(text(&b.name));
    }
    wh.rows(&sql, params).await?[0].count("n")
}

/// One item's retail facts over a period.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ItemFacts {
    pub sales: i64,
    pub units: i64,
    pub traffic: i64,
}

/// An item of a scope: its seller row and ASIN.
pub type ItemKey = (i64, String);

/// Each item's sales (cents), units and traffic over `period`.
pub async fn items(wh: &Wh, scope: &Scope, period: Period) -> Result<Vec<(ItemKey, ItemFacts)>> {
    let src = retail_source(scope);
    let d = wh.dialect();
    let (from, params) = scoped_from(scope, src.table, Some(src.asin), period);
    let sql = format!(
        "SELECT t.SellerID AS seller_id, t.{asin} AS asin, {sales} AS sales, SUM(t.{units}) AS units, SUM(t.{traffic}) AS traffic {from} GROUP BY t.SellerID, t.{asin}",
        asin = src.asin,
        sales = d.sum_cents(&format!("t.{}", src.sales)),
        units = src.units,
        traffic = src.traffic,
    );
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| {
            Ok((
                (r.int("seller_id")?, r.text("asin")?.to_owned()),
                item_facts(r)?,
            ))
        })
        .collect()
}

/// A grouped row's `sales`, `units` and `traffic` columns.
pub(crate) fn item_facts(r: &RowMap) -> Result<ItemFacts> {
    Ok(ItemFacts {
        sales: r.count("sales")?,
        units: r.count("units")?,
        traffic: r.count("traffic")?,
    })
}

/// A grouped row's `impressions`, `clicks`, `spend`, `purchases` and `sales` columns.
pub(crate) fn ads_facts(r: &RowMap) -> Result<AdsFacts> {
    Ok(AdsFacts {
        impressions: r.count("impressions")?,
        clicks: r.count("clicks")?,
        spend: r.count("spend")?,
        purchases: r.count("purchases")?,
        sales: r.count("sales")?,
    })
}

/// One advertising row's facts over a period.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AdsFacts {
    pub impressions: i64,
    pub clicks: i64,
    pub spend: i64,
    pub purchases: i64,
    pub sales: i64,
}

/// An advertising row: its key at the grain and a readable name.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct AdsKey {
    pub key: String,
    pub name: String,
}

/// The table, key and name of a grain.
fn grain_source(g: Grain) -> (&'static str, &'static str, &'static str) {
    match g {
        Grain::Campaign => ("ads_campaign_daily", "CampaignID", "CampaignName"),
        Grain::AdGroup => ("ads_ad_group_daily", "AdGroupID", "CampaignID"),
        Grain::Target => ("ads_targeting_daily", "TargetingID", "Targeting"),
        Grain::SearchTerm => ("ads_search_term_daily", "SearchTerm", "SearchTerm"),
        Grain::Asin => (
            "ads_advertised_product_daily",
            "AdvertisedASIN",
            "AdvertisedASIN",
        ),
    }
}

/// The campaign table every grain's scope is read through.
pub const ADS_TABLE: &str = "ads_campaign_daily";

/// Each row's advertising facts at `grain` over `period` (a brand's rows are its campaigns').
pub async fn ads(
    wh: &Wh,
    scope: &Scope,
    grain: Grain,
    period: Period,
) -> Result<Vec<(AdsKey, AdsFacts)>> {
    let (table, key_col, name_col) = grain_source(grain);
    let d = wh.dialect();
    let (marks, mut params) = in_list(scope);
    let mut sql = format!(
        "SELECT t.{key_col} AS k, MAX(t.{name_col}) AS name, SUM(t.Impressions) AS impressions, SUM(t.Clicks) AS clicks, {spend} AS spend, SUM(t.Purchases7d) AS purchases, {sales} AS sales FROM {table} t WHERE t.SellerID IN ({marks}) AND t.Date BETWEEN ? AND ?",
        spend = d.sum_cents("t.Cost"),
        sales = d.sum_cents("t.Sales7d"),
    );
    params.push(day(period.start));
    params.push(day(period.end));
    if let Some(b) = &scope.brand {
        let (marks2, ids) = in_list(scope);
        sql.push_str(&format!(
            " AND t.CampaignID IN (SELECT CampaignID FROM ads_campaign WHERE SellerID IN ({marks2}) AND Brand = ?)"
        ));
        params.extend(ids);
        params.push(text(&b.name));
    }
    sql.push_str(&format!(" GROUP BY t.{key_col}"));
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| {
            Ok((
                AdsKey {
                    key: key(r, "k")?,
                    name: key(r, "name")?,
                },
                ads_facts(r)?,
            ))
        })
        .collect()
}

/// A day an item had no sellable stock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmptyDay {
    pub seller_id: i64,
    pub asin: String,
    pub sku: String,
    pub date: NaiveDate,
}

/// The inventory table (sellers only).
pub const INVENTORY_TABLE: &str = "spapi_fba_inventory";

/// Every day in `period` an item of the scope had no fulfillable units, by item and day.
pub async fn empty_days(wh: &Wh, scope: &Scope, period: Period) -> Result<Vec<EmptyDay>> {
    let (from, params) = scoped_from(scope, INVENTORY_TABLE, Some("ASIN"), period);
    let sql = format!(
        "SELECT t.SellerID AS seller_id, t.ASIN AS asin, t.SKU AS sku, t.Date AS date {from} AND t.Fulfillable = 0 ORDER BY t.SellerID, t.ASIN, t.Date"
    );
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| {
            Ok(EmptyDay {
                seller_id: r.int("seller_id")?,
                asin: r.text("asin")?.to_owned(),
                sku: r.opt_text("sku")?.unwrap_or_default().to_owned(),
                date: date(r, "date")?,
            })
        })
        .collect()
}

/// One item's day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemDay {
    pub date: NaiveDate,
    pub facts: ItemFacts,
}

/// One item's days over `period`.
pub async fn item_days(
    wh: &Wh,
    scope: &Scope,
    seller_id: i64,
    asin: &str,
    period: Period,
) -> Result<Vec<ItemDay>> {
    let src = retail_source(scope);
    let d = wh.dialect();
    let sql = format!(
        "SELECT Date AS date, {sales} AS sales, SUM({units}) AS units, SUM({traffic}) AS traffic FROM {table} WHERE SellerID = ? AND Date BETWEEN ? AND ? AND {asin_col} = ? GROUP BY Date ORDER BY Date",
        sales = d.sum_cents(src.sales),
        units = src.units,
        traffic = src.traffic,
        table = src.table,
        asin_col = src.asin,
    );
    wh.rows(
        &sql,
        vec![
            Scalar::Int(seller_id),
            day(period.start),
            day(period.end),
            text(asin),
        ],
    )
    .await?
    .iter()
    .map(|r| {
        Ok(ItemDay {
            date: date(r, "date")?,
            facts: item_facts(r)?,
        })
    })
    .collect()
}

/// One SKU's stock on a day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stock {
    pub seller_id: i64,
    pub asin: String,
    pub sku: String,
    pub fulfillable: i64,
    pub inbound: i64,
}

/// The scope's inventory snapshot of `on`.
pub async fn stock(wh: &Wh, scope: &Scope, on: NaiveDate) -> Result<Vec<Stock>> {
    let (from, params) = scoped_from(
        scope,
        INVENTORY_TABLE,
        Some("ASIN"),
        Period { start: on, end: on },
    );
    let sql = format!(
        "SELECT t.SellerID AS seller_id, t.ASIN AS asin, t.SKU AS sku, t.Fulfillable AS fulfillable, t.Inbound AS inbound {from}"
    );
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| {
            Ok(Stock {
                seller_id: r.int("seller_id")?,
                asin: r.text("asin")?.to_owned(),
                sku: r.opt_text("sku")?.unwrap_or_default().to_owned(),
                fulfillable: r.count("fulfillable")?,
                inbound: r.count("inbound")?,
            })
        })
        .collect()
}

/// Each listed SKU's brand (`catalog_item`) of seller row `seller`.
pub async fn sku_brands(wh: &Wh, seller: i64) -> Result<Vec<(String, String)>> {
    let rows = wh
        .rows(
            "SELECT SKU AS sku, Brand AS brand FROM catalog_item WHERE SellerID = ? AND SKU IS NOT NULL AND Brand IS NOT NULL",
            vec![Scalar::Int(seller)],
        )
        .await?;
    rows.iter()
        .map(|r| Ok((r.text("sku")?.to_owned(), r.text("brand")?.to_owned())))
        .collect()
}
