//! Splitting a daily amount among campaigns by weight, each within its own floor and ceiling,
//! in whole cents that add up to the amount exactly whenever the bounds allow it.

/// One campaign's share: its weight and bounds, in cents a day.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub weight: f64,
    pub lo: i64,
    pub hi: i64,
}

/// Each slot's cents. When `total` is between the floors' sum and the ceilings' sum the result
/// sums to `total`; below, every slot is at its floor; above, at its ceiling. Weights that are
/// all zero split evenly.
pub fn allocate(total: i64, slots: &[Slot]) -> Vec<i64> {
    let lo: i64 = slots.iter().map(|s| s.lo).sum();
    let hi: i64 = slots.iter().map(|s| s.hi).sum();
    if total <= lo {
        return slots.iter().map(|s| s.lo).collect();
    }
    if total >= hi {
        return slots.iter().map(|s| s.hi).collect();
    }
    let even = slots.iter().all(|s| s.weight <= 0.0);
    let w = |s: &Slot| if even { 1.0 } else { s.weight.max(0.0) };
    // water-filling: slots pushed past a bound are fixed there and the rest share again
    let mut fixed: Vec<Option<f64>> = vec![None; slots.len()];
    let mut share = vec![0.0; slots.len()];
    loop {
        let left = total as f64 - fixed.iter().flatten().sum::<f64>();
        let free: f64 = slots
            .iter()
            .zip(&fixed)
            .filter(|(_, f)| f.is_none())
            .map(|(s, _)| w(s))
            .sum();
        let count = fixed.iter().filter(|f| f.is_none()).count() as f64;
        for (i, s) in slots.iter().enumerate() {
            share[i] = match fixed[i] {
                Some(v) => v,
                None if free > 0.0 => left * w(s) / free,
                None => left / count.max(1.0),
            };
        }
        let over: f64 = slots
            .iter()
            .zip(&share)
            .map(|(s, v)| (v - s.hi as f64).max(0.0))
            .sum();
        let under: f64 = slots
            .iter()
            .zip(&share)
            .map(|(s, v)| (s.lo as f64 - v).max(0.0))
            .sum();
        if over <= 1e-9 && under <= 1e-9 {
            break;
        }
        // fix the side that is further out; the other side is settled on a later pass
        for (i, s) in slots.iter().enumerate() {
            if fixed[i].is_some() {
                continue;
            }
            if over >= under && share[i] > s.hi as f64 {
                fixed[i] = Some(s.hi as f64);
            } else if under > over && share[i] < (s.lo as f64) {
                fixed[i] = Some(s.lo as f64);
            }
        }
    }
    // whole cents by largest remainder, never past a ceiling
    let mut cents: Vec<i64> = share.iter().map(|v| v.floor() as i64).collect();
    let mut rest = total - cents.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..slots.len()).collect();
    order.sort_by(|&a, &b| {
        let fa = share[a] - share[a].floor();
        let fb = share[b] - share[b].floor();
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    while rest > 0 {
        let mut moved = false;
        for &i in &order {
            if rest > 0 && cents[i] < slots[i].hi {
                cents[i] += 1;
                rest -= 1;
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    cents
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(weight: f64, lo: i64, hi: i64) -> Slot {
        Slot { weight, lo, hi }
    }

    #[test]
    fn shares_follow_weights_and_sum_exactly() {
        let s = [
            slot(1.0, 100, 100_000),
            slot(2.0, 100, 100_000),
            slot(1.0, 100, 100_000),
        ];
        let c = allocate(10_001, &s);
        assert_eq!(c.iter().sum::<i64>(), 10_001);
        assert_eq!(c[1], 5_001);
    }

    #[test]
    fn bounds_hold_and_the_rest_is_shared() {
        let s = [
            slot(10.0, 100, 2_000),
            slot(1.0, 100, 100_000),
            slot(1.0, 100, 100_000),
        ];
        let c = allocate(10_000, &s);
        assert_eq!(c, vec![2_000, 4_000, 4_000]);
        let s = [slot(0.0, 3_000, 5_000), slot(1.0, 100, 100_000)];
        assert_eq!(allocate(4_000, &s), vec![3_000, 1_000]);
        // outside what the bounds allow: all at the floors, or all at the ceilings
        assert_eq!(allocate(10, &s), vec![3_000, 100]);
        assert_eq!(allocate(1_000_000, &s), vec![5_000, 100_000]);
    }
}
