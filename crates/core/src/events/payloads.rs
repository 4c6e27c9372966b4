//! Every event's payload, typed: what it is about (`subject`, the ids) and what a reader needs
//! to act on it (`data`), one type per event type (types whose events share a shape share
//! it: a commit committed or failed, a report done or fatal, a connection lapsed or restored,
//! a monitor's episode). A service builds one of these and hands it to the feed
//! (`pp_store::events::NewEvent::of`); the field order here is the order on the wire.
//! A new event type is a row of `TYPES` and its payload here.

use serde::Serialize;
use serde_json::Value;

use super::*;

/// An event's payload, ready for the feed.
pub trait Event {
    /// The type it is.
    fn kind(&self) -> &'static EventType;
    /// What it is about: the ids, an object.
    fn subject(&self) -> Value;
    /// What a reader needs, an object.
    fn data(&self) -> Value;
}

/// The events whose payload is a subject and a data struct of their own.
macro_rules! event {
    ($(#[$doc:meta])* $name:ident { subject: $subject:ty, data: $data:ty } => $kind:expr) => {
        $(#[$doc])*
        #[derive(Debug, Clone)]
        pub struct $name {
            pub subject: $subject,
            pub data: $data,
        }

        impl Event for $name {
            fn kind(&self) -> &'static EventType {
                ($kind)(self)
            }
            fn subject(&self) -> Value {
                to_object(&self.subject)
            }
            fn data(&self) -> Value {
                to_object(&self.data)
            }
        }
    };
}

/// A payload part as JSON (a struct of plain fields always serializes).
fn to_object(v: &impl Serialize) -> Value {
    serde_json::to_value(v).unwrap_or_else(|e| panic!("an event payload did not serialize: {e}"))
}

/// An advertising commit's ids.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitSubject {
    pub audit_id: String,
    pub plan_id: String,
    pub operation: String,
    pub login: String,
    pub profile_id: Option<String>,
}

/// What an advertising commit did.
#[derive(Debug, Clone, Serialize)]
pub struct CommitData {
    /// `answered`, `refused`, `unknown`.
    pub outcome: String,
    pub status: Option<u16>,
    /// Items by outcome.
    pub items: serde_json::Map<String, Value>,
    /// The `/api` envelope of a commit that failed as a whole.
    pub error: Option<Value>,
    pub actor: String,
}

event! {
    /// `ads.write.committed` (the provider answered) or `ads.write.failed`.
    AdsWriteTold { subject: CommitSubject, data: CommitData }
    => |e: &AdsWriteTold| if e.data.outcome == "answered" { &ADS_WRITE_COMMITTED } else { &ADS_WRITE_FAILED }
}

/// A held commit's ids.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalSubject {
    pub approval_id: String,
    pub plan_id: String,
    pub operation: String,
}

/// Why a commit waits, for whom, until when.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequestedData {
    pub reason: String,
    pub requested_by: String,
    pub expires_at: String,
}

event! {
    /// `approval.requested`.
    ApprovalRequested { subject: ApprovalSubject, data: ApprovalRequestedData }
    => |_| &APPROVAL_REQUESTED
}

/// A decided request's ids, with the audit row of the commit an approval made.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecidedSubject {
    pub approval_id: String,
    pub plan_id: String,
    pub operation: String,
    pub audit_id: Option<String>,
}

/// A person's decision and what came of it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalDecidedData {
    pub decision: String,
    pub decided_by: Option<String>,
    pub note: Option<String>,
    pub status: String,
    pub error: Option<Value>,
}

event! {
    /// `approval.decided`.
    ApprovalDecided { subject: DecidedSubject, data: ApprovalDecidedData }
    => |_| &APPROVAL_DECIDED
}

/// A listing commit's ids.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingSubject {
    pub audit_id: String,
    pub change_set_id: String,
    pub merchant: String,
}

/// Each SKU's result, and the image check it started.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingCommittedData {
    pub outcome: String,
    pub items: Value,
    pub image_check: Option<String>,
    pub actor: String,
}

event! {
    /// `listing.change_set.committed`.
    ListingCommitted { subject: ListingSubject, data: ListingCommittedData }
    => |_| &LISTING_COMMITTED
}

/// An image check's change set.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageCheckSubject {
    pub change_set_id: String,
    pub merchant: Option<String>,
}

/// How an image check ended.
#[derive(Debug, Clone, Serialize)]
pub struct ImageCheckData {
    /// `verified`, `failed`, `timed_out`.
    pub outcome: String,
    pub skus: Value,
    pub error: Option<Value>,
}

event! {
    /// `listing.image_check.finished`.
    ImageChecked { subject: ImageCheckSubject, data: ImageCheckData }
    => |_| &LISTING_IMAGE_CHECKED
}

/// A job's run and the merchant it ran for.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSubject {
    pub run_id: String,
    pub merchant: Option<String>,
}

/// How a pricing run ended.
#[derive(Debug, Clone, Serialize)]
pub struct PricingRunData {
    pub status: String,
    pub done: i64,
    pub total: i64,
    pub error: Option<Value>,
}

event! {
    /// `pricing.run.finished`.
    PricingRunFinished { subject: RunSubject, data: PricingRunData }
    => |_| &PRICING_RUN_FINISHED
}

/// A watched report's ids.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportSubject {
    pub report_id: String,
    pub merchant: Option<String>,
}

/// How a watched report ended.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportData {
    /// `done`, or how it ended without a document.
    pub status: String,
    pub reason: Value,
    pub report_type: Value,
    pub report_document_id: Value,
    pub error: Option<Value>,
}

event! {
    /// `report.done` (ready to download) or `report.fatal`.
    ReportTold { subject: ReportSubject, data: ReportData }
    => |e: &ReportTold| if e.data.status == "done" { &REPORT_DONE } else { &REPORT_FATAL }
}

/// How an asynchronous intelligence run ended.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IntelligenceRunData {
    pub request_id: String,
    /// `complete` or `failed`.
    pub status: String,
    pub error: Option<Value>,
}

event! {
    /// `intelligence.run.finished`.
    IntelligenceRunFinished { subject: RunSubject, data: IntelligenceRunData }
    => |_| &INTELLIGENCE_RUN_FINISHED
}

/// A connection's grant and merchant.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectionSubject {
    /// `seller` or `ads`.
    pub grant: String,
    pub merchant: String,
}

/// The connection's status now.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectionData {
    /// `lapsed` or `active`.
    pub status: String,
}

event! {
    /// `connection.lapsed` or `connection.restored` (by the status it has now).
    ConnectionTold { subject: ConnectionSubject, data: ConnectionData }
    => |e: &ConnectionTold| if e.data.status == "lapsed" { &CONNECTION_LAPSED } else { &CONNECTION_RESTORED }
}

/// One merchant's dataset.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncSubject {
    pub seller_id: i64,
    pub dataset: String,
}

/// The days a finished sync run loaded.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncFinishedData {
    pub from: String,
    pub through: String,
    pub started_at: String,
}

event! {
    /// `warehouse.sync.finished`.
    SyncFinished { subject: SyncSubject, data: SyncFinishedData }
    => |_| &SYNC_FINISHED
}

/// Why a sync run failed, and when it tries again.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncFailedData {
    pub error: Value,
    pub retry_in_seconds: i64,
}

event! {
    /// `warehouse.sync.failed`.
    SyncFailed { subject: SyncSubject, data: SyncFailedData }
    => |_| &SYNC_FAILED
}

/// A monitor episode's start or end: its monitor's type, the ids its evidence names, and
/// (started) the summary and evidence or (ended) its days.
#[derive(Debug, Clone)]
pub struct MonitorTold {
    pub kind: &'static EventType,
    /// The ids the alert is about (`sellerId`, `asin`, `campaignId`, `metric`, `month`).
    pub subject: serde_json::Map<String, Value>,
    pub data: EpisodeData,
}

/// An episode's start or end.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "episode", rename_all = "camelCase")]
pub enum EpisodeData {
    #[serde(rename_all = "camelCase")]
    Started {
        started_on: String,
        summary: String,
        evidence: Value,
    },
    #[serde(rename_all = "camelCase")]
    Ended {
        started_on: String,
        ended_on: String,
        last_seen_on: String,
        summary: String,
    },
}

impl Event for MonitorTold {
    fn kind(&self) -> &'static EventType {
        self.kind
    }
    fn subject(&self) -> Value {
        Value::Object(self.subject.clone())
    }
    fn data(&self) -> Value {
        to_object(&self.data)
    }
}

/// A selling-side notification told as an event: its type, the ids (`sellerId`,
/// `marketplaceId`, `asin`, `sku`, `orderId`), and what it said.
#[derive(Debug, Clone)]
pub struct Notified {
    pub kind: &'static EventType,
    pub subject: serde_json::Map<String, Value>,
    pub data: NotifiedData,
}

/// A notification's own words: when it happened and was published, its id, and the
/// provider's payload summed up for the type (`status`, `fulfillable`, `buyBoxPrice` …).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotifiedData {
    pub notification_id: String,
    pub event_time: String,
    pub publish_time: String,
    #[serde(flatten)]
    pub said: serde_json::Map<String, Value>,
}

impl Event for Notified {
    fn kind(&self) -> &'static EventType {
        self.kind
    }
    fn subject(&self) -> Value {
        Value::Object(self.subject.clone())
    }
    fn data(&self) -> Value {
        to_object(&self.data)
    }
}

/// A disabled webhook endpoint.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EndpointSubject {
    pub endpoint_id: String,
}

/// Why an endpoint was disabled, and (access ended) by whom.
#[derive(Debug, Clone, Serialize)]
pub struct EndpointDisabledData {
    pub url: String,
    /// `failing`, or the access that ended.
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

event! {
    /// `webhook.endpoint.disabled`.
    EndpointDisabled { subject: EndpointSubject, data: EndpointDisabledData }
    => |_| &WEBHOOK_DISABLED
}
