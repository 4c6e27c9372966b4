//! Amazon Marketing Stream's state: each subscription the gateway made (profile × dataset), each
//! queue's consumer progress (messages, duplicates, rejects, the last message and its
//! publication), the records themselves (the journal: one row per `idempotency_id`, so a
//! duplicate delivered twice, to one instance or two, is stored once), the days whose hourly
//! warehouse rows must be made again, and the messages that could not be read. A batch of
//! records is committed in one transaction; the consumer deletes its messages from the queue
//! only after.

use pp_core::{Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Db, Row};
use crate::jobs::now_ms;

/// A subscription the gateway made at the provider.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    pub profile_id: String,
    pub dataset: String,
    /// The warehouse's seller row the profile's records load into.
    pub seller_id: i64,
    pub subscription_id: String,
    pub queue_url: String,
    /// The provider's status when last read: `PENDING_CONFIRMATION`, `ACTIVE` …
    pub status: String,
    pub created_ms: i64,
}

/// A record to keep: its dataset's `idempotency_id`, the seller and local day it counts in,
/// the record as received and when the provider published it.
#[derive(Debug, Clone)]
pub struct NewRecord {
    pub idempotency_id: String,
    pub seller_id: i64,
    pub day: String,
    pub record: Value,
    pub published_ms: i64,
    /// Whether its day's hourly rows are made from it (a stream record); a notification is
    /// kept for its id and told as an event, never made into rows.
    pub makes_rows: bool,
}

/// What the provider said of a finished report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportNotice {
    pub report_type: String,
    /// `DONE`, `FATAL` or `CANCELLED`.
    pub status: String,
    pub document_id: Option<String>,
    pub at_ms: i64,
}

/// What a commit kept.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Committed {
    pub inserted: u64,
    pub duplicates: u64,
}

/// A queue's consumer progress.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueState {
    pub dataset: String,
    pub queue_url: String,
    pub messages: i64,
    pub duplicates: i64,
    pub rejected: i64,
    pub confirmations: i64,
    pub last_message_ms: Option<i64>,
    /// When the provider published the newest message received.
    pub last_published_ms: Option<i64>,
    pub last_error: Option<String>,
}

/// A day of one seller's dataset whose hourly rows must be made again, and the version of the
/// mark (a later commit to the same day raises it, so the day is made again after).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub tenant: String,
    pub seller_id: i64,
    pub dataset: String,
    pub day: String,
    pub version: i64,
}

/// The Marketing Stream aggregate.
pub struct Streams<'a>(pub(crate) &'a Db);

fn subscription(r: &Row) -> Result<Subscription> {
    Ok(Subscription {
        profile_id: r.text(0)?,
        dataset: r.text(1)?,
        seller_id: r.i64(2)?,
        subscription_id: r.text(3)?,
        queue_url: r.text(4)?,
        status: r.text(5)?,
        created_ms: r.i64(6)?,
    })
}

impl Streams<'_> {
    /// Records (or updates) a subscription, whose messages arrive on the tenant's `queue`
    /// (a stream's queue is its dataset's; every notification type shares one).
    pub async fn put_subscription(
        &self,
        tenant: &TenantId,
        queue: &str,
        s: &Subscription,
    ) -> Result<()> {
        self.0
            .exec(
                "INSERT INTO stream_subscriptions (tenant_id, profile_id, dataset, seller_id, subscription_id, queue_url, status, created_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (tenant_id, profile_id, dataset) DO UPDATE SET seller_id = excluded.seller_id,
                 subscription_id = excluded.subscription_id, queue_url = excluded.queue_url, status = excluded.status",
                args![tenant.as_str(), &s.profile_id, &s.dataset, s.seller_id, &s.subscription_id, &s.queue_url, &s.status, s.created_ms],
            )
            .await?;
        self.0
            .exec(
                "INSERT INTO stream_queues (tenant_id, dataset, queue_url) VALUES (?1, ?2, ?3)
                 ON CONFLICT (tenant_id, dataset) DO UPDATE SET queue_url = excluded.queue_url",
                args![tenant.as_str(), queue, &s.queue_url],
            )
            .await?;
        Ok(())
    }

    /// Records that the provider finished report `report_id` (the first word kept).
    pub async fn report_finished(
        &self,
        tenant: &TenantId,
        report_id: &str,
        notice: &ReportNotice,
    ) -> Result<()> {
        self.0
            .exec(
                "INSERT INTO report_notices (tenant_id, report_id, report_type, status, document_id, at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT (tenant_id, report_id) DO NOTHING",
                args![tenant.as_str(), report_id, &notice.report_type, &notice.status, notice.document_id.as_deref(), notice.at_ms],
            )
            .await?;
        Ok(())
    }

    /// What the provider said of report `report_id` when it finished, if it has.
    pub async fn report_notice(
        &self,
        tenant: &TenantId,
        report_id: &str,
    ) -> Result<Option<ReportNotice>> {
        let rows = self
            .0
            .all(
                "SELECT report_type, status, document_id, at_ms FROM report_notices WHERE tenant_id = ?1 AND report_id = ?2",
                args![tenant.as_str(), report_id],
            )
            .await?;
        rows.first()
            .map(|r| {
                Ok(ReportNotice {
                    report_type: r.text(0)?,
                    status: r.text(1)?,
                    document_id: r.opt_text(2)?,
                    at_ms: r.i64(3)?,
                })
            })
            .transpose()
    }

    /// Whether selling partner `partner`'s finished reports are notified to the tenant.
    pub async fn hears_reports(&self, tenant: &TenantId, partner: &str) -> Result<bool> {
        Ok(!self
            .0
            .all(
                "SELECT 1 FROM stream_subscriptions WHERE tenant_id = ?1 AND profile_id = ?2 AND dataset = 'REPORT_PROCESSING_FINISHED'",
                args![tenant.as_str(), partner],
            )
            .await?
            .is_empty())
    }

    /// The tenant's subscriptions, by dataset and profile.
    pub async fn subscriptions(&self, tenant: &TenantId) -> Result<Vec<Subscription>> {
        self.0
            .all(
                "SELECT profile_id, dataset, seller_id, subscription_id, queue_url, status, created_ms
                 FROM stream_subscriptions WHERE tenant_id = ?1 ORDER BY dataset, profile_id",
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(subscription)
            .collect()
    }

    /// Every (tenant, dataset, queue URL) with a subscription: what the consumers read.
    pub async fn queues(&self) -> Result<Vec<(TenantId, String, String)>> {
        self.0
            .all(
                "SELECT tenant_id, dataset, queue_url FROM stream_queues ORDER BY tenant_id, dataset",
                vec![],
            )
            .await?
            .iter()
            .map(|r| Ok((TenantId::parse(&r.text(0)?)?, r.text(1)?, r.text(2)?)))
            .collect()
    }

    /// Every tenant's queues summed by dataset: messages, duplicates and rejects, and the
    /// oldest of the queues' newest publications (the longest lag), for the metrics.
    pub async fn dataset_totals(&self) -> Result<Vec<(String, i64, i64, i64, Option<i64>)>> {
        self.0
            .all(
                "SELECT dataset, CAST(SUM(messages) AS BIGINT), CAST(SUM(duplicates) AS BIGINT), CAST(SUM(rejected) AS BIGINT), MIN(last_published_ms)
                 FROM stream_queues GROUP BY dataset ORDER BY dataset",
                vec![],
            )
            .await?
            .iter()
            .map(|r| Ok((r.text(0)?, r.i64(1)?, r.i64(2)?, r.i64(3)?, r.opt_i64(4)?)))
            .collect()
    }

    /// The tenant's queues and their consumers' progress.
    pub async fn queue_states(&self, tenant: &TenantId) -> Result<Vec<QueueState>> {
        self.0
            .all(
                "SELECT dataset, queue_url, messages, duplicates, rejected, confirmations, last_message_ms, last_published_ms, last_error
                 FROM stream_queues WHERE tenant_id = ?1 ORDER BY dataset",
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(QueueState {
                    dataset: r.text(0)?,
                    queue_url: r.text(1)?,
                    messages: r.i64(2)?,
                    duplicates: r.i64(3)?,
                    rejected: r.i64(4)?,
                    confirmations: r.i64(5)?,
                    last_message_ms: r.opt_i64(6)?,
                    last_published_ms: r.opt_i64(7)?,
                    last_error: r.opt_text(8)?,
                })
            })
            .collect()
    }

    /// Counts a confirmed subscription request on the tenant's `dataset` queue.
    pub async fn confirmed(&self, tenant: &TenantId, dataset: &str) -> Result<()> {
        self.0
            .exec(
                "UPDATE stream_queues SET confirmations = confirmations + 1, last_message_ms = ?3
                 WHERE tenant_id = ?1 AND dataset = ?2",
                args![tenant.as_str(), dataset, now_ms()],
            )
            .await?;
        Ok(())
    }

    /// Keeps a received batch in one transaction: each record once (a record whose id is held
    /// already is a duplicate), each day a new record counts in marked to be made again, the
    /// messages that could not be read (`rejects`: why, and the body) kept, and the queue's
    /// progress counted.
    pub async fn commit(
        &self,
        tenant: &TenantId,
        dataset: &str,
        records: Vec<NewRecord>,
        rejects: Vec<(String, String)>,
    ) -> Result<Committed> {
        let (tenant, dataset) = (tenant.as_str().to_owned(), dataset.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let now = now_ms();
                    let mut out = Committed::default();
                    let mut days = std::collections::BTreeSet::new();
                    let mut newest: Option<i64> = None;
                    for r in &records {
                        let n = tx
                            .exec(
                                "INSERT INTO stream_records (tenant_id, dataset, idempotency_id, seller_id, day, record, published_ms, received_ms)
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (tenant_id, dataset, idempotency_id) DO NOTHING",
                                args![&tenant, &dataset, &r.idempotency_id, r.seller_id, &r.day, r.record.to_string(), r.published_ms, now],
                            )
                            .await?;
                        if n > 0 {
                            out.inserted += 1;
                            if r.makes_rows {
                                days.insert((r.seller_id, r.day.clone()));
                            }
                        } else {
                            out.duplicates += 1;
                        }
                        newest = newest.max(Some(r.published_ms));
                    }
                    for (seller, day) in days {
                        tx.exec(
                            "INSERT INTO stream_pending (tenant_id, seller_id, dataset, day, version) VALUES (?1, ?2, ?3, ?4, 1)
                             ON CONFLICT (tenant_id, seller_id, dataset, day) DO UPDATE SET version = stream_pending.version + 1",
                            args![&tenant, seller, &dataset, &day],
                        )
                        .await?;
                    }
                    for (why, body) in &rejects {
                        tx.exec(
                            "INSERT INTO stream_rejects (tenant_id, dataset, at_ms, error, body) VALUES (?1, ?2, ?3, ?4, ?5)",
                            args![&tenant, &dataset, now, why, body],
                        )
                        .await?;
                    }
                    let received = records.len() as i64 + rejects.len() as i64;
                    tx.exec(
                        "UPDATE stream_queues SET messages = messages + ?3, duplicates = duplicates + ?4, rejected = rejected + ?5,
                         last_message_ms = CASE WHEN ?3 > 0 THEN ?6 ELSE last_message_ms END,
                         last_published_ms = CASE WHEN last_published_ms IS NULL OR last_published_ms < ?7 THEN ?7 ELSE last_published_ms END,
                         last_error = CASE WHEN ?5 > 0 THEN ?8 ELSE last_error END
                         WHERE tenant_id = ?1 AND dataset = ?2",
                        args![
                            &tenant, &dataset, received, out.duplicates as i64, rejects.len() as i64,
                            now, newest, rejects.last().map(|r| r.0.clone())
                        ],
                    )
                    .await?;
                    Ok(out)
                })
            })
            .await
    }

    /// Claims up to `limit` days waiting to be made again, each for `lease_ms`: no other
    /// maker takes a claimed day until its claim runs out (a maker killed mid-way leaves it to
    /// the next after that), so two instances never make one day at once and an older making
    /// never lands after a newer one.
    pub async fn claim(&self, limit: i64, lease_ms: i64) -> Result<Vec<Pending>> {
        let now = now_ms();
        let waiting: Vec<Pending> = self
            .0
            .all(
                "SELECT tenant_id, seller_id, dataset, day, version FROM stream_pending WHERE claimed_until < ?1
                 ORDER BY tenant_id, dataset, seller_id, day LIMIT ?2",
                args![now, limit],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(Pending {
                    tenant: r.text(0)?,
                    seller_id: r.i64(1)?,
                    dataset: r.text(2)?,
                    day: r.text(3)?,
                    version: r.i64(4)?,
                })
            })
            .collect::<Result<_>>()?;
        let mut claimed = Vec::with_capacity(waiting.len());
        for p in waiting {
            let n = self
                .0
                .exec(
                    "UPDATE stream_pending SET claimed_until = ?6 WHERE tenant_id = ?1 AND seller_id = ?2 AND dataset = ?3 AND day = ?4 AND claimed_until < ?5",
                    args![&p.tenant, p.seller_id, &p.dataset, &p.day, now, now + lease_ms],
                )
                .await?;
            if n > 0 {
                claimed.push(p);
            }
        }
        Ok(claimed)
    }

    /// Whether any day waits to be made (claimed or not).
    pub async fn any_pending(&self) -> Result<bool> {
        Ok(self
            .0
            .one("SELECT 1 FROM stream_pending LIMIT 1", vec![])
            .await?
            .is_some())
    }

    /// After a claimed day was made: its mark cleared, unless a later commit raised it since
    /// it was claimed — then only the claim is let go, and the day is made again.
    pub async fn made(&self, p: &Pending) -> Result<()> {
        let n = self
            .0
            .exec(
                "DELETE FROM stream_pending WHERE tenant_id = ?1 AND seller_id = ?2 AND dataset = ?3 AND day = ?4 AND version = ?5",
                args![&p.tenant, p.seller_id, &p.dataset, &p.day, p.version],
            )
            .await?;
        if n == 0 {
            self.0
                .exec(
                    "UPDATE stream_pending SET claimed_until = 0 WHERE tenant_id = ?1 AND seller_id = ?2 AND dataset = ?3 AND day = ?4",
                    args![&p.tenant, p.seller_id, &p.dataset, &p.day],
                )
                .await?;
        }
        Ok(())
    }

    /// The records of one seller's dataset on one day, as received.
    pub async fn records(
        &self,
        tenant: &str,
        seller_id: i64,
        dataset: &str,
        day: &str,
    ) -> Result<Vec<Value>> {
        self.0
            .all(
                "SELECT record FROM stream_records WHERE tenant_id = ?1 AND seller_id = ?2 AND dataset = ?3 AND day = ?4
                 ORDER BY idempotency_id",
                args![tenant, seller_id, dataset, day],
            )
            .await?
            .iter()
            .map(|r| r.json(0))
            .collect()
    }

    /// For each record kept since `since_ms`: its publication to its keeping, in ms (what a
    /// benchmark reads).
    pub async fn latencies(&self, since_ms: i64) -> Result<Vec<i64>> {
        self.0
            .all(
                "SELECT received_ms - published_ms FROM stream_records WHERE received_ms >= ?1",
                args![since_ms],
            )
            .await?
            .iter()
            .map(|r| r.i64(0))
            .collect()
    }

    /// The newest messages that could not be read: (dataset, when, why, body).
    pub async fn rejects(
        &self,
        tenant: &TenantId,
        limit: i64,
    ) -> Result<Vec<(String, i64, String, String)>> {
        self.0
            .all(
                "SELECT dataset, at_ms, error, body FROM stream_rejects WHERE tenant_id = ?1 ORDER BY id DESC LIMIT ?2",
                args![tenant.as_str(), limit],
            )
            .await?
            .iter()
            .map(|r| Ok((r.text(0)?, r.i64(1)?, r.text(2)?, r.text(3)?)))
            .collect()
    }
}
