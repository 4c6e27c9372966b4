//! A P&L's lines (docs/profit.md): which line each settlement or transaction amount is, by its
//! transaction type, amount type and description, and a P&L as signed cents per line, each
//! split by where it came from — a closed settlement, the provider's transaction list (posted,
//! not settled yet), or an estimate for the days the list does not show yet.

use serde::Serialize;

/// One line of a P&L, in statement order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "ProfitLine")]
pub enum Line {
    Sales,
    Promotions,
    Refunds,
    ReferralFees,
    FulfillmentFees,
    StorageFees,
    OtherFees,
    Reimbursements,
    AdvertisingSp,
    AdvertisingSb,
    AdvertisingSd,
    AdvertisingDsp,
    CostOfGoods,
    Inbound,
    /// An amount of a kind the P&L does not know: counted, never dropped, and named.
    Unclassified,
}

/// Every line, in statement order.
pub const LINES: [Line; 15] = [
    Line::Sales,
    Line::Promotions,
    Line::Refunds,
    Line::ReferralFees,
    Line::FulfillmentFees,
    Line::StorageFees,
    Line::OtherFees,
    Line::Reimbursements,
    Line::AdvertisingSp,
    Line::AdvertisingSb,
    Line::AdvertisingSd,
    Line::AdvertisingDsp,
    Line::CostOfGoods,
    Line::Inbound,
    Line::Unclassified,
];

impl Line {
    pub fn index(self) -> usize {
        self as usize
    }

    /// The line as people read it.
    pub fn label(self) -> &'static str {
        match self {
            Line::Sales => "Sales",
            Line::Promotions => "Promotions",
            Line::Refunds => "Refunds",
            Line::ReferralFees => "Referral fees",
            Line::FulfillmentFees => "Fulfillment fees",
            Line::StorageFees => "Storage fees",
            Line::OtherFees => "Other fees",
            Line::Reimbursements => "Reimbursements",
            Line::AdvertisingSp => "Sponsored Products",
            Line::AdvertisingSb => "Sponsored Brands",
            Line::AdvertisingSd => "Sponsored Display",
            Line::AdvertisingDsp => "DSP",
            Line::CostOfGoods => "Cost of goods",
            Line::Inbound => "Inbound",
            Line::Unclassified => "Unclassified",
        }
    }

    /// The advertising line of an ad product.
    pub fn advertising(product: &str) -> Line {
        match product {
            "SPONSORED_BRANDS" => Line::AdvertisingSb,
            "SPONSORED_DISPLAY" => Line::AdvertisingSd,
            "DSP" => Line::AdvertisingDsp,
            _ => Line::AdvertisingSp,
        }
    }

    /// The marketplace's charges and credits (CM2's lines).
    pub fn marketplace(self) -> bool {
        matches!(
            self,
            Line::ReferralFees
                | Line::FulfillmentFees
                | Line::StorageFees
                | Line::OtherFees
                | Line::Reimbursements
                | Line::Unclassified
        )
    }
}

/// What a posted amount is in the P&L: `None` for what moves a payout but is no profit or
/// loss (advertising invoiced to the payout, which the advertising lines count from the
/// reports; reserves held and released).
pub fn classify(ttype: &str, atype: &str, desc: &str) -> Option<Line> {
    let sale = matches!(ttype, "Order" | "Shipment");
    Some(match (atype, desc) {
        ("Cost of Advertising", _) => return None,
        (_, "Current Reserve Amount" | "Previous Reserve Amount Balance") => return None,
        ("ItemPrice", "Principal") if sale => Line::Sales,
        ("Promotion", _) if sale => Line::Promotions,
        ("ItemPrice" | "Promotion", _) if ttype == "Refund" => Line::Refunds,
        ("ItemFees", "Commission" | "RefundCommission") => Line::ReferralFees,
        ("ItemFees", "FBAPerUnitFulfillmentFee") => Line::FulfillmentFees,
        (_, "Storage Fee" | "StorageRenewalBilling") => Line::StorageFees,
        (_, "Subscription Fee" | "DealFee" | "CouponRedemptionFee") => Line::OtherFees,
        ("FBA Inventory Reimbursement", _) => Line::Reimbursements,
        _ => Line::Unclassified,
    })
}

/// Where an amount came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A closed settlement (or, for advertising and costs, a day a closed settlement covers).
    Settled = 0,
    /// Posted, not in a closed settlement yet: the transaction list, the returns report, the
    /// advertising reports.
    Posted = 1,
    /// Estimated for a day the transaction list does not show yet.
    Estimated = 2,
}

/// One line's cents by origin, and in the reporting currency (`None` once an amount had no
/// rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cell {
    pub by_origin: [i64; 3],
    pub reporting: Option<i64>,
}

impl Default for Cell {
    fn default() -> Self {
        Self {
            by_origin: [0; 3],
            reporting: Some(0),
        }
    }
}

impl Cell {
    pub fn total(&self) -> i64 {
        self.by_origin.iter().sum()
    }
}

/// A P&L: every line's cells.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pnl {
    pub cells: [Cell; 15],
}

impl Pnl {
    /// Adds `cents` (and its conversion) to `line`.
    pub fn add(&mut self, line: Line, origin: Origin, cents: i64, reporting: Option<i64>) {
        let c = &mut self.cells[line.index()];
        c.by_origin[origin as usize] += cents;
        c.reporting = match (c.reporting, reporting) {
            (Some(a), Some(b)) => Some(a + b),
            _ => None,
        };
    }

    /// Adds every cell of `other`.
    pub fn merge(&mut self, other: &Pnl) {
        for (c, o) in self.cells.iter_mut().zip(&other.cells) {
            for (a, b) in c.by_origin.iter_mut().zip(o.by_origin) {
                *a += b;
            }
            c.reporting = match (c.reporting, o.reporting) {
                (Some(a), Some(b)) => Some(a + b),
                _ => None,
            };
        }
    }

    pub fn get(&self, line: Line) -> i64 {
        self.cells[line.index()].total()
    }

    /// The sum of `lines`, in the merchant's currency and the reporting currency.
    pub fn sum(&self, pick: impl Fn(Line) -> bool) -> (i64, Option<i64>) {
        LINES
            .iter()
            .filter(|l| pick(**l))
            .fold((0, Some(0)), |(a, r), l| {
                let c = &self.cells[l.index()];
                (a + c.total(), r.zip(c.reporting).map(|(x, y)| x + y))
            })
    }
}

/// The contribution levels (docs/profit.md): net sales, then CM1 after the cost of goods and
/// inbound, CM2 after the marketplace's fees and credits, CM3 after advertising.
pub fn net_sales(l: Line) -> bool {
    matches!(l, Line::Sales | Line::Promotions | Line::Refunds)
}

pub fn cm1(l: Line) -> bool {
    net_sales(l) || matches!(l, Line::CostOfGoods | Line::Inbound)
}

pub fn cm2(l: Line) -> bool {
    cm1(l) || l.marketplace()
}

pub fn cm3(_: Line) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_settlement_pair_the_world_writes_has_its_line() {
        assert_eq!(
            classify("Order", "ItemPrice", "Principal"),
            Some(Line::Sales)
        );
        assert_eq!(
            classify("Shipment", "Promotion", "Principal"),
            Some(Line::Promotions)
        );
        assert_eq!(
            classify("Refund", "Promotion", "Principal"),
            Some(Line::Refunds)
        );
        assert_eq!(
            classify("Refund", "ItemFees", "RefundCommission"),
            Some(Line::ReferralFees)
        );
        assert_eq!(
            classify(
                "ServiceFee",
                "Cost of Advertising",
                "TransactionTotalAmount"
            ),
            None
        );
        assert_eq!(
            classify(
                "other-transaction",
                "other-transaction",
                "Current Reserve Amount"
            ),
            None
        );
        assert_eq!(
            classify("Order", "ItemPrice", "GiftWrap"),
            Some(Line::Unclassified)
        );
        let all: Vec<Line> = LINES.iter().copied().filter(|l| cm3(*l)).collect();
        assert_eq!(all.len(), 15);
        assert!(
            cm2(Line::Reimbursements) && !cm1(Line::Reimbursements) && !cm2(Line::AdvertisingSp)
        );
    }
}
