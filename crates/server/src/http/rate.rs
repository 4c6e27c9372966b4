//! Token-bucket rate limits by key (a source address, a client id), held in memory. A key
//! may spend `burst` attempts at once and earns them back at `per_minute`. The table is
//! bounded: when it is full, buckets that have refilled are forgotten first, and a key that
//! still finds no room is refused, so a flood of made-up keys cannot grow it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Keys one limiter remembers at most.
const MAX_KEYS: usize = 50_000;

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// One limit over many keys.
pub struct Limiter {
    burst: f64,
    per_sec: f64,
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl Limiter {
    /// `burst` attempts at once, refilled at `per_minute`.
    pub fn new(burst: u32, per_minute: u32) -> Self {
        Self {
            burst: f64::from(burst.max(1)),
            per_sec: f64::from(per_minute.max(1)) / 60.0,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Spends one attempt for `key`; when none is left, how long until one is.
    pub fn take(&self, key: &str) -> Result<(), Duration> {
        let now = Instant::now();
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        if !map.contains_key(key) && map.len() >= MAX_KEYS {
            let full = self.burst;
            let rate = self.per_sec;
            map.retain(|_, b| b.tokens + b.at.elapsed().as_secs_f64() * rate < full);
            if map.len() >= MAX_KEYS {
                return Err(Duration::from_secs(1));
            }
        }
        let b = map.entry(key.to_owned()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        b.tokens =
            (b.tokens + now.duration_since(b.at).as_secs_f64() * self.per_sec).min(self.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            return Ok(());
        }
        Err(Duration::from_secs_f64((1.0 - b.tokens) / self.per_sec))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_refusal_with_the_wait() {
        let l = Limiter::new(3, 60);
        for _ in 0..3 {
            assert!(l.take("a").is_ok());
        }
        let wait = l.take("a").unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        assert!(l.take("b").is_ok(), "keys are independent");
    }
}
