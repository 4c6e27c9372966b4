//! Tenant write policies: one JSON document per tenant (bounds on bids and budgets, the largest
//! change, the most items and campaigns one commit may touch, operations never allowed), read by
//! the audited write flow at preview and again at commit. A tenant without a row has the
//! defaults, which `pp_marketplace::policy` owns.

use pp_core::{Error, Result};
use serde_json::Value;

use crate::args;
use crate::db::Db;

/// A tenant's stored policy.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyRow {
    pub doc: Value,
    pub updated_at: String,
    pub updated_by: String,
}

/// The policies aggregate.
pub struct Policies<'a>(pub(crate) &'a Db);

impl Policies<'_> {
    /// The tenant's policy, if one was ever set.
    pub async fn get(&self, tenant: &str) -> Result<Option<PolicyRow>> {
        let Some(r) = self
            .0
            .one(
                "SELECT doc, updated_at, updated_by FROM tenant_policies WHERE tenant_id = ?1",
                args![tenant],
            )
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(PolicyRow {
            doc: serde_json::from_str(&r.text(0)?).map_err(Error::internal_from)?,
            updated_at: r.text(1)?,
            updated_by: r.text(2)?,
        }))
    }

    /// Replaces the tenant's policy with `doc`, recorded as `by`.
    pub async fn put(&self, tenant: &str, doc: &Value, by: &str) -> Result<PolicyRow> {
        let at = crate::now_rfc3339();
        self.0
            .exec(
                "INSERT INTO tenant_policies (tenant_id, doc, updated_at, updated_by) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (tenant_id) DO UPDATE SET doc = excluded.doc, updated_at = excluded.updated_at, updated_by = excluded.updated_by",
                args![tenant, doc.to_string(), at.as_str(), by],
            )
            .await?;
        Ok(PolicyRow {
            doc: doc.clone(),
            updated_at: at,
            updated_by: by.to_owned(),
        })
    }
}
