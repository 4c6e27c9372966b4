//! The job registry seen from outside the server crate: a kind this test declares is claimed
//! and stepped by the gateway's worker pool like the services' own, under its own deadline; a
//! row of a kind nobody registered fails instead of waiting.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pp_core::TenantId;
use pp_server::AppState;
use pp_store::Store;
use pp_store::jobs::{Handler, Job, JobStatus, Outcome, StepFuture};
use serde_json::json;

/// Counts to the job's total, one step at a time, keeping the count in its checkpoint.
struct Counter {
    steps: Arc<AtomicUsize>,
}

impl Handler for Counter {
    fn name(&self) -> &'static str {
        "test_counter"
    }

    fn deadline(&self) -> Option<Duration> {
        Some(Duration::from_secs(3))
    }

    fn step<'a>(&'a self, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            self.steps.fetch_add(1, Ordering::SeqCst);
            let done = job.done + 1;
            let state = json!({ "count": done, "by": job.input["by"] });
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
    let kind = Arc::new(Counter {
        steps: steps.clone(),
    });
    let state = AppState::new(store.clone(), "http://127.0.0.1")
        .await
        .unwrap()
        .with_job_kind(kind);
    let registry = state.job_registry().unwrap();
    assert!(registry.get("test_counter").is_some(), "{registry:?}");
    let workers = pp_server::Workers::spawn(Arc::new(state)).unwrap();

    let jobs = store.jobs();
    let counted = jobs
        .enqueue(&tenant, "test_counter", None, 3, &json!({ "by": "test" }))
        .await
        .unwrap();
    let stray = jobs
        .enqueue(&tenant, "nobody_runs_this", None, 1, &json!({}))
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
        .with_job_kind(Arc::new(Counter {
            steps: steps.clone(),
        }))
        .with_job_kind(Arc::new(Counter { steps }));
    let e = pp_server::Workers::spawn(Arc::new(state)).err().unwrap();
    assert!(e.chain().contains("test_counter"), "{e:?}");
}
