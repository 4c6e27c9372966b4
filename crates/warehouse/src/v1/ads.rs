//! `/v1/ads/*`: windowed rollups, month-to-date pacing and paged per-campaign, search-term
//! and ASIN aggregates over the sponsored-ads daily tables.

use chrono::{Datelike, Duration, NaiveDate};
use pp_core::{Error, Result};
use serde_json::{Map, Value, json};

use super::Ctx;
use super::account::{Account, Held, account, data_held, no_data};
use super::args::Args;
use super::money::{money, ratio};
use super::rows::{Row, day, i, int, rows, s, text};
use super::window::{Window, page, window};
use crate::params::Scalar;

/// The metric columns of an aggregate; money in whole cents, so sums are exact on every engine.
fn metrics_sql(d: crate::Dialect) -> String {
    format!(
        "SUM(Impressions) AS impressions, SUM(Clicks) AS clicks, {} AS spend_cents, \
         SUM(Purchases7d) AS purchases, {} AS sales_cents",
        d.sum_cents("Cost"),
        d.sum_cents("Sales7d")
    )
}

/// A cents column of a row as an amount.
fn amount(r: &Row, k: &str) -> Result<f64> {
    Ok(i(r, k)? as f64 / 100.0)
}
const AD_PRODUCTS: &[&str] = &[
    "SPONSORED_PRODUCTS",
    "SPONSORED_BRANDS",
    "SPONSORED_DISPLAY",
];
const PAGED: &[&str] = &["account_id", "start_date", "end_date", "limit", "cursor"];

/// The metric block of an aggregate row.
fn metrics(r: &Row, currency: &str) -> Result<Map<String, Value>> {
    let (imp, clk, spend, sales) = (
        i(r, "impressions")? as f64,
        i(r, "clicks")? as f64,
        amount(r, "spend_cents")?,
        amount(r, "sales_cents")?,
    );
    let mut m = Map::new();
    m.insert("impressions".into(), json!(i(r, "impressions")?));
    m.insert("clicks".into(), json!(i(r, "clicks")?));
    m.insert("spend".into(), money(spend, currency));
    m.insert("purchases".into(), json!(i(r, "purchases")?));
    m.insert("sales".into(), money(sales, currency));
    m.insert("ctr".into(), ratio(clk, imp, 100.0));
    m.insert(
        "cpc".into(),
        if clk > 0.0 {
            money(spend / clk, currency)
        } else {
            Value::Null
        },
    );
    m.insert("acos".into(), ratio(spend, sales, 100.0));
    m.insert("roas".into(), ratio(sales, spend, 1.0));
    Ok(m)
}

/// The account and the days its ads data holds, or the `no_data` answer.
async fn ads_account(
    ctx: &Ctx<'_>,
    args: &Args,
) -> Result<std::result::Result<(Account, Held), Value>> {
    let a = account(ctx, args).await?;
    match data_held(ctx, "ads_campaign_daily", "Date", a.seller_id).await? {
        Some(d) => Ok(Ok((a, d))),
        None => Ok(Err(no_data(
            &a,
            "ads",
            "no sponsored-ads data for this account",
        ))),
    }
}

fn base(a: &Account, w: &Window) -> Vec<Scalar> {
    vec![int(a.seller_id), day(w.start), day(w.end)]
}

pub async fn account_summary(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(&["account_id", "start_date", "end_date"])?;
    let (a, held) = match ads_account(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    let w = window(args, held, 30)?;
    let from = "FROM ads_campaign_daily WHERE SellerID = ? AND Date BETWEEN ? AND ?";
    let m = metrics_sql(ctx.engine.dialect());
    let total = rows(ctx, &format!("SELECT {m} {from}"), base(&a, &w)).await?;
    let by = rows(
        ctx,
        &format!(
            "SELECT AdProduct AS ad_product, {m} {from} GROUP BY AdProduct ORDER BY AdProduct"
        ),
        base(&a, &w),
    )
    .await?;
    let by: Vec<Value> = by
        .iter()
        .map(|r| {
            let mut m = metrics(r, &a.currency)?;
            m.insert("ad_product".into(), json!(s(r, "ad_product")?));
            Ok(Value::Object(m))
        })
        .collect::<Result<_>>()?;
    Ok(json!({
        "account_id": a.id, "currency": a.currency, "window": w.json(),
        "totals": metrics(total.first().unwrap_or(&Row::new()), &a.currency)?,
        "by_ad_product": by, "availability": { "status": "available" },
    }))
}

pub async fn account_pacing(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(&["account_id", "month"])?;
    let (a, held) = match ads_account(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    let through = held.through;
    let month_start = match args.str("month") {
        None => through.with_day(1).unwrap_or(through),
        Some(m) => NaiveDate::parse_from_str(&format!("{m}-01"), "%Y-%m-%d")
            .map_err(|_| Error::invalid_request("month must be YYYY-MM"))?,
    };
    if month_start > through {
        return Err(Error::invalid_request(format!(
            "month {} has no complete data day yet (data is complete through {through})",
            &month_start.to_string()[..7]
        )));
    }
    let next = (month_start + Duration::days(32))
        .with_day(1)
        .unwrap_or(month_start);
    let days_in_month = (next - month_start).num_days();
    let end = (next - Duration::days(1)).min(through);
    let elapsed = (end - month_start).num_days() + 1;
    let d = ctx.engine.dialect();
    let spent = rows(
        ctx,
        &format!(
            "SELECT {} AS spend, {} AS budget FROM ads_campaign_daily WHERE SellerID = ? AND Date BETWEEN ? AND ?",
            d.sum_cents("Cost"),
            d.sum_cents("CampaignBudget")
        ),
        vec![int(a.seller_id), day(month_start), day(end)],
    )
    .await?;
    let budgets = rows(
        ctx,
        &format!(
            "SELECT {} AS daily FROM ads_campaign WHERE SellerID = ? AND State = 'ENABLED'",
            d.sum_cents("DailyBudget")
        ),
        vec![int(a.seller_id)],
    )
    .await?;
    let spend = spent.first().map_or(Ok(0.0), |r| amount(r, "spend"))?;
    let budget = spent.first().map_or(Ok(0.0), |r| amount(r, "budget"))?;
    let monthly = budgets.first().map_or(Ok(0.0), |r| amount(r, "daily"))? * days_in_month as f64;
    let projected = spend / elapsed as f64 * days_in_month as f64;
    Ok(json!({
        "account_id": a.id, "currency": a.currency,
        "month": &month_start.to_string()[..7], "days_in_month": days_in_month, "days_elapsed": elapsed,
        "data_through": through.to_string(), "month_complete": end == next - Duration::days(1),
        "spend_to_date": money(spend, &a.currency),
        "budget_to_date": money(budget, &a.currency),
        "monthly_budget": money(monthly, &a.currency),
        "projected_spend": money(projected, &a.currency),
        "pacing_percent": ratio(projected, monthly, 100.0),
        "availability": { "status": "available" },
    }))
}

/// A paged aggregate: `group` names the key columns, `keyset` compares them with the cursor's key.
struct Listing<'a> {
    name: &'a str,
    table: &'a str,
    select: &'a str,
    group: &'a str,
    keyset: &'a str,
    filters: Vec<(&'a str, Scalar, String)>,
    key: fn(&Row) -> Result<Value>,
    key_params: fn(&Value) -> Option<Vec<Scalar>>,
    shape: fn(&Row, &Map<String, Value>) -> Result<Value>,
}

async fn listing(
    ctx: &Ctx<'_>,
    args: &Args,
    a: &Account,
    w: &Window,
    l: Listing<'_>,
) -> Result<Value> {
    let mut fp = vec![
        l.name.to_owned(),
        a.id.clone(),
        w.start.to_string(),
        w.end.to_string(),
    ];
    fp.extend(l.filters.iter().map(|f| f.2.clone()));
    let parts: Vec<&str> = fp.iter().map(String::as_str).collect();
    let p = page(ctx, args, &parts)?;
    let mut filter_sql = String::new();
    let mut params = base(a, w);
    for (sql, v, _) in &l.filters {
        filter_sql.push_str(" AND ");
        filter_sql.push_str(sql);
        params.push(v.clone());
    }
    let from = format!(
        "FROM {} WHERE SellerID = ? AND Date BETWEEN ? AND ?{filter_sql}",
        l.table
    );
    let m = metrics_sql(ctx.engine.dialect());
    let totals = rows(ctx, &format!("SELECT {m} {from}"), params.clone()).await?;
    let mut page_params = params;
    let mut after_sql = String::new();
    if let Some(after) = &p.after {
        let k = (l.key_params)(after)
            .ok_or_else(|| Error::invalid_request("the cursor is not valid for this query"))?;
        page_params.extend(k);
        after_sql = format!(" AND {}", l.keyset);
    }
    page_params.push(int(p.limit + 1));
    let fetched = rows(
        ctx,
        &format!(
            "SELECT {}, {m} {from}{after_sql} GROUP BY {} ORDER BY {} LIMIT ?",
            l.select, l.group, l.group
        ),
        page_params,
    )
    .await?;
    let (items, next) = p.finish(ctx, fetched, l.key)?;
    let items: Vec<Value> = items
        .iter()
        .map(|r| (l.shape)(r, &metrics(r, &a.currency)?))
        .collect::<Result<_>>()?;
    Ok(json!({
        "account_id": a.id, "currency": a.currency, "window": w.json(),
        "totals": metrics(totals.first().unwrap_or(&Row::new()), &a.currency)?,
        "items": items, "next_cursor": next, "availability": { "status": "available" },
    }))
}

fn with(m: &Map<String, Value>, fields: Value) -> Value {
    let mut out = fields.as_object().cloned().unwrap_or_default();
    out.extend(m.clone());
    Value::Object(out)
}

pub async fn campaign_performance(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(&[PAGED, &["ad_product"]].concat())?;
    let (a, held) = match ads_account(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    let w = window(args, held, 30)?;
    let mut filters = Vec::new();
    if let Some(p) = args.choice("ad_product", AD_PRODUCTS)? {
        filters.push(("AdProduct = ?", text(p.clone()), p));
    }
    listing(ctx, args, &a, &w, Listing {
        name: "campaign-performance",
        table: "ads_campaign_daily",
        select: "CampaignID AS campaign_id, MAX(CampaignName) AS campaign_name, MAX(AdProduct) AS ad_product",
        group: "CampaignID",
        keyset: "CampaignID > ?",
        filters,
        key: |r| Ok(json!([i(r, "campaign_id")?])),
        key_params: |k| Some(vec![int(k.get(0)?.as_i64()?)]),
        shape: |r, m| Ok(with(m, json!({ "campaign_id": i(r, "campaign_id")?, "campaign_name": s(r, "campaign_name")?, "ad_product": s(r, "ad_product")? }))),
    })
    .await
}

pub async fn search_terms(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(&[PAGED, &["campaign_id"]].concat())?;
    let (a, held) = match ads_account(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    let w = window(args, held, 30)?;
    let mut filters = Vec::new();
    if let Some(c) = args.int("campaign_id", 1, i64::MAX)? {
        filters.push(("CampaignID = ?", int(c), c.to_string()));
    }
    listing(ctx, args, &a, &w, Listing {
        name: "search-terms",
        table: "ads_search_term_daily",
        select: "SearchTerm AS search_term, TargetingID AS keyword_id, MAX(Targeting) AS keyword, MAX(MatchType) AS match_type, MAX(CampaignID) AS campaign_id, MAX(AdGroupID) AS ad_group_id",
        group: "SearchTerm, TargetingID",
        keyset: "(SearchTerm, TargetingID) > (?, ?)",
        filters,
        key: |r| Ok(json!([s(r, "search_term")?, i(r, "keyword_id")?])),
        key_params: |k| Some(vec![text(k.get(0)?.as_str()?), int(k.get(1)?.as_i64()?)]),
        shape: |r, m| {
            Ok(with(m, json!({
                "search_term": s(r, "search_term")?, "keyword_id": i(r, "keyword_id")?, "keyword": s(r, "keyword")?,
                "match_type": s(r, "match_type")?, "campaign_id": i(r, "campaign_id")?, "ad_group_id": i(r, "ad_group_id")?,
            })))
        },
    })
    .await
}

pub async fn asin_performance(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(PAGED)?;
    let (a, held) = match ads_account(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    let w = window(args, held, 30)?;
    listing(
        ctx,
        args,
        &a,
        &w,
        Listing {
            name: "asin-performance",
            table: "ads_advertised_product_daily",
            select: "AdvertisedASIN AS asin, MAX(AdvertisedSKU) AS sku",
            group: "AdvertisedASIN",
            keyset: "AdvertisedASIN > ?",
            filters: Vec::new(),
            key: |r| Ok(json!([s(r, "asin")?])),
            key_params: |k| Some(vec![text(k.get(0)?.as_str()?)]),
            shape: |r, m| {
                Ok(with(
                    m,
                    json!({ "asin": s(r, "asin")?, "sku": crate::row::Row::opt_text(r, "sku")? }),
                ))
            },
        },
    )
    .await
}
