//! Usage plans as token buckets, one per caller and operation: a bucket holds `burst` tokens
//! and refills at `rate` per second. A call that finds it empty is throttled.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets.
pub struct Limits {
    enabled: AtomicBool,
    /// Every caller's rates as a share of the published ones (an `f64`'s bits; 1 unless a
    /// test gave callers a tighter plan).
    scale: AtomicU64,
    buckets: Mutex<HashMap<(String, &'static str), Bucket>>,
}

impl Limits {
    pub fn new(enabled: bool) -> Self {
        Self {
            enabled: AtomicBool::new(enabled),
            scale: AtomicU64::new(1f64.to_bits()),
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Gives every caller `scale` times the published rates (0 < scale ≤ 1: a tighter plan,
    /// as the provider may set per account); buckets start full again.
    pub fn set_scale(&self, scale: f64) {
        self.scale.store(scale.to_bits(), Ordering::Relaxed);
        self.buckets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// A caller's rate for an operation published at `published` per second.
    pub fn rate(&self, published: f64) -> f64 {
        published * f64::from_bits(self.scale.load(Ordering::Relaxed))
    }

    /// Turns enforcement on or off (benchmarks turn it off); buckets start full again.
    pub fn set_enabled(&self, on: bool) {
        self.enabled.store(on, Ordering::Relaxed);
        self.buckets
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// Whether enforcement is on.
    pub fn enabled(&self) -> bool {
        self.enabled.load(Ordering::Relaxed)
    }

    /// Takes one token from `who`'s bucket for `op`; false when it is empty.
    pub fn take(&self, who: &str, op: &'static str, rate: f64, burst: f64) -> bool {
        if !self.enabled() || rate <= 0.0 {
            return true;
        }
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let b = map.entry((who.to_owned(), op)).or_insert(Bucket {
            tokens: burst,
            at: now,
        });
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * rate).min(burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_allows_its_burst_then_throttles_per_caller_and_operation() {
        let l = Limits::new(true);
        for _ in 0..3 {
            assert!(l.take("A", "op", 0.001, 3.0));
        }
        assert!(!l.take("A", "op", 0.001, 3.0));
        assert!(
            l.take("B", "op", 0.001, 3.0),
            "another caller has its own bucket"
        );
        assert!(l.take("A", "other", 0.001, 3.0), "another operation too");
        l.set_enabled(false);
        assert!(l.take("A", "op", 0.001, 3.0));
    }
}
