//! A vendor's sales and traffic by ASIN and day: each slice is two reports, the sales
//! (`GET_VENDOR_SALES_REPORT`) and the traffic (`GET_VENDOR_TRAFFIC_REPORT`), joined by day and
//! ASIN.

use chrono::NaiveDate;
use pp_marketplace::documents::selling;
use pp_marketplace::ledger::Family;
use pp_warehouse::schema::Cell;
use pp_warehouse::schema::table;
use serde_json::json;

use super::days;
use crate::checkpoint::ReportCk;
use crate::reader::{Cx, Days, Fut, Load, Reader, Seller, Started, json_doc};

/// The reader.
pub struct Vendor;

impl Reader for Vendor {
    fn label(&self) -> &'static str {
        "GET_VENDOR_SALES_REPORT and GET_VENDOR_TRAFFIC_REPORT (DAY)"
    }

    fn start<'a>(&'a self, cx: &'a Cx<'_>, d: Days) -> Fut<'a, Started> {
        Box::pin(async move {
            let sales = cx.spapi_request(
                "GET_VENDOR_SALES_REPORT",
                Some(d),
                json!({ "reportPeriod": "DAY", "distributorView": "MANUFACTURING", "sellingProgram": "RETAIL" }),
            );
            let id = cx.create(Family::Spapi, sales, d, "").await?;
            let traffic = cx.spapi_request(
                "GET_VENDOR_TRAFFIC_REPORT",
                Some(d),
                json!({ "reportPeriod": "DAY" }),
            );
            let also = cx.create(Family::Spapi, traffic, d, "traffic").await?;
            Ok(Started::Asked(ReportCk {
                also: Some(also),
                ..ReportCk::new(id, d)
            }))
        })
    }

    fn collect<'a>(&'a self, cx: &'a Cx<'_>, r: &'a ReportCk) -> Fut<'a, Option<Vec<Load>>> {
        Box::pin(async move {
            let Some(sales) = cx.spapi_done(r, &r.id).await? else {
                return Ok(None);
            };
            let traffic = match &r.also {
                Some(id) => match cx.spapi_done(r, id).await? {
                    None => return Ok(None),
                    Some(t) => t,
                },
                None => None,
            };
            let sales = match &sales {
                Some(t) => selling::vendor_sales(&json_doc(cx.dataset, t)?)?,
                None => Vec::new(),
            };
            let traffic = match &traffic {
                Some(t) => selling::vendor_traffic(&json_doc(cx.dataset, t)?)?,
                None => Vec::new(),
            };
            Ok(Some(vec![rows(&cx.seller, r.days(), &sales, &traffic)]))
        })
    }
}

/// Vendor sales and traffic over `from..=to`: one row per day and ASIN either report names,
/// the other report's figures empty where it has none.
pub fn rows(
    seller: &Seller,
    (from, to): (NaiveDate, NaiveDate),
    sales: &[selling::VendorSales],
    traffic: &[(NaiveDate, String, i64)],
) -> Load {
    /// A day and ASIN: its sales, its glance views.
    type Day<'a> = (Option<&'a selling::VendorSales>, Option<i64>);
    let mut joined: std::collections::BTreeMap<(NaiveDate, &str), Day<'_>> = Default::default();
    for s in sales {
        joined.entry((s.date, s.asin.as_str())).or_default().0 = Some(s);
    }
    for (d, asin, views) in traffic {
        joined.entry((*d, asin.as_str())).or_default().1 = Some(*views);
    }
    let rows = joined
        .into_iter()
        .filter(|((d, _), _)| (from..=to).contains(d))
        .map(|((d, asin), (s, views))| {
            vec![
                Cell::Int(seller.id),
                Cell::Text(seller.token.clone()),
                Cell::Text(d.to_string()),
                Cell::Text(asin.to_owned()),
                s.map_or(Cell::Null, |s| Cell::Cents(s.ordered_revenue)),
                s.map_or(Cell::Null, |s| Cell::Int(s.ordered_units)),
                s.map_or(Cell::Null, |s| Cell::Cents(s.shipped_revenue)),
                s.map_or(Cell::Null, |s| Cell::Int(s.shipped_units)),
                views.map_or(Cell::Null, Cell::Int),
                Cell::Text(seller.currency.clone()),
            ]
        })
        .collect();
    Load {
        slice: days(table("vendor_sales_and_traffic"), seller, from, to, "Date"),
        rows,
    }
}
