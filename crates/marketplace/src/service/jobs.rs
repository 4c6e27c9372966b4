//! The marketplace's job kinds and their steps, registered with the worker pool
//! ([`pp_store::jobs::Registry`]): the pool claims a job row and hands it here; the step runs
//! against the provider and says what to record.

use pp_core::Error;
use pp_core::events;
use std::sync::Arc;

use pp_store::events::NewEvent;
use pp_store::jobs::{Handler, Item, Job, Outcome, StepFuture};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Api, Marketplace};

/// The kinds of job the marketplace enqueues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A paced pricing run: one batch per step.
    PricingRun,
    /// A selling-side report followed to its end.
    ReportWatch,
    /// A listing commit's image slots read until they show (or an issue appears).
    ListingMediaCheck,
}

pp_core::spelled!(JobKind, "job kind", PricingRun => "pricing_run", ReportWatch => "report_watch",
    ListingMediaCheck => "listing_media_check");

fn failed(job: &Job, e: &Error) -> (Outcome, Vec<Item>) {
    (
        Outcome::Failed {
            state: job.state.clone(),
            error: e.api_envelope(None),
        },
        Vec::new(),
    )
}

/// One of the marketplace's job kinds, as the worker pool runs it.
struct Registered {
    market: Marketplace,
    kind: JobKind,
}

impl Handler for Registered {
    fn name(&self) -> &'static str {
        self.kind.as_str()
    }

    fn step<'a>(&'a self, job: &'a Job) -> StepFuture<'a> {
        Box::pin(step(&self.market, self.kind, job))
    }

    fn ended(&self, job: &Job, outcome: &Outcome) -> Option<NewEvent> {
        Some(ended(self.kind, job, outcome))
    }
}

/// The event a finished job of `kind` is: a pricing run finished, a report done or fatal, a
/// listing change set's image check finished.
fn ended(kind: JobKind, job: &Job, outcome: &Outcome) -> NewEvent {
    let (state, error, done) = match outcome {
        Outcome::Failed { state, error } => (state, Some(error.clone()), job.done),
        Outcome::Succeeded { state, done } | Outcome::Continue { state, done, .. } => {
            (state, None, *done)
        }
    };
    let failed = error.is_some();
    let merchant = job.merchant.clone();
    let e = match kind {
        JobKind::PricingRun => NewEvent::new(
            &events::PRICING_RUN_FINISHED,
            json!({ "runId": job.id, "merchant": merchant }),
            json!({ "status": if failed { "failed" } else { "succeeded" }, "done": done, "total": job.total, "error": error }),
        ),
        JobKind::ReportWatch => {
            let status = state["status"].as_str().unwrap_or("failed");
            let done = !failed && status == "done";
            NewEvent::new(
                if done {
                    &events::REPORT_DONE
                } else {
                    &events::REPORT_FATAL
                },
                json!({ "reportId": job.input["reportId"], "merchant": merchant }),
                json!({
                    "status": if failed { "failed" } else { status },
                    "reason": state.get("reason").cloned().unwrap_or(Value::Null),
                    "reportType": state.get("reportType").cloned().unwrap_or(Value::Null),
                    "reportDocumentId": state.get("reportDocumentId").cloned().unwrap_or(Value::Null),
                    "error": error,
                }),
            )
        }
        JobKind::ListingMediaCheck => NewEvent::new(
            &events::LISTING_IMAGE_CHECKED,
            json!({ "changeSetId": job.input["changeSetId"], "merchant": merchant }),
            json!({ "outcome": if failed { "failed" } else { state["status"].as_str().unwrap_or("failed") }, "skus": state.get("skus").cloned().unwrap_or(Value::Null), "error": error }),
        ),
    };
    e.once(format!("job:{}:ended", job.id))
}

/// The marketplace's job kinds, each stepping with (a clone of) `market`.
pub(super) fn handlers(market: &Marketplace) -> Vec<Arc<dyn Handler>> {
    JobKind::ALL
        .iter()
        .map(|&kind| {
            Arc::new(Registered {
                market: market.clone(),
                kind,
            }) as Arc<dyn Handler>
        })
        .collect()
}

/// Runs one step of `job` (of `kind`) against the provider and says what to record.
async fn step(market: &Marketplace, kind: JobKind, job: &Job) -> (Outcome, Vec<Item>) {
    let up = match market.provider(Api::Spapi) {
        Ok(up) => up,
        Err(e) => return failed(job, &e),
    };
    match kind {
        JobKind::PricingRun => crate::pricing::step(&up, job).await,
        JobKind::ReportWatch => {
            crate::reports::watch_step(&up, job, market.settings.report_stuck_after).await
        }
        JobKind::ListingMediaCheck => super::media::step(&up, job).await,
    }
}
