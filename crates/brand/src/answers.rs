//! What brand memory answers, as types: timeline events and pages, documents and their
//! writes, the manifest with each brand's lifecycle, and lifecycle changes. Every front door
//! renders these; optional fields read `null` when empty, as the spec's shapes show them.

use serde::Serialize;
use serde_json::Value;

/// A stake's window of days.
#[derive(Debug, Clone, Serialize)]
pub struct Window {
    pub starts_on: Option<String>,
    pub ends_on: Option<String>,
}

/// One timeline event.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub id: i64,
    pub brand: String,
    pub family: String,
    pub kind: String,
    pub occurred_on: String,
    pub category: Option<String>,
    /// Stakes only.
    pub window: Option<Window>,
    pub interpretation: Option<String>,
    /// As a reader sees it: an open stake past its close date is `closed`.
    pub status: Option<String>,
    pub closes_on: Option<String>,
    pub source: String,
    pub affects: Vec<String>,
    pub tags: Vec<String>,
    pub note: Option<String>,
    pub reason_code: Option<String>,
    pub on_behalf_of: Option<String>,
    pub parent_id: Option<i64>,
    pub payload: Value,
    pub actor: String,
    pub surface: String,
    pub created_at: String,
}

impl Event {
    /// An event projected at read time from another record (an audit row, an approval): no
    /// brand or stake fields, ordered by `ms` (its id; it is not addressable), with `payload`
    /// pointing at the record it came from.
    pub(crate) fn read_time(
        ms: i64,
        family: &str,
        kind: String,
        (actor, surface, source): (String, String, String),
        payload: Value,
    ) -> Self {
        let at = pp_store::rfc3339_ms(ms);
        Self {
            id: ms,
            brand: String::new(),
            family: family.into(),
            kind,
            occurred_on: at[..10].to_owned(),
            category: None,
            window: None,
            interpretation: None,
            status: None,
            closes_on: None,
            source,
            affects: Vec::new(),
            tags: Vec::new(),
            note: None,
            reason_code: None,
            on_behalf_of: None,
            parent_id: None,
            payload,
            actor,
            surface,
            created_at: at,
        }
    }
}

/// A page of events, newest first.
#[derive(Debug, Serialize)]
pub struct Events {
    pub events: Vec<Event>,
    pub next_cursor: Option<String>,
}

/// An appended event; a corroboration also carries the stake it corroborated.
#[derive(Debug, Serialize)]
pub struct Appended {
    pub event: Event,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stake: Option<Event>,
}

/// A brand's lifecycle: `active` with the rest null until it is first retired.
#[derive(Debug, Clone, Serialize)]
pub struct Lifecycle {
    pub state: String,
    pub changed_at: Option<String>,
    pub changed_by: Option<String>,
    pub surface: Option<String>,
    pub reason_code: Option<String>,
}

impl Lifecycle {
    /// A brand never retired.
    pub fn never_retired() -> Self {
        Self {
            state: "active".into(),
            changed_at: None,
            changed_by: None,
            surface: None,
            reason_code: None,
        }
    }
}

/// A document as the manifest lists it.
#[derive(Debug, Clone, Serialize)]
pub struct DocSummary {
    #[serde(rename = "type")]
    pub kind: String,
    /// Corpus documents only.
    pub name: Option<String>,
    pub revision: i64,
    pub hash: String,
    pub updated_at: String,
}

/// One brand of the manifest.
#[derive(Debug, Serialize)]
pub struct ManifestBrand {
    pub brand_slug: String,
    pub name: String,
    pub lifecycle: Lifecycle,
    pub docs: Vec<DocSummary>,
}

/// The manifest.
#[derive(Debug, Serialize)]
pub struct Manifest {
    pub brands: Vec<ManifestBrand>,
    pub retired_count: i64,
}

/// One document with its content.
#[derive(Debug, Serialize)]
pub struct Doc {
    pub brand: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: Option<String>,
    pub revision: i64,
    pub content: String,
    pub hash: String,
    pub updated_at: String,
    pub updated_by: String,
}

/// A document write's outcome (`changed: false` when the content was already that).
#[derive(Debug, Serialize)]
pub struct Written {
    pub brand: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: Option<String>,
    pub revision: i64,
    pub hash: String,
    pub changed: bool,
}

/// A lifecycle change's outcome (`changed: false` and no event when already in that state).
#[derive(Debug, Serialize)]
pub struct LifecycleChange {
    pub brand_slug: String,
    pub state: String,
    pub changed: bool,
    pub at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<i64>,
}
