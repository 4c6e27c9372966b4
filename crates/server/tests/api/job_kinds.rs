//! The job registry seen from outside the server crate: a kind this test declares (a type that
//! is its own input, [`BackgroundJob`]) is queued by itself, claimed and stepped by the
//! gateway's worker pool like the services' own, under its own deadline; a row of a kind
//! nobody registered fails instead of waiting, and so does one whose input no longer reads as
//! its kind.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pp_core::TenantId;
use pp_server::AppState;
use pp_store::Store;
use pp_store::jobs::{BackgroundJob, Job, JobStatus, Outcome, StepFuture, Steps, handler};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The test's job kind: count to `to`, on behalf of `by`.
#[derive(Serialize, Deserialize)]
struct Count {
    by: String,
    to: i64,
}

impl BackgroundJob for Count {
    const KIND: &'static str = "test_counter";

    fn total(&self) -> i64 {
        self.to
    }
}

/// A row of the same kind as an older release wrote it: its input does not read as [`Count`].
#[derive(Serialize, Deserialize)]
struct OldCount {
    count_by: i64,
}

impl BackgroundJob for OldCount {
    const KIND: &'static str = "test_counter";
}

/// A kind nobody registers.
#[derive(Serialize, Deserialize)]
struct Stray {}

impl BackgroundJob for Stray {
    const KIND: &'static str = "nobody_runs_this";
}

/// Counts to the job's total, one step at a time, keeping the count in its checkpoint.
struct Counter {
    steps: Arc<AtomicUsize>,
}

impl Steps for Counter {
    type Job = Count;

    fn deadline(&self) -> Option<Duration> {
        Some(Duration::from_secs(3))
    }

    fn step<'a>(&'a self, input: Count, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            self.steps.fetch_add(1, Ordering::SeqCst);
            let done = job.done + 1;
            let state = json!({ "count": done, "by": input.by });
            let outcome = if done >= job.total {
                Outcome::Succeeded { state, done }
            } else {
                Outcome::Continue {
                    state,
                    done,
                    run_after: 0,
                }
            };
            (outcome, Vec::new())
        })
    }
}

async fn settled(store: &Store, tenant: &TenantId, id: &str) -> Job {
    for _ in 0..200 {
        let job = store.jobs().get(tenant, id).await.unwrap().unwrap();
        if job.status.terminal() {
            return job;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("job {id} did not end");
}

#[tokio::test]
async fn a_kind_registered_from_outside_is_claimed_and_stepped() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let tenant = TenantId::parse("outside").unwrap();
    store
        .tenants()
        .create(&tenant, "Outside", "warehouse.sqlite")
        .await
        .unwrap();
    let steps = Arc::new(AtomicUsize::new(0));
    let kind = handler(Counter {
        steps: steps.clone(),
    });
    let state = AppState::new(store.clone(), "http://127.0.0.1")
        .await
        .unwrap()
        .with_job_kind(kind);
    let registry = state.job_registry().unwrap();
    assert!(registry.get("test_counter").is_some(), "{registry:?}");
    let workers = pp_server::Workers::spawn(Arc::new(state)).unwrap();

    let count = Count {
        by: "test".into(),
        to: 3,
    };
    let counted = count.enqueue(&store, &tenant).await.unwrap();
    let stray = Stray {}.enqueue(&store, &tenant).await.unwrap();
    let old = OldCount { count_by: 2 }
        .enqueue(&store, &tenant)
        .await
        .unwrap();

    let job = settled(&store, &tenant, &counted).await;
    assert_eq!(job.status, JobStatus::Succeeded, "{job:?}");
    assert_eq!(job.done, 3);
    assert_eq!(job.state, json!({ "count": 3, "by": "test" }));
    assert_eq!(steps.load(Ordering::SeqCst), 3, "one step per claim");

    let job = settled(&store, &tenant, &stray).await;
    assert_eq!(job.status, JobStatus::Failed, "{job:?}");
    let error = job.error.unwrap();
    assert_eq!(error["kind"], "unknown", "{error}");

    // a row whose input no longer reads fails, saying so, without a step
    let job = settled(&store, &tenant, &old).await;
    assert_eq!(job.status, JobStatus::Failed, "{job:?}");
    let error = job.error.unwrap();
    let message = error["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("does not read as a test_counter job")
            && message.contains("missing field `by`"),
        "{error}"
    );
    assert_eq!(
        steps.load(Ordering::SeqCst),
        3,
        "no step for the unreadable row"
    );
    workers.stop();
}

#[tokio::test]
async fn a_kind_registered_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let steps = Arc::new(AtomicUsize::new(0));
    let state = AppState::new(store, "http://127.0.0.1")
        .await
        .unwrap()
        .with_job_kind(handler(Counter {
            steps: steps.clone(),
        }))
        .with_job_kind(handler(Counter { steps }));
    let e = pp_server::Workers::spawn(Arc::new(state)).err().unwrap();
    assert!(e.chain().contains("test_counter"), "{e:?}");
}
