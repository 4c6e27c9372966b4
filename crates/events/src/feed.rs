//! The event feed: a tenant's events oldest first, after a cursor (an event's id), filtered by
//! type patterns and time, and only those whose surface the reader's scopes can read (an event's
//! scope is its type's, `pp_core::events::TYPES`). A follower passes back the answer's `cursor`
//! to read on from where it stopped.

use pp_core::events;
use pp_core::{Error, Kind, Principal, Result};
use pp_store::Store;
use pp_store::events::{EventQuery, EventRow};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The most events one page holds.
pub const MAX_LIMIT: i64 = 500;

/// What a reader asks of the feed.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeedRequest {
    /// Only events after this one (an event id, or the last answer's `cursor`).
    pub after: Option<String>,
    /// Type patterns, comma-separated: a type (`report.done`), a family (`monitor.*`) or `*`.
    #[serde(rename = "type")]
    pub types: Option<String>,
    /// Only events at or after this time (RFC 3339, or a date meaning its start in UTC).
    pub since: Option<String>,
    /// Only events before this time.
    pub until: Option<String>,
    /// At most this many (1–500, default 100).
    pub limit: Option<i64>,
}

/// One event as the feed and the webhooks show it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EventOut {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// When it was appended (RFC 3339, UTC).
    pub timestamp: String,
    /// The ids of what it is about.
    pub subject: Value,
    pub data: Value,
}

impl From<&EventRow> for EventOut {
    fn from(e: &EventRow) -> Self {
        Self {
            id: e.id.clone(),
            kind: e.kind.clone(),
            timestamp: pp_store::rfc3339_ms(e.at_ms),
            subject: e.subject.clone(),
            data: e.data.clone(),
        }
    }
}

/// A page of the feed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FeedAnswer {
    pub events: Vec<EventOut>,
    /// Pass as `after` to read on: the last event's id (or the `after` asked, when none came).
    pub cursor: Option<String>,
    /// Whether the page is full (more may be waiting now).
    pub more: bool,
}

/// Reads a page of the feed as `p`.
pub async fn read(store: &Store, p: &Principal, req: FeedRequest) -> Result<FeedAnswer> {
    let limit = req.limit.unwrap_or(100);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return Err(bad(format!("limit must be 1 to {MAX_LIMIT}")));
    }
    let types: Vec<String> = match &req.types {
        None => Vec::new(),
        Some(list) => list.split(',').map(|t| t.trim().to_owned()).collect(),
    };
    if let Some(unknown) = types.iter().find(|t| !events::known_pattern(t)) {
        return Err(bad(format!("no event type matches '{unknown}'")).with_fix(
            "Name a type, a family with .* (monitor.*) or *; docs/events.md lists them.",
        ));
    }
    // an event the caller may not read is answered as one that does not exist, so the
    // cursor tells nothing about events beyond its scopes
    let readable = p.scopes.to_strings();
    let after_seq = match &req.after {
        None => None,
        Some(id) => Some(
            store
                .events()
                .get(&p.tenant, id)
                .await?
                .filter(|e| readable.contains(&e.scope))
                .ok_or_else(|| bad(format!("no event '{id}' in this account to read after")))?
                .seq,
        ),
    };
    let q = EventQuery {
        after_seq,
        scopes: readable,
        types,
        since_ms: req.since.as_deref().map(|t| time("since", t)).transpose()?,
        until_ms: req.until.as_deref().map(|t| time("until", t)).transpose()?,
        limit,
    };
    let rows = store.events().list(&p.tenant, &q).await?;
    Ok(FeedAnswer {
        more: rows.len() as i64 == limit,
        cursor: rows.last().map(|e| e.id.clone()).or(req.after),
        events: rows.iter().map(EventOut::from).collect(),
    })
}

fn bad(message: String) -> Error {
    Error::new(Kind::BadParams, message)
}

/// Unix ms of an RFC 3339 time or a date (its start, UTC).
fn time(name: &str, text: &str) -> Result<i64> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Ok(t.timestamp_millis());
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc().timestamp_millis())
        .ok_or_else(|| {
            bad(format!(
                "{name} must be an RFC 3339 time or a YYYY-MM-DD date"
            ))
        })
}
