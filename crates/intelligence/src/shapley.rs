//! Exact decompositions. A measure that is a product of factors (sales = sessions × share ×
//! conversion × price) moves from `f(before)` to `f(after)`; the Shapley value of a factor is
//! the change its move accounts for, averaged over every order the factors could have moved
//! in. The values always sum to the whole change, with no residual, whatever the factors do
//! (LMDI needs every factor positive; an item that sold nothing in one period breaks it).
//! [`round_exact`] then turns the values into whole cents that still sum to the observed
//! change in cents.

/// The Shapley value of each factor of a product moving from `before` to `after` (at most
/// eight factors; the bridges use three or four).
pub fn shapley(before: &[f64], after: &[f64]) -> Vec<f64> {
    let n = before.len();
    assert!(
        n == after.len() && n <= 8,
        "one value per factor, at most eight"
    );
    let f = |mask: usize| -> f64 {
        (0..n)
            .map(|k| {
                if mask & (1 << k) != 0 {
                    after[k]
                } else {
                    before[k]
                }
            })
            .product()
    };
    let fact = |k: usize| -> f64 { (1..=k).map(|i| i as f64).product() };
    let total = fact(n);
    (0..n)
        .map(|k| {
            (0..1usize << n)
                .filter(|mask| mask & (1 << k) == 0)
                .map(|mask| {
                    let s = mask.count_ones() as usize;
                    fact(s) * fact(n - s - 1) / total * (f(mask | (1 << k)) - f(mask))
                })
                .sum()
        })
        .collect()
}

/// Whole units (cents, basis points) for `shares` that sum to `total` exactly: any gap between
/// the shares' sum and `total` (floating point) is spread evenly first, then each share is
/// rounded down and the units left over go to the largest remainders.
pub fn round_exact(total: i64, shares: &[f64]) -> Vec<i64> {
    if shares.is_empty() {
        return Vec::new();
    }
    let gap = (total as f64 - shares.iter().sum::<f64>()) / shares.len() as f64;
    let adjusted: Vec<f64> = shares.iter().map(|s| s + gap).collect();
    let mut out: Vec<i64> = adjusted.iter().map(|s| s.floor() as i64).collect();
    let mut left = total - out.iter().sum::<i64>();
    let mut order: Vec<usize> = (0..shares.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (
            adjusted[a] - adjusted[a].floor(),
            adjusted[b] - adjusted[b].floor(),
        );
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    let mut i = 0;
    while left > 0 {
        out[order[i % order.len()]] += 1;
        left -= 1;
        i += 1;
    }
    while left < 0 {
        out[order[order.len() - 1 - i % order.len()]] -= 1;
        left += 1;
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_sum_to_the_change_even_through_zero() {
        let cases: [(&[f64], &[f64]); 3] = [
            (&[100.0, 0.05, 20.0], &[150.0, 0.04, 22.0]),
            (&[0.0, 0.1, 5.0], &[40.0, 0.1, 5.0]),
            (&[1000.0, 0.2, 0.0, 9.5], &[800.0, 0.3, 0.1, 9.0]),
        ];
        for (b, a) in cases {
            let v = shapley(b, a);
            let change = a.iter().product::<f64>() - b.iter().product::<f64>();
            assert!(
                (v.iter().sum::<f64>() - change).abs() < 1e-9,
                "{v:?} vs {change}"
            );
        }
        // one factor moving alone takes the whole change
        let v = shapley(&[10.0, 2.0], &[10.0, 3.0]);
        assert_eq!(v, vec![0.0, 10.0]);
    }

    #[test]
    fn rounding_keeps_the_total() {
        assert_eq!(round_exact(10, &[3.4, 3.3, 3.3]), vec![4, 3, 3]);
        assert_eq!(round_exact(-7, &[-3.5, -3.5]).iter().sum::<i64>(), -7);
        assert_eq!(
            round_exact(5, &[2.0, 2.0]).iter().sum::<i64>(),
            5,
            "a gap is spread"
        );
        assert_eq!(round_exact(0, &[]), Vec::<i64>::new());
    }
}
