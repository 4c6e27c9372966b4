//! Pricing batches (docs/reports-and-pricing.md, docs/limits.md): Featured Offer Expected Price by SKU (provider batches of 40,
//! 200 items inline) and Competitive Summary by ASIN (batches of 20, 100 inline), split and
//! paced. A run (up to [`RUN_MAX`] items) is a job: each step sends one batch and records its answers, so a
//! throttled batch waits and is sent again, and a restart resumes at the next unanswered batch.
//!
//! The pace is the provider's usage plan for the family's operation: its rate as the provider
//! last stated it (`x-amzn-RateLimit-Limit` on a batch's answer), else the catalog's, with 1%
//! to spare. An operator's configured spacing replaces it.

use std::time::Duration;

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::jobs::{Item, Job, Outcome, now_ms};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::catalog::{self, Operation};
use crate::merchants::{Merchant, Stored};
use crate::upstream::Provider;

/// The most items a `/start` run takes.
pub const RUN_MAX: usize = 20_000;

/// The two families.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PricingFamily {
    FeaturedOfferExpectedPrice,
    CompetitiveSummary,
}

impl PricingFamily {
    /// From its name in paths and tool arguments; anything else is `not_found`.
    pub fn parse(s: &str) -> Result<Self> {
        match s {
            "featured-offer-expected-price" => Ok(Self::FeaturedOfferExpectedPrice),
            "competitive-summary" => Ok(Self::CompetitiveSummary),
            _ => Err(Error::not_found(format!(
                "no pricing family '{s}': use competitive-summary or featured-offer-expected-price"
            ))),
        }
    }

    /// Its name in paths and tool arguments.
    pub fn name(self) -> &'static str {
        match self {
            Self::FeaturedOfferExpectedPrice => "featured-offer-expected-price",
            Self::CompetitiveSummary => "competitive-summary",
        }
    }

    pub fn batch(self) -> usize {
        match self {
            Self::FeaturedOfferExpectedPrice => 40,
            Self::CompetitiveSummary => 20,
        }
    }

    /// The synchronous endpoint's limit.
    pub fn sync_max(self) -> usize {
        match self {
            Self::FeaturedOfferExpectedPrice => 200,
            Self::CompetitiveSummary => 100,
        }
    }

    /// The field naming an item: `skus` or `asins` in our bodies, `sku` or `asin` upstream.
    pub fn field(self) -> (&'static str, &'static str) {
        match self {
            Self::FeaturedOfferExpectedPrice => ("skus", "sku"),
            Self::CompetitiveSummary => ("asins", "asin"),
        }
    }

    /// The pace between batches the usage plan allows: one batch per `1 / rate` seconds,
    /// `rate` being the provider's stated one when given, else the catalog's, with 1% to
    /// spare for clocks. Without either, the spec's conservative 35 s.
    pub fn plan_spacing(self, provider_rate: Option<f64>) -> Duration {
        let catalog = self.operation().ok().and_then(|op| op.rate);
        match provider_rate
            .or(catalog)
            .filter(|r| r.is_finite() && *r > 0.0)
        {
            Some(rate) => Duration::from_secs_f64(1.01 / rate),
            None => Duration::from_secs(35),
        }
    }

    fn operation(self) -> Result<&'static Operation> {
        let id = match self {
            Self::FeaturedOfferExpectedPrice => "pricing.get_featured_offer_expected_price_batch",
            Self::CompetitiveSummary => "pricing.get_competitive_summary",
        };
        catalog::find(catalog::spapi(), id)
            .ok_or_else(|| Error::internal(format!("{id} missing from the catalog")))
    }
}

/// The configured pace: one spacing for both families, or (none configured) each family's
/// usage plan.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spacing(pub Option<Duration>);

impl Spacing {
    /// The pace for `family`, given the rate the provider last stated.
    pub fn of(self, family: PricingFamily, provider_rate: Option<f64>) -> Duration {
        self.0.unwrap_or_else(|| family.plan_spacing(provider_rate))
    }
}

/// The request's item list: present, non-empty, well formed, de-duplicated (first wins).
pub fn items(family: PricingFamily, list: Option<&[Value]>, max: usize) -> Result<Vec<String>> {
    let (field, _) = family.field();
    let list = list.ok_or_else(|| {
        Error::invalid_request(format!("{field} must be a list of at least one item"))
    })?;
    let mut out: Vec<String> = Vec::with_capacity(list.len());
    for v in list {
        let s = v
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty() && s.len() <= 200)
            .ok_or_else(|| {
                Error::invalid_request(format!("every entry of {field} must be a non-empty string"))
            })?;
        if family == PricingFamily::CompetitiveSummary
            && !(s.len() == 10 && s.chars().all(|c| c.is_ascii_alphanumeric()))
        {
            return Err(Error::invalid_request(format!(
                "'{s}' is not an ASIN (10 letters and digits)"
            )));
        }
        if !out.iter().any(|o| o == s) {
            out.push(s.to_owned());
        }
    }
    if out.is_empty() {
        return Err(Error::invalid_request(format!(
            "{field} must hold at least one item"
        )));
    }
    if out.len() > max {
        return Err(Error::new(
            Kind::TooManyItems,
            format!("{} items is over this endpoint's limit of {max}", out.len()),
        )
        .with_field("max_items", max)
        .with_field("items_count", out.len())
        .with_fix(if max >= RUN_MAX {
            format!("Split the items into runs of at most {RUN_MAX} each.")
        } else {
            format!("Use the /start endpoint, which runs up to {RUN_MAX} items in the background.")
        }));
    }
    Ok(out)
}

fn batch_body(family: PricingFamily, marketplace_id: &str, batch: &[String]) -> Value {
    let requests: Vec<Value> = batch
        .iter()
        .map(|item| match family {
            PricingFamily::FeaturedOfferExpectedPrice => json!({
                "uri": "/products/pricing/2022-05-01/offer/featuredOfferExpectedPrice",
                "method": "GET", "marketplaceId": marketplace_id, "sku": item,
            }),
            PricingFamily::CompetitiveSummary => json!({
                "uri": "/products/pricing/2022-05-01/items/competitiveSummary",
                "method": "GET", "marketplaceId": marketplace_id, "asin": item,
                "includedData": ["featuredBuyingOptions", "referencePrices", "lowestPricedOffers"],
            }),
        })
        .collect();
    json!({ "requests": requests })
}

/// One provider batch's answers, one per item in order, as `{ <field>, status, body }`, and
/// the rate the provider stated for the operation.
pub struct Batch {
    pub answers: Vec<Value>,
    pub provider_rate: Option<f64>,
}

/// Sends one provider batch.
pub async fn send_batch(
    up: &Provider<'_>,
    tenant: &TenantId,
    merchant: &Merchant,
    family: PricingFamily,
    batch: &[String],
) -> Result<Batch> {
    let op = family.operation()?;
    let mut args = Map::new();
    args.insert(
        "body".into(),
        batch_body(family, &merchant.marketplace_id, batch),
    );
    let req = crate::calls::build(
        op,
        &args,
        tenant,
        crate::connections::GrantKind::Seller,
        &merchant.seller_id,
        Some(merchant),
    )?;
    let reply = up.client.send(up.store, up.sealer, &req).await?;
    let answers = reply.body["responses"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let (_, key) = family.field();
    let answers = batch
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let a = answers.get(i).cloned().unwrap_or(Value::Null);
            json!({ key: item, "status": a["status"]["statusCode"], "body": a["body"] })
        })
        .collect();
    Ok(Batch {
        answers,
        provider_rate: reply.rate_limit,
    })
}

/// What a run's job keeps as input.
#[derive(Debug, Serialize, Deserialize)]
pub struct RunInput {
    pub family: PricingFamily,
    pub merchant: Stored,
    pub items: Vec<String>,
    /// The pace when the run started.
    pub spacing_ms: u64,
    /// Whether the pace follows the provider's usage plan (and so its stated rate as the run
    /// goes), rather than an operator's fixed spacing. Runs stored before this was kept
    /// read as fixed.
    #[serde(default)]
    pub follows_plan: bool,
}

impl pp_store::jobs::BackgroundJob for RunInput {
    const KIND: &'static str = "pricing_run";

    fn merchant(&self) -> Option<String> {
        Some(self.merchant.seller_id.clone())
    }

    fn total(&self) -> i64 {
        self.items.len() as i64
    }
}

impl RunInput {
    /// The pace now: the plan at the provider's last stated rate, or the fixed spacing.
    pub fn spacing(&self, state: &RunState) -> Duration {
        if self.follows_plan {
            self.family.plan_spacing(state.provider_rate)
        } else {
            Duration::from_millis(self.spacing_ms)
        }
    }
}

/// The run's checkpoint (empty before the first step).
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct RunState {
    pub next_batch: usize,
    pub throttled: u32,
    pub retries: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
    /// The rate the provider last stated for the operation (requests per second).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_rate: Option<f64>,
}

/// Failures worth another try later (a provider outage), at most this often in a row.
const MAX_RETRIES: u32 = 5;

/// One step of a run: the next batch, answered and recorded, or waited for.
pub async fn step(up: &Provider<'_>, input: RunInput, job: &Job) -> (Outcome, Vec<Item>) {
    let mut state: RunState = match serde_json::from_value(job.state.clone()) {
        Ok(s) => s,
        Err(e) => {
            let err = Error::internal_with("pricing run checkpoint", e);
            return failed(RunState::default(), &err);
        }
    };
    let size = input.family.batch();
    let start = state.next_batch * size;
    let end = (start + size).min(input.items.len());
    if start >= end {
        let done = input.items.len() as i64;
        return (
            Outcome::Succeeded {
                state: to_value(&state),
                done,
            },
            Vec::new(),
        );
    }
    let tenant = match TenantId::parse(&job.tenant) {
        Ok(t) => t,
        Err(e) => return failed(state, &e),
    };
    let batch = &input.items[start..end];
    let merchant = Merchant::from(input.merchant.clone());
    match send_batch(up, &tenant, &merchant, input.family, batch).await {
        Ok(Batch {
            answers,
            provider_rate,
        }) => {
            if provider_rate.is_some() {
                state.provider_rate = provider_rate;
            }
            let items = answers
                .into_iter()
                .enumerate()
                .map(|(i, value)| Item {
                    seq: (start + i) as i64,
                    key: batch[i].clone(),
                    value,
                })
                .collect();
            state.next_batch += 1;
            state.retries = 0;
            state.waiting = None;
            let done = end as i64;
            let outcome = if end == input.items.len() {
                Outcome::Succeeded {
                    state: to_value(&state),
                    done,
                }
            } else {
                let run_after = now_ms() + input.spacing(&state).as_millis() as i64;
                Outcome::Continue {
                    state: to_value(&state),
                    done,
                    run_after,
                }
            };
            (outcome, items)
        }
        Err(e) if e.kind == Kind::Throttled => {
            let wait = e
                .field("retryAfter")
                .and_then(Value::as_i64)
                .unwrap_or(1)
                .max(1);
            state.throttled += 1;
            // the run waits out the longer of the provider's Retry-After and its own pace
            let wait_ms = (wait * 1000).max(input.spacing(&state).as_millis() as i64);
            state.waiting = Some(format!(
                "throttled; next try in {} s",
                (wait_ms + 999) / 1000
            ));
            let run_after = now_ms() + wait_ms;
            (
                Outcome::Continue {
                    state: to_value(&state),
                    done: start as i64,
                    run_after,
                },
                Vec::new(),
            )
        }
        Err(e) if e.retryable() && state.retries < MAX_RETRIES => {
            state.retries += 1;
            let wait = 1_000 * 2_i64.pow(state.retries);
            state.waiting = Some(format!("{}; next try in {} s", e.kind.code(), wait / 1000));
            (
                Outcome::Continue {
                    state: to_value(&state),
                    done: start as i64,
                    run_after: now_ms() + wait,
                },
                Vec::new(),
            )
        }
        Err(e) => failed(state, &e),
    }
}

fn to_value(s: &RunState) -> Value {
    serde_json::to_value(s).unwrap_or_default()
}

fn failed(state: RunState, e: &Error) -> (Outcome, Vec<Item>) {
    (
        Outcome::Failed {
            state: to_value(&state),
            error: e.api_envelope(None),
        },
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_checked_deduplicated_and_capped() {
        let f = PricingFamily::CompetitiveSummary;
        let body = |v: Value| v.as_array().unwrap().clone();
        let ok = items(
            f,
            Some(&body(json!(["B000000001", "B000000002", "B000000001"]))),
            100,
        )
        .unwrap();
        assert_eq!(ok, ["B000000001", "B000000002"]);
        assert!(items(f, Some(&[]), 100).is_err());
        assert!(items(f, None, 100).is_err());
        assert!(items(f, Some(&body(json!(["nope"]))), 100).is_err());
        let many: Vec<String> = (0..101).map(|i| format!("B{i:09}")).collect();
        let e = items(f, Some(&body(json!(many))), 100).unwrap_err();
        assert_eq!(e.kind, Kind::TooManyItems);
        assert_eq!(e.field("items_count"), Some(&json!(101)));
        let fix = |e: &Error| e.api_envelope(None)["fix"].as_str().unwrap().to_owned();
        assert!(fix(&e).contains("/start"), "{}", fix(&e));
        // a run's own cap does not send the caller to the run endpoint again
        let over: Vec<String> = (0..=RUN_MAX).map(|i| format!("B{i:09}")).collect();
        let e = items(f, Some(&body(json!(over))), RUN_MAX).unwrap_err();
        assert!(
            fix(&e).contains("Split") && !fix(&e).contains("/start"),
            "{}",
            fix(&e)
        );
        let skus = items(
            PricingFamily::FeaturedOfferExpectedPrice,
            Some(&body(json!(["a b"]))),
            200,
        );
        assert_eq!(skus.unwrap(), ["a b"]);
    }

    #[test]
    fn batches_follow_the_provider_sizes() {
        let b = batch_body(
            PricingFamily::CompetitiveSummary,
            "M",
            &vec!["A".to_owned(); 3],
        );
        assert_eq!(b["requests"].as_array().unwrap().len(), 3);
        assert_eq!(b["requests"][0]["marketplaceId"], "M");
        assert_eq!(PricingFamily::CompetitiveSummary.batch(), 20);
        assert_eq!(PricingFamily::FeaturedOfferExpectedPrice.batch(), 40);
    }
}
