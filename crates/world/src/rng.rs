//! A tiny seeded generator (SplitMix64): same seed, same numbers, on every platform.

/// Deterministic pseudo-random numbers.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// An integer in [lo, hi].
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next_u64() % ((hi - lo + 1) as u64)) as i64
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn same_seed_same_numbers() {
        let (mut a, mut b, mut c) = (super::Rng::new(7), super::Rng::new(7), super::Rng::new(8));
        let (x, y, z): (Vec<_>, Vec<_>, Vec<_>) = (
            (0..5).map(|_| a.next_u64()).collect(),
            (0..5).map(|_| b.next_u64()).collect(),
            (0..5).map(|_| c.next_u64()).collect(),
        );
        assert_eq!(x, y);
        assert_ne!(x, z);
    }
}
