//! The worker pool that runs jobs (rows in the state store, `pp_store::jobs`): each worker
//! claims a ready job under a lease, looks its kind up in the registry the services filled
//! (`AppState::job_registry`; the pool itself knows no kind by name), runs one step of it
//! while renewing the lease, and records the step's outcome.
//! Several workers, in one process or several sharing one store, never run the same job twice,
//! and a job whose worker died is taken up again when its lease runs out. Claims are fair: a
//! tenant holds at most `per_tenant` running jobs across every process on the store, and the
//! tenant (then the merchant) with the fewest running goes first; a step that passes its
//! deadline (shorter than the lease) is put back to try again later, so a hung provider holds a
//! worker for one deadline at most.

use std::sync::Arc;
use std::time::Duration;

use pp_core::Error;
use pp_marketplace::pricing;
use pp_store::jobs::{Job, Outcome, Registry, StepFuture, Stepped};
use tokio::task::JoinHandle;

use crate::state::SharedState;

/// How the pool runs.
#[derive(Debug, Clone)]
pub struct JobsConfig {
    /// Workers in this process.
    pub workers: usize,
    /// Running jobs one tenant may hold at once, across every process on the store.
    pub per_tenant: usize,
    /// How long a claim holds before another worker may take the job; renewed every third.
    pub lease: Duration,
    /// How often an idle worker looks for ready jobs (an enqueue wakes it sooner).
    pub poll: Duration,
    /// The pace between pricing batches.
    pub pricing_spacing: pricing::Spacing,
    /// How long a report may stay unfinished before its watch calls it `stuck`.
    pub report_stuck_after: Duration,
    /// Listing writes: the configured switches and the image check's pace.
    pub listings: pp_marketplace::service::ListingSettings,
    /// Intelligence runs: the synchronous size rule, the concurrency caps, the deadlines.
    pub intelligence: pp_intelligence::Settings,
    /// Warehouse sync: restatement windows, the daily hour, the report poll.
    pub sync: pp_sync::SyncSettings,
}

impl Default for JobsConfig {
    fn default() -> Self {
        Self {
            workers: 4,
            per_tenant: 2,
            lease: Duration::from_secs(30),
            poll: Duration::from_millis(500),
            pricing_spacing: pricing::Spacing::default(),
            report_stuck_after: Duration::from_secs(6 * 3600),
            listings: Default::default(),
            intelligence: Default::default(),
            sync: Default::default(),
        }
    }
}

impl JobsConfig {
    /// How long one step may run: two thirds of the lease.
    pub fn step_deadline(&self) -> Duration {
        self.lease * 2 / 3
    }

    /// What the marketplace service needs of this configuration.
    pub fn market(&self) -> pp_marketplace::service::Settings {
        pp_marketplace::service::Settings {
            pricing_spacing: self.pricing_spacing,
            report_stuck_after: self.report_stuck_after,
            listings: self.listings.clone(),
        }
    }
}

/// The running workers; dropping this leaves them running, [`Workers::stop`] ends them.
pub struct Workers {
    handles: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts `app.jobs.workers` workers over the kinds `app` registers (refused when two
    /// services register one kind).
    pub fn spawn(app: SharedState) -> pp_core::Result<Self> {
        let registry = Arc::new(app.job_registry()?);
        let process = pp_store::random_id("", 6).unwrap_or_default();
        let mut handles: Vec<JoinHandle<()>> = (0..app.jobs.workers)
            .map(|i| {
                let pool = Pool {
                    app: app.clone(),
                    registry: registry.clone(),
                };
                tokio::spawn(work(pool, format!("w{i}-{process}")))
            })
            .collect();
        // the stream consumer, on every instance as SQS consumers are (nothing when the
        // gateway has no queues)
        handles.push(tokio::spawn(app.sync.streams().run()));
        Ok(Self { handles })
    }

    /// Stops every worker at once, as a crash would: a step in flight keeps its lease until it
    /// runs out, then another worker takes the job up again.
    pub fn stop(self) {
        for h in self.handles {
            h.abort();
        }
    }
}

/// What a worker runs with: the state and the registered kinds.
struct Pool {
    app: SharedState,
    registry: Arc<Registry>,
}

async fn work(pool: Pool, owner: String) {
    let app = &pool.app;
    let lease_ms = app.jobs.lease.as_millis() as i64;
    loop {
        let per_tenant = app.jobs.per_tenant.max(1) as i64;
        let began = std::time::Instant::now();
        let claimed = app.store.jobs().claim(&owner, lease_ms, per_tenant).await;
        let m = pp_core::metrics::get();
        m.job_claim.observe(began.elapsed().as_secs_f64());
        match claimed {
            Ok(Some(job)) => {
                // (one taken up again after a lost lease counts from when it was first due)
                let late = pp_store::jobs::now_ms() - job.run_after;
                m.job_claim_delay
                    .with_label_values(&[job.kind.as_str()])
                    .observe(late.max(0) as f64 / 1000.0);
                run(&pool, &owner, job).await
            }
            Ok(None) => idle(app).await,
            Err(e) => {
                tracing::error!(error = %e, "claiming a job failed");
                idle(app).await;
            }
        }
    }
}

async fn idle(app: &SharedState) {
    let wake = app.market.wake();
    tokio::select! {
        _ = wake.notified() => {}
        _ = tokio::time::sleep(app.jobs.poll) => {}
    }
}

/// A step that passed its deadline: nothing it did is recorded, and the job is tried again
/// after another deadline (every step is safe to repeat: its provider calls are reads).
fn past_deadline(job: &Job, deadline: Duration) -> (Outcome, Vec<pp_store::jobs::Item>) {
    tracing::warn!(job = %job.id, "a step passed its deadline; it will be tried again");
    let mut state = job.state.clone();
    if let Some(o) = state.as_object_mut() {
        o.insert(
            "waiting".into(),
            format!(
                "the provider did not answer within the step's {} s deadline; next try in {} s",
                deadline.as_secs(),
                deadline.as_secs()
            )
            .into(),
        );
    }
    let outcome = Outcome::Continue {
        state,
        done: job.done,
        run_after: pp_store::jobs::now_ms() + deadline.as_millis() as i64,
    };
    (outcome, Vec::new())
}

/// A job whose kind no service registered fails rather than waits.
fn unregistered(job: &Job) -> Stepped {
    let e = Error::internal(format!("no worker runs jobs of kind {}", job.kind));
    tracing::error!(job = %job.id, kind = %job.kind, "a job of an unregistered kind failed");
    let outcome = Outcome::Failed {
        state: job.state.clone(),
        error: e.api_envelope(None),
    };
    (outcome, Vec::new())
}

/// The deadline `job`'s step runs under and the step: the registered kind's, or a failure.
fn step_of<'a>(pool: &'a Pool, job: &'a Job) -> (Duration, StepFuture<'a>) {
    match pool.registry.get(&job.kind) {
        Some(kind) => (
            kind.deadline().unwrap_or(pool.app.jobs.step_deadline()),
            kind.step(job),
        ),
        None => {
            let failed = unregistered(job);
            (pool.app.jobs.step_deadline(), Box::pin(async { failed }))
        }
    }
}

/// Runs one step of `job`, renewing the lease meanwhile, and records its outcome.
async fn run(pool: &Pool, owner: &str, job: Job) {
    let app = &pool.app;
    let lease_ms = app.jobs.lease.as_millis() as i64;
    let renew = async {
        loop {
            tokio::time::sleep(app.jobs.lease / 3).await;
            if !matches!(
                app.store.jobs().renew(&job.id, owner, lease_ms).await,
                Ok(true)
            ) {
                return;
            }
        }
    };
    let (deadline, step) = step_of(pool, &job);
    let (outcome, items) = tokio::select! {
        r = tokio::time::timeout(deadline, step) => match r {
            Ok(r) => r,
            Err(_) => past_deadline(&job, deadline),
        },
        _ = renew => {
            tracing::warn!(job = %job.id, "lost the lease mid-step; another worker has it");
            return;
        }
    };
    let ended = match outcome {
        Outcome::Continue { .. } => None,
        _ => pool
            .registry
            .get(&job.kind)
            .and_then(|kind| kind.ended(&job, &outcome)),
    };
    match app
        .store
        .jobs()
        .finish_step(&job.id, owner, &outcome, &items, ended)
        .await
    {
        Ok(true) => {}
        Ok(false) => {
            tracing::warn!(job = %job.id, "step finished after the lease moved on; dropped")
        }
        Err(e) => tracing::error!(job = %job.id, error = %e, "recording a step failed"),
    }
}
