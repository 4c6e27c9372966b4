//! What the monitors read of one merchant's warehouse rows, over the days an evaluation (or a
//! replay of many days) looks at, read once and kept by day: each item's sellable units and
//! units sold, each campaign's daily row (budget in force, spend, clicks, impressions, orders,
//! sales), its streamed hours (budget use, traffic), the brands of items and campaigns, and the
//! month's ad budget from forecast state.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDate;
use pp_core::Result;
use pp_warehouse::directory::Seller;
use pp_warehouse::params::Scalar;
use pp_warehouse::row::Row;

use crate::data::{self, Wh, date, day};
use crate::params::Period;

/// One campaign's day.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CampaignDay {
    pub name: String,
    /// Cents.
    pub budget: i64,
    pub spend: i64,
    pub clicks: i64,
    pub impressions: i64,
    pub orders: i64,
    pub sales: i64,
}

/// One campaign's streamed budget use through a day: the day's budget (cents) and each hour's
/// highest reading, in hundredths of a percent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BudgetUse {
    pub budget: i64,
    pub by_hour: BTreeMap<u32, i64>,
}

/// One campaign's streamed hour of traffic.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct HourRow {
    /// Cents.
    pub spend: i64,
    pub clicks: i64,
    pub impressions: i64,
}

/// A merchant's rows over a run of days.
#[derive(Debug, Clone, Default)]
pub struct MonitorHistory {
    pub seller: i64,
    /// Item (ASIN) → day → sellable units (summed over its SKUs).
    pub stock: HashMap<String, BTreeMap<NaiveDate, i64>>,
    /// Item → day → units sold.
    pub units: HashMap<String, BTreeMap<NaiveDate, i64>>,
    /// Campaign id → day → its row.
    pub campaigns: HashMap<i64, BTreeMap<NaiveDate, CampaignDay>>,
    /// Campaign id → day → its streamed budget use (empty without the stream).
    pub budget_use: HashMap<i64, BTreeMap<NaiveDate, BudgetUse>>,
    /// Campaign id → (day, hour) → its streamed traffic (empty without the stream).
    pub hours: HashMap<i64, BTreeMap<(NaiveDate, u32), HourRow>>,
    /// Item → its brand's name; campaign → its brand's name.
    pub item_brand: HashMap<String, String>,
    pub campaign_brand: HashMap<i64, String>,
}

impl MonitorHistory {
    /// Every campaign's spend over `days` (cents).
    pub fn spend(&self, days: impl std::ops::RangeBounds<NaiveDate> + Clone) -> i64 {
        self.campaigns
            .values()
            .flat_map(|d| d.range(days.clone()).map(|(_, r)| r.spend))
            .sum()
    }

    /// Units of `asin` sold over `from..=to`.
    pub fn sold(&self, asin: &str, from: NaiveDate, to: NaiveDate) -> i64 {
        self.units
            .get(asin)
            .map(|d| d.range(from..=to).map(|(_, n)| n).sum())
            .unwrap_or(0)
    }
}

/// The stream's budget-use table.
const USAGE: &str = "ads_stream_budget_usage";
/// Days before a day whose streamed spend makes its usual spend by hour (`spend_pace_by_hour`).
pub const USUAL_DAYS: i64 = 14;
/// The stream's hourly traffic table.
const TRAFFIC: &str = "ads_stream_traffic_hourly";

/// Reads `seller`'s rows over `period`; the stream's hours (budget use, traffic) only from
/// `hours_from`, and not at all without it (the daily monitors never read them).
pub async fn read(
    wh: &Wh,
    seller: &Seller,
    period: Period,
    hours_from: Option<NaiveDate>,
) -> Result<MonitorHistory> {
    let mut h = MonitorHistory {
        seller: seller.id,
        ..MonitorHistory::default()
    };
    let d = wh.dialect();
    let p = |s: &Seller| vec![Scalar::Int(s.id), day(period.start), day(period.end)];
    if !seller.is_vendor() {
        let sql = format!(
            "SELECT t.ASIN AS asin, t.Date AS date, SUM(t.Fulfillable) AS n FROM {} t WHERE t.SellerID = ? AND t.Date BETWEEN ? AND ? GROUP BY t.ASIN, t.Date",
            data::INVENTORY_TABLE
        );
        for r in wh.rows(&sql, p(seller)).await? {
            h.stock
                .entry(r.text("asin")?.to_owned())
                .or_default()
                .insert(date(&r, "date")?, r.count("n")?);
        }
        let sql = "SELECT t.ChildASIN AS asin, t.Date AS date, SUM(t.UnitsOrdered) AS n FROM spapi_sales_and_traffic_by_asin t WHERE t.SellerID = ? AND t.Date BETWEEN ? AND ? GROUP BY t.ChildASIN, t.Date";
        for r in wh.rows(sql, p(seller)).await? {
            h.units
                .entry(r.text("asin")?.to_owned())
                .or_default()
                .insert(date(&r, "date")?, r.count("n")?);
        }
    }
    let sql = format!(
        "SELECT t.CampaignID AS id, t.Date AS date, MAX(t.CampaignName) AS name, {budget} AS budget, {spend} AS spend, SUM(t.Clicks) AS clicks, SUM(t.Impressions) AS impressions, SUM(t.Purchases7d) AS orders, {sales} AS sales
         FROM {table} t WHERE t.SellerID = ? AND t.Date BETWEEN ? AND ? GROUP BY t.CampaignID, t.Date",
        budget = d.sum_cents("t.CampaignBudget"),
        spend = d.sum_cents("t.Cost"),
        sales = d.sum_cents("t.Sales7d"),
        table = data::ADS_TABLE,
    );
    for r in wh.rows(&sql, p(seller)).await? {
        h.campaigns.entry(r.int("id")?).or_default().insert(
            date(&r, "date")?,
            CampaignDay {
                name: r.opt_text("name")?.unwrap_or_default().to_owned(),
                budget: r.count("budget")?,
                spend: r.count("spend")?,
                clicks: r.count("clicks")?,
                impressions: r.count("impressions")?,
                orders: r.count("orders")?,
                sales: r.count("sales")?,
            },
        );
    }
    if let Some(from) = hours_from {
        read_hours(wh, seller, from.max(period.start), period.end, &mut h).await?;
    }
    let sql = "SELECT ASIN AS asin, MAX(Brand) AS brand FROM catalog_item WHERE SellerID = ? GROUP BY ASIN";
    for r in wh.rows(sql, vec![Scalar::Int(seller.id)]).await? {
        if let Some(b) = r.opt_text("brand")? {
            h.item_brand
                .insert(r.text("asin")?.to_owned(), b.to_owned());
        }
    }
    let sql = "SELECT CampaignID AS id, MAX(Brand) AS brand FROM ads_campaign WHERE SellerID = ? GROUP BY CampaignID";
    for r in wh.rows(sql, vec![Scalar::Int(seller.id)]).await? {
        if let Some(b) = r.opt_text("brand")? {
            h.campaign_brand.insert(r.int("id")?, b.to_owned());
        }
    }
    Ok(h)
}

/// The stream's budget use and traffic of `seller` from `from` through `to`, into `h`.
async fn read_hours(
    wh: &Wh,
    seller: &Seller,
    from: NaiveDate,
    to: NaiveDate,
    h: &mut MonitorHistory,
) -> Result<()> {
    let d = wh.dialect();
    if pp_warehouse::directory::has_table(wh.engine.as_ref(), USAGE).await? {
        let sql = format!(
            "SELECT t.CampaignID AS id, t.Date AS date, t.Hour AS hour, MAX({budget}) AS budget, MAX({pct}) AS pct
             FROM {USAGE} t WHERE t.SellerID = ? AND t.Date BETWEEN ? AND ? GROUP BY t.CampaignID, t.Date, t.Hour",
            budget = d.cents("t.Budget"),
            pct = d.cents("t.BudgetUsagePercentage"),
        );
        for r in wh
            .rows(&sql, vec![Scalar::Int(seller.id), day(from), day(to)])
            .await?
        {
            let day = h
                .budget_use
                .entry(r.int("id")?)
                .or_default()
                .entry(date(&r, "date")?)
                .or_default();
            day.budget = day.budget.max(r.count("budget")?);
            day.by_hour.insert(r.count("hour")? as u32, r.count("pct")?);
        }
    }
    if pp_warehouse::directory::has_table(wh.engine.as_ref(), TRAFFIC).await? {
        let sql = format!(
            "SELECT t.CampaignID AS id, t.Date AS date, t.Hour AS hour, {spend} AS spend, SUM(t.Clicks) AS clicks, SUM(t.Impressions) AS impressions
             FROM {TRAFFIC} t WHERE t.SellerID = ? AND t.Date BETWEEN ? AND ? GROUP BY t.CampaignID, t.Date, t.Hour",
            spend = d.sum_cents("t.Cost"),
        );
        for r in wh
            .rows(&sql, vec![Scalar::Int(seller.id), day(from), day(to)])
            .await?
        {
            h.hours.entry(r.int("id")?).or_default().insert(
                (date(&r, "date")?, r.count("hour")? as u32),
                HourRow {
                    spend: r.count("spend")?,
                    clicks: r.count("clicks")?,
                    impressions: r.count("impressions")?,
                },
            );
        }
    }
    Ok(())
}

/// The last day of `seller`'s streamed hours (traffic or budget use): the day the intraday
/// monitors judge; `None` without any.
pub async fn stream_day(wh: &Wh, seller: &Seller) -> Result<Option<NaiveDate>> {
    let mut last: Option<NaiveDate> = None;
    for table in [TRAFFIC, USAGE] {
        if !pp_warehouse::directory::has_table(wh.engine.as_ref(), table).await? {
            continue;
        }
        let sql = format!("SELECT MAX(Date) AS d FROM {table} WHERE SellerID = ?");
        let rows = wh.rows(&sql, vec![Scalar::Int(seller.id)]).await?;
        if let Some(r) = rows.first()
            && r.opt_text("d")?.is_some()
        {
            let d = date(r, "d")?;
            last = Some(last.map_or(d, |l| l.max(d)));
        }
    }
    Ok(last)
}

/// The last day `seller`'s inventory (or, for a vendor or a merchant without it, its
/// advertising) rows reach: the day a live evaluation is of.
pub async fn last_day(wh: &Wh, seller: &Seller) -> Result<Option<NaiveDate>> {
    let mut last = None;
    let tables: &[&str] = if seller.is_vendor() {
        &[data::ADS_TABLE]
    } else {
        &[data::INVENTORY_TABLE, data::ADS_TABLE]
    };
    for table in tables {
        let sql = format!("SELECT MAX(Date) AS d FROM {table} WHERE SellerID = ?");
        let rows = wh.rows(&sql, vec![Scalar::Int(seller.id)]).await?;
        if let Some(r) = rows.first()
            && r.opt_text("d")?.is_some()
        {
            let d = date(r, "d")?;
            last = Some(last.map_or(d, |l: NaiveDate| l.max(d)));
            if table == &data::INVENTORY_TABLE {
                return Ok(last);
            }
        }
    }
    Ok(last)
}
