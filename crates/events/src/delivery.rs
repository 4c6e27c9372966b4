//! The `webhook_delivery` job: one event to one endpoint. Each step is one attempt: the event's
//! JSON (as the feed shows it) POSTed with the Standard Webhooks headers, the address checked by
//! the guard on the way. A 2xx ends it delivered; anything else is recorded (status or the
//! reason in words) and tried again after a wait that doubles from the first retry up to the
//! longest gap, until the retry period since the delivery was made has passed: then it is
//! failed, and an endpoint whose every attempt has failed for the disable period is disabled,
//! with a `webhook.endpoint.disabled` event. A step that runs again after its attempt was
//! recorded (a worker died between the two writes) finds the delivery settled and stops.

use std::time::{Duration, Instant};

use pp_core::events::payloads::{EndpointDisabled, EndpointDisabledData, EndpointSubject};
use pp_core::{Error, Result, TenantId};
use pp_store::events::NewEvent;
use pp_store::jobs::{Job, Outcome, StepFuture, Steps, now_ms};
use pp_store::webhooks::{Attempt, DeliveryJob, DeliveryRow, DeliveryStatus, EndpointRow};
use serde_json::json;

use crate::feed::EventOut;
use crate::{Events, signing};

/// Steps each [`DeliveryJob`].
pub struct Delivery {
    events: Events,
    /// What every attempt goes through (or why it could not be built).
    sender: std::result::Result<crate::sender::Sender, String>,
}

impl Delivery {
    pub(crate) fn new(events: Events) -> Self {
        let sender = crate::sender::Sender::new(
            events.guard.clone(),
            events.settings.timeout,
            events.settings.proxy.as_deref(),
        );
        Self { events, sender }
    }

    /// How long to wait after attempt `n` (1-based) failed.
    fn backoff(&self, n: i64) -> Duration {
        let s = &self.events.settings;
        let doubled = s
            .first_retry
            .saturating_mul(1u32 << (n - 1).clamp(0, 30) as u32);
        doubled.min(s.max_retry_gap)
    }

    async fn run(&self, input: &DeliveryJob, job: &Job) -> Result<Outcome> {
        let store = &self.events.store;
        let Some(d) = store.webhooks().delivery(&input.delivery).await? else {
            return Ok(failed(job, "the delivery is gone"));
        };
        if d.status != DeliveryStatus::Pending {
            return Ok(done(job));
        }
        let endpoint = store.webhooks().endpoint(&d.endpoint_id).await?;
        let endpoint = match endpoint {
            Some(e) if e.enabled => e,
            gone => {
                let why = match gone {
                    None => "the endpoint was removed",
                    Some(_) => "the endpoint is disabled",
                };
                // ended without an attempt: recorded as one that failed, for the log
                self.record(&d, None, Some(why), 0, DeliveryStatus::Failed)
                    .await?;
                return Ok(failed(job, why));
            }
        };
        let event = store
            .events()
            .by_id(&d.event_id)
            .await?
            .ok_or_else(|| Error::internal(format!("delivery {} names no event", d.id)))?;
        let body = serde_json::to_vec(&EventOut::from(&event)).map_err(Error::internal_from)?;
        let started = Instant::now();
        let answer = self.send(&endpoint, &event.id, body).await;
        let took = started.elapsed().as_millis() as i64;
        match answer {
            Ok(status) if (200..300).contains(&status) => {
                // sent: a store that fails to record it now would have it sent again, so the
                // record is tried a few times before the step gives up
                let mut tries = 0;
                loop {
                    let recorded = self
                        .record(&d, Some(status), None, took, DeliveryStatus::Delivered)
                        .await;
                    match recorded {
                        Ok(_) => break,
                        Err(e) if tries < 4 => {
                            tries += 1;
                            tracing::warn!(delivery = %d.id, error = %e.message(), "recording a delivery failed; trying again");
                            tokio::time::sleep(Duration::from_millis(250 * tries)).await;
                        }
                        Err(e) => return Err(e),
                    }
                }
                Ok(done(job))
            }
            other => {
                let (status, why) = match other {
                    Ok(status) => (Some(status), format!("the endpoint answered HTTP {status}")),
                    Err(why) => (None, why),
                };
                self.retry_or_give_up(job, &d, &endpoint, status, why, took)
                    .await
            }
        }
    }

    /// One POST; the status, or why none came back.
    async fn send(
        &self,
        endpoint: &EndpointRow,
        id: &str,
        body: Vec<u8>,
    ) -> std::result::Result<i64, String> {
        let url = reqwest::Url::parse(&endpoint.url).map_err(|e| format!("url: {e}"))?;
        let secrets = self.secrets(endpoint).map_err(|e| e.message().to_owned())?;
        let headers = signing::headers(id, chrono::Utc::now().timestamp(), &body, &secrets)
            .map_err(|e| e.message().to_owned())?;
        let sender = self.sender.as_ref().map_err(Clone::clone)?;
        sender.post(url, headers, body).await
    }

    /// The secrets that sign now: the current one, and the previous one in its grace period.
    fn secrets(&self, e: &EndpointRow) -> Result<Vec<String>> {
        let sealer = self.events.sealer()?;
        let context = crate::endpoints::sealing_context(&e.tenant, &e.id);
        let mut out = vec![sealer.open(&context, &e.secret)?];
        if let (Some(old), Some(until)) = (&e.previous_secret, e.previous_until_ms)
            && until > now_ms()
        {
            out.push(sealer.open(&context, old)?);
        }
        Ok(out)
    }

    async fn retry_or_give_up(
        &self,
        job: &Job,
        d: &DeliveryRow,
        endpoint: &EndpointRow,
        status: Option<i64>,
        why: String,
        took: i64,
    ) -> Result<Outcome> {
        let s = &self.events.settings;
        let wait = self.backoff(d.attempts + 1);
        let now = now_ms();
        let deadline = d.created_ms + s.retry_for.as_millis() as i64;
        let give_up = now + wait.as_millis() as i64 > deadline;
        let next = if give_up {
            DeliveryStatus::Failed
        } else {
            DeliveryStatus::Pending
        };
        let failing_since = self.record(d, status, Some(&why), took, next).await?;
        if failing_since.is_some_and(|since| now - since >= s.disable_after.as_millis() as i64) {
            self.disable(endpoint, &why).await?;
        }
        if give_up {
            return Ok(failed(
                job,
                &format!("gave up after {} attempts: {why}", d.attempts + 1),
            ));
        }
        Ok(Outcome::Continue {
            state: json!({"lastError": why}),
            done: 0,
            run_after: now + wait.as_millis() as i64,
        })
    }

    /// Disables the endpoint once, with an event saying so.
    async fn disable(&self, endpoint: &EndpointRow, why: &str) -> Result<()> {
        let days = self.events.settings.disable_after.as_secs_f64() / 86400.0;
        let reason = format!("every delivery failed for {days:.1} days; last: {why}");
        if self
            .events
            .store
            .webhooks()
            .disable(&endpoint.id, &reason)
            .await?
        {
            let tenant = TenantId::parse(&endpoint.tenant)?;
            self.events
                .store
                .events()
                .append(
                    &tenant,
                    NewEvent::of(&EndpointDisabled {
                        subject: EndpointSubject {
                            endpoint_id: endpoint.id.clone(),
                        },
                        data: EndpointDisabledData {
                            url: endpoint.url.clone(),
                            reason: reason.to_owned(),
                            by: None,
                        },
                    }),
                )
                .await?;
            tracing::warn!(endpoint = %endpoint.id, tenant = %endpoint.tenant, "webhook endpoint disabled after failing");
        }
        Ok(())
    }

    async fn record(
        &self,
        d: &DeliveryRow,
        status: Option<i64>,
        error: Option<&str>,
        took: i64,
        next: DeliveryStatus,
    ) -> Result<Option<i64>> {
        let attempt = Attempt {
            at_ms: now_ms(),
            status,
            error: error.map(str::to_owned),
            duration_ms: took,
        };
        self.events.store.webhooks().record(d, attempt, next).await
    }
}

fn done(job: &Job) -> Outcome {
    Outcome::Succeeded {
        state: job.state.clone(),
        done: 1,
    }
}

fn failed(job: &Job, why: &str) -> Outcome {
    Outcome::Failed {
        state: job.state.clone(),
        error: json!({"ok": false, "kind": "delivery_failed", "message": why}),
    }
}

impl Steps for Delivery {
    type Job = DeliveryJob;

    fn deadline(&self) -> Option<Duration> {
        Some(self.events.settings.timeout + Duration::from_secs(10))
    }

    fn step<'a>(&'a self, input: DeliveryJob, job: &'a Job) -> StepFuture<'a> {
        Box::pin(async move {
            match self.run(&input, job).await {
                Ok(outcome) => (outcome, Vec::new()),
                // a store failure is tried again at the first retry's pace
                Err(e) => {
                    tracing::warn!(job = %job.id, error = %e.message(), "webhook delivery step failed");
                    (
                        Outcome::Continue {
                            state: job.state.clone(),
                            done: 0,
                            run_after: now_ms()
                                + self.events.settings.first_retry.as_millis() as i64,
                        },
                        Vec::new(),
                    )
                }
            }
        })
    }
}
