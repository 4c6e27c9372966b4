//! What the marketplace service answers: typed results every front door renders as it likes
//! (the `/api` envelope adds `"ok": true`; MCP sends them as the tool result).

use serde::Serialize;
use serde_json::Value;

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
