//! Pacing buckets: the provider's usage plans as token buckets (wall-clock milliseconds), kept
//! here so several gateway instances on one store share the provider's allowance instead of
//! each spending all of it. Each take is one short transaction on the bucket's row (SQLite's
//! write lock; PostgreSQL's row lock).

use std::time::Duration;

use pp_core::Result;

use crate::args;
use crate::db::Db;
use crate::jobs::now_ms;

/// The pacing aggregate.
pub struct Pacing<'a>(pub(crate) &'a Db);

impl Pacing<'_> {
    /// Takes a token for `key` at `rate`/s with `burst`: `Ok(wait)` to sleep `wait` before
    /// sending, or `Err(wait)` when the wait is longer than `max_wait` (nothing is taken).
    pub async fn take(
        &self,
        key: &str,
        rate: f64,
        burst: f64,
        max_wait: Duration,
    ) -> Result<std::result::Result<Duration, Duration>> {
        self.take_as(key, rate, burst, max_wait, true).await
    }

    /// Takes a token for background work (a warehouse sync): only one that is there now,
    /// never one a later refill owes, so a live call that comes next waits at most one refill
    /// interval behind it. `Ok(ZERO)` to send now, or `Err(wait)` until a token is there
    /// (nothing is taken).
    pub async fn take_spare(
        &self,
        key: &str,
        rate: f64,
        burst: f64,
    ) -> Result<std::result::Result<Duration, Duration>> {
        self.take_as(key, rate, burst, Duration::ZERO, false).await
    }

    async fn take_as(
        &self,
        key: &str,
        rate: f64,
        burst: f64,
        max_wait: Duration,
        reserve: bool,
    ) -> Result<std::result::Result<Duration, Duration>> {
        if rate <= 0.0 {
            return Ok(Ok(Duration::ZERO));
        }
        let cap = burst.max(1.0);
        let key = key.to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let now = now_ms();
                    tx.exec(
                        "INSERT INTO pacing_buckets (key, tokens, at_ms) VALUES (?1, ?2, ?3)
                         ON CONFLICT (key) DO NOTHING",
                        args![key.as_str(), cap, now],
                    )
                    .await?;
                    let lock = tx.for_update();
                    let row = tx
                        .one(
                            format!(
                                "SELECT tokens, at_ms FROM pacing_buckets WHERE key = ?1{lock}"
                            ),
                            args![key.as_str()],
                        )
                        .await?
                        .ok_or_else(|| pp_core::Error::internal("pacing bucket vanished"))?;
                    let (tokens, at) = (row.f64(0)?, row.i64(1)?);
                    let tokens = (tokens + (now - at).max(0) as f64 / 1000.0 * rate).min(cap);
                    let (left, answer) = if tokens >= 1.0 {
                        (tokens - 1.0, Ok(Duration::ZERO))
                    } else {
                        let wait = Duration::from_secs_f64((1.0 - tokens) / rate);
                        if wait > max_wait || !reserve {
                            (tokens, Err(wait))
                        } else {
                            // the token we will wait for is ours
                            (tokens - 1.0, Ok(wait))
                        }
                    };
                    tx.exec(
                        "UPDATE pacing_buckets SET tokens = ?2, at_ms = ?3 WHERE key = ?1",
                        args![key.as_str(), left, now],
                    )
                    .await?;
                    Ok(answer)
                })
            })
            .await
    }
}
