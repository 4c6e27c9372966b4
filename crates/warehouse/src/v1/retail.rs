//! `/v1/retail/*`: daily sales and traffic series with window totals, the inventory snapshot
//! and the daily on-hand series.

use pp_core::Result;
use serde_json::{Value, json};

use super::Ctx;
use super::account::{Account, account, data_held, data_through, no_data};
use super::args::Args;
use super::money::{money, ratio};
use super::rows::{Row, day, i, int, rows, s, text};
use super::window::{Window, page, window};
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

/// Where a series reads from: the vendor table, the seller's by-date rollup (the whole
/// account), or its by-ASIN table (one ASIN).
fn source(a: &Account, by_asin: bool) -> Source {
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
    } else if !by_asin {
        Source {
            table: "spapi_sales_and_traffic_by_date",
            asin: "",
            sales: "OrderedProductSales",
            units: "UnitsOrdered",
            orders: "TotalOrderItems",
            sessions: "Sessions",
            page_views: "PageViews",
            buy_box: "BuyBoxPercentage",
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
) -> Result<std::result::Result<(Account, Source, Window, String, Vec<Scalar>), Value>> {
    args.only(SERIES)?;
    let a = account(ctx, args).await?;
    let src = source(&a, args.str("asin").is_some());
    let Some(held) = data_held(ctx, src.table, "Date", a.seller_id).await? else {
        return Ok(Err(no_data(
            &a,
            "retail",
            "no sales and traffic data for this account",
        )));
    };
    let w = window(args, held, 30)?;
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

/// A source column, or a typed NULL where the source has none (a bare `NULL` has no type
/// on PostgreSQL).
fn typed(d: crate::Dialect, column: &str) -> String {
    if column == "NULL" {
        d.null_int()
    } else {
        column.to_owned()
    }
}

/// A series point: its date first, then its measures.
fn dated(r: &Row, measures: Value) -> Result<Value> {
    let mut m = serde_json::Map::new();
    m.insert("date".into(), json!(s(r, "date")?));
    m.extend(measures.as_object().cloned().unwrap_or_default());
    Ok(Value::Object(m))
}

pub async fn sales(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    let (a, src, w, from, params) = match series_scope(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    // Cents as integers, so the window totals are exact sums of the daily rows (one query)
    // and every engine adds them up the same.
    let d = ctx.engine.dialect();
    let measures = format!(
        "{} AS sales_cents, SUM({}) AS units, SUM({}) AS orders",
        d.sum_cents(src.sales),
        src.units,
        typed(d, src.orders)
    );
    let daily = rows(
        ctx,
        &format!("SELECT Date AS date, {measures} {from} GROUP BY Date ORDER BY Date"),
        params,
    )
    .await?;
    let shape = |cents: i64, units: i64, orders: Option<i64>| json!({ "ordered_sales": money(cents as f64 / 100.0, &a.currency), "units": units, "orders": orders });
    let orders = |r: &Row| crate::row::Row::opt_int(r, "orders");
    let series: Vec<Value> = daily
        .iter()
        .map(|r| dated(r, shape(i(r, "sales_cents")?, i(r, "units")?, orders(r)?)))
        .collect::<Result<_>>()?;
    let per_day = daily.iter().map(orders).collect::<Result<Vec<_>>>()?;
    let total_orders = per_day
        .into_iter()
        .try_fold(0_i64, |acc, o| o.map(|o| acc + o));
    let totals = shape(
        daily
            .iter()
            .map(|r| i(r, "sales_cents"))
            .sum::<Result<i64>>()?,
        daily.iter().map(|r| i(r, "units")).sum::<Result<i64>>()?,
        if daily.is_empty() { None } else { total_orders },
    );
    Ok(json!({
        "account_id": a.id, "currency": a.currency, "window": w.json(), "asin": args.str("asin"),
        "series": series, "totals": totals, "availability": { "status": "available" },
    }))
}

pub async fn traffic(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    let (a, src, w, from, params) = match series_scope(ctx, args).await? {
        Ok(x) => x,
        Err(v) => return Ok(v),
    };
    // The buy-box share in hundredths times sessions: an exact integer on every engine.
    let d = ctx.engine.dialect();
    let measures = format!(
        "SUM({s}) AS sessions, SUM({pv}) AS page_views, SUM({u}) AS units, SUM({bb} * {s}) AS buy_box_weighted",
        s = typed(d, src.sessions),
        pv = src.page_views,
        u = src.units,
        bb = if src.buy_box == "NULL" {
            d.null_int()
        } else {
            d.cents(src.buy_box)
        },
    );
    let daily = rows(
        ctx,
        &format!("SELECT Date AS date, {measures} {from} GROUP BY Date ORDER BY Date"),
        params,
    )
    .await?;
    let shape = |sessions: Option<i64>, page_views: i64, units: i64, weighted: f64| {
        let s = sessions.unwrap_or(0) as f64;
        json!({
            "sessions": sessions,
            "page_views": page_views,
            "buy_box_percentage": if sessions.is_some() { ratio(weighted, s, 1.0) } else { Value::Null },
            "unit_session_percentage": ratio(units as f64, s, 100.0),
        })
    };
    let sessions = |r: &Row| crate::row::Row::opt_int(r, "sessions");
    let series: Vec<Value> = daily
        .iter()
        .map(|r| {
            dated(
                r,
                shape(
                    sessions(r)?,
                    i(r, "page_views")?,
                    i(r, "units")?,
                    i(r, "buy_box_weighted")? as f64 / 100.0,
                ),
            )
        })
        .collect::<Result<_>>()?;
    let per_day = daily.iter().map(sessions).collect::<Result<Vec<_>>>()?;
    let total_sessions = per_day
        .into_iter()
        .try_fold(0_i64, |acc, x| x.map(|x| acc + x));
    let totals = shape(
        if daily.is_empty() {
            None
        } else {
            total_sessions
        },
        daily
            .iter()
            .map(|r| i(r, "page_views"))
            .sum::<Result<i64>>()?,
        daily.iter().map(|r| i(r, "units")).sum::<Result<i64>>()?,
        daily
            .iter()
            .map(|r| i(r, "buy_box_weighted"))
            .sum::<Result<i64>>()? as f64
            / 100.0,
    );
    Ok(json!({
        "account_id": a.id, "window": w.json(), "asin": args.str("asin"),
        "series": series, "totals": totals, "availability": { "status": "available" },
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
        Ok(json!([s(r, "sku")?]))
    })?;
    Ok(json!({
        "account_id": a.id, "data_through": through.to_string(), "items": items, "next_cursor": next,
        "availability": { "status": "available" },
    }))
}

pub async fn inventory_history(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(SERIES)?;
    let a = account(ctx, args).await?;
    let Some(held) = data_held(ctx, "spapi_fba_inventory", "Date", a.seller_id).await? else {
        return Ok(no_data(&a, "retail", "no FBA inventory for this account"));
    };
    let w = window(args, held, 30)?;
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
