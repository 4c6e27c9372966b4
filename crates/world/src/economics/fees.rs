//! What the marketplace charges a seller, as the world's fee schedule: referral fees by
//! category (a rate on the price, a lower rate under a price threshold, a minimum per unit),
//! FBA fulfillment fees by size tier that change every 15 January, monthly storage by volume
//! (the fourth quarter's rate higher), an aged-inventory surcharge, the refund commission, a
//! coupon's redemption fee, a deal's fee and the selling plan's monthly subscription. Amounts
//! are in the marketplace's currency, in cents.

use chrono::{Datelike, NaiveDate};

use crate::rng::Rng;
use crate::spec::MerchantDef;

/// A referral-fee category: its rate in basis points, and a lower rate at or under a price
/// threshold (in US cents, scaled for the marketplace).
pub struct Category {
    pub rate_bp: i64,
    pub low_rate_bp: i64,
    pub low_threshold_usd_cents: i64,
    /// Share of units refunded, in basis points.
    pub refund_bp: i64,
}

/// The category of a brand's items: Kitchen & Dining (Northwind, Acme Kitchen), Clothing &
/// Accessories (Trailhead), Home & Kitchen (Sierra Casa).
pub fn category(brand: &str) -> &'static Category {
    const KITCHEN: Category = Category {
        rate_bp: 1_500,
        low_rate_bp: 1_500,
        low_threshold_usd_cents: 0,
        refund_bp: 350,
    };
    const CLOTHING: Category = Category {
        rate_bp: 1_700,
        low_rate_bp: 1_000,
        low_threshold_usd_cents: 2_000,
        refund_bp: 800,
    };
    const HOME: Category = Category {
        rate_bp: 1_500,
        low_rate_bp: 1_500,
        low_threshold_usd_cents: 0,
        refund_bp: 450,
    };
    match brand {
        "trailhead" => &CLOTHING,
        "sierra-casa" => &HOME,
        _ => &KITCHEN,
    }
}

/// FBA size tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    SmallStandard,
    LargeStandard,
    LargeBulky,
}

impl Tier {
    pub const ALL: [Tier; 3] = [Tier::SmallStandard, Tier::LargeStandard, Tier::LargeBulky];

    /// The tier of an item by what it is.
    pub fn of(noun: &str) -> Tier {
        match noun {
            "hiking socks" | "trail cap" | "gaiters" | "chef knife" | "knife sharpener" => {
                Tier::SmallStandard
            }
            "molcajete" | "cutting board" => Tier::LargeBulky,
            _ => Tier::LargeStandard,
        }
    }

    /// Cubic feet per unit, in thousandths.
    pub fn milli_cubic_feet(self) -> i64 {
        match self {
            Tier::SmallStandard => 60,
            Tier::LargeStandard => 280,
            Tier::LargeBulky => 720,
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// A marketplace's money: how its fees scale from the US dollar amounts.
pub struct Money {
    /// Local cents per US cent, in hundredths (100 for USD).
    pub per_usd_pct: i64,
}

impl Money {
    pub fn of(m: &MerchantDef) -> Money {
        Money {
            per_usd_pct: match m.currency {
                "CAD" => 135,
                "MXN" => 1_700,
                _ => 100,
            },
        }
    }

    /// A US-cent amount in the marketplace's cents.
    pub fn local(&self, usd_cents: i64) -> i64 {
        (usd_cents * self.per_usd_pct + 50) / 100
    }
}

/// One change of a tier's fulfillment fee.
#[derive(Debug, Clone, serde::Serialize)]
pub struct FeeChange {
    pub currency: &'static str,
    pub tier: Tier,
    pub date: NaiveDate,
    pub old_fee: f64,
    pub new_fee: f64,
}

/// The fulfillment fee schedule: each tier's fee per unit in US cents from the origin, and a
/// change every 15 January (drawn for ten years, so a world moved forward keeps its fees).
pub struct Schedule {
    /// (first day in force, fee per tier in US cents), in order.
    steps: Vec<(NaiveDate, [i64; 3])>,
}

impl Schedule {
    pub fn draw(origin: NaiveDate, rng: &mut Rng) -> Schedule {
        let mut fees = [322, 475, 689];
        let mut steps = vec![(origin, fees)];
        for year in origin.year() + 1..=origin.year() + 10 {
            for f in fees.iter_mut() {
                // +2 % to +7 %, to the cent
                *f += (*f * rng.range(200, 700) + 5_000) / 10_000;
            }
            let day = NaiveDate::from_ymd_opt(year, 1, 15).expect("date");
            steps.push((day, fees));
        }
        Schedule { steps }
    }

    /// The fee per unit of `tier` in US cents on `date`.
    pub fn usd_cents(&self, tier: Tier, date: NaiveDate) -> i64 {
        self.steps
            .iter()
            .rev()
            .find(|(from, _)| *from <= date)
            .map_or(self.steps[0].1, |s| s.1)[tier.index()]
    }

    /// Every change on or before `last`, in `m`'s currency.
    pub fn changes(&self, m: &MerchantDef, last: NaiveDate) -> Vec<FeeChange> {
        let money = Money::of(m);
        self.steps
            .windows(2)
            .filter(|w| w[1].0 <= last)
            .flat_map(|w| {
                Tier::ALL.map(|tier| FeeChange {
                    currency: m.currency,
                    tier,
                    date: w[1].0,
                    old_fee: money.local(w[0].1[tier.index()]) as f64 / 100.0,
                    new_fee: money.local(w[1].1[tier.index()]) as f64 / 100.0,
                })
            })
            .collect()
    }
}

/// The referral fee per unit sold at `price` (local cents): the category's rate, its lower
/// rate at or under the threshold, and at least the minimum (30 US cents).
pub fn referral(cat: &Category, money: &Money, price: i64) -> i64 {
    let rate = if price <= money.local(cat.low_threshold_usd_cents) {
        cat.low_rate_bp
    } else {
        cat.rate_bp
    };
    ((price * rate + 5_000) / 10_000).max(money.local(30))
}

/// The refund commission on one refunded unit whose referral fee was `referral`: 20 % of it,
/// at most 5 US dollars.
pub fn refund_commission(money: &Money, referral: i64) -> i64 {
    ((referral * 20 + 50) / 100).min(money.local(500))
}

/// Storage per cubic foot and month, in US cents: January–September and October–December.
pub fn storage_rate_usd_cents(month: u32) -> i64 {
    if month >= 10 { 240 } else { 78 }
}

/// The aged-inventory surcharge per cubic foot and month on units beyond 180 days of supply,
/// in US cents.
pub const AGED_RATE_USD_CENTS: i64 = 150;

/// A coupon's redemption fee per unit, in US cents.
pub const COUPON_FEE_USD_CENTS: i64 = 60;

/// A deal's fee, charged on its first day, in US cents.
pub const DEAL_FEE_USD_CENTS: i64 = 7_000;

/// The professional selling plan, a month, in the marketplace's cents.
pub fn subscription(m: &MerchantDef) -> i64 {
    match m.currency {
        "CAD" => 2_999,
        "MXN" => 60_000,
        _ => 3_999,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn referral_has_a_minimum_and_a_lower_rate_under_the_threshold() {
        let usd = Money { per_usd_pct: 100 };
        let clothing = category("trailhead");
        assert_eq!(referral(clothing, &usd, 1_999), 200, "10 % at or under $20");
        assert_eq!(referral(clothing, &usd, 2_500), 425, "17 % above");
        assert_eq!(
            referral(category("northwind"), &usd, 100),
            30,
            "the minimum"
        );
        assert_eq!(refund_commission(&usd, 425), 85);
        assert_eq!(refund_commission(&usd, 4_000), 500, "at most $5");
    }

    #[test]
    fn fulfillment_fees_change_each_15_january() {
        let origin = NaiveDate::from_ymd_opt(2023, 11, 26).unwrap();
        let s = Schedule::draw(origin, &mut Rng::new(1));
        let day = |y, m, d| NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let (before, after) = (
            s.usd_cents(Tier::LargeStandard, day(2024, 1, 14)),
            s.usd_cents(Tier::LargeStandard, day(2024, 1, 15)),
        );
        assert_eq!(before, 475);
        assert!(after > before && after <= 475 * 107 / 100 + 1, "{after}");
    }
}
