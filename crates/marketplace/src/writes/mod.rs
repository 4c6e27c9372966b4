//! Audited advertising writes (docs/writes.md): the parts of the plan-then-commit flow that need no
//! provider and no store — the items of a call (`items`), the dry run's per-item checks
//! (`rules`), bid-adjustment merging (`merge`), the per-item reading of the provider's answer
//! (`results`) — and the plan a dry run issues: the exact request a commit sends, under a hash.
//! The flow itself (reads of current values, the audit log, sending) is
//! `service::Marketplace::ads_write`.

pub mod audience;
pub mod items;
pub mod listings;
pub mod merge;
pub mod results;
pub mod rules;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use pp_core::TenantId;

use crate::catalog::Operation;
use crate::connections::GrantKind;
use crate::ledger::canonical;
use crate::upstream::Request;

/// How long a plan can be committed after its dry run.
pub const PLAN_LIFETIME: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// The exact request a commit sends.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PlannedRequest {
    pub method: String,
    pub path: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub query: Vec<(String, String)>,
    /// Headers beyond authorization (the profile scope …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

impl PlannedRequest {
    /// The request `built` would send, as a plan keeps it.
    pub fn of(built: &Request<'_>) -> Self {
        Self {
            method: built.op.method.clone(),
            path: built.path.clone(),
            query: built.query.clone(),
            headers: built.headers.clone(),
            media_type: built.media_type.clone(),
            body: built.body.clone(),
        }
    }

    /// The upstream request replaying this plan as `grant` of `merchant`.
    pub fn upstream<'a>(
        &self,
        op: &'a Operation,
        tenant: &'a TenantId,
        grant: GrantKind,
        merchant: &'a str,
    ) -> Request<'a> {
        Request {
            op,
            tenant,
            grant,
            merchant,
            path: self.path.clone(),
            query: self.query.clone(),
            headers: self.headers.clone(),
            body: self.body.clone(),
            media_type: self.media_type.clone(),
            background: None,
        }
    }
}

/// What the store keeps of a plan, beyond its hashes.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanBody {
    /// The advertising login (merchant token) it acts as.
    pub login: String,
    pub profile_id: Option<String>,
    pub request: PlannedRequest,
    /// The call's body as sent (for rebuilding it around fewer items).
    pub call_body: Option<Value>,
    /// The items as planned (state defaulted, modifiers merged).
    pub items: Vec<Value>,
    /// The entity each item names (updates, deletes).
    pub entity_ids: Vec<Option<String>>,
    /// Each entity as it was at preview (updates, deletes).
    pub snapshot: Vec<Option<Value>>,
    /// The fields of each item a commit compares with the preview.
    pub compared: Vec<Vec<String>>,
    /// The profile's currency, read at preview for the policy's bounds.
    #[serde(default)]
    pub currency: Option<String>,
    /// Where the plan was previewed (the previewer's surface, as recorded): the policy's
    /// approval rules apply to it whichever door commits the plan. Absent on plans stored
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previewed_on: Option<String>,
    /// The application the previewer signed in through, when a person's token previewed it
    /// (the policy's `applications` and AI-client rules apply to it as to the committer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previewed_app: Option<pp_core::App>,
}

fn sha256(v: &Value) -> String {
    hex::encode(Sha256::digest(canonical(v).to_string().as_bytes()))
}

/// The plan hash: over the exact request a commit sends.
pub fn plan_hash(r: &PlannedRequest) -> String {
    sha256(&json!({ "request": r }))
}

/// The call hash: what the caller asked for (a commit must ask for the same).
pub fn call_hash(
    operation: &str,
    login: &str,
    profile: Option<&str>,
    query: &Value,
    merge: bool,
) -> String {
    sha256(&json!({
        "operation": operation, "login": login, "profile": profile, "query": query, "merge": merge,
    }))
}

/// The values of `fields` in an entity, as the commit compares them.
pub fn compared_values(entity: &Value, fields: &[String]) -> Value {
    Value::Object(
        fields
            .iter()
            .map(|f| (f.clone(), entity.get(f).cloned().unwrap_or(Value::Null)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_hash_follows_every_part_of_the_request() {
        let r = PlannedRequest {
            method: "PUT".into(),
            path: "/sp/keywords".into(),
            query: vec![],
            headers: vec![("Amazon-Advertising-API-Scope".into(), "1".into())],
            media_type: Some("application/vnd.spKeyword.v3+json".into()),
            body: Some(json!({"keywords": [{"keywordId": "1", "bid": 0.5}]})),
        };
        let h = plan_hash(&r);
        let mut other = r.clone();
        other.body = Some(json!({"keywords": [{"keywordId": "1", "bid": 0.51}]}));
        assert_ne!(plan_hash(&other), h);
        let mut other = r.clone();
        other.headers[0].1 = "2".into();
        assert_ne!(plan_hash(&other), h);
        // the same request in another key order hashes the same
        let mut same = r.clone();
        same.body = Some(json!({"keywords": [{"bid": 0.5, "keywordId": "1"}]}));
        assert_eq!(plan_hash(&same), h);
    }
}
