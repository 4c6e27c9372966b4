//! `INS-PAYOUT-01`: a settlement reconciled from its P&L lines to its deposit, to the cent
//! (docs/profit.md). The settlement's amounts are its lines in the settlement report: each on
//! its P&L line (what was sold in it, fees, refunds, charges, reimbursements), the refunds of
//! orders settled in earlier periods apart, then what moves a deposit but no profit —
//! advertising invoiced to the payout, the reserve released from the settlement before and
//! the reserve held back — and the steps from the first to the deposit.

use std::collections::BTreeSet;

use pp_core::{Error, Kind, Result};
use schemars::JsonSchema;
use serde::Serialize;

use super::{Answer, Input, Money, money};
use crate::data::Wh;
use crate::profit::lines::{LINES, Line, classify};
use crate::profit::read::{self, SettlementHead};

/// How many of the seller's settlements the answer lists.
const LISTED: usize = 12;

/// One step from the P&L to the deposit.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "PayoutStep")]
pub struct Step {
    pub label: String,
    pub amount: Money,
    /// The deposit so far.
    pub running: Money,
}

/// A P&L line's amount in the settlement.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "PayoutLine")]
pub struct LineAmount {
    pub line: Line,
    pub amount: Money,
}

/// A settlement as the list shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "PayoutSettlement")]
pub struct Head {
    pub settlement_id: String,
    pub start: String,
    pub end: String,
    pub deposit_date: String,
}

impl From<&SettlementHead> for Head {
    fn from(h: &SettlementHead) -> Self {
        Self {
            settlement_id: h.id.clone(),
            start: h.start.to_string(),
            end: h.end.to_string(),
            deposit_date: h.deposit_date.to_string(),
        }
    }
}

/// `INS-PAYOUT-01`'s result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Payout {
    pub settlement: Head,
    pub currency: String,
    /// Every P&L line of the settlement's amounts.
    pub lines: Vec<LineAmount>,
    /// Units and orders sold in it.
    pub units_sold: i64,
    pub orders: usize,
    /// Refund amounts (principal, commissions) of orders settled in earlier periods.
    pub earlier_orders: Money,
    /// Advertising invoiced to the payout (negative).
    pub advertising: Money,
    /// The reserve released from the settlement before (positive).
    pub reserve_released: Money,
    /// The reserve held back from this one (negative).
    pub reserve_held: Money,
    /// What was paid out: every amount above.
    pub deposit: Money,
    /// The P&L lines, advertising and reserves add up to the deposit (always, unless the
    /// settlement holds an amount of a kind nobody maps: see `unclassified`).
    pub reconciles: bool,
    pub unclassified: Vec<String>,
    pub steps: Vec<Step>,
    /// The seller's latest settlements.
    pub settlements: Vec<Head>,
}

pub async fn run(wh: &Wh, input: &Input) -> Result<Answer<Payout>> {
    let scope = &input.scope;
    let [seller] = scope.sellers.as_slice() else {
        return Err(Error::new(
            Kind::BadParams,
            "a payout is one seller's: name it with sellerId and marketplaceId",
        ));
    };
    if seller.is_vendor() {
        return Err(Error::new(
            Kind::BadParams,
            "a vendor is paid by invoice, not by settlement",
        ));
    }
    let all = read::settlements(wh, seller.id, usize::MAX).await?;
    let head = match &input.profit.settlement_id {
        Some(id) => all.iter().find(|h| &h.id == id).ok_or_else(|| {
            Error::new(
                Kind::NotFound,
                format!("no closed settlement {id} for this seller"),
            )
            .with_fix(
                "Leave settlementId out for the latest, or pick one of the answer's settlements.",
            )
        })?,
        None => all.first().ok_or_else(|| {
            Error::new(
                Kind::NoDataForPeriod,
                "no settlement of this seller has closed yet",
            )
        })?,
    };
    let lines = read::settlement_lines(wh, seller.id, &head.id).await?;
    let sold: BTreeSet<&str> = lines
        .iter()
        .filter(|l| l.ttype == "Order")
        .filter_map(|l| l.order.as_deref())
        .collect();
    let mut by_line = [0_i64; 15];
    let (mut earlier, mut advertising, mut released, mut held, mut deposit) = (0, 0, 0, 0, 0);
    let mut units = 0;
    let mut unclassified = BTreeSet::new();
    for l in &lines {
        deposit += l.cents;
        match classify(&l.ttype, &l.atype, &l.desc) {
            Some(line) => {
                by_line[line.index()] += l.cents;
                if line == Line::Unclassified {
                    unclassified.insert(l.desc.clone());
                }
                if line == Line::Sales {
                    units += l.units;
                }
            }
            None if l.atype == "Cost of Advertising" => advertising += l.cents,
            None if l.desc == "Previous Reserve Amount Balance" => released += l.cents,
            None => held += l.cents,
        }
        if l.ttype == "Refund" && l.order.as_deref().is_some_and(|o| !sold.contains(o)) {
            earlier += l.cents;
        }
    }
    let pnl: i64 = by_line.iter().sum();
    let mut steps = Vec::new();
    let mut running = 0;
    let mut step = |label: String, cents: i64| {
        if cents != 0 {
            running += cents;
            steps.push(Step {
                label,
                amount: money(cents),
                running: money(running),
            });
        }
    };
    step(
        "Sales and refunds of this period's orders".into(),
        by_line[Line::Sales.index()]
            + by_line[Line::Promotions.index()]
            + by_line[Line::Refunds.index()]
            - earlier_refunds(&lines, &sold, true),
    );
    for l in LINES
        .iter()
        .filter(|l| !matches!(l, Line::Sales | Line::Promotions | Line::Refunds))
    {
        let fees_of_earlier = if *l == Line::ReferralFees {
            earlier_refunds(&lines, &sold, false)
        } else {
            0
        };
        step(l.label().to_owned(), by_line[l.index()] - fees_of_earlier);
    }
    step("Refunds of earlier periods' orders".into(), earlier);
    step("Advertising taken from the payout".into(), advertising);
    step(
        "Reserve released from the settlement before".into(),
        released,
    );
    step("Reserve held back".into(), held);
    let reconciles = pnl + advertising + released + held == deposit && running == deposit;
    Ok(Answer {
        result: Payout {
            settlement: head.into(),
            currency: seller.currency.clone(),
            lines: LINES
                .iter()
                .filter(|l| **l != Line::Unclassified || by_line[l.index()] != 0)
                .map(|l| LineAmount {
                    line: *l,
                    amount: money(by_line[l.index()]),
                })
                .collect(),
            units_sold: units,
            orders: sold.len(),
            earlier_orders: money(earlier),
            advertising: money(advertising),
            reserve_released: money(released),
            reserve_held: money(held),
            deposit: money(deposit),
            reconciles,
            unclassified: unclassified.into_iter().collect(),
            steps,
            settlements: all.iter().take(LISTED).map(Head::from).collect(),
        },
        limitations: Vec::new(),
        evidence: Vec::new(),
    })
}

/// The refund amounts of earlier periods' orders: their principal (`principal`) or their
/// commissions (otherwise).
fn earlier_refunds(lines: &[read::SettlementLine], sold: &BTreeSet<&str>, principal: bool) -> i64 {
    lines
        .iter()
        .filter(|l| l.ttype == "Refund" && l.order.as_deref().is_some_and(|o| !sold.contains(o)))
        .filter(|l| (l.atype == "ItemFees") != principal)
        .map(|l| l.cents)
        .sum()
}
