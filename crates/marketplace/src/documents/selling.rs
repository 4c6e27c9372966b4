//! The selling side's report documents, read into rows: settlements (the V2 flat file), the
//! inventory ledger summary, customer returns, vendor sales and traffic, and brand analytics
//! search query performance.

use chrono::NaiveDate;
use pp_core::Result;
use serde_json::Value;

use super::{cents, count, json_cents, json_count, tsv, unreadable};

/// One amount of a settlement.
#[derive(Debug, Clone, PartialEq)]
pub struct SettlementLine {
    pub transaction_type: String,
    pub order_id: Option<String>,
    pub sku: Option<String>,
    pub quantity: Option<i64>,
    pub amount_type: String,
    pub amount_description: String,
    pub amount: i64,
    /// When it was posted, as the file writes it.
    pub posted: String,
}

/// A settlement: its summary line and its amounts.
#[derive(Debug, Clone, PartialEq)]
pub struct Settlement {
    pub id: String,
    pub start: String,
    pub end: String,
    pub deposit: String,
    /// The settlement's total, in cents.
    pub total: i64,
    pub currency: String,
    pub lines: Vec<SettlementLine>,
}

fn opt(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// `GET_V2_SETTLEMENT_REPORT_DATA_FLAT_FILE_V2`: the summary line (the one with a total) and
/// one line per amount.
pub fn settlement(text: &str) -> Result<Settlement> {
    const WHAT: &str = "settlement";
    let rows = tsv(WHAT, text)?;
    let field = |r: &std::collections::BTreeMap<String, String>, k: &str| -> Result<String> {
        r.get(k)
            .cloned()
            .ok_or_else(|| unreadable(WHAT, format!("it has no {k} column")))
    };
    let summary = rows
        .iter()
        .find(|r| r.get("total-amount").is_some_and(|t| !t.is_empty()))
        .ok_or_else(|| unreadable(WHAT, "it has no summary line (a total-amount)"))?;
    let mut lines = Vec::new();
    for r in rows.iter().filter(|r| !std::ptr::eq(*r, summary)) {
        let quantity = field(r, "quantity-purchased")?;
        lines.push(SettlementLine {
            transaction_type: field(r, "transaction-type")?,
            order_id: opt(&field(r, "order-id")?),
            sku: opt(&field(r, "sku")?),
            quantity: opt(&quantity).map(|q| count(WHAT, &q)).transpose()?,
            amount_type: field(r, "amount-type")?,
            amount_description: field(r, "amount-description")?,
            amount: cents(WHAT, &field(r, "amount")?)?,
            posted: field(r, "posted-date-time")?,
        });
    }
    Ok(Settlement {
        id: field(summary, "settlement-id")?,
        start: field(summary, "settlement-start-date")?,
        end: field(summary, "settlement-end-date")?,
        deposit: field(summary, "deposit-date")?,
        total: cents(WHAT, &field(summary, "total-amount")?)?,
        currency: field(summary, "currency")?,
        lines,
    })
}

/// Units of one refund returned with one disposition.
#[derive(Debug, Clone, PartialEq)]
pub struct Return {
    /// The return's day (UTC).
    pub date: NaiveDate,
    /// When it was returned, written `…Z`.
    pub returned: String,
    pub order_id: String,
    pub sku: String,
    pub asin: String,
    pub quantity: i64,
    pub disposition: String,
    pub reason: String,
}

/// `GET_FBA_FULFILLMENT_CUSTOMER_RETURNS_DATA`: one line per order, SKU and disposition.
pub fn returns(text: &str) -> Result<Vec<Return>> {
    const WHAT: &str = "customer returns";
    tsv(WHAT, text)?
        .iter()
        .map(|r| {
            let f = |k: &str| {
                r.get(k)
                    .cloned()
                    .ok_or_else(|| unreadable(WHAT, format!("it has no {k} column")))
            };
            let at = f("return-date")?;
            let returned = chrono::DateTime::parse_from_rfc3339(&at)
                .map_err(|_| unreadable(WHAT, format!("'{at}' is not a time")))?
                .with_timezone(&chrono::Utc);
            Ok(Return {
                date: returned.date_naive(),
                returned: returned.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
                order_id: f("order-id")?,
                sku: f("sku")?,
                asin: f("asin")?,
                quantity: count(WHAT, &f("quantity")?)?,
                disposition: f("detailed-disposition")?,
                reason: f("reason")?,
            })
        })
        .collect()
}

/// One SKU's day in the inventory ledger.
#[derive(Debug, Clone, PartialEq)]
pub struct LedgerDay {
    pub date: NaiveDate,
    pub sku: String,
    pub asin: String,
    pub disposition: String,
    pub starting: i64,
    pub in_transit: i64,
    pub receipts: i64,
    pub customer_shipments: i64,
    pub other_events: i64,
    pub ending: i64,
}

/// `GET_LEDGER_SUMMARY_VIEW_DATA` by day (dates written `MM/DD/YYYY`).
pub fn ledger(text: &str) -> Result<Vec<LedgerDay>> {
    const WHAT: &str = "inventory ledger";
    tsv(WHAT, text)?
        .iter()
        .map(|r| {
            let f = |k: &str| {
                r.get(k)
                    .map(String::as_str)
                    .ok_or_else(|| unreadable(WHAT, format!("it has no {k} column")))
            };
            let n = |k: &str| f(k).and_then(|v| count(WHAT, v));
            let date = NaiveDate::parse_from_str(f("Date")?, "%m/%d/%Y")
                .map_err(|e| unreadable(WHAT, format!("Date {}: {e}", f("Date").unwrap_or(""))))?;
            Ok(LedgerDay {
                date,
                sku: f("MSKU")?.to_owned(),
                asin: f("ASIN")?.to_owned(),
                disposition: f("Disposition")?.to_owned(),
                starting: n("Starting Warehouse Balance")?,
                in_transit: n("In Transit Between Warehouses")?,
                receipts: n("Receipts")?,
                customer_shipments: n("Customer Shipments")?,
                other_events: n("Other Events")?,
                ending: n("Ending Warehouse Balance")?,
            })
        })
        .collect()
}

fn day(what: &str, v: &Value) -> Result<NaiveDate> {
    v.as_str()
        .and_then(|s| s.get(..10))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| unreadable(what, format!("{v} is not a date")))
}

fn list<'a>(what: &str, doc: &'a Value, key: &str) -> Result<&'a Vec<Value>> {
    doc[key]
        .as_array()
        .ok_or_else(|| unreadable(what, format!("it has no {key} list")))
}

/// One ASIN's day of vendor sales (money in cents).
#[derive(Debug, Clone, PartialEq)]
pub struct VendorSales {
    pub date: NaiveDate,
    pub asin: String,
    pub ordered_revenue: i64,
    pub ordered_units: i64,
    pub shipped_revenue: i64,
    pub shipped_units: i64,
}

/// `GET_VENDOR_SALES_REPORT` by day: `salesByAsin`.
pub fn vendor_sales(doc: &Value) -> Result<Vec<VendorSales>> {
    const WHAT: &str = "vendor sales";
    list(WHAT, doc, "salesByAsin")?
        .iter()
        .map(|r| {
            Ok(VendorSales {
                date: day(WHAT, &r["startDate"])?,
                asin: r["asin"].as_str().unwrap_or_default().to_owned(),
                ordered_revenue: json_cents(WHAT, &r["orderedRevenue"])?,
                ordered_units: json_count(WHAT, &r["orderedUnits"])?,
                shipped_revenue: json_cents(WHAT, &r["shippedRevenue"])?,
                shipped_units: json_count(WHAT, &r["shippedUnits"])?,
            })
        })
        .collect()
}

/// `GET_VENDOR_TRAFFIC_REPORT` by day: (day, ASIN, glance views).
pub fn vendor_traffic(doc: &Value) -> Result<Vec<(NaiveDate, String, i64)>> {
    const WHAT: &str = "vendor traffic";
    list(WHAT, doc, "trafficByAsin")?
        .iter()
        .map(|r| {
            Ok((
                day(WHAT, &r["startDate"])?,
                r["asin"].as_str().unwrap_or_default().to_owned(),
                json_count(WHAT, &r["glanceViews"])?,
            ))
        })
        .collect()
}

/// One ASIN's week of one search query: the marketplace's totals and the ASIN's part.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryWeek {
    pub week_start: NaiveDate,
    pub week_end: NaiveDate,
    pub asin: String,
    pub query: String,
    pub volume: i64,
    /// (total, the ASIN's) impressions, clicks, cart adds and purchases.
    pub impressions: (i64, i64),
    pub clicks: (i64, i64),
    pub cart_adds: (i64, i64),
    pub purchases: (i64, i64),
}

/// `GET_BRAND_ANALYTICS_SEARCH_QUERY_PERFORMANCE_REPORT`: `dataByAsin`.
pub fn search_query_performance(doc: &Value) -> Result<Vec<QueryWeek>> {
    const WHAT: &str = "search query performance";
    list(WHAT, doc, "dataByAsin")?
        .iter()
        .map(|r| {
            let n = |p: &str| json_count(WHAT, r.pointer(p).unwrap_or(&Value::Null));
            let pair = |total: &str, mine: &str| Ok::<_, pp_core::Error>((n(total)?, n(mine)?));
            Ok(QueryWeek {
                week_start: day(WHAT, &r["startDate"])?,
                week_end: day(WHAT, &r["endDate"])?,
                asin: r["asin"].as_str().unwrap_or_default().to_owned(),
                query: r
                    .pointer("/searchQueryData/searchQuery")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                volume: n("/searchQueryData/searchQueryVolume")?,
                impressions: pair(
                    "/impressionData/totalQueryImpressionCount",
                    "/impressionData/asinImpressionCount",
                )?,
                clicks: pair("/clickData/totalClickCount", "/clickData/asinClickCount")?,
                cart_adds: pair(
                    "/cartAddData/totalCartAddCount",
                    "/cartAddData/asinCartAddCount",
                )?,
                purchases: pair(
                    "/purchaseData/totalPurchaseCount",
                    "/purchaseData/asinPurchaseCount",
                )?,
            })
        })
        .collect()
}

/// What sales and traffic counts, for a day or an ASIN (money in cents).
#[derive(Debug, Clone, PartialEq)]
pub struct SalesFigures {
    pub sales: i64,
    pub units: i64,
    pub order_items: i64,
    pub sessions: i64,
    pub page_views: i64,
    /// The featured-offer (buy box) percentage, in hundredths of a percent.
    pub buy_box: i64,
}

/// One day of a seller's sales and traffic.
#[derive(Debug, Clone, PartialEq)]
pub struct SalesDay {
    pub date: NaiveDate,
    pub figures: SalesFigures,
}

/// One child ASIN's sales and traffic over the report's window.
#[derive(Debug, Clone, PartialEq)]
pub struct SalesByAsin {
    pub parent: String,
    pub child: String,
    pub sku: Option<String>,
    pub figures: SalesFigures,
}

/// The figures of one entry, its sales under `sales` and its traffic under `traffic`
/// (`salesByDate` and `trafficByDate`, or the by-ASIN pair).
fn figures(what: &str, r: &Value, sales: &str, traffic: &str) -> Result<SalesFigures> {
    let n = |part: &str, k: &str| json_count(what, &r[part][k]);
    Ok(SalesFigures {
        sales: json_cents(what, &r[sales]["orderedProductSales"])?,
        units: n(sales, "unitsOrdered")?,
        order_items: n(sales, "totalOrderItems")?,
        sessions: n(traffic, "sessions")?,
        page_views: n(traffic, "pageViews")?,
        // a percentage with two decimals reads as cents do
        buy_box: json_cents(what, &r[traffic]["buyBoxPercentage"])?,
    })
}

/// `GET_SALES_AND_TRAFFIC_REPORT`: `salesAndTrafficByDate` and `salesAndTrafficByAsin` (the
/// latter over the whole window: a day's ASIN rows come from a one-day report).
pub fn sales_and_traffic(doc: &Value) -> Result<(Vec<SalesDay>, Vec<SalesByAsin>)> {
    const WHAT: &str = "sales and traffic";
    let days = list(WHAT, doc, "salesAndTrafficByDate")?
        .iter()
        .map(|r| {
            Ok(SalesDay {
                date: day(WHAT, &r["date"])?,
                figures: figures(WHAT, r, "salesByDate", "trafficByDate")?,
            })
        })
        .collect::<Result<_>>()?;
    let asins = list(WHAT, doc, "salesAndTrafficByAsin")?
        .iter()
        .map(|r| {
            Ok(SalesByAsin {
                parent: r["parentAsin"].as_str().unwrap_or_default().to_owned(),
                child: r["childAsin"].as_str().unwrap_or_default().to_owned(),
                sku: r["sku"].as_str().map(str::to_owned),
                figures: figures(WHAT, r, "salesByAsin", "trafficByAsin")?,
            })
        })
        .collect::<Result<_>>()?;
    Ok((days, asins))
}
