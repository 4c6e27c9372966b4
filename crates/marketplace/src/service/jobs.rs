//! The marketplace's job kinds and their steps, registered with the worker pool
//! ([`pp_store::jobs::Registry`]): the pool claims a job row and hands it here; the step runs
//! against the provider and says what to record.

use pp_core::Error;
use std::sync::Arc;

use pp_store::jobs::{Handler, Item, Job, Outcome, StepFuture};
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
