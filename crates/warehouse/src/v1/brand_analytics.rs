//! `/v1/brand-analytics/search-query-performance`: weekly search-query aggregates with the
//! seller's shares computed from counts.

use pp_core::Result;
use serde_json::{Value, json};

use super::Ctx;
use super::account::{account, data_held, no_data};
use super::args::Args;
use super::money::ratio;
use super::rows::{Row, day, i, int, rows, s, text};
use super::window::{page, window};

fn definitions() -> Value {
    json!({
        "search_query_volume": "Searches of the query in the week (counted once per week and query).",
        "impressions": "Search-result impressions: total for all results, and of the brand's items.",
        "clicks": "Clicks on search results: total, and on the brand's items.",
        "cart_adds": "Cart adds from search results: total, and of the brand's items.",
        "purchases": "Purchases from search results: total, and of the brand's items.",
        "impression_share": "Brand impressions / total impressions × 100, from the counts.",
        "click_share": "Brand clicks / total clicks × 100, from the counts.",
        "purchase_share": "Brand purchases / total purchases × 100, from the counts.",
    })
}

pub async fn search_query_performance(ctx: &Ctx<'_>, args: &Args) -> Result<Value> {
    args.only(&[
        "account_id",
        "start_date",
        "end_date",
        "search_query",
        "limit",
        "cursor",
    ])?;
    let a = account(ctx, args).await?;
    let Some(held) = data_held(ctx, "spapi_brand_analytics_sqp", "WeekEnd", a.seller_id).await?
    else {
        let mut v = no_data(
            &a,
            "brand_analytics",
            "brand analytics is not available for this account and marketplace",
        );
        v["metric_definitions"] = definitions();
        return Ok(v);
    };
    let w = window(args, held, 84)?;
    let q = args.str("search_query").unwrap_or_default();
    let p = page(
        ctx,
        args,
        &["sqp", &a.id, &w.start.to_string(), &w.end.to_string(), q],
    )?;
    let mut sql = String::from(
        "SELECT WeekStart AS week_start, WeekEnd AS week_end, SearchQuery AS search_query, SearchQueryVolume AS volume, \
         ImpressionsTotal AS impressions_total, ImpressionsBrand AS impressions_brand, ClicksTotal AS clicks_total, \
         ClicksBrand AS clicks_brand, CartAddsTotal AS cart_adds_total, CartAddsBrand AS cart_adds_brand, \
         PurchasesTotal AS purchases_total, PurchasesBrand AS purchases_brand \
         FROM spapi_brand_analytics_sqp WHERE SellerID = ? AND WeekStart >= ? AND WeekEnd <= ?",
    );
    let mut params = vec![int(a.seller_id), day(w.start), day(w.end)];
    if !q.is_empty() {
        sql.push_str(" AND SearchQuery = ?");
        params.push(text(q));
    }
    if let Some(after) = &p.after {
        sql.push_str(" AND (WeekStart, SearchQuery) > (?, ?)");
        params.push(text(
            after.get(0).and_then(Value::as_str).unwrap_or_default(),
        ));
        params.push(text(
            after.get(1).and_then(Value::as_str).unwrap_or_default(),
        ));
    }
    sql.push_str(" ORDER BY WeekStart, SearchQuery LIMIT ?");
    params.push(int(p.limit + 1));
    let (items, next) = p.finish(ctx, rows(ctx, &sql, params).await?, |r| {
        Ok(json!([s(r, "week_start")?, s(r, "search_query")?]))
    })?;
    let pair = |r: &Row, k: &str| -> Result<Value> {
        Ok(json!({ "total": i(r, &format!("{k}_total"))?, "brand": i(r, &format!("{k}_brand"))? }))
    };
    let share = |r: &Row, k: &str| -> Result<Value> {
        Ok(ratio(
            i(r, &format!("{k}_brand"))? as f64,
            i(r, &format!("{k}_total"))? as f64,
            100.0,
        ))
    };
    let items: Vec<Value> = items
        .iter()
        .map(|r| {
            Ok(json!({
                "week_start": s(r, "week_start")?, "week_end": s(r, "week_end")?, "search_query": s(r, "search_query")?,
                "search_query_volume": i(r, "volume")?,
                "impressions": pair(r, "impressions")?, "clicks": pair(r, "clicks")?, "cart_adds": pair(r, "cart_adds")?, "purchases": pair(r, "purchases")?,
                "impression_share": share(r, "impressions")?, "click_share": share(r, "clicks")?, "purchase_share": share(r, "purchases")?,
            }))
        })
        .collect::<Result<_>>()?;
    Ok(json!({
        "account_id": a.id, "window": w.json(), "items": items, "next_cursor": next,
        "metric_definitions": definitions(), "availability": { "status": "available" },
    }))
}
