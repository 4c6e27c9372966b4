//! Pacing buckets shared by every instance on the store.

use std::time::Duration;

use crate::{Fixture, each_engine};

#[tokio::test]
async fn a_burst_then_short_waits_then_refusals_shared_by_every_instance() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.store.clone(), f.second_instance().await);
        let max = Duration::from_millis(600);
        let take = async |s: &pp_store::Store, key: &str| {
            s.pacing().take(key, 2.0, 2.0, max).await.unwrap()
        };
        assert_eq!(take(&a, "k").await, Ok(Duration::ZERO));
        assert_eq!(take(&b, "k").await, Ok(Duration::ZERO));
        let w = take(&a, "k").await.unwrap();
        assert!(
            w > Duration::from_millis(400) && w <= Duration::from_millis(500),
            "{w:?} on {}",
            f.engine
        );
        assert!(
            take(&b, "k").await.is_err(),
            "the next would wait a second ({})",
            f.engine
        );
        assert_eq!(take(&b, "other").await, Ok(Duration::ZERO));
    })
    .await;
}

/// Forty takes at once on a bucket of ten with a tiny rate: exactly ten go now.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_takes_never_overspend_a_bucket() {
    each_engine(async |f: Fixture| {
        let other = f.second_instance().await;
        let tasks = (0..40).map(|n| {
            let s = if n % 2 == 0 {
                f.store.clone()
            } else {
                other.clone()
            };
            tokio::spawn(async move {
                s.pacing()
                    .take("k", 0.001, 10.0, Duration::ZERO)
                    .await
                    .unwrap()
            })
        });
        let now = futures_util::future::join_all(tasks)
            .await
            .into_iter()
            .filter(|r| r.as_ref().unwrap().is_ok())
            .count();
        assert_eq!(now, 10, "{}", f.engine);
    })
    .await;
}

/// Issue 66, finding 7: a backfill could hold live calls back for as long as its queue of
/// reserved tokens. Reproduced on the old main against the release binary: 50 sync starts in
/// a second drained an operation's plan, and another credential's live call of it was
/// throttled. Background takes now spend only the tokens that are there.
#[tokio::test]
async fn background_takes_never_reserve_so_a_live_call_waits_at_most_one_refill() {
    each_engine(async |f: Fixture| {
        let s = &f.store;
        let (rate, burst) = (0.5, 2.0);
        let mut sent = 0;
        for _ in 0..10 {
            if s.pacing()
                .take_spare("k", rate, burst)
                .await
                .unwrap()
                .is_ok()
            {
                sent += 1;
            }
        }
        assert_eq!(sent, 2, "the burst, then nothing owed ({})", f.engine);
        // the live call takes the next token: at most one refill (2 s) away
        let live = s
            .pacing()
            .take("k", rate, burst, Duration::from_secs(5))
            .await
            .unwrap()
            .expect("a live call gets a slot");
        assert!(live <= Duration::from_secs(2), "{live:?} on {}", f.engine);
        // with the live call's token reserved, background waits behind it
        let held = s.pacing().take_spare("k", rate, burst).await.unwrap();
        assert!(held.is_err(), "{held:?}");
    })
    .await;
}
