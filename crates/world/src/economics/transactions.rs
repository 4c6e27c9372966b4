//! What the provider's financial transactions list shows on the world's today: every amount
//! posted in its 180-day window but the last 48 hours (not listed yet), grouped into
//! transactions (an order line's amounts are one shipment, a refund's one refund), each with
//! its status — an order's proceeds are deferred until the merchant's reserve days have passed
//! (`DEFERRED`, then `DEFERRED_RELEASED`), anything else is `RELEASED` — and the settlement it
//! is in (the open one until it closes). Reserves and the advertising invoice are a
//! settlement's, not transactions.

use chrono::{Duration, NaiveDate, NaiveDateTime};

use super::ledger::{Posting, Terms, period};
use crate::load::Loader;
use crate::spec::MerchantDef;
use pp_warehouse::schema::{Cell, Table};

/// Days the provider's list reaches back.
pub const WINDOW_DAYS: i64 = 180;

/// Days before today the list does not show yet.
pub const LAG_DAYS: i64 = 2;

/// A posting the list may show: its merchant and the posting.
pub struct Listed {
    pub merchant: usize,
    pub posting: Posting,
}

/// The transaction type of a posting.
fn kind(p: &Posting) -> &'static str {
    match (p.ttype, p.atype) {
        ("Order", _) => "Shipment",
        ("Refund", _) => "Refund",
        (_, "FBA Inventory Reimbursement") => "Adjustment",
        _ => "ServiceFee",
    }
}

/// A stable id for the transaction a posting is part of: the same posting has the same id on
/// every later today.
fn id(seller: i64, p: &Posting) -> String {
    let key = format!(
        "{seller}|{}|{}|{}|{}",
        p.posted,
        kind(p),
        p.order.as_deref().unwrap_or_default(),
        match p.order {
            Some(_) => "",
            None => p.adesc,
        }
    ) + p.sku.as_deref().unwrap_or_default();
    // FNV-1a, 64 bits
    let h = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("T{h:016X}")
}

/// Writes the list as of `today` into `table`.
pub fn write(
    listed: &[Listed],
    merchants: &[MerchantDef],
    origin: NaiveDate,
    today: NaiveDate,
    table: &'static Table,
    out: &mut dyn Loader,
) -> Result<(), String> {
    let now: NaiveDateTime = today.and_hms_opt(0, 0, 0).expect("midnight");
    let shown = today - Duration::days(LAG_DAYS);
    for l in listed {
        let (p, m) = (&l.posting, &merchants[l.merchant]);
        let day = p.posted.date();
        if day < today - Duration::days(WINDOW_DAYS) || day >= shown {
            continue;
        }
        let maturity =
            (p.ttype == "Order").then(|| p.posted + Duration::days(Terms::of(m).reserve_days));
        let status = match maturity {
            Some(at) if at > now => "DEFERRED",
            Some(_) => "DEFERRED_RELEASED",
            None => "RELEASED",
        };
        let sid = format!("{}{:06}", m.id, period(origin, (day - origin).num_days()).0);
        let at = |t: NaiveDateTime| Cell::Text(t.format("%Y-%m-%dT%H:%M:%SZ").to_string());
        let row = [
            m.id.into(),
            m.token.into(),
            day.to_string().into(),
            id(m.id, p).into(),
            at(p.posted),
            kind(p).into(),
            status.into(),
            maturity.map_or(Cell::Null, at),
            sid.into(),
            p.order.clone().into(),
            p.sku.clone().into(),
            p.qty.map_or(Cell::Null, Cell::Int),
            p.atype.into(),
            p.adesc.into(),
            Cell::Cents(p.amount),
            m.currency.into(),
        ];
        out.insert(table, &row)?;
    }
    Ok(())
}
