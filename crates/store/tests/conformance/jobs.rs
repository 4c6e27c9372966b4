//! Job claims, leases, steps and fairness; claims from many workers at once.

use std::collections::BTreeSet;

use pp_store::jobs::{BackgroundJob, Item, JobStatus, Lane, Outcome, WINDOW, now_ms};
use serde_json::json;

use crate::{Fixture, each_engine};

/// The tests' job kind: its merchant and total are the row's, its input empty.
#[derive(serde::Serialize, serde::Deserialize)]
struct Test {
    #[serde(skip)]
    merchant: Option<String>,
    #[serde(skip)]
    total: i64,
}

impl BackgroundJob for Test {
    const KIND: &'static str = "test";

    fn merchant(&self) -> Option<String> {
        self.merchant.clone()
    }

    fn total(&self) -> i64 {
        self.total
    }
}

/// A second kind, for counts by kind.
#[derive(serde::Serialize, serde::Deserialize)]
struct Other {}

impl BackgroundJob for Other {
    const KIND: &'static str = "other";
}

/// A background kind (a warehouse backfill's steps).
#[derive(serde::Serialize, serde::Deserialize)]
struct Backfill {
    #[serde(skip)]
    merchant: Option<String>,
}

impl BackgroundJob for Backfill {
    const KIND: &'static str = "backfill";
    const LANE: Lane = Lane::Background;

    fn merchant(&self) -> Option<String> {
        self.merchant.clone()
    }
}

fn test(merchant: Option<&str>, total: i64) -> Test {
    Test {
        merchant: merchant.map(str::to_owned),
        total,
    }
}

#[tokio::test]
async fn claims_are_fair_between_tenants_and_merchants() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("a").await, f.tenant("b").await);
        let jobs = f.store.jobs();
        for m in ["m1", "m1", "m1", "m2"] {
            jobs.enqueue(&a, &test(Some(m), 1)).await.unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let later = jobs.enqueue(&b, &test(Some("m9"), 1)).await.unwrap();
        let first = jobs.claim("w1", 60_000, 2).await.unwrap().unwrap();
        assert_eq!(
            (first.tenant.as_str(), first.merchant.as_deref()),
            ("a", Some("m1"))
        );
        // b has nothing running, so its later job goes before a's older ones
        assert_eq!(
            jobs.claim("w2", 60_000, 2).await.unwrap().unwrap().id,
            later,
            "{}",
            f.engine
        );
        // a's next is its other merchant, which has nothing running
        let third = jobs.claim("w3", 60_000, 2).await.unwrap().unwrap();
        assert_eq!(third.merchant.as_deref(), Some("m2"), "{}", f.engine);
        // a is at its cap of 2: its remaining jobs wait though a worker is free
        assert!(
            jobs.claim("w4", 60_000, 2).await.unwrap().is_none(),
            "{}",
            f.engine
        );
    })
    .await;
}

#[tokio::test]
async fn a_job_someone_waits_for_goes_before_an_older_background_queue() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("a").await, f.tenant("b").await);
        let jobs = f.store.jobs();
        for (t, m) in [(&a, "m1"), (&a, "m2"), (&b, "m9")] {
            let backfill = Backfill {
                merchant: Some(m.to_owned()),
            };
            jobs.enqueue(t, &backfill).await.unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        // a's first backfill step is running: its waited-for job still goes before b's
        // background, though b has nothing running and its step is older
        let step = jobs.claim("w1", 60_000, 2).await.unwrap().unwrap();
        assert_eq!(step.kind, "backfill", "{}", f.engine);
        let waited = jobs.enqueue(&a, &test(None, 1)).await.unwrap();
        let next = jobs.claim("w2", 60_000, 2).await.unwrap().unwrap();
        assert_eq!(next.id, waited, "{}", f.engine);
        // the tenant's cap still holds for it: a's next waits, b's background goes
        jobs.enqueue(&a, &test(None, 1)).await.unwrap();
        let third = jobs.claim("w3", 60_000, 2).await.unwrap().unwrap();
        assert_eq!(
            (third.tenant.as_str(), third.kind.as_str()),
            ("b", "backfill"),
            "{}",
            f.engine
        );
    })
    .await;
}

#[tokio::test]
async fn a_tenant_at_its_cap_with_a_long_queue_does_not_hide_another_tenants_job() {
    each_engine(async |f: Fixture| {
        let (a, b) = (f.tenant("a").await, f.tenant("b").await);
        let jobs = f.store.jobs();
        // more of a's jobs than a claim weighs, all older than b's one
        for _ in 0..WINDOW + 10 {
            jobs.enqueue(&a, &test(Some("m1"), 1)).await.unwrap();
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        let theirs = jobs.enqueue(&b, &test(Some("m9"), 1)).await.unwrap();
        for w in ["w1", "w2"] {
            let claimed = jobs.claim(w, 60_000, 2).await.unwrap().unwrap();
            assert_eq!(claimed.tenant, "a", "{}", f.engine);
        }
        // a is at its cap: b's job, behind all of a's, is the next
        let next = jobs.claim("w3", 60_000, 2).await.unwrap().unwrap();
        assert_eq!(next.id, theirs, "{}", f.engine);
        assert!(
            jobs.claim("w4", 60_000, 2).await.unwrap().is_none(),
            "{}",
            f.engine
        );
    })
    .await;
}

#[tokio::test]
async fn a_job_is_claimed_once_stepped_and_reclaimed_after_its_lease() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        let jobs = f.store.jobs();
        let id = jobs.enqueue(&t, &test(None, 2)).await.unwrap();
        let a = jobs.claim("a", 60_000, 10).await.unwrap().unwrap();
        assert_eq!((a.id.as_str(), a.attempts), (id.as_str(), 1));
        assert!(
            jobs.claim("b", 60_000, 10).await.unwrap().is_none(),
            "held by a"
        );
        let step = Outcome::Continue {
            state: json!({"next": 1}),
            done: 1,
            run_after: now_ms(),
        };
        let item = |seq| Item {
            seq,
            key: format!("k{seq}"),
            value: json!(seq),
        };
        assert!(
            !jobs
                .finish_step(&id, "b", &step, &[item(0)], None)
                .await
                .unwrap(),
            "not b's"
        );
        assert!(
            jobs.finish_step(&id, "a", &step, &[item(0)], None)
                .await
                .unwrap()
        );
        // a worker that dies mid-step: its lease runs out and another takes the job
        let b = jobs.claim("b", -1, 10).await.unwrap().unwrap();
        assert_eq!(b.state, json!({"next": 1}));
        let c = jobs.claim("c", 60_000, 10).await.unwrap().unwrap();
        assert_eq!(c.attempts, 3);
        assert!(!jobs.renew(&id, "b", 60_000).await.unwrap());
        let done = Outcome::Succeeded {
            state: json!({}),
            done: 2,
        };
        assert!(
            jobs.finish_step(&id, "c", &done, &[item(0), item(1)], None)
                .await
                .unwrap()
        );
        assert_eq!(jobs.items(&id).await.unwrap().len(), 2, "seq 0 once");
        let j = jobs.get(&t, &id).await.unwrap().unwrap();
        assert_eq!((j.status, j.done), (JobStatus::Succeeded, 2));
        assert!(j.finished_at.is_some());
        assert!(jobs.claim("d", 60_000, 10).await.unwrap().is_none());
        assert!(
            !jobs.cancel(&t, &id).await.unwrap(),
            "finished jobs stay as they are"
        );
        let other = jobs.enqueue(&t, &test(None, 1)).await.unwrap();
        jobs.claim("e", 60_000, 10).await.unwrap().unwrap();
        let zeta = pp_core::TenantId::parse("zeta").unwrap();
        assert!(!jobs.cancel(&zeta, &other).await.unwrap());
        assert!(jobs.cancel(&t, &other).await.unwrap());
        assert!(
            !jobs
                .finish_step(&other, "e", &done, &[], None)
                .await
                .unwrap(),
            "a cancelled step is dropped"
        );
        assert_eq!(
            jobs.get(&t, &other).await.unwrap().unwrap().status,
            JobStatus::Cancelled
        );
        assert!(jobs.get(&zeta, &id).await.unwrap().is_none());
        // a failed step keeps its error
        let failing = jobs.enqueue(&t, &test(None, 1)).await.unwrap();
        jobs.claim("f", 60_000, 10).await.unwrap().unwrap();
        let failed = Outcome::Failed {
            state: json!({}),
            error: json!({"kind": "boom"}),
        };
        assert!(
            jobs.finish_step(&failing, "f", &failed, &[], None)
                .await
                .unwrap()
        );
        let j = jobs.get(&t, &failing).await.unwrap().unwrap();
        assert_eq!(
            (j.status, j.error),
            (JobStatus::Failed, Some(json!({"kind": "boom"}))),
            "{}",
            f.engine
        );
    })
    .await;
}

/// Sixteen workers claiming at once over twenty ready jobs: each job goes to one of them.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_claims_never_share_a_job() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("acme").await;
        for _ in 0..20 {
            f.store.jobs().enqueue(&t, &test(None, 1)).await.unwrap();
        }
        let claims = futures_util::future::join_all((0..16).map(|w| {
            let store = f.store.clone();
            tokio::spawn(async move {
                let mut got = Vec::new();
                while let Some(j) = store
                    .jobs()
                    .claim(&format!("w{w}"), 60_000, 100)
                    .await
                    .unwrap()
                {
                    got.push(j.id);
                }
                got
            })
        }))
        .await;
        let all: Vec<String> = claims.into_iter().flat_map(|r| r.unwrap()).collect();
        let distinct: BTreeSet<&String> = all.iter().collect();
        assert_eq!((all.len(), distinct.len()), (20, 20), "{}", f.engine);
    })
    .await;
}

#[tokio::test]
async fn the_queue_counts_waiting_and_running_jobs_by_kind() {
    each_engine(async |f: Fixture| {
        let t = f.tenant("a").await;
        let jobs = f.store.jobs();
        assert!(jobs.queue().await.unwrap().is_empty(), "{}", f.engine);
        for _ in 0..2 {
            jobs.enqueue(&t, &test(Some("m"), 1)).await.unwrap();
        }
        jobs.enqueue(&t, &Other {}).await.unwrap();
        let claimed = jobs.claim("w1", 60_000, 5).await.unwrap().unwrap();
        let queue = jobs.queue().await.unwrap();
        let count = |kind: &str, status: JobStatus| {
            queue
                .iter()
                .find(|r| r.kind == kind && r.status == status)
                .map_or(0, |r| r.count)
        };
        let running_kind = claimed.kind.as_str();
        assert_eq!(count(running_kind, JobStatus::Running), 1, "{}", f.engine);
        let queued: i64 = queue
            .iter()
            .filter(|r| r.status == JobStatus::Queued)
            .map(|r| r.count)
            .sum();
        assert_eq!(queued, 2, "{queue:?} ({})", f.engine);
        assert!(queue.iter().all(|r| r.oldest_created_at.contains('T')));
    })
    .await;
}
