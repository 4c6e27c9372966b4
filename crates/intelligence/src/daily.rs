//! Day-by-day reads for the requests that judge a change (`INS-CHANGE-OUTCOME-01`) or pace a
//! month (`PLN-BUDGET-PACING-01`): a scope's advertising and retail facts per day (all of it,
//! or only some campaigns or items), its campaigns as they stand, and each campaign's spend,
//! return and days out of budget over a period. Like `data`, every query groups in the
//! warehouse, binds its values and sums money as integer cents.

use chrono::NaiveDate;
use pp_core::Result;
use pp_warehouse::params::Scalar;
use pp_warehouse::row::Row;

use crate::data::{
    self, AdsFacts, ItemFacts, Wh, ads_facts, date, day, in_list, item_facts, key, marks,
    retail_source, scoped_from, text,
};
use crate::params::Period;
use crate::scope::Scope;

/// A day's facts.
pub type Daily<F> = Vec<(NaiveDate, F)>;

/// A campaign's share of its budget at or above which the day counts as out of budget (the
/// provider's budget usage calls a campaign out of budget near 100%).
pub const OUT_OF_BUDGET: f64 = 0.98;

/// ` AND t.<column> IN (…)` for `ids`, with its values (nothing when `ids` is empty).
fn only(column: &str, ids: &[String], as_int: bool) -> (String, Vec<Scalar>) {
    if ids.is_empty() {
        return (String::new(), Vec::new());
    }
    let values = ids
        .iter()
        .map(|i| match (as_int, i.parse::<i64>()) {
            (true, Ok(n)) => Scalar::Int(n),
            _ => text(i),
        })
        .collect();
    (format!(" AND t.{column} IN ({})", marks(ids.len())), values)
}

/// The scope's campaign rows summed per day over `period` (only `campaigns` when given).
pub async fn ads(
    wh: &Wh,
    scope: &Scope,
    campaigns: &[String],
    period: Period,
) -> Result<Daily<AdsFacts>> {
    let d = wh.dialect();
    let (marks, mut params) = in_list(scope);
    let mut sql = format!(
        "SELECT t.Date AS date, SUM(t.Impressions) AS impressions, SUM(t.Clicks) AS clicks, {spend} AS spend, SUM(t.Purchases7d) AS purchases, {sales} AS sales FROM {table} t WHERE t.SellerID IN ({marks}) AND t.Date BETWEEN ? AND ?",
        spend = d.sum_cents("t.Cost"),
        sales = d.sum_cents("t.Sales7d"),
        table = data::ADS_TABLE,
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
    let (clause, ids) = only("CampaignID", campaigns, true);
    sql.push_str(&clause);
    params.extend(ids);
    sql.push_str(" GROUP BY t.Date ORDER BY t.Date");
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| Ok((date(r, "date")?, ads_facts(r)?)))
        .collect()
}

/// The days every ad product of the scope has campaign rows on: from the latest of their first
/// days (a synced warehouse reaches back as far as each product's reports are kept: 95 days for
/// Sponsored Products, 60 for Sponsored Brands) to the last day any has.
pub async fn ads_coverage(wh: &Wh, scope: &Scope) -> Result<Option<Period>> {
    let (marks, params) = in_list(scope);
    let sql = format!(
        "SELECT t.AdProduct AS product, MIN(t.Date) AS first_day, MAX(t.Date) AS last_day FROM {table} t WHERE t.SellerID IN ({marks}) GROUP BY t.AdProduct",
        table = data::ADS_TABLE,
    );
    let mut range: Option<Period> = None;
    for r in wh.rows(&sql, params).await? {
        let (a, b) = (date(&r, "first_day")?, date(&r, "last_day")?);
        range = Some(match range {
            None => Period { start: a, end: b },
            Some(p) => Period {
                start: p.start.max(a),
                end: p.end.max(b),
            },
        });
    }
    Ok(range)
}

/// The scope's items summed per day over `period` (only `asins` when given).
pub async fn retail(
    wh: &Wh,
    scope: &Scope,
    asins: &[String],
    period: Period,
) -> Result<Daily<ItemFacts>> {
    let src = retail_source(scope);
    let d = wh.dialect();
    let (from, mut params) = scoped_from(scope, src.table, Some(src.asin), period);
    let (clause, ids) = only(src.asin, asins, false);
    params.extend(ids);
    let sql = format!(
        "SELECT t.Date AS date, {sales} AS sales, SUM(t.{units}) AS units, SUM(t.{traffic}) AS traffic {from}{clause} GROUP BY t.Date ORDER BY t.Date",
        sales = d.sum_cents(&format!("t.{}", src.sales)),
        units = src.units,
        traffic = src.traffic,
    );
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| Ok((date(r, "date")?, item_facts(r)?)))
        .collect()
}

/// A campaign as the entity table has it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Campaign {
    pub id: String,
    pub name: String,
    pub ad_product: String,
    pub state: String,
    pub seller_id: i64,
    pub profile_id: Option<i64>,
    /// The daily budget, in cents.
    pub budget: i64,
}

/// The scope's campaigns (a brand's only), by id.
pub async fn campaigns(wh: &Wh, scope: &Scope) -> Result<Vec<Campaign>> {
    let d = wh.dialect();
    let (marks, mut params) = in_list(scope);
    let mut sql = format!(
        "SELECT t.CampaignID AS id, MAX(t.Name) AS name, MAX(t.AdProduct) AS ad_product, MAX(t.State) AS state, MAX(t.SellerID) AS seller_id, MAX(t.ProfileID) AS profile_id, {budget} AS budget FROM ads_campaign t WHERE t.SellerID IN ({marks})",
        budget = d.sum_cents("t.DailyBudget"),
    );
    if let Some(b) = &scope.brand {
        sql.push_str(" AND t.Brand = ?");
        params.push(text(&b.name));
    }
    sql.push_str(" GROUP BY t.CampaignID ORDER BY t.CampaignID");
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| {
            Ok(Campaign {
                id: key(r, "id")?,
                name: r.opt_text("name")?.unwrap_or_default().to_owned(),
                ad_product: r.opt_text("ad_product")?.unwrap_or_default().to_owned(),
                state: r.opt_text("state")?.unwrap_or_default().to_owned(),
                seller_id: r.int("seller_id")?,
                profile_id: r.opt_int("profile_id")?,
                budget: r.count("budget")?,
            })
        })
        .collect()
}

/// A campaign's spend and return over a period, and how often it ran out of budget.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pace {
    pub spend: i64,
    pub sales: i64,
    /// Days it has a row.
    pub days: i64,
    /// Days it spent at least `OUT_OF_BUDGET` of the budget in force that day.
    pub out_of_budget: i64,
}

/// Each campaign's pace over `period`, by campaign id.
pub async fn paces(
    wh: &Wh,
    scope: &Scope,
    period: Period,
) -> Result<std::collections::BTreeMap<String, Pace>> {
    let d = wh.dialect();
    let (marks, mut params) = in_list(scope);
    params.push(day(period.start));
    params.push(day(period.end));
    let sql = format!(
        "SELECT t.CampaignID AS id, {spend} AS spend, {sales} AS sales, COUNT(*) AS days, SUM(CASE WHEN t.CampaignBudget > 0 AND t.Cost >= t.CampaignBudget * {OUT_OF_BUDGET} THEN 1 ELSE 0 END) AS capped FROM {table} t WHERE t.SellerID IN ({marks}) AND t.Date BETWEEN ? AND ? GROUP BY t.CampaignID",
        spend = d.sum_cents("t.Cost"),
        sales = d.sum_cents("t.Sales7d"),
        table = data::ADS_TABLE,
    );
    wh.rows(&sql, params)
        .await?
        .iter()
        .map(|r| {
            Ok((
                key(r, "id")?,
                Pace {
                    spend: r.count("spend")?,
                    sales: r.count("sales")?,
                    days: r.count("days")?,
                    out_of_budget: r.count("capped")?,
                },
            ))
        })
        .collect()
}
