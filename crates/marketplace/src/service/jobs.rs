//! The marketplace's job types and their steps: the worker pool claims a job row and hands it
//! here; the step runs against the provider and says what to record.

use pp_core::Error;
use pp_store::jobs::{Item, Job, Outcome};
use serde::{Deserialize, Serialize};

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

impl Marketplace {
    /// Runs one step of `job` and says what to record; a job of a kind this service does not
    /// know fails with an internal error rather than sitting in the queue.
    pub async fn step(&self, job: &Job) -> (Outcome, Vec<Item>) {
        let kind = match JobKind::parse(&job.kind) {
            Ok(kind) => kind,
            Err(e) => return failed(job, &Error::internal(format!("no worker: {}", e.message()))),
        };
        let up = match self.provider(Api::Spapi) {
            Ok(up) => up,
            Err(e) => return failed(job, &e),
        };
        match kind {
            JobKind::PricingRun => crate::pricing::step(&up, job).await,
            JobKind::ReportWatch => {
                crate::reports::watch_step(&up, job, self.settings.report_stuck_after).await
            }
            JobKind::ListingMediaCheck => super::media::step(&up, job).await,
        }
    }
}
