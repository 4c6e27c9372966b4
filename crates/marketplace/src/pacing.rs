//! Pacing: a token bucket per tenant, merchant and operation from the catalog's usage plan, so
//! the service never sends faster than the provider allows. A call that would wait briefly
//! waits; a longer wait is answered `throttled` with the delay.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets.
#[derive(Default)]
pub struct Pacer {
    buckets: Mutex<HashMap<String, Bucket>>,
}

impl Pacer {
    /// Takes a token for `key` at `rate`/s with `burst`; `Ok(wait)` to sleep before sending, or
    /// `Err(wait)` when the wait is longer than `max_wait`.
    pub fn take(
        &self,
        key: &str,
        rate: f64,
        burst: f64,
        max_wait: Duration,
    ) -> Result<Duration, Duration> {
        if rate <= 0.0 {
            return Ok(Duration::ZERO);
        }
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        let b = map.entry(key.to_owned()).or_insert(Bucket {
            tokens: burst.max(1.0),
            at: now,
        });
        b.tokens = (b.tokens + now.duration_since(b.at).as_secs_f64() * rate).min(burst.max(1.0));
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            return Ok(Duration::ZERO);
        }
        let wait = Duration::from_secs_f64((1.0 - b.tokens) / rate);
        if wait > max_wait {
            return Err(wait);
        }
        b.tokens -= 1.0; // the token we will wait for is ours
        Ok(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_short_waits_then_refusals() {
        let p = Pacer::default();
        let max = Duration::from_millis(600);
        assert_eq!(p.take("k", 2.0, 2.0, max), Ok(Duration::ZERO));
        assert_eq!(p.take("k", 2.0, 2.0, max), Ok(Duration::ZERO));
        let w = p.take("k", 2.0, 2.0, max).unwrap();
        assert!(
            w > Duration::from_millis(400) && w <= Duration::from_millis(500),
            "{w:?}"
        );
        assert!(
            p.take("k", 2.0, 2.0, max).is_err(),
            "the next would wait a second"
        );
        assert_eq!(p.take("other", 2.0, 2.0, max), Ok(Duration::ZERO));
    }
}
