//! The economics' ground truth: P&L lines per SKU and month and per merchant and month (in
//! the merchant's currency and in the reporting currency, each amount converted on its posted
//! date), every settlement's parts and deposit, the cost periods, and the fee and cost
//! changes. Every amount is integer cents.

use std::collections::BTreeMap;

use chrono::NaiveDate;
use serde::Serialize;

use super::costs::CostChange;
use super::fees::FeeChange;

/// The world's reporting currency.
pub const REPORTING: &str = "USD";

/// A P&L's lines, signed (money in is positive), in cents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Pnl {
    pub sales: i64,
    pub promotions: i64,
    pub refunds: i64,
    pub referral_fees: i64,
    pub fulfillment_fees: i64,
    pub storage_fees: i64,
    pub other_fees: i64,
    pub reimbursements: i64,
    pub advertising_sp: i64,
    pub advertising_sb: i64,
    pub advertising_sd: i64,
    pub advertising_dsp: i64,
    pub cost_of_goods: i64,
    pub inbound: i64,
}

/// Which line of a P&L an amount is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    Sales,
    Promotions,
    Refunds,
    ReferralFees,
    FulfillmentFees,
    StorageFees,
    OtherFees,
    Reimbursements,
    Advertising(&'static str),
    CostOfGoods,
    Inbound,
}

impl Pnl {
    pub fn add(&mut self, line: Line, cents: i64) {
        *match line {
            Line::Sales => &mut self.sales,
            Line::Promotions => &mut self.promotions,
            Line::Refunds => &mut self.refunds,
            Line::ReferralFees => &mut self.referral_fees,
            Line::FulfillmentFees => &mut self.fulfillment_fees,
            Line::StorageFees => &mut self.storage_fees,
            Line::OtherFees => &mut self.other_fees,
            Line::Reimbursements => &mut self.reimbursements,
            Line::Advertising("SPONSORED_BRANDS") => &mut self.advertising_sb,
            Line::Advertising("SPONSORED_DISPLAY") => &mut self.advertising_sd,
            Line::Advertising("DSP") => &mut self.advertising_dsp,
            Line::Advertising(_) => &mut self.advertising_sp,
            Line::CostOfGoods => &mut self.cost_of_goods,
            Line::Inbound => &mut self.inbound,
        } += cents;
    }

    /// Every line's sum.
    pub fn total(&self) -> i64 {
        self.sales
            + self.promotions
            + self.refunds
            + self.referral_fees
            + self.fulfillment_fees
            + self.storage_fees
            + self.other_fees
            + self.reimbursements
            + self.advertising_sp
            + self.advertising_sb
            + self.advertising_sd
            + self.advertising_dsp
            + self.cost_of_goods
            + self.inbound
    }
}

/// One SKU's month (by posted date, UTC), or a merchant's month of the lines no SKU carries
/// (`sku` null: the selling plan, deal fees, advertising).
#[derive(Debug, Clone, Serialize)]
pub struct Month {
    pub seller_id: i64,
    pub sku: Option<String>,
    /// `YYYY-MM`.
    pub month: String,
    /// Every day of the month is in a settlement that has closed.
    pub settled: bool,
    pub currency: &'static str,
    pub lines: Pnl,
    /// The same lines in [`REPORTING`], each amount converted on its posted date.
    pub reporting: Pnl,
}

/// One settlement: its lines by P&L line, what else it carried, and its deposit.
#[derive(Debug, Clone, Serialize)]
pub struct Settlement {
    pub id: String,
    pub seller_id: i64,
    pub start: NaiveDate,
    pub end: NaiveDate,
    pub deposit_date: NaiveDate,
    pub currency: &'static str,
    pub lines: Pnl,
    /// Refund lines about orders of earlier settlements.
    pub earlier_orders: i64,
    /// Advertising invoiced to the payout (negative).
    pub advertising: i64,
    /// The reserve released from the settlement before (positive).
    pub reserve_released: i64,
    /// The reserve held back from this one (negative).
    pub reserve_held: i64,
    /// What was paid out: every one of the above.
    pub deposit: i64,
}

/// A SKU's landed cost per unit from a date on.
#[derive(Debug, Clone, Serialize)]
pub struct CostPeriod {
    pub seller_id: i64,
    pub sku: String,
    pub from: NaiveDate,
    pub currency: &'static str,
    pub unit_cost: i64,
    pub freight: i64,
    pub duties: i64,
}

/// Everything the economics know.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Economics {
    pub reporting_currency: &'static str,
    pub months: Vec<Month>,
    pub settlements: Vec<Settlement>,
    pub costs: Vec<CostPeriod>,
    pub fee_changes: Vec<FeeChange>,
    pub cost_changes: Vec<CostChange>,
    /// Every working day's reference rates: units of USD, CAD and MXN per euro, times 10,000.
    pub rates: Vec<super::rates::Day>,
}

/// A month's key: seller id, SKU (none for the merchant's own lines), `YYYY-MM`.
type MonthKey = (i64, Option<String>, String);

/// Months being summed: their currency, lines and reporting lines.
#[derive(Default)]
pub struct Months(BTreeMap<MonthKey, (&'static str, Pnl, Pnl)>);

impl Months {
    /// Adds one amount posted on `date`, and its conversion.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        seller_id: i64,
        sku: Option<&str>,
        date: NaiveDate,
        currency: &'static str,
        line: Line,
        cents: i64,
        reporting: i64,
    ) {
        let key = (
            seller_id,
            sku.map(str::to_owned),
            date.format("%Y-%m").to_string(),
        );
        let e = self
            .0
            .entry(key)
            .or_insert((currency, Pnl::default(), Pnl::default()));
        e.1.add(line, cents);
        e.2.add(line, reporting);
    }

    /// The months, settled when the month ended before `open_from` (the first day no closed
    /// settlement covers).
    pub fn finish(self, open_from: NaiveDate) -> Vec<Month> {
        self.0
            .into_iter()
            .map(|((seller_id, sku, month), (currency, lines, reporting))| {
                let first =
                    NaiveDate::parse_from_str(&format!("{month}-01"), "%Y-%m-%d").expect("a month");
                let next = first
                    .checked_add_months(chrono::Months::new(1))
                    .expect("a month");
                Month {
                    seller_id,
                    sku,
                    month,
                    settled: next <= open_from,
                    currency,
                    lines,
                    reporting,
                }
            })
            .collect()
    }
}
