//! The lines each kind of posting writes in the settlement file: an order line, a refund, the
//! account's charges (storage, the selling plan, a deal's or a coupon's fee) and
//! reimbursements, with the P&L line each amount is.

use chrono::NaiveDateTime;

use super::ledger::Posting;
use super::truth::Line;

/// A SKU's day of sales, with its fees per unit.
pub struct Sale<'a> {
    pub posted: NaiveDateTime,
    pub order: &'a str,
    pub sku: &'a str,
    pub units: i64,
    /// The shelf price and what was paid (a coupon taken off), per unit.
    pub shelf: i64,
    pub price: i64,
    pub referral: i64,
    pub fba: i64,
    /// A coupon's fee per unit redeemed.
    pub coupon_fee: i64,
}

/// The order line's amounts: principal at the shelf price, a coupon's rebate, the referral and
/// fulfillment fees, and a coupon's redemption fee.
pub fn order(s: &Sale<'_>) -> Vec<Posting> {
    let line = |atype, adesc, amount, line| Posting {
        posted: s.posted,
        ttype: "Order",
        order: Some(s.order.to_owned()),
        sku: Some(s.sku.to_owned()),
        qty: Some(s.units),
        atype,
        adesc,
        amount,
        line: Some(line),
        order_day: None,
    };
    let rebate = s.shelf - s.price;
    let mut out = vec![line(
        "ItemPrice",
        "Principal",
        s.units * s.shelf,
        Line::Sales,
    )];
    if rebate > 0 {
        out.push(line(
            "Promotion",
            "Principal",
            -s.units * rebate,
            Line::Promotions,
        ));
    }
    out.push(line(
        "ItemFees",
        "Commission",
        -s.units * s.referral,
        Line::ReferralFees,
    ));
    out.push(line(
        "ItemFees",
        "FBAPerUnitFulfillmentFee",
        -s.units * s.fba,
        Line::FulfillmentFees,
    ));
    if rebate > 0 {
        let fee = -s.units * s.coupon_fee;
        out.push(other(
            s.posted,
            Some(s.sku),
            "CouponRedemptionFee",
            fee,
            Line::OtherFees,
        ));
    }
    out
}

/// A refund of units of an earlier sale.
pub struct Refund<'a> {
    pub posted: NaiveDateTime,
    pub order: &'a str,
    pub order_day: i64,
    pub sku: &'a str,
    pub units: i64,
    pub shelf: i64,
    pub price: i64,
    pub referral: i64,
    /// The refund commission per unit.
    pub refund_commission: i64,
}

/// The refund's amounts: the principal back (less a coupon's rebate), the commission returned
/// and the refund commission kept.
pub fn refund(r: &Refund<'_>) -> Vec<Posting> {
    let line = |atype, adesc, amount, line| Posting {
        posted: r.posted,
        ttype: "Refund",
        order: Some(r.order.to_owned()),
        sku: Some(r.sku.to_owned()),
        qty: Some(r.units),
        atype,
        adesc,
        amount,
        line: Some(line),
        order_day: Some(r.order_day),
    };
    let rebate = r.shelf - r.price;
    let mut out = vec![line(
        "ItemPrice",
        "Principal",
        -r.units * r.shelf,
        Line::Refunds,
    )];
    if rebate > 0 {
        out.push(line(
            "Promotion",
            "Principal",
            r.units * rebate,
            Line::Refunds,
        ));
    }
    out.push(line(
        "ItemFees",
        "Commission",
        r.units * r.referral,
        Line::ReferralFees,
    ));
    out.push(line(
        "ItemFees",
        "RefundCommission",
        -r.units * r.refund_commission,
        Line::ReferralFees,
    ));
    out
}

fn other(
    posted: NaiveDateTime,
    sku: Option<&str>,
    adesc: &'static str,
    amount: i64,
    line: Line,
) -> Posting {
    Posting {
        posted,
        ttype: "other-transaction",
        order: None,
        sku: sku.map(str::to_owned),
        qty: None,
        atype: "other-transaction",
        adesc,
        amount,
        line: Some(line),
        order_day: None,
    }
}

/// A charge to the account itself (the selling plan, a deal's fee).
pub fn merchant_fee(posted: NaiveDateTime, adesc: &'static str, amount: i64) -> Posting {
    other(posted, None, adesc, amount, Line::OtherFees)
}

/// A SKU's storage charge.
pub fn sku_fee(posted: NaiveDateTime, sku: &str, adesc: &'static str, amount: i64) -> Posting {
    other(posted, Some(sku), adesc, amount, Line::StorageFees)
}

/// Units reimbursed (`CUSTOMER_RETURN`, `WAREHOUSE_DAMAGE`).
pub fn reimbursement(
    posted: NaiveDateTime,
    sku: &str,
    units: i64,
    adesc: &'static str,
    amount: i64,
) -> Posting {
    Posting {
        atype: "FBA Inventory Reimbursement",
        qty: Some(units),
        ..other(posted, Some(sku), adesc, amount, Line::Reimbursements)
    }
}
