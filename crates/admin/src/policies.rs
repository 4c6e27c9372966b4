//! A tenant's write policy (`docs/writes.md`, "Tenant policies"): the policy in force (the
//! defaults until one is set), and its replacement by a JSON document, checked first, whose
//! left-out fields take the defaults; recorded as updated by the operator.

use pp_core::Result;
use pp_marketplace::policy::{self, Policy};
use pp_store::{PolicyRow, Store};
use serde::Serialize;

use crate::Operator;

/// The policies handle ([`crate::Admin::policies`]).
pub struct Policies<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

/// A tenant's policy in force, and who set it when (`source: default` until someone did).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyShown {
    pub tenant: String,
    pub policy: Policy,
    /// `set` or `default`.
    pub source: &'static str,
    pub updated_at: Option<String>,
    pub updated_by: Option<String>,
}

fn shown(tenant: &str, policy: Policy, row: Option<&PolicyRow>) -> PolicyShown {
    PolicyShown {
        tenant: tenant.to_owned(),
        policy,
        source: if row.is_some() { "set" } else { "default" },
        updated_at: row.map(|r| r.updated_at.clone()),
        updated_by: row.map(|r| r.updated_by.clone()),
    }
}

impl Policies<'_> {
    /// The policy in force for `tenant`.
    pub async fn show(&self, tenant: &str) -> Result<PolicyShown> {
        let t = self.op.tenant(self.store, tenant).await?;
        let (p, row) = policy::in_force(self.store, t.as_str()).await?;
        Ok(shown(t.as_str(), p, row.as_ref()))
    }

    /// Replaces `tenant`'s policy with `doc` (checked; left-out fields take the defaults).
    pub async fn set(&self, tenant: &str, doc: &serde_json::Value) -> Result<PolicyShown> {
        let t = self.op.tenant(self.store, tenant).await?;
        let (p, row) = policy::set(self.store, t.as_str(), doc, self.op.actor()).await?;
        Ok(shown(t.as_str(), p, Some(&row)))
    }
}
