//! Outbound events: every event is a row (id, type, tenant, time, subject, data, and the scope a
//! reader needs), read by the feed in the order it was appended (`seq`). Appending an event also
//! makes, in the same transaction, one delivery and its job for every enabled webhook endpoint
//! of the tenant that asked for the type, so each (event, endpoint) is delivered by exactly one
//! job whichever instance appended it (the unique index on deliveries holds it).

use pp_core::events::{self, Event, EventType};
use pp_core::{Error, Result, TenantId};
use serde_json::Value;

use crate::args;
use crate::db::{Arg, Db, Row, Tx};
use crate::jobs::now_ms;
use crate::webhooks;

/// An event to append.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub(crate) kind: &'static EventType,
    /// The ids of what it is about (`{"planId": …, "merchant": …}`), an object.
    pub(crate) subject: Value,
    /// What a reader needs to act on it, an object.
    pub(crate) data: Value,
    /// Names the happening, so appending it again (a job step that runs twice) adds nothing:
    /// `pricing:{job}:finished`, `monitor:stockout:{merchant}:{asin}:{day}:started`.
    pub(crate) once: Option<String>,
}

impl NewEvent {
    /// The event `e` tells (its type and typed payload, `pp_core::events::payloads`).
    pub fn of(e: &impl Event) -> Self {
        Self {
            kind: e.kind(),
            subject: e.subject(),
            data: e.data(),
            once: None,
        }
    }

    /// The same event, appended at most once under `key` (per tenant).
    pub fn once(mut self, key: impl Into<String>) -> Self {
        self.once = Some(key.into());
        self
    }
}

/// An event as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct EventRow {
    /// Its place in the tenant's feed (increasing, with gaps).
    pub seq: i64,
    pub id: String,
    pub tenant: String,
    pub kind: String,
    pub scope: String,
    pub at_ms: i64,
    pub subject: Value,
    pub data: Value,
}

/// What the feed reads.
#[derive(Debug, Clone, Default)]
pub struct EventQuery {
    /// After this place in the feed.
    pub after_seq: Option<i64>,
    /// Only events whose scope is one of these (the reader's scopes).
    pub scopes: Vec<String>,
    /// Only events whose type one of these patterns names (`pp_core::events::matches`);
    /// empty for every type.
    pub types: Vec<String>,
    /// Appended at or after / before these times (unix ms).
    pub since_ms: Option<i64>,
    pub until_ms: Option<i64>,
    pub limit: i64,
}

const COLUMNS: &str = "seq, id, tenant_id, type, scope, at_ms, subject, data";

fn event(r: &Row) -> Result<EventRow> {
    Ok(EventRow {
        seq: r.i64(0)?,
        id: r.text(1)?,
        tenant: r.text(2)?,
        kind: r.text(3)?,
        scope: r.text(4)?,
        at_ms: r.i64(5)?,
        subject: r.json(6)?,
        data: r.json(7)?,
    })
}

/// The events aggregate.
pub struct Events<'a>(pub(crate) &'a Db);

impl Events<'_> {
    /// Appends `e` for `tenant`, with one delivery (and its job) per enabled endpoint that asked
    /// for its type; the stored row.
    pub async fn append(&self, tenant: &TenantId, e: NewEvent) -> Result<EventRow> {
        if !e.subject.is_object() || !e.data.is_object() {
            return Err(Error::internal(format!(
                "event {}: subject and data must be objects",
                e.kind.name
            )));
        }
        let tenant = tenant.as_str().to_owned();
        self.0
            .tx(move |tx| Box::pin(async move { append_in(tx, &tenant, &e).await }))
            .await
    }

    /// The tenant's events the query names, oldest first.
    pub async fn list(&self, tenant: &TenantId, q: &EventQuery) -> Result<Vec<EventRow>> {
        if q.scopes.is_empty() {
            return Ok(Vec::new());
        }
        // a type filter is a pattern over the table of types: the names it covers, bound
        let names: Vec<&str> = events::TYPES
            .iter()
            .map(|t| t.name)
            .filter(|n| q.types.is_empty() || q.types.iter().any(|p| events::matches(p, n)))
            .collect();
        if names.is_empty() {
            return Ok(Vec::new());
        }
        let mut a = args![tenant.as_str()];
        let mut sql = format!(
            "SELECT {COLUMNS} FROM events WHERE tenant_id = ?1 AND scope IN ({})",
            placeholders(&mut a, q.scopes.iter().map(String::as_str))
        );
        if !q.types.is_empty() {
            sql += &format!(" AND type IN ({})", placeholders(&mut a, names));
        }
        for (cond, v) in [
            (" AND seq > ", q.after_seq),
            (" AND at_ms >= ", q.since_ms),
            (" AND at_ms < ", q.until_ms),
        ] {
            if let Some(v) = v {
                sql += &format!("{cond}{}", placeholders(&mut a, [v]));
            }
        }
        sql += &format!(" ORDER BY seq LIMIT {}", placeholders(&mut a, [q.limit]));
        self.0.all(sql, a).await?.iter().map(event).collect()
    }

    /// One of the tenant's events by id.
    pub async fn get(&self, tenant: &TenantId, id: &str) -> Result<Option<EventRow>> {
        self.0
            .one(
                format!("SELECT {COLUMNS} FROM events WHERE tenant_id = ?1 AND id = ?2"),
                args![tenant.as_str(), id],
            )
            .await?
            .as_ref()
            .map(event)
            .transpose()
    }

    /// Any tenant's event by id (a delivery job reads the event it carries).
    pub async fn by_id(&self, id: &str) -> Result<Option<EventRow>> {
        self.0
            .one(
                format!("SELECT {COLUMNS} FROM events WHERE id = ?1"),
                args![id],
            )
            .await?
            .as_ref()
            .map(event)
            .transpose()
    }
}

/// `?n, ?m, …` for `values`, each pushed onto `a`.
fn placeholders<T: Into<Arg>>(a: &mut Vec<Arg>, values: impl IntoIterator<Item = T>) -> String {
    let mut out = Vec::new();
    for v in values {
        a.push(v.into());
        out.push(format!("?{}", a.len()));
    }
    out.join(", ")
}

/// Appends `e` inside `tx` (with its deliveries); the stored row (the first one, for an event
/// already appended under its `once` key, with no new deliveries).
pub(crate) async fn append_in(tx: &mut Tx, tenant: &str, e: &NewEvent) -> Result<EventRow> {
    let id = crate::random_id("evt_", 12)?;
    let at = now_ms();
    let row = tx
        .one(
            format!(
                "INSERT INTO events (id, tenant_id, type, scope, at_ms, subject, data, once_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (tenant_id, once_key) DO NOTHING RETURNING {COLUMNS}"
            ),
            args![
                &id,
                tenant,
                e.kind.name,
                e.kind.scope.as_str(),
                at,
                e.subject.to_string(),
                e.data.to_string(),
                e.once.clone()
            ],
        )
        .await?;
    let Some(row) = row else {
        let first = tx
            .one(
                format!("SELECT {COLUMNS} FROM events WHERE tenant_id = ?1 AND once_key = ?2"),
                args![tenant, e.once.clone()],
            )
            .await?
            .ok_or_else(|| Error::internal("an event insert neither stored nor found its row"))?;
        return event(&first);
    };
    let stored = event(&row)?;
    let wanting = webhooks::wanting(tx, tenant, e.kind.name).await?;
    webhooks::deliver_all_in(tx, tenant, &wanting, &stored.id).await?;
    Ok(stored)
}
