//! Late attribution: which of a day's final attributed purchases the provider reports as of
//! the world's today. A day inside the attribution window is simulated twice with the same
//! random draws: the first pass records every cell's final purchases (a cell is a target's
//! clicks on one item, the finest grain), the second writes the rows with the purchases that
//! have arrived. Each merchant's purchases of the day are put in an order drawn from the day
//! and the cell — never from the world's random stream, so the final values stay what they
//! are — and a purchase has arrived once the sales before it in that order are under the
//! day's reported share of its final sales. So a purchase arrives whole, a day only gains as
//! it ages, the merchant's reported sales are at least that share of the final ones, and every
//! rollup is still the sum of its parts.

use std::collections::HashMap;

/// A cell: a target's clicks on one item, on one day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CellKey {
    pub campaign: i64,
    pub ad_group: i64,
    pub target: i64,
    pub item: usize,
}

/// One cell's final purchases, as the first pass saw them.
#[derive(Debug, Clone, Copy)]
pub struct Seen {
    merchant: usize,
    cell: CellKey,
    purchases: i64,
    price: i64,
}

/// What a day's cells report.
#[derive(Debug)]
pub enum Arrival {
    /// Every final purchase (the day is past the attribution window).
    All,
    /// The first pass: the final purchases, recorded.
    Record(Vec<Seen>),
    /// The purchases that have arrived, by cell.
    Drawn(HashMap<CellKey, i64>),
}

impl Arrival {
    /// The purchases cell `cell` of `merchant` reports, of its final `purchases` at `price`.
    pub fn reported(&mut self, merchant: usize, cell: CellKey, purchases: i64, price: i64) -> i64 {
        match self {
            Arrival::All => purchases,
            Arrival::Record(seen) => {
                if purchases > 0 {
                    seen.push(Seen {
                        merchant,
                        cell,
                        purchases,
                        price,
                    });
                }
                purchases
            }
            Arrival::Drawn(arrived) => arrived.get(&cell).copied().unwrap_or(0),
        }
    }

    /// From a first pass over day `day` (days since the origin): the purchases that have
    /// arrived when the provider reports `share` of the day's final attribution.
    pub fn drawn(self, day: i64, share: f64) -> Arrival {
        let Arrival::Record(seen) = self else {
            return self;
        };
        let mut by_merchant: HashMap<usize, Vec<(u64, CellKey, i64)>> = HashMap::new();
        for s in &seen {
            let units = by_merchant.entry(s.merchant).or_default();
            for j in 0..s.purchases {
                units.push((order(day, s.cell, j), s.cell, s.price));
            }
        }
        let mut arrived: HashMap<CellKey, i64> = HashMap::new();
        for units in by_merchant.values_mut() {
            units.sort_unstable_by_key(|u| (u.0, u.1.campaign, u.1.target, u.1.item));
            let total: i64 = units.iter().map(|u| u.2).sum();
            let mut before = 0_i64;
            for &(_, cell, price) in units.iter() {
                if (before as f64) < share * total as f64 {
                    *arrived.entry(cell).or_default() += 1;
                }
                before += price;
            }
        }
        Arrival::Drawn(arrived)
    }
}

/// Purchase `j` of `cell`'s place in its day's order: a hash of the day and the cell.
fn order(day: i64, cell: CellKey, j: i64) -> u64 {
    [
        cell.campaign as u64,
        cell.ad_group as u64,
        cell.target as u64,
        cell.item as u64,
        j as u64,
    ]
    .iter()
    .fold(mix(day as u64), |h, &x| mix(h ^ x))
}

/// SplitMix64's finalizer.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(item: usize) -> CellKey {
        CellKey {
            campaign: 1,
            ad_group: 2,
            target: 3,
            item,
        }
    }

    /// A merchant's day with purchases in five cells at different prices.
    fn day_at(share: f64) -> HashMap<CellKey, i64> {
        let mut a = Arrival::Record(Vec::new());
        for (i, (n, price)) in [(1, 1999), (2, 4500), (1, 12_000), (3, 899), (1, 2500)]
            .into_iter()
            .enumerate()
        {
            a.reported(0, cell(i), n, price);
        }
        match a.drawn(7, share) {
            Arrival::Drawn(m) => m,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn purchases_arrive_whole_and_a_day_only_gains() {
        let prices = [1999, 4500, 12_000, 899, 2500];
        let finals = [1, 2, 1, 3, 1];
        let total: i64 = finals.iter().zip(prices).map(|(n, p)| n * p).sum();
        let mut last = vec![0; 5];
        for share in [0.7, 0.75, 0.8, 0.9, 0.99, 1.0] {
            let got = day_at(share);
            let now: Vec<i64> = (0..5)
                .map(|i| got.get(&cell(i)).copied().unwrap_or(0))
                .collect();
            let sales: i64 = now.iter().zip(prices).map(|(n, p)| n * p).sum();
            assert!(
                sales as f64 >= share * total as f64,
                "{share}: {sales} of {total}"
            );
            for i in 0..5 {
                assert!(now[i] >= last[i] && now[i] <= finals[i], "{share}: {now:?}");
            }
            last = now;
        }
        assert_eq!(last, finals, "everything has arrived at the window's end");
    }
}
