//! The report ledger (beyond docs/reports-and-pricing.md): before a report create leaves the gateway, its intent is
//! written under a canonical hash of the request. An identical request while the first is in
//! flight or done (within a day) gets the same report id instead of a second report; a caller's
//! `Idempotency-Key` gets the same answer on a retry, across restarts. A create whose outcome
//! was uncertain, or whose sender died, is reconciled on the next try from the time of its
//! *first* send (never moved by a reconcile), and is sent again only when the reconcile proves
//! nothing was made or the caller acknowledged that a second report may be (`reports.rs`).
//! A report that ended `FATAL` or cancelled is not handed to a new identical request. The rows
//! and the rule live in the state store (`pp_store::ledger`); this module names the families
//! and hashes the requests.

use pp_core::{Result, TenantId};
use pp_store::Store;
use pp_store::ledger::Intent;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

/// The three report families and how each is reconciled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `reports.create_report`: reconciled by listing reports of that type.
    Spapi,
    /// `reporting.create_report`: an identical in-flight resend answers 425 with the id.
    AdsV3,
    /// `reporting_v1.create_report`: no deduplication at the provider, nothing to list.
    AdsV1,
}

impl Family {
    /// The family of a create operation, if it is a report create.
    pub fn of(operation: &str) -> Option<Self> {
        match operation {
            "reports.create_report" => Some(Self::Spapi),
            "reporting.create_report" => Some(Self::AdsV3),
            "reporting_v1.create_report" => Some(Self::AdsV1),
            _ => None,
        }
    }

    /// The family as the ledger stores it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Spapi => "spapi",
            Self::AdsV3 => "ads_v3",
            Self::AdsV1 => "ads_v1",
        }
    }

    /// The provider's report id in a create's answer.
    pub fn report_id(self, body: &Value) -> Option<String> {
        let v = match self {
            Self::AdsV1 => &body["success"][0]["report"]["reportId"],
            _ => &body["reportId"],
        };
        v.as_str().map(str::to_owned)
    }
}

pub use pp_store::ledger::{CREATED, Decision, Entry, FAILED, SENDING, UNKNOWN};

/// Objects with sorted keys and lists of plain values sorted (columns, group-bys and
/// marketplaces are sets), so the same request always hashes the same.
pub(crate) fn canonical(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for k in keys {
                out.insert(k.clone(), canonical(&m[k]));
            }
            Value::Object(out)
        }
        Value::Array(a) if a.iter().all(|x| x.is_string() || x.is_number()) => {
            let mut items: Vec<String> = a.iter().map(Value::to_string).collect();
            items.sort();
            Value::Array(items.into_iter().map(Value::String).collect())
        }
        Value::Array(a) => Value::Array(a.iter().map(canonical).collect()),
        other => other.clone(),
    }
}

/// The hash of a create: family, account and the canonical request.
pub fn request_hash(family: Family, account: &str, body: &Value) -> String {
    let text = json!([family.name(), account, canonical(body)]).to_string();
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// What a create asks the ledger: the request's family, account and hash, the caller's key,
/// how long a sender holds the row, and how fresh a report it may reuse.
pub struct Asked<'a> {
    pub family: Family,
    pub account: &'a str,
    pub hash: &'a str,
    pub key: Option<&'a str>,
    pub lease_ms: i64,
    pub fresh_since: Option<i64>,
}

/// Decides, atomically, what a create does (the store's exactly-once rule).
pub async fn decide(store: &Store, tenant: &TenantId, a: Asked<'_>) -> Result<Decision> {
    store
        .ledger()
        .decide(Intent {
            tenant: tenant.clone(),
            family: a.family.name(),
            account: a.account.to_owned(),
            hash: a.hash.to_owned(),
            key: a.key.map(str::to_owned),
            lease_ms: a.lease_ms,
            fresh_since: a.fresh_since,
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_request_hashes_the_same_whatever_the_order() {
        let a = json!({"reportType": "X", "marketplaceIds": ["B", "A"], "opts": {"z": 1, "a": 2}});
        let b = json!({"opts": {"a": 2, "z": 1}, "marketplaceIds": ["A", "B"], "reportType": "X"});
        assert_eq!(
            request_hash(Family::Spapi, "m", &a),
            request_hash(Family::Spapi, "m", &b)
        );
        assert_ne!(
            request_hash(Family::Spapi, "m", &a),
            request_hash(Family::Spapi, "n", &a)
        );
        assert_ne!(
            request_hash(Family::Spapi, "m", &a),
            request_hash(Family::AdsV3, "m", &a)
        );
    }
}
