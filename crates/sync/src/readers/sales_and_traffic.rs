//! Daily sales and traffic (`GET_SALES_AND_TRAFFIC_REPORT`): one report a day (its by-ASIN
//! part sums over the report's whole window), the seller's day and each child ASIN's.

use chrono::NaiveDate;
use pp_core::Result;
use pp_marketplace::documents::selling;
use pp_marketplace::ledger::Family;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::{Value, json};

use super::days;
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started, json_doc};

const REPORT: &str = "GET_SALES_AND_TRAFFIC_REPORT";

/// The reader.
pub struct SalesAndTraffic;

impl Reader for SalesAndTraffic {
    fn label(&self) -> &'static str {
        REPORT
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, d: Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let options = json!({ "dateGranularity": "DAY", "asinGranularity": "CHILD" });
            let body = cx.spapi_request(REPORT, Some(d), options);
            let id = cx.create(Family::Spapi, body, d, "").await?;
            Ok(Started::Asked(ReportCk::new(id, d)))
        })
    }

    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            Ok(match cx.spapi_done(r, &r.id).await? {
                None => None,
                Some(Some(text)) => Some(rows(&cx.seller, r.from, &json_doc(cx.dataset, &text)?)?),
                // done without a document: the provider has nothing for the day
                Some(None) => Some(Vec::new()),
            })
        })
    }
}

/// The figures both sales-and-traffic tables end with, in their column order.
fn figures(f: &selling::SalesFigures, currency: &str) -> [Cell; 7] {
    [
        Cell::Cents(f.sales),
        Cell::Int(f.units),
        Cell::Int(f.order_items),
        Cell::Int(f.sessions),
        Cell::Int(f.page_views),
        Cell::Cents(f.buy_box),
        Cell::Text(currency.to_owned()),
    ]
}

/// `GET_SALES_AND_TRAFFIC_REPORT` for the one day `day`: the seller's day and its ASINs'.
pub fn rows(seller: &Seller, day: NaiveDate, doc: &Value) -> Result<Vec<Load>> {
    let (by_date, by_asin) = selling::sales_and_traffic(doc)?;
    let t_date = table("spapi_sales_and_traffic_by_date");
    let t_asin = table("spapi_sales_and_traffic_by_asin");
    let head = |d: NaiveDate| -> Vec<Cell> {
        vec![
            Cell::Int(seller.id),
            Cell::Text(seller.token.clone()),
            Cell::Text(d.to_string()),
        ]
    };
    let date_rows = by_date
        .iter()
        .filter(|d| d.date == day)
        .map(|d| {
            let f = &d.figures;
            let mut r = head(d.date);
            r.extend(figures(f, &seller.currency));
            r
        })
        .collect();
    let asin_rows = by_asin
        .iter()
        .map(|a| {
            let f = &a.figures;
            let mut r = head(day);
            r.extend([
                Cell::Text(a.parent.clone()),
                Cell::Text(a.child.clone()),
                a.sku.clone().into(),
                // the price is what the day's sales say; a day without units names none
                match f.units {
                    0 => Cell::Null,
                    u => Cell::Cents(f.sales / u),
                },
            ]);
            r.extend(figures(f, &seller.currency));
            r
        })
        .collect();
    Ok(vec![
        Load {
            slice: days(t_date, seller, day, day, "Date"),
            rows: date_rows,
        },
        Load {
            slice: days(t_asin, seller, day, day, "Date"),
            rows: asin_rows,
        },
    ])
}
