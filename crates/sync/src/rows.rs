//! Documents into warehouse rows: each dataset's document read with the marketplace's one
//! reader (`pp_marketplace::documents`, money in whole cents) and laid out in the world
//! schema's column order, with the slices of the tables it replaces.

use chrono::NaiveDate;
use pp_core::Result;
use pp_marketplace::documents::selling;
use pp_world::schema::{Table, table};
use pp_world::{Cell, Slice};
use serde_json::Value;

/// A seller as its rows carry it.
#[derive(Debug, Clone)]
pub struct Seller {
    pub id: i64,
    pub token: String,
    pub currency: String,
}

/// The rows of one table's slice.
pub struct Load {
    pub slice: Slice,
    pub rows: Vec<Vec<Cell>>,
}

fn days(
    t: &'static Table,
    seller: &Seller,
    from: NaiveDate,
    to: NaiveDate,
    col: &'static str,
) -> Slice {
    Slice {
        table: t,
        seller_id: seller.id,
        range: Some((col, from.to_string(), to.to_string())),
    }
}

/// `GET_SALES_AND_TRAFFIC_REPORT` for the one day `day`: the seller's day and its ASINs'.
pub fn sales_and_traffic(seller: &Seller, day: NaiveDate, doc: &Value) -> Result<Vec<Load>> {
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
            r.extend([
                Cell::Cents(f.sales),
                Cell::Int(f.units),
                Cell::Int(f.order_items),
                Cell::Int(f.sessions),
                Cell::Int(f.page_views),
                Cell::Cents(f.buy_box),
                Cell::Text(seller.currency.clone()),
            ]);
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
                Cell::Cents(f.sales),
                Cell::Int(f.units),
                Cell::Int(f.order_items),
                Cell::Int(f.sessions),
                Cell::Int(f.page_views),
                Cell::Cents(f.buy_box),
                Cell::Text(seller.currency.clone()),
            ]);
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
