//! The marketplace's job kinds and their steps, registered with the worker pool
//! ([`pp_store::jobs::Registry`]): each kind is its input type ([`RunInput`], [`ReportWatch`],
//! [`CheckInput`]); the pool claims a job row and hands it here; the step runs against the
//! provider and says what to record, and a finished job's event is built beside it.

use pp_core::Error;
use pp_core::events::payloads::{
    ImageCheckData, ImageCheckSubject, ImageChecked, PricingRunData, PricingRunFinished,
    ReportData, ReportSubject, ReportTold, RunSubject,
};
use std::sync::Arc;

use pp_store::events::NewEvent;
use pp_store::jobs::{BackgroundJob, Handler, Item, Job, Outcome, StepFuture, Steps};
use serde_json::Value;

use super::media::CheckInput;
use super::{Api, Marketplace};
use crate::pricing::RunInput;
use crate::reports::ReportWatch;
use crate::upstream::Provider;

/// A job of one of the marketplace's kinds, as the worker pool steps it.
struct Registered<J> {
    market: Marketplace,
    kind: std::marker::PhantomData<fn() -> J>,
}

/// One step of `input` against the provider, and the event its end is.
trait Step: BackgroundJob {
    fn step(
        up: &Provider<'_>,
        market: &Marketplace,
        input: Self,
        job: &Job,
    ) -> impl Future<Output = (Outcome, Vec<Item>)> + Send;
    fn ended(&self, job: &Job, outcome: &Outcome) -> NewEvent;
}

impl<J: Step> Steps for Registered<J> {
    type Job = J;

    fn step<'a>(&'a self, input: J, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            match self.market.provider(Api::Spapi) {
                Ok(up) => J::step(&up, &self.market, input, job).await,
                Err(e) => failed(job, &e),
            }
        })
    }

    fn ended(&self, input: &J, job: &Job, outcome: &Outcome) -> Option<NewEvent> {
        Some(
            input
                .ended(job, outcome)
                .once(format!("job:{}:ended", job.id)),
        )
    }
}

fn failed(job: &Job, e: &Error) -> (Outcome, Vec<Item>) {
    (
        Outcome::Failed {
            state: job.state.clone(),
            error: e.api_envelope(None),
        },
        Vec::new(),
    )
}

/// A finished job's checkpoint, error and items done.
fn end<'o>(job: &Job, outcome: &'o Outcome) -> (&'o Value, Option<Value>, i64) {
    match outcome {
        Outcome::Failed { state, error } => (state, Some(error.clone()), job.done),
        Outcome::Succeeded { state, done } | Outcome::Continue { state, done, .. } => {
            (state, None, *done)
        }
    }
}

/// A paced pricing run: one batch per step; its end is `pricing.run.finished`.
impl Step for RunInput {
    async fn step(
        up: &Provider<'_>,
        _: &Marketplace,
        input: Self,
        job: &Job,
    ) -> (Outcome, Vec<Item>) {
        crate::pricing::step(up, input, job).await
    }

    fn ended(&self, job: &Job, outcome: &Outcome) -> NewEvent {
        let (_, error, done) = end(job, outcome);
        let status = if error.is_some() {
            "failed"
        } else {
            "succeeded"
        };
        NewEvent::of(&PricingRunFinished {
            subject: RunSubject {
                run_id: job.id.clone(),
                merchant: job.merchant.clone(),
            },
            data: PricingRunData {
                status: status.to_owned(),
                done,
                total: job.total,
                error,
            },
        })
    }
}

/// A selling-side report followed to its end: `report.done` or `report.fatal`.
impl Step for ReportWatch {
    async fn step(
        up: &Provider<'_>,
        market: &Marketplace,
        input: Self,
        job: &Job,
    ) -> (Outcome, Vec<Item>) {
        crate::reports::watch_step(up, input, job, market.settings.report_stuck_after).await
    }

    fn ended(&self, job: &Job, outcome: &Outcome) -> NewEvent {
        let (state, error, _) = end(job, outcome);
        let failed = error.is_some();
        let status = state["status"].as_str().unwrap_or("failed");
        let field = |k: &str| state.get(k).cloned().unwrap_or(Value::Null);
        NewEvent::of(&ReportTold {
            subject: ReportSubject {
                report_id: self.report_id.clone(),
                merchant: job.merchant.clone(),
            },
            data: ReportData {
                status: if failed { "failed" } else { status }.to_owned(),
                reason: field("reason"),
                report_type: field("reportType"),
                report_document_id: field("reportDocumentId"),
                error,
            },
        })
    }
}

/// A listing commit's image slots read until they show (or an issue appears):
/// `listing.image.checked`.
impl Step for CheckInput {
    async fn step(
        up: &Provider<'_>,
        _: &Marketplace,
        input: Self,
        job: &Job,
    ) -> (Outcome, Vec<Item>) {
        super::media::step(up, input, job).await
    }

    fn ended(&self, job: &Job, outcome: &Outcome) -> NewEvent {
        let (state, error, _) = end(job, outcome);
        let outcome = match error {
            Some(_) => "failed",
            None => state["status"].as_str().unwrap_or("failed"),
        };
        NewEvent::of(&ImageChecked {
            subject: ImageCheckSubject {
                change_set_id: self.change_set_id.clone(),
                merchant: job.merchant.clone(),
            },
            data: ImageCheckData {
                outcome: outcome.to_owned(),
                skus: state.get("skus").cloned().unwrap_or(Value::Null),
                error,
            },
        })
    }
}

fn registered<J: Step>(market: &Marketplace) -> Arc<dyn Handler> {
    pp_store::jobs::handler(Registered::<J> {
        market: market.clone(),
        kind: std::marker::PhantomData,
    })
}

/// The marketplace's job kinds, each stepping with (a clone of) `market`.
pub(super) fn handlers(market: &Marketplace) -> Vec<Arc<dyn Handler>> {
    vec![
        registered::<RunInput>(market),
        registered::<ReportWatch>(market),
        registered::<CheckInput>(market),
    ]
}
