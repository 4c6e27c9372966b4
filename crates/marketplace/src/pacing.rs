//! Pacing: a token bucket per tenant, merchant and operation from the catalog's usage plan, so
//! the service never sends faster than the provider allows. A call that would wait briefly
//! waits; a longer wait is answered `throttled` with the delay. The buckets live in the state
//! store (wall-clock time, one short write transaction per call), so several gateway processes
//! sharing a store share the provider's allowance instead of each spending all of it.

use std::time::Duration;

use pp_core::Result;
use pp_store::Store;
use pp_store::jobs::now_ms;
use rusqlite::{OptionalExtension, params};

/// Takes a token for `key` at `rate`/s with `burst`: `Ok(Ok(wait))` to sleep `wait` before
/// sending, or `Ok(Err(wait))` when the wait is longer than `max_wait` (nothing is taken).
pub fn take(
    store: &Store,
    key: &str,
    rate: f64,
    burst: f64,
    max_wait: Duration,
) -> Result<std::result::Result<Duration, Duration>> {
    if rate <= 0.0 {
        return Ok(Ok(Duration::ZERO));
    }
    let cap = burst.max(1.0);
    let now = now_ms();
    store.with_conn(|c| {
        let tx = c
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(pp_store::db_err)?;
        let (tokens, at): (f64, i64) = tx
            .query_row(
                "SELECT tokens, at_ms FROM pacing_buckets WHERE key = ?1",
                params![key],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(pp_store::db_err)?
            .unwrap_or((cap, now));
        let tokens = (tokens + (now - at).max(0) as f64 / 1000.0 * rate).min(cap);
        let (left, answer) = if tokens >= 1.0 {
            (tokens - 1.0, Ok(Duration::ZERO))
        } else {
            let wait = Duration::from_secs_f64((1.0 - tokens) / rate);
            if wait > max_wait {
                (tokens, Err(wait))
            } else {
                // the token we will wait for is ours
                (tokens - 1.0, Ok(wait))
            }
        };
        tx.execute(
            "INSERT INTO pacing_buckets (key, tokens, at_ms) VALUES (?1, ?2, ?3)
             ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at_ms = excluded.at_ms",
            params![key, left, now],
        )
        .map_err(pp_store::db_err)?;
        tx.commit().map_err(pp_store::db_err)?;
        Ok(answer)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_short_waits_then_refusals_shared_by_every_handle() {
        let dir = tempfile::tempdir().unwrap();
        let a = Store::open(dir.path()).unwrap();
        // a second process's handle on the same store
        let b = Store::open(dir.path()).unwrap();
        let max = Duration::from_millis(600);
        assert_eq!(take(&a, "k", 2.0, 2.0, max).unwrap(), Ok(Duration::ZERO));
        assert_eq!(take(&b, "k", 2.0, 2.0, max).unwrap(), Ok(Duration::ZERO));
        let w = take(&a, "k", 2.0, 2.0, max).unwrap().unwrap();
        assert!(
            w > Duration::from_millis(400) && w <= Duration::from_millis(500),
            "{w:?}"
        );
        assert!(
            take(&b, "k", 2.0, 2.0, max).unwrap().is_err(),
            "the next would wait a second"
        );
        assert_eq!(
            take(&b, "other", 2.0, 2.0, max).unwrap(),
            Ok(Duration::ZERO)
        );
    }
}
