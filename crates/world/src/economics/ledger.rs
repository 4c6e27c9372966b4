//! The settlement ledger: every amount the marketplace posts to a seller's account, held in
//! the open settlement period until it closes (every 14 days from the origin), then written as
//! the V2 flat file's lines with the period's advertising invoice and its reserve, and summed
//! into the settlement's truth.

use chrono::{Duration, NaiveDate, NaiveDateTime};

use super::truth::{Line, Pnl, Settlement};
use crate::load::Loader;
use crate::spec::MerchantDef;
use pp_warehouse::schema::{Cell, Table};

/// Days in a settlement period.
pub const PERIOD_DAYS: i64 = 14;

/// One amount posted to a seller's account: a line of the settlement flat file.
#[derive(Debug, Clone)]
pub struct Posting {
    pub posted: NaiveDateTime,
    pub ttype: &'static str,
    pub order: Option<String>,
    pub sku: Option<String>,
    pub qty: Option<i64>,
    pub atype: &'static str,
    pub adesc: &'static str,
    pub amount: i64,
    /// The P&L line it is (none for the advertising invoice and reserves: the P&L takes
    /// advertising from the advertising reports, and a reserve is the seller's money held).
    pub line: Option<Line>,
    /// The day index of the order a refund is about.
    pub order_day: Option<i64>,
}

/// A settlement period: its index, first day and the day after its last.
pub fn period(origin: NaiveDate, d: i64) -> (i64, NaiveDate, NaiveDate) {
    let p = d / PERIOD_DAYS;
    let start = origin + Duration::days(p * PERIOD_DAYS);
    (p, start, start + Duration::days(PERIOD_DAYS))
}

/// How a merchant is paid: whether advertising is invoiced to the payout (else to a card), and
/// how many days of the latest orders' proceeds each settlement holds in reserve.
pub struct Terms {
    pub ads_from_payout: bool,
    pub reserve_days: i64,
}

impl Terms {
    pub fn of(m: &MerchantDef) -> Terms {
        match m.country {
            "CA" => Terms {
                ads_from_payout: false,
                reserve_days: 7,
            },
            "MX" => Terms {
                ads_from_payout: true,
                reserve_days: 10,
            },
            _ => Terms {
                ads_from_payout: true,
                reserve_days: 7,
            },
        }
    }
}

/// What closing a period needs besides its postings.
pub struct Close<'a> {
    pub m: &'a MerchantDef,
    pub p: i64,
    pub start: NaiveDate,
    pub end: NaiveDate,
    pub terms: &'a Terms,
    pub ad_spend: i64,
    pub reserve_before: i64,
    pub first_day: i64,
}

/// Closes a period: adds the advertising invoice and the reserve lines to `postings`, writes
/// every line, and returns the settlement's truth.
pub fn close(
    c: &Close<'_>,
    mut postings: Vec<Posting>,
    table: &'static Table,
    out: &mut dyn Loader,
) -> Result<Settlement, String> {
    let last = c.end - Duration::days(1);
    let at = |d: NaiveDate, h: u32, mi: u32, s: u32| d.and_hms_opt(h, mi, s).expect("time");
    let other = |posted, adesc, amount| Posting {
        posted,
        ttype: "other-transaction",
        order: None,
        sku: None,
        qty: None,
        atype: "other-transaction",
        adesc,
        amount,
        line: None,
        order_day: None,
    };
    let advertising = if c.terms.ads_from_payout {
        -c.ad_spend
    } else {
        0
    };
    if advertising != 0 {
        postings.push(Posting {
            ttype: "ServiceFee",
            atype: "Cost of Advertising",
            adesc: "TransactionTotalAmount",
            ..other(at(last, 23, 0, 0), "", advertising)
        });
    }
    // the latest orders' proceeds are held until the next settlement
    let held_from = c.end - Duration::days(c.terms.reserve_days);
    let held: i64 = postings
        .iter()
        .filter(|p| p.ttype == "Order" && p.posted.date() >= held_from)
        .map(|p| p.amount)
        .sum::<i64>()
        .max(0);
    if c.reserve_before > 0 {
        postings.insert(
            0,
            other(
                at(c.start, 0, 0, 0),
                "Previous Reserve Amount Balance",
                c.reserve_before,
            ),
        );
    }
    if held > 0 {
        postings.push(other(at(last, 23, 59, 0), "Current Reserve Amount", -held));
    }
    let sid = format!("{}{:06}", c.m.id, c.p);
    let deposit_date = c.end + Duration::days(3);
    let mut s = Settlement {
        id: sid.clone(),
        seller_id: c.m.id,
        start: c.start,
        end: c.end,
        deposit_date,
        currency: c.m.currency,
        lines: Pnl::default(),
        earlier_orders: 0,
        advertising,
        reserve_released: c.reserve_before.max(0),
        reserve_held: -held,
        deposit: 0,
    };
    for p in &postings {
        if let Some(line) = p.line {
            s.lines.add(line, p.amount);
        }
        if p.order_day.is_some_and(|d| d < c.first_day) {
            s.earlier_orders += p.amount;
        }
        s.deposit += p.amount;
        let row = [
            c.m.id.into(),
            c.m.token.into(),
            sid.as_str().into(),
            format!("{}T00:00:00Z", c.start).into(),
            format!("{}T00:00:00Z", c.end).into(),
            format!("{deposit_date}T00:00:00Z").into(),
            p.posted.format("%Y-%m-%dT%H:%M:%SZ").to_string().into(),
            p.ttype.into(),
            p.order.clone().into(),
            p.sku.clone().into(),
            p.qty.map_or(Cell::Null, Cell::Int),
            p.atype.into(),
            p.adesc.into(),
            Cell::Cents(p.amount),
            c.m.currency.into(),
        ];
        out.insert(table, &row)?;
    }
    Ok(s)
}
