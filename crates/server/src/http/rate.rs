//! Token-bucket rate limits by key (a source address, a client id, a credential), held in
//! memory. A key
//! may spend `burst` attempts at once and earns them back at `per_minute`. The table is
//! bounded: when it is full, buckets that have refilled are forgotten first, and a key that
//! still finds no room is refused, so a flood of made-up keys cannot grow it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use axum::http::{HeaderName, HeaderValue};
use axum::response::Response;

// named once, not parsed from text on every answer
const RATELIMIT_LIMIT: HeaderName = HeaderName::from_static("ratelimit-limit");
const RATELIMIT_REMAINING: HeaderName = HeaderName::from_static("ratelimit-remaining");
const RATELIMIT_RESET: HeaderName = HeaderName::from_static("ratelimit-reset");

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

    /// `burst` attempts at once, refilled at `per_hour` (a slow limit, such as failures an
    /// address may make in an hour).
    pub fn per_hour(burst: u32, per_hour: u32) -> Self {
        Self {
            burst: f64::from(burst.max(1)),
            per_sec: f64::from(per_hour.max(1)) / 3600.0,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Spends one attempt for `key`; when none is left, how long until one is.
    pub fn take(&self, key: &str) -> Result<(), Duration> {
        let b = self.take_budget(key);
        match b.retry_after {
            None => Ok(()),
            Some(wait) => Err(wait),
        }
    }

    /// Whether `key` has an attempt left, spending none; when not, how long until it has.
    pub fn check(&self, key: &str) -> Result<(), Duration> {
        let map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        let Some(b) = map.get(key) else {
            return Ok(());
        };
        let tokens = (b.tokens + b.at.elapsed().as_secs_f64() * self.per_sec).min(self.burst);
        if tokens >= 1.0 {
            return Ok(());
        }
        Err(Duration::from_secs_f64((1.0 - tokens) / self.per_sec))
    }

    /// Spends one attempt for `key` and says what is left of its budget.
    pub fn take_budget(&self, key: &str) -> Budget {
        let now = Instant::now();
        let mut map = self.buckets.lock().unwrap_or_else(|p| p.into_inner());
        // a known key is found with one lookup and without an owned copy of it
        if let Some(b) = map.get_mut(key) {
            return self.spend(b, now);
        }
        if map.len() >= MAX_KEYS {
            let full = self.burst;
            let rate = self.per_sec;
            map.retain(|_, b| b.tokens + b.at.elapsed().as_secs_f64() * rate < full);
            if map.len() >= MAX_KEYS {
                return self.budget(0.0, Some(Duration::from_secs(1)));
            }
        }
        let b = map.entry(key.to_owned()).or_insert(Bucket {
            tokens: self.burst,
            at: now,
        });
        self.spend(b, now)
    }

    /// Refills `b` for the time since it was last spent from, then spends one attempt.
    fn spend(&self, b: &mut Bucket, now: Instant) -> Budget {
        b.tokens =
            (b.tokens + now.duration_since(b.at).as_secs_f64() * self.per_sec).min(self.burst);
        b.at = now;
        if b.tokens >= 1.0 {
            b.tokens -= 1.0;
            return self.budget(b.tokens, None);
        }
        let wait = Duration::from_secs_f64((1.0 - b.tokens) / self.per_sec);
        self.budget(b.tokens, Some(wait))
    }

    fn budget(&self, tokens: f64, retry_after: Option<Duration>) -> Budget {
        Budget {
            limit: self.burst as u64,
            remaining: tokens.max(0.0).floor() as u64,
            reset: Duration::from_secs_f64(((self.burst - tokens).max(0.0)) / self.per_sec),
            retry_after,
        }
    }
}

/// Gives the answer the budget `b` left: `RateLimit-Limit`, `RateLimit-Remaining` and
/// `RateLimit-Reset` (seconds until it is whole again).
pub fn answer(b: &Budget, res: &mut Response) {
    let reset = b.reset.as_secs() + u64::from(b.reset.subsec_nanos() > 0);
    let h = res.headers_mut();
    for (name, value) in [
        (RATELIMIT_LIMIT, b.limit),
        (RATELIMIT_REMAINING, b.remaining),
        (RATELIMIT_RESET, reset),
    ] {
        h.insert(name, HeaderValue::from(value));
    }
}

/// What is left of a key's budget after an attempt (the `RateLimit-*` headers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    /// Attempts the key may make at once.
    pub limit: u64,
    /// Attempts it may still make now.
    pub remaining: u64,
    /// Until its budget is whole again.
    pub reset: Duration,
    /// Set when the attempt was refused: until the next one may be made.
    pub retry_after: Option<Duration>,
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

    #[test]
    fn a_full_table_refuses_a_new_key_but_still_serves_known_ones() {
        let l = Limiter::new(1, 60);
        for i in 0..MAX_KEYS {
            assert!(l.take_budget(&format!("k{i}")).retry_after.is_none());
        }
        // every bucket is spent, so none can be forgotten to make room
        assert!(l.take_budget("new").retry_after.is_some());
        assert!(
            l.take_budget("k0").retry_after.is_some(),
            "k0 spent its own"
        );
        assert_eq!(l.buckets.lock().unwrap().len(), MAX_KEYS);
    }

    #[test]
    fn a_budget_counts_down_and_says_when_it_is_whole() {
        let l = Limiter::new(3, 60);
        let b = l.take_budget("k");
        assert_eq!((b.limit, b.remaining, b.retry_after), (3, 2, None));
        assert!(b.reset > Duration::from_millis(900) && b.reset <= Duration::from_secs(1));
        l.take_budget("k");
        let last = l.take_budget("k");
        assert_eq!(last.remaining, 0);
        assert!(last.retry_after.is_none());
        let refused = l.take_budget("k");
        assert_eq!(refused.remaining, 0);
        assert!(refused.retry_after.is_some());
    }
}
