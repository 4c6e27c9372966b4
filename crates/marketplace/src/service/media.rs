//! The image check after a listing commit (docs/writes.md): the provider applies image slots
//! asynchronously, so a committed change set that sets images starts a job that reads each
//! listing again until every slot shows its new image and no new listing issue appeared
//! (`verified`), a new issue appeared (`failed`, with the issues), or the wait ran out
//! (`timed_out`). The change set's read shows the job's outcome.

use pp_core::{Error, Principal, Result, TenantId};
use pp_store::jobs::{BackgroundJob, Item, Job, Outcome, now_ms};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::Marketplace;
use super::listing_reads::read_listing;
use crate::merchants::{Merchant, Stored};
use crate::upstream::Provider;
use crate::writes::listings::SkuChange;

/// What the check looks for on one SKU.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Slots {
    sku: String,
    /// The image slots and the values the commit sent.
    slots: Map<String, Value>,
    /// The listing's issue codes at preview.
    issues_before: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckInput {
    pub(super) change_set_id: String,
    merchant: Stored,
    skus: Vec<Slots>,
    poll_ms: u64,
    deadline_ms: i64,
}

impl BackgroundJob for CheckInput {
    const KIND: &'static str = "listing_media_check";

    fn merchant(&self) -> Option<String> {
        Some(self.merchant.seller_id.clone())
    }

    fn total(&self) -> i64 {
        self.skus.len() as i64
    }
}

/// The check's checkpoint: one entry per SKU once decided.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct CheckState {
    status: String,
    skus: Vec<Value>,
    reads: u32,
    last_error: Option<Value>,
}

/// The image locations of an attribute's values, as the check compares them.
fn locations(v: &Value) -> Vec<String> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| x["media_location"].as_str().map(str::to_owned))
        .collect()
}

/// Starts the image check of a commit's SKUs; the job's id.
pub(super) async fn start(
    market: &Marketplace,
    p: &Principal,
    m: &Merchant,
    change_set_id: &str,
    skus: &[&SkuChange],
) -> Result<String> {
    let cfg = &market.settings.listings;
    let input = CheckInput {
        change_set_id: change_set_id.to_owned(),
        merchant: m.into(),
        skus: skus
            .iter()
            .map(|s| Slots {
                sku: s.sku.clone(),
                slots: s.media(),
                issues_before: s.issues_before.clone(),
            })
            .collect(),
        poll_ms: cfg.media_poll.as_millis() as u64,
        deadline_ms: now_ms() + cfg.media_verify_for.as_millis() as i64,
    };
    market.enqueue(p, &input).await
}

/// The image check's outcome so far.
pub(super) async fn outcome(market: &Marketplace, p: &Principal, job_id: &str) -> Result<Value> {
    let job = market
        .store
        .jobs()
        .get(&p.tenant, job_id)
        .await?
        .ok_or_else(|| Error::internal(format!("image check {job_id} is missing")))?;
    let state: CheckState = serde_json::from_value(job.state.clone())
        .map_err(|e| Error::internal_with(format!("image check {job_id}'s checkpoint"), e))?;
    let status = match (job.status.terminal(), state.status.as_str()) {
        (false, _) | (true, "") => "verifying".to_owned(),
        (true, s) => s.to_owned(),
    };
    Ok(json!({
        "jobId": job.id, "status": status, "skus": state.skus, "reads": state.reads,
        "lastError": state.last_error, "checkedAt": job.updated_at,
    }))
}

/// The step's end when the job itself cannot be read: a stored value that no longer parses
/// is a failure, never a default.
fn failed(job: &Job, e: &Error) -> (Outcome, Vec<Item>) {
    (
        Outcome::Failed {
            state: job.state.clone(),
            error: e.api_envelope(None),
        },
        Vec::new(),
    )
}

/// One look at every undecided SKU.
pub(super) async fn step(up: &Provider<'_>, input: CheckInput, job: &Job) -> (Outcome, Vec<Item>) {
    let read = || -> Result<(CheckState, TenantId)> {
        let state = serde_json::from_value(job.state.clone())
            .map_err(|e| Error::internal_with("image check checkpoint", e))?;
        Ok((state, TenantId::parse(&job.tenant)?))
    };
    let (mut state, tenant) = match read() {
        Ok(r) => r,
        Err(e) => return failed(job, &e),
    };
    let merchant = Merchant::from(input.merchant.clone());
    state.reads += 1;
    for s in &input.skus {
        if state.skus.iter().any(|d| d["sku"] == s.sku.as_str()) {
            continue;
        }
        match read_listing(up, &tenant, &merchant, &s.sku).await {
            Ok(Some(l)) => {
                let new: Vec<Value> = l
                    .issues
                    .iter()
                    .filter(|i| {
                        !i["code"]
                            .as_str()
                            .is_some_and(|c| s.issues_before.iter().any(|b| b == c))
                    })
                    .cloned()
                    .collect();
                let shown = s
                    .slots
                    .iter()
                    .all(|(name, v)| locations(&l.attributes[name.as_str()]) == locations(v));
                if !new.is_empty() {
                    state
                        .skus
                        .push(json!({ "sku": s.sku, "status": "failed", "issues": new }));
                } else if shown {
                    state.skus.push(json!({ "sku": s.sku, "status": "verified", "slots": s.slots.keys().collect::<Vec<_>>() }));
                }
            }
            Ok(None) => {
                state.skus.push(json!({ "sku": s.sku, "status": "failed", "issues": [{ "code": "sku_not_found", "message": "the listing is gone" }] }));
            }
            Err(e) => state.last_error = Some(e.api_envelope(None)),
        }
    }
    let done = state.skus.len() as i64;
    if state.skus.len() == input.skus.len() {
        let failed = state.skus.iter().any(|d| d["status"] == "failed");
        state.status = if failed { "failed" } else { "verified" }.into();
        return (
            Outcome::Succeeded {
                state: json!(state),
                done,
            },
            Vec::new(),
        );
    }
    if now_ms() >= input.deadline_ms {
        for s in &input.skus {
            if !state.skus.iter().any(|d| d["sku"] == s.sku.as_str()) {
                state
                    .skus
                    .push(json!({ "sku": s.sku, "status": "timed_out" }));
            }
        }
        state.status = "timed_out".into();
        return (
            Outcome::Succeeded {
                state: json!(state),
                done,
            },
            Vec::new(),
        );
    }
    state.status = "verifying".into();
    (
        Outcome::Continue {
            state: json!(state),
            done,
            run_after: now_ms() + input.poll_ms as i64,
        },
        Vec::new(),
    )
}
