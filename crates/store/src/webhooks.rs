//! Webhook endpoints and their deliveries. An endpoint is a tenant's URL with the event types it
//! wants and its signing secret, kept sealed (the service seals and opens it; the store never
//! sees it in the clear), with the previous secret kept until its grace period ends. A delivery
//! is one event sent to one endpoint by one job (`webhook_delivery`): made with the event
//! (`events::append_in`) or by a replay, each attempt recorded, its state the log shows.

use pp_core::{Error, Result, TenantId};
use serde_json::Value;

use crate::approvals::Whose;
use crate::args;
use crate::db::{Db, Row, Tx};
use crate::events::NewEvent;
use crate::jobs::{BackgroundJob, NewJob, now_ms};
use pp_core::events::payloads::{EndpointDisabled, EndpointDisabledData, EndpointSubject};

/// The job that delivers one event to one endpoint (`pp-events` steps it).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct DeliveryJob {
    /// The delivery it makes.
    pub delivery: String,
    pub endpoint: String,
    pub event: String,
}

impl BackgroundJob for DeliveryJob {
    const KIND: &'static str = "webhook_delivery";
}

/// An endpoint as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct EndpointRow {
    pub id: String,
    pub tenant: String,
    pub url: String,
    pub description: String,
    /// Type patterns (`pp_core::events::matches`).
    pub types: Vec<String>,
    /// The signing secret, sealed.
    pub secret: Vec<u8>,
    /// The secret before the last rotation, sealed, and until when it still signs.
    pub previous_secret: Option<Vec<u8>>,
    pub previous_until_ms: Option<i64>,
    pub enabled: bool,
    pub disabled_reason: Option<String>,
    /// Since when every attempt has failed (cleared by a success).
    pub failing_since_ms: Option<i64>,
    pub created_by: String,
    /// The credential (or a person's grant) it was registered with; `None` when a console
    /// admin or the operator registered it. Ending that access disables it.
    pub credential_id: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
}

/// An endpoint to register.
#[derive(Debug, Clone)]
pub struct NewEndpoint {
    /// `we_…`, made by the service (its secret is sealed bound to it).
    pub id: String,
    pub url: String,
    pub description: String,
    pub types: Vec<String>,
    pub secret: Vec<u8>,
    pub created_by: String,
    /// The credential or grant of the token that registered it (none from the console).
    pub credential_id: Option<String>,
}

/// A delivery's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    /// Waiting for its first or next attempt.
    Pending,
    /// The endpoint answered 2xx.
    Delivered,
    /// Given up: retried for the whole retry period, refused, or its endpoint disabled.
    Failed,
}

pp_core::spelled!(DeliveryStatus, "delivery status", Pending => "pending",
    Delivered => "delivered", Failed => "failed");

/// A delivery as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct DeliveryRow {
    pub id: String,
    pub tenant: String,
    pub endpoint_id: String,
    pub event_id: String,
    pub job_id: String,
    /// The delivery this one repeats (a manual replay).
    pub replay_of: Option<String>,
    pub status: DeliveryStatus,
    pub attempts: i64,
    pub last_status: Option<i64>,
    pub last_error: Option<String>,
    pub last_attempt_ms: Option<i64>,
    pub delivered_ms: Option<i64>,
    pub created_ms: i64,
}

/// One attempt of a delivery.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    pub at_ms: i64,
    /// The endpoint's HTTP status, if it answered.
    pub status: Option<i64>,
    /// Why it failed, in words (never a secret).
    pub error: Option<String>,
    pub duration_ms: i64,
}

const ENDPOINT: &str = "id, tenant_id, url, description, types, secret, previous_secret, previous_until_ms, enabled, disabled_reason, failing_since_ms, created_by, created_ms, updated_ms, credential_id";
const DELIVERY: &str = "id, tenant_id, endpoint_id, event_id, job_id, replay_of, status, attempts, last_status, last_error, last_attempt_ms, delivered_ms, created_ms";

fn endpoint(r: &Row) -> Result<EndpointRow> {
    let types: Vec<String> = serde_json::from_value(r.json(4)?)
        .map_err(|e| Error::internal(format!("webhook endpoint types: {e}")))?;
    Ok(EndpointRow {
        id: r.text(0)?,
        tenant: r.text(1)?,
        url: r.text(2)?,
        description: r.text(3)?,
        types,
        secret: r.blob(5)?,
        previous_secret: r.opt_blob(6)?,
        previous_until_ms: r.opt_i64(7)?,
        enabled: r.i64(8)? != 0,
        disabled_reason: r.opt_text(9)?,
        failing_since_ms: r.opt_i64(10)?,
        created_by: r.text(11)?,
        created_ms: r.i64(12)?,
        updated_ms: r.i64(13)?,
        credential_id: r.opt_text(14)?,
    })
}

fn delivery(r: &Row) -> Result<DeliveryRow> {
    Ok(DeliveryRow {
        id: r.text(0)?,
        tenant: r.text(1)?,
        endpoint_id: r.text(2)?,
        event_id: r.text(3)?,
        job_id: r.text(4)?,
        replay_of: r.opt_text(5)?,
        status: DeliveryStatus::parse(&r.text(6)?)?,
        attempts: r.i64(7)?,
        last_status: r.opt_i64(8)?,
        last_error: r.opt_text(9)?,
        last_attempt_ms: r.opt_i64(10)?,
        delivered_ms: r.opt_i64(11)?,
        created_ms: r.i64(12)?,
    })
}

/// The tenant's enabled endpoints that want events of type `name` (inside the event's
/// transaction).
pub(crate) async fn wanting(tx: &mut Tx, tenant: &str, name: &str) -> Result<Vec<EndpointRow>> {
    let rows = tx
        .all(
            format!("SELECT {ENDPOINT} FROM webhook_endpoints WHERE tenant_id = ?1 AND enabled = 1 ORDER BY id"),
            args![tenant],
        )
        .await?;
    let mut out = Vec::new();
    for r in &rows {
        let e = endpoint(r)?;
        if e.types.iter().any(|p| pp_core::events::matches(p, name)) {
            out.push(e);
        }
    }
    Ok(out)
}

/// Makes a delivery of `event` to each of `endpoints` and its job, inside `tx`, a hundred rows
/// to a statement (an event for a hundred endpoints is two statements, not two hundred).
pub(crate) async fn deliver_all_in(
    tx: &mut Tx,
    tenant: &str,
    endpoints: &[EndpointRow],
    event: &str,
) -> Result<()> {
    let (mut jobs, mut ids) = (Vec::new(), Vec::new());
    for endpoint in endpoints {
        let id = crate::random_id("dlv_", 12)?;
        let job = DeliveryJob {
            delivery: id.clone(),
            endpoint: endpoint.id.clone(),
            event: event.to_owned(),
        };
        jobs.push(job.new_job()?);
        ids.push((id, endpoint));
    }
    if jobs.is_empty() {
        return Ok(());
    }
    let job_ids = NewJob::insert_all_in(tx, tenant, &jobs).await?;
    let now = now_ms();
    let deliveries = ids
        .iter()
        .zip(&job_ids)
        .map(|((id, endpoint), job)| {
            args![
                id,
                tenant,
                endpoint.id.as_str(),
                event,
                job,
                "pending",
                0_i64,
                now
            ]
        })
        .collect();
    tx.insert_rows(
        "INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, job_id, status, attempts, created_ms)",
        "",
        deliveries,
    )
    .await
}

/// Makes a delivery of `event` to `endpoint` and its job, inside `tx`; the delivery's id.
pub(crate) async fn deliver_in(
    tx: &mut Tx,
    tenant: &str,
    endpoint: &EndpointRow,
    event: &str,
    replay_of: Option<&str>,
) -> Result<String> {
    let id = crate::random_id("dlv_", 12)?;
    let job = DeliveryJob {
        delivery: id.clone(),
        endpoint: endpoint.id.clone(),
        event: event.to_owned(),
    }
    .enqueue_in(tx, tenant)
    .await?;
    tx.exec(
        "INSERT INTO webhook_deliveries (id, tenant_id, endpoint_id, event_id, job_id, replay_of, status, attempts, created_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', 0, ?7)",
        args![&id, tenant, endpoint.id.as_str(), event, job, replay_of, now_ms()],
    )
    .await?;
    Ok(id)
}

/// The webhooks aggregate.
pub struct Webhooks<'a>(pub(crate) &'a Db);

impl Webhooks<'_> {
    /// Registers an endpoint (enabled), unless the tenant already has `max`; the stored row,
    /// or `None` when it has as many as that.
    pub async fn create(
        &self,
        tenant: &TenantId,
        e: NewEndpoint,
        max: i64,
    ) -> Result<Option<EndpointRow>> {
        let tenant = tenant.as_str().to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    // two registrations at once cannot both take the last place
                    tx.advisory_lock(&format!("webhooks/{tenant}")).await?;
                    let n = tx
                        .one(
                            "SELECT count(*) FROM webhook_endpoints WHERE tenant_id = ?1",
                            args![&tenant],
                        )
                        .await?
                        .map(|r| r.i64(0))
                        .transpose()?
                        .unwrap_or(0);
                    if n >= max {
                        return Ok(None);
                    }
                    let now = now_ms();
                    let row = tx
                        .one(
                            format!(
                                "INSERT INTO webhook_endpoints (id, tenant_id, url, description, types, secret, enabled, created_by, created_ms, updated_ms, credential_id)
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7, ?8, ?8, ?9) RETURNING {ENDPOINT}"
                            ),
                            args![
                                e.id,
                                &tenant,
                                e.url,
                                e.description,
                                Value::from(e.types).to_string(),
                                e.secret,
                                e.created_by,
                                now,
                                e.credential_id
                            ],
                        )
                        .await?
                        .ok_or_else(|| Error::internal("an endpoint insert returned no row"))?;
                    endpoint(&row).map(Some)
                })
            })
            .await
    }

    /// The tenant's endpoints, oldest first.
    pub async fn list(&self, tenant: &TenantId) -> Result<Vec<EndpointRow>> {
        self.0
            .all(
                format!("SELECT {ENDPOINT} FROM webhook_endpoints WHERE tenant_id = ?1 ORDER BY created_ms, id"),
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(endpoint)
            .collect()
    }

    /// One of the tenant's endpoints (`None` for none, or another tenant's).
    pub async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<EndpointRow>> {
        self.0
            .one(
                format!(
                    "SELECT {ENDPOINT} FROM webhook_endpoints WHERE tenant_id = ?1 AND id = ?2"
                ),
                args![tenant.as_str(), id],
            )
            .await?
            .as_ref()
            .map(endpoint)
            .transpose()
    }

    /// Any tenant's endpoint (a delivery job reads the endpoint it sends to).
    pub async fn endpoint(&self, id: &str) -> Result<Option<EndpointRow>> {
        self.0
            .one(
                format!("SELECT {ENDPOINT} FROM webhook_endpoints WHERE id = ?1"),
                args![id],
            )
            .await?
            .as_ref()
            .map(endpoint)
            .transpose()
    }

    /// Replaces the signing secret with `secret`; the old one keeps signing until `grace_until`
    /// (unix ms). False if the endpoint is not the tenant's.
    pub async fn rotate(
        &self,
        tenant: &TenantId,
        id: &str,
        secret: Vec<u8>,
        grace_until: i64,
    ) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "UPDATE webhook_endpoints SET previous_secret = secret, previous_until_ms = ?3, secret = ?4, updated_ms = ?5
                 WHERE tenant_id = ?1 AND id = ?2",
                args![tenant.as_str(), id, grace_until, secret, now_ms()],
            )
            .await?
            == 1)
    }

    /// Enables the endpoint (clearing its failure record) or disables it for `reason`; false
    /// if it is not the tenant's.
    pub async fn set_enabled(
        &self,
        tenant: &TenantId,
        id: &str,
        enabled: bool,
        reason: Option<&str>,
    ) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "UPDATE webhook_endpoints SET enabled = ?3, disabled_reason = ?4, failing_since_ms = NULL, updated_ms = ?5
                 WHERE tenant_id = ?1 AND id = ?2",
                args![tenant.as_str(), id, enabled, reason, now_ms()],
            )
            .await?
            == 1)
    }

    /// Disables an enabled endpoint for `reason`; false if it was not enabled (so one of
    /// several instances seeing the same failures says so once).
    pub async fn disable(&self, id: &str, reason: &str) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?2, updated_ms = ?3 WHERE id = ?1 AND enabled = 1",
                args![id, reason, now_ms()],
            )
            .await?
            == 1)
    }

    /// Disables every enabled endpoint registered with the access `whose` names, as that
    /// access ends, each with a `webhook.endpoint.disabled` event saying who ended it and why,
    /// in one transaction. The endpoints disabled.
    pub async fn disable_registered(
        &self,
        whose: &Whose<'_>,
        by: &str,
        why: &str,
    ) -> Result<Vec<EndpointRow>> {
        let (clause, key, tenant) = match whose {
            Whose::Credential(id) => ("credential_id = ?3", (*id).to_owned(), None),
            Whose::Person { tenant, email } => (
                "credential_id IN (SELECT g.id FROM oauth_grants g JOIN people p ON p.id = g.person_id
                                   WHERE p.email = ?3 AND p.tenant_id = ?4)",
                (*email).to_owned(),
                Some((*tenant).to_owned()),
            ),
            Whose::Application(client) => (
                "credential_id IN (SELECT id FROM oauth_grants WHERE client_id = ?3)",
                (*client).to_owned(),
                None,
            ),
        };
        let reason = format!("{why} (by {by})");
        let (by, why) = (by.to_owned(), why.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let rows = tx
                        .all(
                            format!(
                                "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?1, updated_ms = ?2
                                 WHERE enabled = 1 AND {clause} AND (?4 IS NULL OR tenant_id = ?4)
                                 RETURNING {ENDPOINT}"
                            ),
                            args![&reason, now_ms(), key, tenant],
                        )
                        .await?
                        .iter()
                        .map(endpoint)
                        .collect::<Result<Vec<_>>>()?;
                    for e in &rows {
                        let event = NewEvent::of(&EndpointDisabled {
                            subject: EndpointSubject {
                                endpoint_id: e.id.clone(),
                            },
                            data: EndpointDisabledData {
                                url: e.url.clone(),
                                reason: why.clone(),
                                by: Some(by.clone()),
                            },
                        });
                        crate::events::append_in(tx, &e.tenant, &event).await?;
                    }
                    Ok(rows)
                })
            })
            .await
    }

    /// Removes the endpoint; its pending deliveries fail when their jobs next run. False if it
    /// is not the tenant's.
    pub async fn delete(&self, tenant: &TenantId, id: &str) -> Result<bool> {
        Ok(self
            .0
            .exec(
                "DELETE FROM webhook_endpoints WHERE tenant_id = ?1 AND id = ?2",
                args![tenant.as_str(), id],
            )
            .await?
            == 1)
    }

    /// A delivery by id (a job reads its own).
    pub async fn delivery(&self, id: &str) -> Result<Option<DeliveryRow>> {
        self.0
            .one(
                format!("SELECT {DELIVERY} FROM webhook_deliveries WHERE id = ?1"),
                args![id],
            )
            .await?
            .as_ref()
            .map(delivery)
            .transpose()
    }

    /// The endpoint's deliveries, newest first, created before `before_ms` when given.
    pub async fn deliveries(
        &self,
        tenant: &TenantId,
        endpoint: &str,
        before_ms: Option<i64>,
        limit: i64,
    ) -> Result<Vec<DeliveryRow>> {
        self.0
            .all(
                format!(
                    "SELECT {cols} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
                     WHERE d.tenant_id = ?1 AND d.endpoint_id = ?2 AND d.created_ms < ?3
                     ORDER BY d.created_ms DESC, e.seq DESC, d.id DESC LIMIT ?4",
                    // within one millisecond, the later event's delivery is the newer
                    cols = DELIVERY
                        .split(", ")
                        .map(|c| format!("d.{c}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                args![
                    tenant.as_str(),
                    endpoint,
                    before_ms.unwrap_or(i64::MAX),
                    limit
                ],
            )
            .await?
            .iter()
            .map(delivery)
            .collect()
    }

    /// A delivery's attempts, in order.
    pub async fn attempts(&self, delivery: &str) -> Result<Vec<Attempt>> {
        self.0
            .all(
                "SELECT at_ms, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = ?1 ORDER BY n",
                args![delivery],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(Attempt {
                    at_ms: r.i64(0)?,
                    status: r.opt_i64(1)?,
                    error: r.opt_text(2)?,
                    duration_ms: r.i64(3)?,
                })
            })
            .collect()
    }

    /// Records an attempt of a delivery and where it leaves the delivery (`status`) and its
    /// endpoint (a success clears its failure record, a failure starts one), in one
    /// transaction; the endpoint's `failing_since_ms` afterwards.
    pub async fn record(
        &self,
        delivery: &DeliveryRow,
        a: Attempt,
        status: DeliveryStatus,
    ) -> Result<Option<i64>> {
        let (id, endpoint_id) = (delivery.id.clone(), delivery.endpoint_id.clone());
        let n = delivery.attempts + 1;
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    tx.exec(
                        "INSERT INTO webhook_attempts (delivery_id, n, at_ms, status, error, duration_ms)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (delivery_id, n) DO NOTHING",
                        args![&id, n, a.at_ms, a.status, a.error.clone(), a.duration_ms],
                    )
                    .await?;
                    let delivered = (status == DeliveryStatus::Delivered).then_some(a.at_ms);
                    tx.exec(
                        "UPDATE webhook_deliveries SET status = ?2, attempts = ?3, last_status = ?4, last_error = ?5,
                                last_attempt_ms = ?6, delivered_ms = ?7 WHERE id = ?1",
                        args![&id, status.as_str(), n, a.status, a.error, a.at_ms, delivered],
                    )
                    .await?;
                    let failing = match status {
                        DeliveryStatus::Delivered => None,
                        _ => Some(a.at_ms),
                    };
                    let row = tx
                        .one(
                            "UPDATE webhook_endpoints SET failing_since_ms = CASE WHEN ?2 IS NULL THEN NULL ELSE coalesce(failing_since_ms, ?2) END
                             WHERE id = ?1 RETURNING failing_since_ms",
                            args![&endpoint_id, failing],
                        )
                        .await?;
                    row.map(|r| r.opt_i64(0)).transpose().map(Option::flatten)
                })
            })
            .await
    }

    /// Sends `delivery`'s event to its endpoint again, as a new delivery with its own job,
    /// unless a replay of it is still pending (that one is the answer) or the endpoint already
    /// had `per_minute` replays made in the last minute. `None` if the delivery or its
    /// endpoint is not the tenant's.
    pub async fn replay(
        &self,
        tenant: &TenantId,
        id: &str,
        per_minute: i64,
    ) -> Result<Option<Replay>> {
        let (tenant, original) = (tenant.as_str().to_owned(), id.to_owned());
        let made = self
            .0
            .tx(move |tx| {
                Box::pin(async move {
                    let Some(d) = tx
                        .one(
                            format!("SELECT {DELIVERY} FROM webhook_deliveries WHERE id = ?1 AND tenant_id = ?2"),
                            args![&original, &tenant],
                        )
                        .await?
                    else {
                        return Ok(None);
                    };
                    let d = delivery(&d)?;
                    let Some(e) = tx
                        .one(
                            format!("SELECT {ENDPOINT} FROM webhook_endpoints WHERE id = ?1 AND tenant_id = ?2"),
                            args![&d.endpoint_id, &tenant],
                        )
                        .await?
                    else {
                        return Ok(None);
                    };
                    let e = endpoint(&e)?;
                    // one replay decision per endpoint at a time, across instances
                    tx.advisory_lock(&format!("webhook-replays/{}", e.id)).await?;
                    let pending = tx
                        .one(
                            "SELECT id FROM webhook_deliveries
                             WHERE replay_of = ?1 AND status = 'pending' ORDER BY created_ms DESC LIMIT 1",
                            args![&original],
                        )
                        .await?;
                    if let Some(p) = pending {
                        return Ok(Some((p.text(0)?, false)));
                    }
                    let recent = tx
                        .one(
                            "SELECT count(*) FROM webhook_deliveries
                             WHERE endpoint_id = ?1 AND created_ms > ?2 AND replay_of IS NOT NULL",
                            args![&e.id, now_ms() - 60_000],
                        )
                        .await?
                        .map(|r| r.i64(0))
                        .transpose()?
                        .unwrap_or(0);
                    if recent >= per_minute {
                        return Err(Error::new(
                            pp_core::Kind::Throttled,
                            format!("endpoint {} already had {recent} replays in the last minute", e.id),
                        )
                        .with_fix(format!("Replays are limited to {per_minute} a minute per endpoint; retry in a minute.")));
                    }
                    deliver_in(tx, &tenant, &e, &d.event_id, Some(&original))
                        .await
                        .map(|id| Some((id, true)))
                })
            })
            .await?;
        let Some((id, new)) = made else {
            return Ok(None);
        };
        let row = self
            .delivery(&id)
            .await?
            .ok_or_else(|| Error::internal("a replayed delivery vanished"))?;
        Ok(Some(if new {
            Replay::Made(row)
        } else {
            Replay::Pending(row)
        }))
    }
}

/// What a replay did.
#[derive(Debug, Clone, PartialEq)]
pub enum Replay {
    /// A new delivery of the event.
    Made(DeliveryRow),
    /// The replay of it that is still waiting to be sent (nothing new was made).
    Pending(DeliveryRow),
}

impl Replay {
    /// The delivery either way.
    pub fn row(&self) -> &DeliveryRow {
        match self {
            Replay::Made(r) | Replay::Pending(r) => r,
        }
    }
}
