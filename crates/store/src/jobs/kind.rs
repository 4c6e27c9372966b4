//! Typed job kinds. A kind is a type that is its own input: it names itself once
//! ([`BackgroundJob::KIND`], the `jobs.kind` its rows carry), serializes into the row's
//! `input`, and queues itself, alone ([`BackgroundJob::enqueue`]) or inside the caller's
//! transaction ([`BackgroundJob::enqueue_in`]). Every job row is written here ([`NewJob`]),
//! whoever asks. A service steps its kind through [`Steps`], which reads the row's input back
//! into the type; a row whose input no longer reads fails with the reason instead of running
//! on defaults. A kind's input must keep reading the rows queued before it changed: add fields
//! with `#[serde(default)]`, never rename one.

use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Result, TenantId};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{Handler, Job, Outcome, StepFuture, now_ms};
use crate::Store;
use crate::args;
use crate::db::{Arg, Tx};
use crate::events::NewEvent;

/// Which jobs a claim takes first: those someone is waiting for (a webhook's receiver, a
/// person who started a run or asked for a report) before the background's long queue (a
/// warehouse backfill's thousands of report steps), whatever their age. Stored as the row's
/// `lane` (0 and 1), so the claim orders by it without knowing kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// Someone waits for it: claimed before any background job.
    Waited,
    /// Nobody waits for it by the minute: claimed when no waited-for job is ready.
    Background,
}

impl Lane {
    /// The value the row stores.
    fn stored(self) -> i64 {
        match self {
            Self::Waited => 0,
            Self::Background => 1,
        }
    }
}

/// A kind of job, as the type that is its input.
pub trait BackgroundJob: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// The name its rows carry.
    const KIND: &'static str;

    /// Its lane in the claim ([`Lane`]): someone waits for it, unless the kind says not.
    const LANE: Lane = Lane::Waited;

    /// The merchant it counts against when the pool shares workers fairly (`None`: the
    /// tenant's as a whole).
    fn merchant(&self) -> Option<String> {
        None
    }

    /// How many items it has to do (the progress's total).
    fn total(&self) -> i64 {
        1
    }

    /// The row that queues it.
    fn new_job(&self) -> Result<NewJob> {
        Ok(NewJob {
            kind: Self::KIND,
            lane: Self::LANE,
            merchant: self.merchant(),
            total: self.total(),
            input: serde_json::to_string(self).map_err(Error::internal_from)?,
        })
    }

    /// Queues it for `tenant`; the job's id.
    fn enqueue(
        &self,
        store: &Store,
        tenant: &TenantId,
    ) -> impl Future<Output = Result<String>> + Send {
        async move { store.jobs().enqueue(tenant, self).await }
    }

    /// Queues it for `tenant` unless one of its kind is already waiting for the same merchant;
    /// whether it queued one.
    fn enqueue_once(
        &self,
        store: &Store,
        tenant: &TenantId,
    ) -> impl Future<Output = Result<bool>> + Send {
        async move { store.jobs().enqueue_once(tenant, self).await }
    }

    /// Queues it for `tenant` inside `tx` (committed with the caller's own rows, or not at
    /// all); the job's id.
    fn enqueue_in<'t>(
        &self,
        tx: &'t mut Tx,
        tenant: &str,
    ) -> impl Future<Output = Result<String>> + Send + 't {
        let job = self.new_job();
        let tenant = tenant.to_owned();
        async move { job?.insert_in(tx, &tenant).await }
    }
}

/// A job row about to be written, made by [`BackgroundJob::new_job`].
#[derive(Debug, Clone)]
pub struct NewJob {
    kind: &'static str,
    lane: Lane,
    merchant: Option<String>,
    total: i64,
    input: String,
}

/// The columns a new job row fills, in [`NewJob::values`]'s order.
const INSERT: &str = "INSERT INTO jobs (id, tenant_id, kind, merchant, status, progress_done, progress_total, attempts, input, state, run_after, created_at, updated_at, lane)";

impl NewJob {
    /// The kind it queues.
    pub fn kind(&self) -> &'static str {
        self.kind
    }

    /// A fresh id and the row's values, queued now.
    fn values(&self, tenant: &str) -> Result<(String, Vec<Arg>)> {
        let id = crate::random_id("job_", 12)?;
        let now = crate::now_rfc3339();
        let values = args![
            &id,
            tenant,
            self.kind,
            self.merchant.as_deref(),
            "queued",
            0_i64,
            self.total,
            0_i64,
            self.input.as_str(),
            "{}",
            now_ms(),
            &now,
            &now,
            self.lane.stored()
        ];
        Ok((id, values))
    }

    /// The statement that writes it for `tenant`, and the job's id.
    pub(crate) fn statement(&self, tenant: &str) -> Result<(String, String, Vec<Arg>)> {
        let (id, values) = self.values(tenant)?;
        let marks: Vec<String> = (1..=values.len()).map(|i| format!("?{i}")).collect();
        Ok((
            id,
            format!("{INSERT} VALUES ({})", marks.join(", ")),
            values,
        ))
    }

    /// Writes it for `tenant` inside `tx`; the job's id.
    pub async fn insert_in(&self, tx: &mut Tx, tenant: &str) -> Result<String> {
        let (id, sql, values) = self.statement(tenant)?;
        tx.exec(sql, values).await?;
        Ok(id)
    }

    /// Writes every one of `jobs` for `tenant` inside `tx`, a hundred to a statement; their
    /// ids, in order.
    pub async fn insert_all_in(tx: &mut Tx, tenant: &str, jobs: &[NewJob]) -> Result<Vec<String>> {
        let mut ids = Vec::with_capacity(jobs.len());
        let mut rows = Vec::with_capacity(jobs.len());
        for j in jobs {
            let (id, values) = j.values(tenant)?;
            ids.push(id);
            rows.push(values);
        }
        if !rows.is_empty() {
            tx.insert_rows(INSERT, "", rows).await?;
        }
        Ok(ids)
    }
}

/// How a service steps its kind `Job`: [`Handler`] with the row's input already read.
pub trait Steps: Send + Sync + 'static {
    /// The kind it steps.
    type Job: BackgroundJob;

    /// How long one step may run (see [`Handler::deadline`]).
    fn deadline(&self) -> Option<Duration> {
        None
    }

    /// The event a finished job is (see [`Handler::ended`]).
    fn ended(&self, input: &Self::Job, job: &Job, outcome: &Outcome) -> Option<NewEvent> {
        let _ = (input, job, outcome);
        None
    }

    /// Runs one step of `job`, whose input is `input` (see [`Handler::step`]).
    fn step<'a>(&'a self, input: Self::Job, job: &'a Job) -> StepFuture<'a>;
}

/// `steps` as the registry holds it.
pub fn handler<S: Steps>(steps: S) -> Arc<dyn Handler> {
    Arc::new(Typed(steps))
}

struct Typed<S>(S);

/// The row's input read as `J`.
fn input<J: BackgroundJob>(job: &Job) -> Result<J> {
    serde_json::from_value(job.input.clone()).map_err(|e| {
        Error::new(
            pp_core::Kind::Unknown,
            format!(
                "job {} has an input that does not read as a {} job: {e}",
                job.id,
                J::KIND
            ),
        )
    })
}

impl<S: Steps> Handler for Typed<S> {
    fn name(&self) -> &'static str {
        S::Job::KIND
    }

    fn deadline(&self) -> Option<Duration> {
        self.0.deadline()
    }

    fn ended(&self, job: &Job, outcome: &Outcome) -> Option<NewEvent> {
        self.0.ended(&input(job).ok()?, job, outcome)
    }

    fn step<'a>(&'a self, job: &'a Job) -> StepFuture<'a> {
        match input::<S::Job>(job) {
            Ok(i) => self.0.step(i, job),
            Err(e) => Box::pin(async move {
                let error = e.api_envelope(None);
                (
                    Outcome::Failed {
                        state: job.state.clone(),
                        error,
                    },
                    Vec::new(),
                )
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::BackgroundJob;
    use crate::monitors::MonitorRun;
    use crate::sync::AdoptJob;
    use crate::webhooks::DeliveryJob;

    /// `old`, a row's input as an earlier release queued it, reads as `J` and is what `J`
    /// writes: rows queued before an upgrade keep running after it, and the other way round.
    pub(crate) fn reads_alike<J: BackgroundJob>(old: Value) {
        let job: J = serde_json::from_value(old.clone())
            .unwrap_or_else(|e| panic!("{} does not read {old}: {e}", J::KIND));
        assert_eq!(serde_json::to_value(&job).unwrap(), old, "{}", J::KIND);
    }

    #[test]
    fn rows_queued_before_kinds_were_types_still_read() {
        reads_alike::<DeliveryJob>(
            json!({ "delivery": "dlv_1", "endpoint": "whe_1", "event": "evt_1" }),
        );
        reads_alike::<MonitorRun>(json!({ "sellerId": 3 }));
        reads_alike::<MonitorRun>(json!({ "sellerId": null }));
        reads_alike::<AdoptJob>(json!({}));
    }
}
