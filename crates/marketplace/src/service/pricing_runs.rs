//! Pricing (docs/reports-and-pricing.md): inline batches answered in one response up to the family's limit, and runs
//! of up to 20,000 items as jobs — started, polled, cancelled and read in pages, partial while they run.

use std::time::Duration;

use pp_core::{Error, Kind, Principal, Result};
use pp_store::jobs::{BackgroundJob, Job, JobStatus, now_ms};
use serde_json::Value;

use super::answers::{PricingAnswer, RunBatches, RunMerchant, RunResult, RunView};
use super::requests::{PageSize, PricingRequest, ResultPage};
use super::{Api, Marketplace};
use crate::merchants::Merchant;
use crate::pricing::{self, PricingFamily, RunInput, RunState};
use crate::upstream::Provider;

/// The longest a throttled inline batch waits (twice at most) before the call gives up.
const INLINE_WAIT_MAX: u64 = 60;
/// A REST page of a run's answers: 1,000 unless asked, 5,000 at most.
pub const REST_RESULT_PAGE: PageSize = PageSize {
    default: 1_000,
    max: 5_000,
};

/// One inline batch; a throttled batch waits out its `Retry-After` (the caller is already
/// holding for the pace) rather than losing the batches answered before it.
async fn send_waiting(
    up: &Provider<'_>,
    p: &Principal,
    merchant: &Merchant,
    f: PricingFamily,
    batch: &[String],
) -> Result<pricing::Batch> {
    let mut waited = 0;
    loop {
        match pricing::send_batch(up, &p.tenant, merchant, f, batch).await {
            Err(e) if e.kind == Kind::Throttled && waited < 2 => {
                let wait = e.field("retryAfter").and_then(Value::as_u64).unwrap_or(1);
                if wait > INLINE_WAIT_MAX {
                    return Err(e);
                }
                waited += 1;
                tokio::time::sleep(Duration::from_secs(wait)).await;
            }
            other => return other,
        }
    }
}

/// A run as its poll shows it.
fn view(job: &Job) -> Result<RunView> {
    let input: RunInput = serde_json::from_value(job.input.clone())
        .map_err(|e| Error::internal_with(format!("pricing run {} input", job.id), e))?;
    let state: RunState = serde_json::from_value(job.state.clone())
        .map_err(|e| Error::internal_with(format!("pricing run {} state", job.id), e))?;
    let size = input.family.batch();
    let batches = (job.total + size as i64 - 1) / size as i64;
    let left = batches - state.next_batch as i64;
    let terminal = job.status.terminal();
    let spacing = input.spacing(&state);
    let eta_ms = if terminal || left <= 0 {
        0
    } else {
        (job.run_after - now_ms()).max(0) + (left - 1) * spacing.as_millis() as i64
    };
    Ok(RunView {
        run_id: job.id.clone(),
        family: input.family.name(),
        status: job.status,
        merchant: RunMerchant {
            seller_id: input.merchant.seller_id,
            legacy_seller_id: input.merchant.legacy_seller_id,
            marketplace: input.merchant.marketplace,
        },
        done: job.done,
        total: job.total,
        batches: RunBatches {
            done: state.next_batch,
            total: batches,
            size,
        },
        spacing_seconds: spacing.as_millis() as f64 / 1000.0,
        estimated_seconds_left: (eta_ms + 999) / 1000,
        throttled_batches: state.throttled,
        created_at: job.created_at.clone(),
        updated_at: job.updated_at.clone(),
        finished_at: job.finished_at.clone(),
        waiting: state.waiting.filter(|_| !terminal),
        error: job.error.clone(),
    })
}

/// Pricing reads and paced runs for one principal holding `retail:read`
/// (`Marketplace::pricing`).
pub struct Pricing<'a> {
    pub(super) m: &'a Marketplace,
    pub(super) p: &'a Principal,
}

impl Pricing<'_> {
    /// The request's merchant and items, checked before anything is sent.
    async fn pricing_items(
        &self,
        f: PricingFamily,
        req: &PricingRequest,
        max: usize,
    ) -> Result<(Merchant, Vec<String>)> {
        let p = self.p;
        let (list, other, other_name) = match f {
            PricingFamily::CompetitiveSummary => (&req.asins, &req.skus, "skus"),
            PricingFamily::FeaturedOfferExpectedPrice => (&req.skus, &req.asins, "asins"),
        };
        if other.is_some() {
            return Err(Error::invalid_request(format!(
                "'{other_name}' is not a field of {} (it takes the merchant selector and {})",
                f.name(),
                f.field().0
            )));
        }
        let items = pricing::items(f, list.as_deref(), max)?;
        self.m.provider(Api::Spapi)?;
        Ok((self.m.resolve(p, &req.selector()?).await?, items))
    }

    /// Every batch sent in turn, paced, answered in one response (`retail:read`).
    pub async fn price_inline(
        &self,
        f: PricingFamily,
        req: PricingRequest,
    ) -> Result<PricingAnswer> {
        let p = self.p;
        let (merchant, items) = self.pricing_items(f, &req, f.sync_max()).await?;
        let up = self.m.provider(Api::Spapi)?;
        let mut answers = Vec::with_capacity(items.len());
        let mut provider_rate = None;
        for (i, batch) in items.chunks(f.batch()).enumerate() {
            if i > 0 {
                let pace = self.m.settings.pricing_spacing.of(f, provider_rate);
                tokio::time::sleep(pace).await;
            }
            let sent = send_waiting(&up, p, &merchant, f, batch).await?;
            provider_rate = sent.provider_rate.or(provider_rate);
            answers.extend(sent.answers);
        }
        Ok(PricingAnswer {
            family: f.name(),
            merchant,
            total: items.len(),
            batches: items.len().div_ceil(f.batch()),
            items: answers,
        })
    }

    /// Starts a background run of up to `RUN_MAX` items (`retail:read`); its first view.
    pub async fn start(&self, f: PricingFamily, req: PricingRequest) -> Result<RunView> {
        let p = self.p;
        let (merchant, items) = self.pricing_items(f, &req, pricing::RUN_MAX).await?;
        let input = RunInput {
            family: f,
            merchant: (&merchant).into(),
            spacing_ms: self.m.settings.pricing_spacing.of(f, None).as_millis() as u64,
            follows_plan: self.m.settings.pricing_spacing.0.is_none(),
            items,
        };
        let id = self.m.enqueue(p, &input).await?;
        view(&self.own_run(&id).await?)
    }

    async fn own_run(&self, id: &str) -> Result<Job> {
        let p = self.p;
        self.m
            .store
            .jobs()
            .get(&p.tenant, id)
            .await?
            .filter(|j| j.kind == RunInput::KIND)
            .ok_or_else(|| Error::not_found(format!("no pricing run {id}")))
    }

    /// A run's view (`retail:read`).
    pub async fn run(&self, id: &str) -> Result<RunView> {
        view(&self.own_run(id).await?)
    }

    /// A run's answers so far, in input order (`retail:read`).
    pub async fn result(&self, id: &str, page: &ResultPage, size: PageSize) -> Result<RunResult> {
        let (offset, limit) = page.read(size)?;
        let job = self.own_run(id).await?;
        let all = self.m.store.jobs().items(&job.id).await?;
        let answered = all.len();
        let items = all
            .into_iter()
            .skip(offset)
            .take(limit)
            .map(|(_, v)| v)
            .collect();
        let next = offset.saturating_add(limit);
        Ok(RunResult {
            run_id: job.id,
            status: job.status,
            complete: job.status == JobStatus::Succeeded,
            total: job.total,
            answered,
            items,
            next_offset: (next < answered).then_some(next),
        })
    }

    /// Cancels an unfinished run (`retail:read`, like starting one); answered items stay.
    pub async fn cancel(&self, id: &str) -> Result<RunView> {
        let p = self.p;
        let job = self.own_run(id).await?;
        if !self.m.store.jobs().cancel(&p.tenant, &job.id).await? {
            return Err(Error::new(
                Kind::Conflict,
                format!("run {id} already ended ({})", job.status.as_str()),
            )
            .with_field("status", job.status.as_str()));
        }
        self.run(id).await
    }
}
