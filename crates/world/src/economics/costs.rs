//! What a unit costs the seller to put on the shelf: its landed cost (unit cost from the
//! supplier, inbound freight, duties), in the merchant's currency, changing on known dates
//! (one supplier price change a year per brand and merchant). This is the seller's own data:
//! the marketplace never sees it, and the ground truth gives it as dated periods a tenant can
//! enter.

use chrono::{Duration, NaiveDate};

use crate::model::Model;
use crate::rng::Rng;

/// A SKU's landed cost per unit from a date on, in the merchant's cents.
#[derive(Debug, Clone, Copy)]
pub struct Landed {
    pub from: NaiveDate,
    pub unit: i64,
    pub freight: i64,
    pub duties: i64,
}

impl Landed {
    /// Freight and duties: what the P&L calls inbound.
    pub fn inbound(&self) -> i64 {
        self.freight + self.duties
    }
}

/// A supplier's price change for one brand of one merchant.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CostChange {
    pub seller_id: i64,
    pub brand: String,
    pub date: NaiveDate,
    /// Unit costs rose by this many percent (rounded per SKU to the cent).
    pub unit_cost_pct: i64,
}

/// Every seller item's cost periods, in order.
pub struct Costs {
    periods: Vec<Vec<Landed>>,
    /// Supplier changes, over ten years from the origin.
    pub changes: Vec<CostChange>,
}

impl Costs {
    /// Draws every item's costs (vendor items have none: the vendor sells to the retailer).
    pub fn draw(model: &Model, origin: NaiveDate, rng: &mut Rng) -> Costs {
        let mut periods: Vec<Vec<Landed>> = model
            .items
            .iter()
            .map(|it| {
                let m = &model.merchants[it.merchant];
                if m.vendor {
                    return Vec::new();
                }
                let unit = it.list_cents * rng.range(22, 34) / 100;
                let freight = it.list_cents * rng.range(3, 6) / 100;
                // imported into the US and Canada; made in Mexico for Mexico
                let duties = if m.currency == "MXN" {
                    0
                } else {
                    unit * rng.range(0, 8) / 100
                };
                vec![Landed {
                    from: origin,
                    unit,
                    freight,
                    duties,
                }]
            })
            .collect();
        let mut changes = Vec::new();
        for (mi, m) in model.merchants.iter().enumerate() {
            if m.vendor {
                continue;
            }
            for &brand in m.brands {
                for year in 0..10_i64 {
                    let date = origin + Duration::days(year * 365 + rng.range(60, 300));
                    let pct = rng.range(4, 12);
                    changes.push(CostChange {
                        seller_id: m.id,
                        brand: brand.to_owned(),
                        date,
                        unit_cost_pct: pct,
                    });
                    for (i, it) in model.items.iter().enumerate() {
                        if it.merchant == mi && it.brand == brand {
                            let last = *periods[i].last().expect("a first period");
                            let unit = last.unit + (last.unit * pct + 50) / 100;
                            periods[i].push(Landed {
                                from: date,
                                unit,
                                duties: if last.unit > 0 {
                                    last.duties * unit / last.unit
                                } else {
                                    0
                                },
                                ..last
                            });
                        }
                    }
                }
            }
        }
        Costs { periods, changes }
    }

    /// Item `i`'s landed cost on `date` (none for a vendor's item).
    pub fn on(&self, i: usize, date: NaiveDate) -> Option<&Landed> {
        self.periods[i].iter().rev().find(|p| p.from <= date)
    }

    /// Item `i`'s periods that began on or before `last`.
    pub fn periods(&self, i: usize, last: NaiveDate) -> impl Iterator<Item = &Landed> {
        self.periods[i].iter().filter(move |p| p.from <= last)
    }
}
