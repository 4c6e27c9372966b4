//! `/v1/retail/*`: daily sales and traffic series with window totals, the inventory snapshot
//! and the daily on-hand series.

use pp_core::Result;
use serde_json::{Value, json};

use super::Ctx;
use super::args::Args;
use super::sql::{
    Account, Row, account, data_through, day, f, i, int, money, no_data, page, ratio, rows, s,
    text, window,
};
use crate::params::Scalar;

const SERIES: &[&str] = &["account_id", "start_date", "end_date", "asin"];

/// The daily table, its ASIN column and the SQL of each measure for an account.
struct Source {
    table: &'static str,
    asin: &'static str,
    sales: &'static str,
    units: &'static str,
    orders: &'static str,
    sessions: &'static str,
    page_views: &'static str,
    buy_box: &'static str,
}

fn source(a: &Account) -> Source {
    if a.vendor {
        Source {
            table: "vendor_sales_and_traffic",
            asin: "ASIN",
            sales: "OrderedRevenue",
            units: "OrderedUnits",
            orders: "NULL",
            sessions: "NULL",
            page_views: "GlanceViews",
            buy_box: "NULL",
        }
    } else {
        Source {
            table: "spapi_sales_and_traffic_by_asin",
            asin: "ChildASIN",
            sales: "OrderedProductSales",
            units: "UnitsOrdered",
            orders: "TotalOrderItems",
            sessions: "Sessions",
            page_views: "PageViews",
            buy_box: "BuyBoxPercentage",
        }
    }
}

/// Account, window and the shared WHERE clause of a daily series.
async fn series_scope(
    ctx: &Ctx<'_>,
    args: &Args,
) -> Result<std::result::Result<(Account, Source, super::sql::Window, String, Vec<Scalar>), Value>>
{
    args.only(SERIES)?;
    let a = account(ctx, args).await?;
    let src = source(&a);
    let Some(through) = data_through(ctx, src.table, "Date", a.seller_id).await? else {
        return Ok(Err(no_data(
            &a,
            "retail",
            "no sales and traffic data for this account",
        )));
    };
    let w = window(args, through, 30)?;
    let mut params = vec![int(a.seller_id), day(w.start), day(w.end)];
    let mut filter = format!(
        "FROM {} WHERE SellerID = ? AND Date BETWEEN ? AND ?",
        src.table
    );
    if let Some(asin) = args.str("asin") {
        filter.push_str(&format!(" AND {} = ?", src.asin));
        params.push(text(asin));
    }
    Ok(Ok((a, src, w, filter, params)))
}

/// A series point: its date first, then its measures.
fn dated(r: &Row, measures: Value) -> Value {
    let mut m = serde_json::Map::new();
    m.insert("date".into(), json!(s(r, "date")));
    m.extend(measures.as_object().cloned().unwrap_or_default());
    Value::Object(m)
}

fn opt_int(r: &Row, k: &str) -> Value {
    r.get(k)
        .filter(|v| !v.is_null())
        .map_or(Value::Null, |_| json!(i(r, k)))
}

pub async fn sales(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    let (a, src, w, from, params) = match series_scope(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    let measures = format!(
        "ROUND(SUM({}), 2) AS sales, SUM({}) AS units, SUM({}) AS orders",
        src.sales, src.units, src.orders
    );
    let daily = rows(
        ctx,
        &format!("SELECT Date AS date, {measures} {from} GROUP BY Date ORDER BY Date"),
        params.clone(),
    )
    .await?;
    let totals = rows(ctx, &format!("SELECT {measures} {from}"), params).await?;
    let shape = |r: &Row| json!({ "ordered_sales": money(f(r, "sales"), &a.currency), "units": i(r, "units"), "orders": opt_int(r, "orders") });
    let series: Vec<Value> = daily.iter().map(|r| dated(r, shape(r))).collect();
    Ok(json!({
        "account_id": a.id, "currency": a.currency, "window": w.json(), "asin": args.str("asin"),
        "series": series, "totals": shape(totals.first().unwrap_or(&Row::new())), "availability": { "status": "available" },
    }))
}

pub async fn traffic(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    let (a, src, w, from, params) = match series_scope(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    let measures = format!(
        "SUM({s}) AS sessions, SUM({pv}) AS page_views, SUM({u}) AS units, SUM({bb} * {s}) AS buy_box_weighted",
        s = src.sessions,
        pv = src.page_views,
        u = src.units,
        bb = src.buy_box
    );
    let daily = rows(
        ctx,
        &format!("SELECT Date AS date, {measures} {from} GROUP BY Date ORDER BY Date"),
        params.clone(),
    )
    .await?;
    let totals = rows(ctx, &format!("SELECT {measures} {from}"), params).await?;
    let shape = |r: &Row| {
        let sessions = f(r, "sessions");
        json!({
            "sessions": opt_int(r, "sessions"),
            "page_views": i(r, "page_views"),
            "buy_box_percentage": ratio(f(r, "buy_box_weighted"), sessions, 1.0),
            "unit_session_percentage": ratio(f(r, "units"), sessions, 100.0),
        })
    };
    let series: Vec<Value> = daily.iter().map(|r| dated(r, shape(r))).collect();
    Ok(json!({
        "account_id": a.id, "window": w.json(), "asin": args.str("asin"),
        "series": series, "totals": shape(totals.first().unwrap_or(&Row::new())), "availability": { "status": "available" },
    }))
}

const HEALTH: &str = "CASE WHEN Fulfillable = 0 THEN 'out_of_stock' WHEN DaysOfSupply < 14 THEN 'low_stock' \
                      WHEN DaysOfSupply > 120 THEN 'excess' ELSE 'healthy' END";

pub async fn inventory(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(&[
        "account_id",
        "at_risk_only",
        "days_of_supply_lte",
        "limit",
        "cursor",
    ])?;
    let a = account(ctx, args).await?;
    let Some(through) = data_through(ctx, "spapi_fba_inventory", "Date", a.seller_id).await? else {
        return Ok(no_data(&a, "retail", "no FBA inventory for this account"));
    };
    let at_risk = args.bool("at_risk_only")?;
    let dos = args.number("days_of_supply_lte")?;
    let dos_s = dos.map(|d| d.to_string()).unwrap_or_default();
    let p = page(
        ctx,
        args,
        &[
            "inventory",
            &a.id,
            &through.to_string(),
            if at_risk { "risk" } else { "all" },
            &dos_s,
        ],
    )?;
    let mut sql = format!(
        "SELECT ASIN AS asin, SKU AS sku, Fulfillable AS fulfillable, Inbound AS inbound, Reserved AS reserved, \
         DaysOfSupply AS days_of_supply, {HEALTH} AS health_alert FROM spapi_fba_inventory WHERE SellerID = ? AND Date = ?"
    );
    let mut params = vec![int(a.seller_id), day(through)];
    if at_risk {
        sql.push_str(" AND (Fulfillable = 0 OR DaysOfSupply < 14)");
    }
    if let Some(d) = dos {
        sql.push_str(" AND DaysOfSupply <= ?");
        params.push(Scalar::Real(d));
    }
    if let Some(after) = &p.after {
        sql.push_str(" AND SKU > ?");
        params.push(text(
            after.get(0).and_then(Value::as_str).unwrap_or_default(),
        ));
    }
    sql.push_str(" ORDER BY SKU LIMIT ?");
    params.push(int(p.limit + 1));
    let (items, next) = p.finish(ctx, rows(ctx, &sql, params).await?, |r| {
        json!([s(r, "sku")])
    });
    Ok(json!({
        "account_id": a.id, "data_through": through.to_string(), "items": items, "next_cursor": next,
        "availability": { "status": "available" },
    }))
}

pub async fn inventory_history(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(SERIES)?;
    let a = account(ctx, args).await?;
    let Some(through) = data_through(ctx, "spapi_fba_inventory", "Date", a.seller_id).await? else {
        return Ok(no_data(&a, "retail", "no FBA inventory for this account"));
    };
    let w = window(args, through, 30)?;
    let mut sql = String::from(
        "SELECT Date AS date, SUM(Fulfillable) AS fulfillable, SUM(Inbound) AS inbound, SUM(Reserved) AS reserved \
         FROM spapi_fba_inventory WHERE SellerID = ? AND Date BETWEEN ? AND ?",
    );
    let mut params = vec![int(a.seller_id), day(w.start), day(w.end)];
    if let Some(asin) = args.str("asin") {
        sql.push_str(" AND ASIN = ?");
        params.push(text(asin));
    }
    sql.push_str(" GROUP BY Date ORDER BY Date");
    let series = rows(ctx, &sql, params).await?;
    Ok(
        json!({ "account_id": a.id, "window": w.json(), "asin": args.str("asin"), "series": series, "availability": { "status": "available" } }),
    )
}
