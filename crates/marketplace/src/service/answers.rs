//! What the marketplace service answers: typed results every front door renders as it likes
//! (the `/api` envelope adds `"ok": true`; MCP sends them as the tool result).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::catalog::Operation;
use crate::connections::ConnectionStatus;
use crate::merchants::Merchant;

/// The merchants a credential can act for.
#[derive(Debug, Serialize)]
pub struct Merchants {
    pub merchants: Vec<Merchant>,
}

/// An operation catalog, filtered by prefix.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalog {
    pub operations: Vec<&'static Operation>,
    /// The selector contract (selling side only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merchant_identifiers: Option<Value>,
}

/// Who a call acted for: a merchant row, or an advertising login and profile.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Acting {
    Merchant(Merchant),
    #[serde(rename_all = "camelCase")]
    Login {
        seller_id: String,
        profile_id: Option<String>,
    },
}

/// How a create answered through the ledger.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportRef {
    pub report_id: String,
    pub reused: bool,
    pub recovered: Option<&'static str>,
    /// Sent although an earlier identical create may have made a report (acknowledged).
    pub duplicate_risk: bool,
}

/// One call's answer: the provider's status and JSON.
#[derive(Debug, Serialize)]
pub struct CallAnswer {
    pub operation: String,
    pub merchant: Acting,
    pub status: u16,
    pub data: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report: Option<ReportRef>,
}

/// A login's own refusal on the profiles listing.
#[derive(Debug, Serialize)]
pub struct LoginError {
    pub kind: &'static str,
    pub message: String,
}

/// One advertising login with its profiles.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Login {
    pub seller_id: String,
    pub status: ConnectionStatus,
    pub profiles: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<LoginError>,
}

/// Every advertising login.
#[derive(Debug, Serialize)]
pub struct Profiles {
    pub logins: Vec<Login>,
}

/// A report created (or found) through the ledger.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportCreated {
    pub report_id: String,
    pub merchant: Merchant,
    pub reused: bool,
    pub recovered: Option<&'static str>,
    /// Sent although an earlier identical create may have made a report (acknowledged).
    pub duplicate_risk: bool,
    pub poll: String,
}

/// A report's status in our words.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportStatus {
    pub report_id: String,
    pub report_type: Value,
    pub status: &'static str,
    pub processing_status: Value,
    pub created_time: Value,
    pub data_start_time: Value,
    pub data_end_time: Value,
    pub document_ready: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The failure a `failed` report carries, as the `/api` envelope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
    /// When the watch recorded the final status.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checked_at: Option<String>,
}

/// A done report's presigned document.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReportDocument {
    pub report_id: String,
    pub report_document_id: String,
    pub url: Value,
    pub compression_algorithm: Value,
    pub note: &'static str,
}

/// An inline pricing answer.
#[derive(Debug, Serialize)]
pub struct PricingAnswer {
    pub family: &'static str,
    pub merchant: Merchant,
    pub total: usize,
    pub batches: usize,
    pub items: Vec<Value>,
}

/// A run's merchant as its poll shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunMerchant {
    pub seller_id: String,
    pub legacy_seller_id: i64,
    pub marketplace: String,
}

/// A run's batches.
#[derive(Debug, Serialize)]
pub struct RunBatches {
    pub done: usize,
    pub total: i64,
    pub size: usize,
}

/// A pricing run as its poll shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunView {
    pub run_id: String,
    pub family: &'static str,
    pub status: pp_store::jobs::JobStatus,
    pub merchant: RunMerchant,
    pub done: i64,
    pub total: i64,
    pub batches: RunBatches,
    pub spacing_seconds: f64,
    pub estimated_seconds_left: i64,
    pub throttled_batches: u32,
    pub created_at: String,
    pub updated_at: String,
    pub finished_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Value>,
}

/// A page of a run's answers.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResult {
    pub run_id: String,
    pub status: pp_store::jobs::JobStatus,
    pub complete: bool,
    pub total: i64,
    pub answered: usize,
    pub items: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
}

/// An advertising call's answer: a plain call, or an audited write's dry run or commit.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum AdsAnswer {
    Call(CallAnswer),
    Preview(Preview),
    Commit(Commit),
    /// A commit the tenant's policy holds until a person approves it.
    Pending(Pending),
}

/// A commit held for a person's approval: nothing was sent; the approval says where to look.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pending {
    pub operation: String,
    pub merchant: Acting,
    pub dry_run: bool,
    /// `pending_approval` while a person has not decided (or the approved plan is being
    /// sent); after that the approval's status (`sent`, `rejected`, `expired`, `failed`).
    pub outcome: String,
    pub approval: ApprovalInfo,
}

/// A held commit as its requester and its approvers see it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalInfo {
    pub approval_id: String,
    /// `pending`, `approved` (being sent), `rejected`, `expired`, `sent` or `failed`.
    pub status: String,
    /// Why the policy holds it.
    pub reason: String,
    pub operation: String,
    pub plan_id: String,
    pub plan_hash: String,
    pub requested_by: String,
    pub surface: String,
    pub requested_at: String,
    pub expires_at: String,
    pub decided_by: Option<String>,
    pub decided_at: Option<String>,
    pub note: Option<String>,
    /// The audit record of the send, once sent.
    pub audit_id: Option<String>,
    /// Where the requester reads the outcome, and where a person decides.
    pub poll: String,
    pub console: String,
    pub message: String,
}

/// A held commit with what it changes, item by item, for the person deciding.
#[derive(Debug, Clone)]
pub struct HeldWrite {
    pub info: ApprovalInfo,
    pub items: Vec<HeldItem>,
}

/// One item of a held commit: the entity and each field it sets, before and after.
#[derive(Debug, Clone)]
pub struct HeldItem {
    pub index: usize,
    pub entity_id: Option<String>,
    pub changes: Vec<(String, String, String)>,
}

/// A plan a dry run issues: what a commit of it sends, under a hash, until it expires.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub plan_id: String,
    pub plan_hash: String,
    pub expires_at: String,
    /// The exact requests a commit sends (one per call).
    pub requests: Vec<crate::writes::PlannedRequest>,
    /// The items that will serve and bill as soon as the commit lands.
    pub serves: Vec<usize>,
    /// In words: what the commit will do about serving.
    pub billing: String,
}

/// A write's dry run: per-item findings, and a plan when every item passes. Nothing was sent.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    pub operation: String,
    pub merchant: Acting,
    pub dry_run: bool,
    pub valid: bool,
    pub items: Vec<crate::writes::rules::Finding>,
    /// The account's write policy on this plan: `allowed` when nothing breaks it, and the
    /// findings of the plan as a whole (each item's are with the item).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyVerdict>,
    pub plan: Option<Plan>,
}

/// What the account's write policy says of a plan.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyVerdict {
    pub allowed: bool,
    pub findings: Vec<crate::policy::PolicyFinding>,
}

/// What a commit did as a whole.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommitInfo {
    pub audit_id: String,
    pub plan_id: String,
    pub plan_hash: String,
    /// `answered`, `refused`, `unknown` or `not_sent` (as the audit row's status).
    pub outcome: String,
    /// The provider's HTTP status, when it answered.
    pub status: Option<u16>,
    /// The whole request's failure (`refused`, `unknown`), in the failure envelope's terms (docs/errors.md).
    pub error: Option<Value>,
    /// This answer is the first commit's, returned again for a repeated `Idempotency-Key`.
    pub replayed: bool,
}

/// A write's commit: what was sent, and each item's result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Commit {
    pub operation: String,
    pub merchant: Acting,
    pub dry_run: bool,
    pub commit: CommitInfo,
    pub items: Value,
}

/// One audit log record as the audit read shows it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditRecord {
    pub audit_id: String,
    pub at: String,
    pub credential_id: String,
    pub actor: String,
    pub surface: String,
    pub operation: String,
    pub merchant: String,
    pub profile_id: Option<String>,
    pub plan_id: String,
    pub plan_hash: String,
    pub idempotency_key: Option<String>,
    pub status: String,
    /// The entities before the write.
    pub snapshot: Value,
    /// The request as sent.
    pub sent: Option<Value>,
    /// The provider's answer per item.
    pub answer: Option<Value>,
    /// The person who approved it, when the tenant's policy held it for approval.
    pub approved_by: Option<String>,
    /// Who previewed the plan, and with which credential (the caller who committed it is
    /// `actor`, `credentialId`).
    pub previewed_by: Option<String>,
    pub previewed_credential_id: Option<String>,
    /// Where the write's outcome is read (`INS-CHANGE-OUTCOME-01` with its `auditId`) and
    /// from when: present once the provider applied something.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<pp_core::outcome::OutcomeLink>,
}

/// A page of the audit log, newest first.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditPage {
    pub records: Vec<AuditRecord>,
    pub next_cursor: Option<String>,
}

/// A selling-side call's answer: a plain call, or a listing change set's preview or commit.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum SpapiAnswer {
    Call(CallAnswer),
    ListingPreview(ListingPreview),
    ListingCommit(ListingCommit),
}

/// One SKU of a listing preview: the provider's validation, what the listing holds now for
/// the attributes the change touches, and the patches as they will be replayed.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkuPreview {
    pub sku: String,
    /// `VALID` or `INVALID` (the provider's `VALIDATION_PREVIEW`), `NOT_FOUND` (no such
    /// listing: only existing SKUs are edited) or `MISMATCH` (a product type other than the
    /// listing's).
    pub status: String,
    pub product_type: Option<String>,
    /// The provider's issues (or ours), each with `code`, `message`, `attributeNames`.
    pub issues: Vec<Value>,
    /// The touched attributes as the listing holds them now.
    pub current: Map<String, Value>,
    pub patches: Vec<crate::writes::listings::Patch>,
    /// Whether the SKU changes an image slot (applied asynchronously, then verified).
    pub media: bool,
}

/// A proposed change set: what a commit replays, under a hash, until it expires.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeSetRef {
    pub change_set_id: String,
    pub change_set_hash: String,
    pub expires_at: String,
    /// Each product type's schema version at preview (a commit refuses if one moved).
    pub product_types: std::collections::BTreeMap<String, String>,
    /// The exact requests a commit sends, one per SKU.
    pub requests: Vec<crate::writes::PlannedRequest>,
}

/// A listing preview: nothing applied; a change set when every SKU is valid.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingPreview {
    pub operation: String,
    pub merchant: Acting,
    pub dry_run: bool,
    pub valid: bool,
    pub items: Vec<SkuPreview>,
    pub change_set: Option<ChangeSetRef>,
}

/// What a listing commit did as a whole.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingCommitInfo {
    pub audit_id: String,
    pub change_set_id: String,
    pub change_set_hash: String,
    /// `answered`, or `unknown` when a SKU's answer was lost (a commit whose every SKU moved
    /// is refused, `stale_approval`, so one always sends).
    pub outcome: String,
    /// The image check's job, when the change set sets image slots.
    pub media_check: Option<String>,
    pub replayed: bool,
}

/// A listing commit: each SKU's result.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListingCommit {
    pub operation: String,
    pub merchant: Acting,
    pub dry_run: bool,
    pub commit: ListingCommitInfo,
    /// Per SKU: `outcome` (`succeeded`, `failed`, `drifted`, `unknown`), and as they apply
    /// `submissionId`, `issues`, `error`, `before`/`now` (drifted), `media` (`verifying`).
    pub items: Value,
}

/// A change set as it stands (`GET /api/marketplace/listings/change-sets/{id}`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeSetView {
    pub change_set_id: String,
    /// `proposed`, `expired` or `committed`.
    pub status: String,
    pub change_set_hash: String,
    pub proposed_at: String,
    pub expires_at: String,
    pub proposed_by: String,
    pub seller_id: String,
    pub marketplace_id: String,
    pub product_types: std::collections::BTreeMap<String, String>,
    /// Per SKU: the patches and the touched attributes as they were at preview.
    pub items: Vec<Value>,
    /// The commit: who, when, its outcome and each SKU's result.
    pub commit: Option<Value>,
    /// The image check: `verifying`, `verified`, `failed` or `timed_out`, per SKU.
    pub media: Option<Value>,
}
