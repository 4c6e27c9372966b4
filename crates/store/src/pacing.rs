//! Pacing buckets: the provider's usage plans as token buckets (wall-clock milliseconds), kept
//! here so several gateway instances on one store share the provider's allowance instead of
//! each spending all of it. Each take is one short transaction on the bucket's row (SQLite's
//! write lock; PostgreSQL's row lock).

use std::time::Duration;

use pp_core::Result;

use crate::args;
use crate::db::Db;
use crate::jobs::now_ms;

/// How long after this count says a refilled token is there a call takes it (tokens of the
/// burst go at once): the provider counts tokens at the call's arrival, and calls granted in
/// order here can arrive at it closer together than they were granted (a reserved call
/// against the sandbox arrived with its bucket at 0.9998 tokens). 50 ms is a tenth of the
/// refill interval of the fastest plan the sync uses (2/s).
pub const MARGIN: Duration = Duration::from_millis(50);

/// The tokens of a bucket of `burst` that background work leaves for live calls: a third,
/// whole (5 of a selling-side create's 15; none of a plan of one or two). Background work
/// still takes every refill once they are there, so it loses only the share, once.
pub fn live_share(burst: f64) -> f64 {
    (burst / 3.0).floor()
}

/// Which background work takes a token, first to last while a plan's tokens are scarce: each
/// leaves one token more than the one before it, so while tokens come one at a time the
/// earlier turns take every one they wait for, and a later turn takes only what they leave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// The recent days of a dataset read first (sales and traffic: what `/v1` and the
    /// intelligence read first): only one there now beyond the [`live_share`].
    Leading,
    /// The recent days of any other dataset: one more.
    Recent,
    /// A backfill's days older than the last month: one more again, so every dataset's
    /// last month comes before any older day.
    Older,
    /// Work asked for ahead of its turn (a sync's next slices while one is being made): only
    /// while the bucket also holds half its burst beyond the live share.
    Ahead,
}

impl Turn {
    /// The tokens of a bucket of `cap` this turn leaves to the turns before it and to live
    /// calls (never the plan's last one: a plan of one token is still used).
    fn kept(self, cap: f64) -> f64 {
        let live = live_share(cap);
        match self {
            Turn::Leading => live,
            Turn::Recent => (live + 1.0).min(cap - 1.0),
            Turn::Older => (live + 2.0).min(cap - 1.0),
            Turn::Ahead => live + (cap / 2.0).floor(),
        }
    }
}

/// Who takes a token: a live call (may reserve one a refill owes) or background work in its
/// turn (only one there now).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Take {
    Live,
    Background(Turn),
}

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
        self.take_as(key, rate, burst, max_wait, Take::Live).await
    }

    /// Takes a token for background work (a warehouse sync) in its `turn`: only one that is
    /// there now, never one a later refill owes, and never one of the burst's [`live_share`],
    /// so a live call that comes next finds a token (while live calls have not spent their
    /// share) or waits at most one refill interval behind it. `Ok(ZERO)` to send now, or
    /// `Err(wait)` until a token is there for this turn (nothing is taken).
    pub async fn take_background(
        &self,
        key: &str,
        rate: f64,
        burst: f64,
        turn: Turn,
    ) -> Result<std::result::Result<Duration, Duration>> {
        self.take_as(key, rate, burst, Duration::ZERO, Take::Background(turn))
            .await
    }

    /// Empties `key`'s bucket (refilled at `rate`/s) so that its next token comes `next_in`
    /// from now: the provider refused a call for its plan, so the tokens the gateway counted
    /// there are not there (a call it did not pace, another process or a tighter plan spent
    /// them), and it said when to come back (else one refill interval). A debt a live call
    /// already reserved beyond that is kept.
    pub async fn empty(&self, key: &str, rate: f64, next_in: Duration) -> Result<()> {
        if rate <= 0.0 {
            return Ok(());
        }
        let key = key.to_owned();
        let tokens = 1.0 - next_in.as_secs_f64() * rate;
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.exec(
                        "UPDATE pacing_buckets SET tokens = ?2, at_ms = ?3 WHERE key = ?1 AND tokens > ?2",
                        args![key.as_str(), tokens, now_ms()],
                    )
                    .await?;
                    Ok(())
                })
            })
            .await
    }

    async fn take_as(
        &self,
        key: &str,
        rate: f64,
        burst: f64,
        max_wait: Duration,
        how: Take,
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
                    let (stored, at) = (row.f64(0)?, row.i64(1)?);
                    let since = (now - at).max(0) as f64 / 1000.0;
                    let count = |late: f64| (stored + (since - late).max(0.0) * rate).min(cap);
                    // a refilled token counts as there a margin after this count says so;
                    // background work leaves live calls their share of the burst
                    let reserve = how == Take::Live;
                    let kept = match how {
                        Take::Live => 0.0,
                        Take::Background(turn) => turn.kept(cap),
                    };
                    let margin = MARGIN.as_secs_f64();
                    let answer = if count(margin) - kept >= 1.0 {
                        Ok(Duration::ZERO)
                    } else {
                        let short = 1.0 + kept - stored;
                        let wait =
                            Duration::from_secs_f64((short / rate + margin - since).max(0.0));
                        if wait > max_wait || !reserve {
                            return Ok(Err(wait));
                        }
                        // the token we will wait for is ours
                        Ok(wait)
                    };
                    tx.exec(
                        "UPDATE pacing_buckets SET tokens = ?2, at_ms = ?3 WHERE key = ?1",
                        args![key.as_str(), count(0.0) - 1.0, now],
                    )
                    .await?;
                    Ok(answer)
                })
            })
            .await
    }
}
