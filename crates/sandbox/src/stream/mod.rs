//! Amazon Marketing Stream in the sandbox. A subscription (`/streams/subscriptions`, served by
//! `crate::ads::streams`) names a dataset and an SQS queue; the queue first gets SNS's
//! `SubscriptionConfirmation`, and once its `SubscribeURL` is visited (`GET /sns`) the
//! subscription is active and the world's hours flow: the last `stream_backfill_days` days at
//! once, then each new day as the world moves forward, with the conversion hours the move
//! restated sent again as deltas (new `idempotency_id`s). About one record in fifty is sent
//! twice (a true duplicate: the same `idempotency_id`). Every message is an SNS notification
//! whose `Message` is the record's JSON. A queue is the sandbox's own (`crate::sqs`) when the
//! ARN names its account, else the one of that name at the configured SQS endpoint
//! (`SimConfig::stream_sqs`). Faults: a subscription paused (nothing sent until it resumes)
//! and a body that is not a notification, both through `/__sandbox/streams`.

pub mod records;

use std::sync::Arc;

use chrono::NaiveDate;
use rusqlite::{OptionalExtension, params};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::SimError;
use crate::reports::{iso, now_ms};
use crate::sim::Sim;
use crate::store::{random_hex, random_uuid};
use crate::world::World;

/// One subscription, as the sandbox keeps it.
#[derive(Debug, Clone, Serialize)]
pub struct Subscription {
    pub id: String,
    pub profile: i64,
    pub client_token: String,
    pub dataset: String,
    pub destination: String,
    pub notes: String,
    /// `PENDING_CONFIRMATION`, `ACTIVE`, `ARCHIVED` or `FAILED_CONFIRMATION`.
    pub status: String,
    #[serde(skip)]
    pub token: String,
    pub created_at: i64,
    pub updated_at: i64,
    /// The first and the last day whose hours were sent.
    pub delivered_from: Option<NaiveDate>,
    pub delivered_through: Option<NaiveDate>,
    pub paused: bool,
}

const COLUMNS: &str = "id, profile, client_token, dataset, destination, notes, status, token, created_at, updated_at, delivered_from, delivered_through, paused";

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Subscription> {
    let day = |i| -> rusqlite::Result<Option<NaiveDate>> {
        Ok(r.get::<_, Option<String>>(i)?.and_then(|d| d.parse().ok()))
    };
    Ok(Subscription {
        id: r.get(0)?,
        profile: r.get(1)?,
        client_token: r.get(2)?,
        dataset: r.get(3)?,
        destination: r.get(4)?,
        notes: r.get(5)?,
        status: r.get(6)?,
        token: r.get(7)?,
        created_at: r.get(8)?,
        updated_at: r.get(9)?,
        delivered_from: day(10)?,
        delivered_through: day(11)?,
        paused: r.get::<_, i64>(12)? != 0,
    })
}

impl Subscription {
    /// The subscription as `/streams/subscriptions` answers it.
    pub fn wire(&self) -> Value {
        json!({
            "subscriptionId": self.id,
            "dataSetId": self.dataset,
            "destinationArn": self.destination,
            "destination": { "sqsDestination": { "queueArn": self.destination } },
            "notes": self.notes,
            "status": self.status,
            "clientRequestToken": self.client_token,
            "createdDate": iso(self.created_at),
            "updatedDate": iso(self.updated_at),
        })
    }

    fn topic(&self) -> String {
        format!(
            "arn:aws:sns:{}:{}:marketing-stream-{}",
            crate::sqs::REGION,
            crate::sqs::ACCOUNT,
            self.dataset
        )
    }
}

/// The subscriptions of `profile` (every profile's when `None`).
pub fn list(sim: &Sim, profile: Option<i64>) -> Result<Vec<Subscription>, SimError> {
    sim.store.with(|c| {
        let mut st = c.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM stream_subscriptions WHERE ?1 IS NULL OR profile = ?1 ORDER BY created_at, id"
        ))?;
        st.query_map([profile], read_row)?.collect()
    })
}

/// One subscription by id.
pub fn get(sim: &Sim, id: &str) -> Result<Option<Subscription>, SimError> {
    sim.store.with(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS} FROM stream_subscriptions WHERE id = ?1"),
            [id],
            read_row,
        )
        .optional()
    })
}

/// Records a new subscription (or answers the one `client_token` already made).
pub fn insert(
    sim: &Sim,
    profile: i64,
    client_token: &str,
    dataset: &str,
    destination: &str,
    notes: &str,
) -> Result<(Subscription, bool), SimError> {
    let found = sim.store.with(|c| {
        c.query_row(
            &format!("SELECT {COLUMNS} FROM stream_subscriptions WHERE profile = ?1 AND client_token = ?2"),
            params![profile, client_token],
            read_row,
        )
        .optional()
    })?;
    if let Some(s) = found {
        return Ok((s, false));
    }
    let now = now_ms();
    let id = format!("amzn1.fead.cs1.{}", random_hex(11));
    sim.store.with(|c| {
        c.execute(
            "INSERT INTO stream_subscriptions (id, profile, client_token, dataset, destination, notes, status, token, created_at, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'PENDING_CONFIRMATION', ?7, ?8, ?8)",
            params![id, profile, client_token, dataset, destination, notes, random_hex(32), now],
        )
    })?;
    let s =
        get(sim, &id)?.ok_or_else(|| SimError::internal("the subscription just made is gone"))?;
    Ok((s, true))
}

/// Sets a subscription's status (and notes, when given).
pub fn set_status(sim: &Sim, id: &str, status: &str, notes: Option<&str>) -> Result<(), SimError> {
    sim.store.with(|c| {
        c.execute(
            "UPDATE stream_subscriptions SET status = ?2, notes = COALESCE(?3, notes), updated_at = ?4 WHERE id = ?1",
            params![id, status, notes, now_ms()],
        )
    })?;
    Ok(())
}

/// Pauses or resumes deliveries (the fault of a queue that stops receiving): one
/// subscription's, or without an id every one's, those made later included.
pub fn set_paused(sim: &Sim, id: Option<&str>, paused: bool) -> Result<usize, SimError> {
    if id.is_none() {
        sim.streams_paused
            .store(paused, std::sync::atomic::Ordering::SeqCst);
    }
    sim.store.with(|c| {
        c.execute(
            "UPDATE stream_subscriptions SET paused = ?2 WHERE ?1 IS NULL OR id = ?1",
            params![id, i64::from(paused)],
        )
    })
}

fn set_delivered(sim: &Sim, id: &str, day: NaiveDate) -> Result<(), SimError> {
    sim.store.with(|c| {
        c.execute(
            "UPDATE stream_subscriptions SET delivered_through = ?2, delivered_from = COALESCE(delivered_from, ?2) WHERE id = ?1",
            params![id, day.to_string()],
        )
    })?;
    Ok(())
}

/// Where a destination's messages go.
pub(crate) enum Queue<'a> {
    /// One of the sandbox's own queues, by name.
    Own(String),
    /// A queue at the configured SQS endpoint: its client and URL.
    External(&'a pp_sqs::Client, String),
}

/// The queue of SQS ARN `arn`, checked to exist.
pub(crate) async fn queue<'a>(sim: &'a Sim, arn: &str) -> Result<Queue<'a>, SimError> {
    let bad = |why: String| SimError::new(400, "400", why).for_family(crate::error::Family::Ads);
    let name = pp_sqs::queue_name_of_arn(arn)
        .ok_or_else(|| bad(format!("destinationArn {arn} is not an SQS queue ARN")))?;
    if arn.split(':').nth(4) == Some(crate::sqs::ACCOUNT) {
        if !crate::sqs::exists(sim, name)? {
            return Err(bad(format!(
                "the sandbox has no queue {name}: create it at {}/sqs first",
                sim.config.public_url
            )));
        }
        return Ok(Queue::Own(name.to_owned()));
    }
    let Some(client) = &sim.stream_sqs else {
        return Err(bad(format!(
            "the sandbox delivers to its own queues (account {}) or to the SQS endpoint it was started with; {arn} is neither",
            crate::sqs::ACCOUNT
        )));
    };
    let url = client
        .queue_url(name)
        .await
        .map_err(|e| bad(format!("the destination queue cannot be reached: {e}")))?;
    Ok(Queue::External(client, url))
}

/// Sends `bodies` to `q`, in order.
pub(crate) async fn send(sim: &Sim, q: &Queue<'_>, bodies: &[String]) -> Result<(), SimError> {
    match q {
        Queue::Own(name) => crate::sqs::enqueue(sim, name, bodies),
        Queue::External(client, url) => {
            for chunk in bodies.chunks(10) {
                client
                    .send_batch(url, chunk)
                    .await
                    .map_err(|e| SimError::internal(format!("stream delivery: {e}")))?;
            }
            Ok(())
        }
    }
}

/// The SNS notification that carries `record`.
fn notification(sub: &Subscription, record: &Value) -> String {
    json!({
        "Type": "Notification",
        "MessageId": random_uuid(),
        "TopicArn": sub.topic(),
        "Message": record.to_string(),
        "Timestamp": iso(now_ms()),
        "SignatureVersion": "1",
    })
    .to_string()
}

/// Checks the destination and sends the subscription's confirmation request to it.
pub async fn request_confirmation(sim: &Sim, sub: &Subscription) -> Result<(), SimError> {
    let q = queue(sim, &sub.destination).await?;
    let topic = sub.topic();
    let url = format!(
        "{}/sns?Action=ConfirmSubscription&TopicArn={}&Token={}",
        sim.config.public_url,
        form_urlencoded::byte_serialize(topic.as_bytes()).collect::<String>(),
        sub.token
    );
    let body = json!({
        "Type": "SubscriptionConfirmation",
        "MessageId": random_uuid(),
        "Token": sub.token,
        "TopicArn": topic,
        "Message": format!("You have chosen to subscribe to the topic {topic}.\nTo confirm the subscription, visit the SubscribeURL included in this message."),
        "SubscribeURL": url,
        "Timestamp": iso(now_ms()),
        "SignatureVersion": "1",
    });
    send(sim, &q, &[body.to_string()]).await
}

/// `GET /sns?Action=ConfirmSubscription&TopicArn=…&Token=…`: activates the subscription the
/// token belongs to and starts its deliveries; SNS's XML answer.
pub async fn confirm(sim: &Arc<Sim>, topic: &str, token: &str) -> Result<String, SimError> {
    let sub = list(sim, None)?
        .into_iter()
        .find(|s| s.token == token && s.topic() == topic && s.status != "ARCHIVED")
        .ok_or_else(|| SimError::new(400, "InvalidParameter", "Invalid token"))?;
    if sub.status == "PENDING_CONFIRMATION" {
        set_status(sim, &sub.id, "ACTIVE", None)?;
    }
    spawn_pump(sim.clone());
    Ok(format!(
        "<ConfirmSubscriptionResponse xmlns=\"http://sns.amazonaws.com/doc/2010-03-31/\"><ConfirmSubscriptionResult><SubscriptionArn>{}:{}</SubscriptionArn></ConfirmSubscriptionResult></ConfirmSubscriptionResponse>",
        topic, sub.id
    ))
}

/// Delivers, in the background, every active subscription's days not sent yet.
pub fn spawn_pump(sim: Arc<Sim>) {
    tokio::spawn(async move {
        if let Err(e) = pump(&sim).await {
            tracing::warn!(error = %e.message, "stream delivery stopped");
        }
    });
}

/// Sends each active, unpaused subscription its days after the last one sent, through the
/// world's last day.
pub async fn pump(sim: &Sim) -> Result<(), SimError> {
    let _one = sim.pumping.lock().await;
    if sim.streams_paused.load(std::sync::atomic::Ordering::SeqCst) {
        return Ok(());
    }
    for sub in list(sim, None)? {
        if sub.status != "ACTIVE" || sub.paused {
            continue;
        }
        let world = sim.world();
        let Some(seed) = world.spec.map(|s| s.seed) else {
            return Err(SimError::invalid(
                "the world has no ground truth: its hours are unknown",
            ));
        };
        let q = queue(sim, &sub.destination).await?;
        let first = match sub.delivered_through {
            Some(d) => d.succ_opt().unwrap_or(d),
            None => world.last_day - chrono::Duration::days(sim.config.stream_backfill_days - 1),
        };
        let mut day = first;
        while day <= world.last_day {
            // a day's records are a read of the world: off the async threads, so a long
            // backfill never keeps the sandbox from answering
            let (w, dataset, profile) = (world.clone(), sub.dataset.clone(), sub.profile);
            let recs = tokio::task::spawn_blocking(move || {
                records::day_records(&w, seed, &dataset, profile, day)
            })
            .await
            .map_err(|e| SimError::internal(format!("stream delivery: {e}")))??;
            send(sim, &q, &bodies(&sub, &recs)).await?;
            set_delivered(sim, &sub.id, day)?;
            day = day.succ_opt().unwrap_or(day);
        }
    }
    Ok(())
}

/// The messages of `recs`: one notification each, and a second copy of about one in fifty.
fn bodies(sub: &Subscription, recs: &[Value]) -> Vec<String> {
    let mut out = Vec::with_capacity(recs.len() + recs.len() / 40);
    for r in recs {
        out.push(notification(sub, r));
        let id = r["idempotency_id"].as_str().unwrap_or_default();
        if u8::from_str_radix(id.get(..2).unwrap_or("ff"), 16).unwrap_or(255) < 5 {
            out.push(notification(sub, r));
        }
    }
    out
}

/// After the world moved from `before`: each active conversion subscription gets the deltas
/// of the days it was sent that the move restated; then every subscription its new days.
pub async fn after_advance(sim: &Arc<Sim>, before: &World) -> Result<(), SimError> {
    let after = sim.world();
    let Some(seed) = after.spec.map(|s| s.seed) else {
        return Ok(());
    };
    {
        let _one = sim.pumping.lock().await;
        let version = after.today().to_string();
        for sub in list(sim, None)? {
            let (Some(first), Some(through)) = (sub.delivered_from, sub.delivered_through) else {
                continue;
            };
            let all_paused = sim.streams_paused.load(std::sync::atomic::Ordering::SeqCst);
            if sub.status != "ACTIVE"
                || sub.paused
                || all_paused
                || !records::restates(&sub.dataset)
            {
                continue;
            }
            let q = queue(sim, &sub.destination).await?;
            let mut day =
                first.max(before.last_day - chrono::Duration::days(pp_world::ATTRIBUTION_DAYS));
            while day <= through.min(before.last_day) {
                let recs = records::restated(
                    before,
                    &after,
                    seed,
                    &sub.dataset,
                    sub.profile,
                    day,
                    &version,
                )?;
                send(sim, &q, &bodies(&sub, &recs)).await?;
                day = day.succ_opt().unwrap_or(day);
            }
        }
    }
    pump(sim).await
}

/// `POST /__sandbox/streams/inject`: puts `body` (anything, such as a message that does not
/// parse) on the subscription's queue.
pub async fn inject(sim: &Sim, id: &str, body: &str) -> Result<(), SimError> {
    let sub = get(sim, id)?.ok_or_else(|| SimError::not_found(format!("no subscription {id}")))?;
    let q = queue(sim, &sub.destination).await?;
    send(sim, &q, &[body.to_owned()]).await
}
