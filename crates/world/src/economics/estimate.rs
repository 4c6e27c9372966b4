//! The fee estimate the provider answers for an item at a price: the world's own fee rules
//! (referral by category, fulfillment by size tier on the day asked), so an estimate is what
//! the world will charge for a unit sold at that price that day.

use chrono::NaiveDate;

use super::fees::{self, Money, Schedule, Tier};
use crate::model::{self, Model};
use crate::rng::Rng;
use crate::spec::WorldSpec;

/// One unit's estimated fees, in the marketplace's cents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeeEstimate {
    pub referral: i64,
    pub fulfillment: i64,
}

/// The world's fee rules for its items.
pub struct Fees {
    model: Model,
    schedule: Schedule,
}

impl Fees {
    /// The rules of `spec`'s world.
    pub fn new(spec: &WorldSpec) -> Fees {
        Fees {
            model: model::build(spec, &mut Rng::new(spec.seed)),
            schedule: Schedule::draw(spec.first_day(), &mut super::stream(spec)),
        }
    }

    /// A unit of seller `seller_id`'s item `id` (its SKU or ASIN) sold at `price` (cents) on
    /// `date`; none for an item the seller does not have (or a vendor's).
    pub fn estimate(
        &self,
        seller_id: i64,
        id: &str,
        price: i64,
        date: NaiveDate,
    ) -> Option<FeeEstimate> {
        let it = self.model.items.iter().find(|it| {
            self.model.merchants[it.merchant].id == seller_id
                && (it.asin == id || it.sku.as_deref() == Some(id))
        })?;
        let m = &self.model.merchants[it.merchant];
        if m.vendor {
            return None;
        }
        let money = Money::of(m);
        Some(FeeEstimate {
            referral: fees::referral(fees::category(it.brand), &money, price),
            fulfillment: money.local(self.schedule.usd_cents(Tier::of(it.noun), date)),
        })
    }
}
