//! Notifications v1: destinations (an SQS queue, by ARN) and a seller's subscriptions, one per
//! notification type; then the world's selling-side changes sent to the destination's queue
//! as the provider sends them — the notification's JSON as the message body, no SNS envelope
//! and no confirmation. A subscription hears what happens after it: the days the world moves
//! forward into (`after_advance`: each day's orders, the offers an injected price test or
//! promotion moved, the stock an injected stock-out took or gave back, the items launched)
//! and each report of the seller's that finishes (`report_created`). About one notification in
//! fifty is sent twice (a redelivery: the same `notificationId`). While every stream is paused
//! (`/__sandbox/streams`, a queue that stops) nothing is sent and what happens is lost, as
//! when the provider cannot write to a queue.
//!
//! The provider asks for a grantless token for destinations and for deleting subscriptions;
//! the sandbox takes the seller's token for every call (docs/sandbox.md).

mod messages;

use std::sync::Arc;

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use chrono::NaiveDate;
use rusqlite::{OptionalExtension, params};
use serde_json::{Value, json};

use crate::error::{Family, SimError};
use crate::gate::Op;
use crate::lwa::Caller;
use crate::op;
use crate::reports::{iso, now_ms};
use crate::sim::Sim;
use crate::store::random_uuid;
use crate::world::World;

use messages::Notice;
pub use messages::TYPES;

static DESTINATIONS: Op = Op {
    name: "notifications.destinations",
    family: Family::Sp,
    rate: 1.0,
    burst: 5.0,
    error_media: None,
};
static SUBSCRIPTIONS: Op = Op {
    name: "notifications.subscriptions",
    family: Family::Sp,
    rate: 1.0,
    burst: 5.0,
    error_media: None,
};

pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .route(
            "/notifications/v1/destinations",
            op(
                sim,
                &DESTINATIONS,
                get(list_destinations).post(create_destination),
            ),
        )
        .route(
            "/notifications/v1/destinations/{destinationId}",
            op(
                sim,
                &DESTINATIONS,
                get(one_destination).delete(delete_destination),
            ),
        )
        .route(
            "/notifications/v1/subscriptions/{notificationType}",
            op(
                sim,
                &SUBSCRIPTIONS,
                get(one_subscription).post(create_subscription),
            ),
        )
        .route(
            "/notifications/v1/subscriptions/{notificationType}/{subscriptionId}",
            op(
                sim,
                &SUBSCRIPTIONS,
                get(subscription_by_id).delete(delete_subscription),
            ),
        )
}

/// The provider's error list.
fn error(status: u16, code: &str, message: impl Into<String>) -> SimError {
    SimError::new(status, code, message.into())
}

fn destination_wire(id: &str, name: &str, arn: &str) -> Value {
    json!({ "destinationId": id, "name": name, "resource": { "sqs": { "arn": arn } } })
}

async fn list_destinations(State(sim): State<Arc<Sim>>) -> Result<Json<Value>, SimError> {
    let rows = sim.store.with(|c| {
        let mut st =
            c.prepare_cached("SELECT id, name, arn FROM notify_destinations ORDER BY created_at")?;
        st.query_map([], |r| {
            Ok(destination_wire(
                &r.get::<_, String>(0)?,
                &r.get::<_, String>(1)?,
                &r.get::<_, String>(2)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()
    })?;
    Ok(Json(json!({ "payload": rows })))
}

fn destination(sim: &Sim, id: &str) -> Result<Option<(String, String)>, SimError> {
    sim.store.with(|c| {
        c.query_row(
            "SELECT name, arn FROM notify_destinations WHERE id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
    })
}

async fn create_destination(
    State(sim): State<Arc<Sim>>,
    body: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    let b: Value = serde_json::from_slice(&body)
        .map_err(|e| error(400, "InvalidInput", format!("body: {e}")))?;
    let name = b["name"]
        .as_str()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| error(400, "InvalidInput", "name is required"))?;
    let arn = b["resourceSpecification"]["sqs"]["arn"]
        .as_str()
        .ok_or_else(|| {
            error(
                400,
                "InvalidInput",
                "resourceSpecification.sqs.arn is required (the sandbox delivers to SQS only)",
            )
        })?;
    // the queue must exist and be reachable, as the provider checks it may write to it
    crate::stream::queue(&sim, arn)
        .await
        .map_err(|e| error(400, "InvalidInput", e.message))?;
    let held = sim.store.with(|c| {
        c.query_row(
            "SELECT id FROM notify_destinations WHERE arn = ?1",
            [arn],
            |r| r.get::<_, String>(0),
        )
        .optional()
    })?;
    if held.is_some() {
        return Err(error(
            409,
            "Conflict",
            format!("A destination for {arn} already exists"),
        ));
    }
    let id = random_uuid();
    sim.store.with(|c| {
        c.execute(
            "INSERT INTO notify_destinations (id, name, arn, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, name, arn, now_ms()],
        )
    })?;
    Ok(Json(json!({ "payload": destination_wire(&id, name, arn) })))
}

async fn one_destination(
    State(sim): State<Arc<Sim>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let (name, arn) = destination(&sim, &id)?
        .ok_or_else(|| error(404, "NotFound", format!("no destination {id}")))?;
    Ok(Json(
        json!({ "payload": destination_wire(&id, &name, &arn) }),
    ))
}

async fn delete_destination(
    State(sim): State<Arc<Sim>>,
    Path(id): Path<String>,
) -> Result<Json<Value>, SimError> {
    let n = sim.store.with(|c| {
        c.execute(
            "DELETE FROM notify_subscriptions WHERE destination = ?1",
            [&id],
        )?;
        c.execute("DELETE FROM notify_destinations WHERE id = ?1", [&id])
    })?;
    if n == 0 {
        return Err(error(404, "NotFound", format!("no destination {id}")));
    }
    Ok(Json(json!({})))
}

/// A seller's subscription to one type: (id, destination, payload version).
fn subscription(
    sim: &Sim,
    seller: &str,
    kind: &str,
) -> Result<Option<(String, String, String)>, SimError> {
    sim.store.with(|c| {
        c.query_row(
            "SELECT id, destination, payload_version FROM notify_subscriptions WHERE seller = ?1 AND kind = ?2",
            [seller, kind],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()
    })
}

fn subscription_wire((id, destination, version): &(String, String, String)) -> Value {
    json!({ "subscriptionId": id, "payloadVersion": version, "destinationId": destination })
}

fn known_type(kind: &str) -> Result<(), SimError> {
    if TYPES.contains(&kind) {
        Ok(())
    } else {
        Err(error(
            400,
            "InvalidInput",
            format!(
                "notificationType {kind} is not sent by the sandbox (it sends {})",
                TYPES.join(", ")
            ),
        ))
    }
}

async fn create_subscription(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(kind): Path<String>,
    body: axum::body::Bytes,
) -> Result<Json<Value>, SimError> {
    known_type(&kind)?;
    let b: Value = serde_json::from_slice(&body)
        .map_err(|e| error(400, "InvalidInput", format!("body: {e}")))?;
    let (Some(dest), Some(version)) = (b["destinationId"].as_str(), b["payloadVersion"].as_str())
    else {
        return Err(error(
            400,
            "InvalidInput",
            "destinationId and payloadVersion are required",
        ));
    };
    if destination(&sim, dest)?.is_none() {
        return Err(error(400, "InvalidInput", format!("no destination {dest}")));
    }
    if let Some(s) = subscription(&sim, &c.subject, &kind)? {
        return Err(error(
            409,
            "Conflict",
            format!(
                "The seller already has a {kind} subscription ({}): read it with getSubscription",
                s.0
            ),
        ));
    }
    let made = (random_uuid(), dest.to_owned(), version.to_owned());
    sim.store.with(|conn| {
        conn.execute(
            "INSERT INTO notify_subscriptions (id, seller, kind, destination, payload_version, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![made.0, c.subject, kind, made.1, made.2, now_ms()],
        )
    })?;
    Ok(Json(json!({ "payload": subscription_wire(&made) })))
}

async fn one_subscription(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path(kind): Path<String>,
) -> Result<Json<Value>, SimError> {
    known_type(&kind)?;
    let s = subscription(&sim, &c.subject, &kind)?
        .ok_or_else(|| error(404, "NotFound", format!("no {kind} subscription")))?;
    Ok(Json(json!({ "payload": subscription_wire(&s) })))
}

async fn subscription_by_id(
    State(sim): State<Arc<Sim>>,
    Extension(c): Extension<Caller>,
    Path((kind, id)): Path<(String, String)>,
) -> Result<Json<Value>, SimError> {
    let s = subscription(&sim, &c.subject, &kind)?
        .filter(|s| s.0 == id)
        .ok_or_else(|| error(404, "NotFound", format!("no {kind} subscription {id}")))?;
    Ok(Json(json!({ "payload": subscription_wire(&s) })))
}

async fn delete_subscription(
    State(sim): State<Arc<Sim>>,
    Path((kind, id)): Path<(String, String)>,
) -> Result<(StatusCode, Json<Value>), SimError> {
    let n = sim.store.with(|c| {
        c.execute(
            "DELETE FROM notify_subscriptions WHERE id = ?1 AND kind = ?2",
            [&id, &kind],
        )
    })?;
    if n == 0 {
        return Err(error(
            404,
            "NotFound",
            format!("no {kind} subscription {id}"),
        ));
    }
    Ok((StatusCode::OK, Json(json!({}))))
}

/// The notification `n` as the queue gets it. The four older types name their fields in
/// PascalCase, the newer ones in camelCase, as the provider's models do.
fn body(sim: &Sim, subscription: &str, n: &Notice) -> Result<String, SimError> {
    let (app, published, id) = (sim.application_id()?, iso(now_ms()), random_uuid());
    let v = if matches!(
        n.kind,
        "REPORT_PROCESSING_FINISHED" | "ITEM_SALES_EVENT_CHANGE"
    ) {
        let version = match n.kind {
            "ITEM_SALES_EVENT_CHANGE" => "2020-09-04",
            _ => "1.0",
        };
        json!({
            "notificationVersion": version, "notificationType": n.kind, "payloadVersion": "2020-09-04",
            "eventTime": n.event_time, "payload": n.payload,
            "notificationMetadata": {
                "applicationId": app, "subscriptionId": subscription,
                "publishTime": published, "notificationId": id,
            },
        })
    } else {
        json!({
            "NotificationVersion": "1.0", "NotificationType": n.kind, "PayloadVersion": "1.0",
            "EventTime": n.event_time, "Payload": n.payload,
            "NotificationMetadata": {
                "ApplicationId": app, "SubscriptionId": subscription,
                "PublishTime": published, "NotificationId": id,
            },
        })
    };
    Ok(v.to_string())
}

/// Sends `notices` of `seller` to their subscriptions' queues (those without one are not
/// sent); about one in fifty twice.
async fn deliver(sim: &Sim, seller: &str, notices: &[Notice]) -> Result<usize, SimError> {
    if sim.streams_paused.load(std::sync::atomic::Ordering::SeqCst) {
        return Ok(0);
    }
    let mut sent = 0;
    for kind in TYPES {
        let of: Vec<&Notice> = notices.iter().filter(|n| n.kind == *kind).collect();
        if of.is_empty() {
            continue;
        }
        let Some((id, dest, _)) = subscription(sim, seller, kind)? else {
            continue;
        };
        let Some((_, arn)) = destination(sim, &dest)? else {
            continue;
        };
        let q = crate::stream::queue(sim, &arn).await?;
        let mut bodies = Vec::with_capacity(of.len());
        for n in of {
            let b = body(sim, &id, n)?;
            if b.len() % 50 == 7 {
                bodies.push(b.clone());
            }
            bodies.push(b);
        }
        sent += bodies.len();
        crate::stream::send(sim, &q, &bodies).await?;
    }
    Ok(sent)
}

/// After the world moved from `before`: every subscribed seller's notices of the new days.
pub async fn after_advance(sim: &Arc<Sim>, before: &World) -> Result<(), SimError> {
    let from = before.last_day.succ_opt().unwrap_or(before.last_day);
    send_days(sim, from, sim.world().last_day, None).await?;
    Ok(())
}

/// `POST /__sandbox/notifications/replay`: every subscribed seller's notices of the days
/// `from` through `through` (of `types` only, when given) sent again now, as if they had
/// just happened: a history a subscription missed, for a demo or a test. How many were sent.
pub async fn replay(
    sim: &Arc<Sim>,
    from: NaiveDate,
    through: NaiveDate,
    types: Option<&[String]>,
) -> Result<usize, SimError> {
    let last = sim.world().last_day;
    if from > through || through > last {
        return Err(SimError::invalid(format!(
            "replay days from {from} through {through}: the first at most the last, the last at most the world's last day {last}"
        )));
    }
    if let Some(t) = types
        .into_iter()
        .flatten()
        .find(|t| !TYPES.contains(&t.as_str()))
    {
        return Err(SimError::invalid(format!(
            "{t} is not a type the sandbox sends"
        )));
    }
    send_days(sim, from, through, types).await
}

/// Sends every subscribed seller's notices of the days `from` through `through` (of `only`
/// those types, when given); how many messages.
async fn send_days(
    sim: &Sim,
    from: NaiveDate,
    through: NaiveDate,
    only: Option<&[String]>,
) -> Result<usize, SimError> {
    let sellers: Vec<(String, String)> = sim.store.with(|c| {
        let mut st = c.prepare_cached(
            "SELECT seller, kind FROM notify_subscriptions WHERE kind <> 'REPORT_PROCESSING_FINISHED' ORDER BY seller, kind",
        )?;
        st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<_>>>()
    })?;
    let mut by_seller: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (seller, kind) in sellers {
        if only.is_none_or(|o| o.contains(&kind)) {
            by_seller.entry(seller).or_default().push(kind);
        }
    }
    let world = sim.world();
    let mut sent = 0;
    for (token, kinds) in by_seller {
        for seller in world.seller_rows(&token)? {
            let mut day = from;
            while day <= through {
                let notices = messages::day_notices(sim, &seller, &kinds, day)?;
                sent += deliver(sim, &token, &notices).await?;
                day = day.succ_opt().unwrap_or(day);
            }
        }
    }
    Ok(sent)
}

/// After a seller's report `id` was created: when the seller subscribes to
/// `REPORT_PROCESSING_FINISHED`, its notice is sent once the report has finished.
pub fn report_created(sim: &Arc<Sim>, seller: &str, id: &str) {
    match subscription(sim, seller, "REPORT_PROCESSING_FINISHED") {
        Ok(Some(_)) => {}
        _ => return,
    }
    let (sim, seller, id) = (sim.clone(), seller.to_owned(), id.to_owned());
    tokio::spawn(async move {
        if let Err(e) = report_finished(&sim, &seller, &id).await {
            tracing::warn!(error = %e.message, report = id, "a report's notification was not sent");
        }
    });
}

async fn report_finished(sim: &Arc<Sim>, seller: &str, id: &str) -> Result<(), SimError> {
    loop {
        let Some(row) = sim.report(super::reports::FAMILY, seller, id)? else {
            return Ok(());
        };
        let now = now_ms();
        if row.in_flight(now) {
            let wait = (row.ready_ms - now).clamp(5, 60_000) as u64;
            tokio::time::sleep(std::time::Duration::from_millis(wait)).await;
            continue;
        }
        let described = super::reports::describe(sim, seller, &row)?;
        let notice = messages::report_finished(seller, &described);
        deliver(sim, seller, &[notice]).await?;
        return Ok(());
    }
}
