//! What forecast state answers, as types: document envelopes and pages, a batch's per-write
//! results, sub-brand definitions, and change-log pages. Stored documents are sent as stored
//! (their fields are the spec's, validated when written).

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// A stored document with the service's stamps.
#[derive(Debug, Serialize)]
pub struct Envelope {
    pub key: String,
    pub kind: String,
    pub version: i64,
    pub doc: Box<RawValue>,
    pub updated_at: String,
    pub updated_by: String,
}

/// A page of documents.
#[derive(Debug, Serialize)]
pub struct DocsPage {
    pub docs: Vec<Envelope>,
    pub next_after: Option<String>,
}

/// One write of a batch: its key, the version it left, and whether anything changed.
#[derive(Debug, Serialize)]
pub struct WriteResult {
    pub key: String,
    pub version: i64,
    pub changed: bool,
}

/// A batch, applied whole.
#[derive(Debug, Serialize)]
pub struct Applied {
    pub results: Vec<WriteResult>,
}

/// A sub-brand definition as listed.
#[derive(Debug, Serialize)]
pub struct ScopeDef {
    #[serde(rename = "scopeId")]
    pub scope_id: String,
    pub version: i64,
    pub definition: Value,
}

/// The definitions of the tenant's merchants, or of one.
#[derive(Debug, Serialize)]
pub struct Scopes {
    pub scopes: Vec<ScopeDef>,
}

/// A definition just created, with the key the service minted.
#[derive(Debug, Serialize)]
pub struct ScopeCreated {
    pub definition: Value,
    #[serde(rename = "scopeId")]
    pub scope_id: Value,
    pub key: String,
    pub version: i64,
}

/// One change-log row: a month row's field, before and after.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Revision {
    pub id: i64,
    pub scope_id: String,
    pub month: Option<String>,
    pub field: String,
    pub before: Value,
    pub after: Value,
    pub reason: Option<String>,
    pub actor: String,
    pub created_at: String,
    pub version: i64,
}

/// A page of the change log.
#[derive(Debug, Serialize)]
pub struct Revisions {
    pub revisions: Vec<Revision>,
    pub next_after: Option<i64>,
}
