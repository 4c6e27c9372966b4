//! Listing writes' switches: the merchants an administrator enabled listing writes for (per
//! tenant), and the service's global switches (listing text writes, listing media writes)
//! that every instance reads on every write, so an administrator's `off` holds everywhere at
//! once. The change sets themselves are plans and audit rows (`ads_writes`).

use pp_core::{Error, Result, TenantId};

use crate::args;
use crate::db::{Db, Row};
use crate::jobs::now_ms;

/// A merchant listing writes are enabled for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnabledAccount {
    pub merchant: String,
    pub enabled_by: String,
    pub enabled_ms: i64,
}

/// A global switch as stored: set off (with the reason) or back on, by whom and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwitchRow {
    pub name: String,
    pub off: bool,
    pub reason: Option<String>,
    pub changed_by: String,
    pub changed_ms: i64,
}

fn switch(r: &Row) -> Result<SwitchRow> {
    Ok(SwitchRow {
        name: r.text(0)?,
        off: r.i64(1)? != 0,
        reason: r.opt_text(2)?,
        changed_by: r.text(3)?,
        changed_ms: r.i64(4)?,
    })
}

/// The listing-writes aggregate.
pub struct ListingWrites<'a>(pub(crate) &'a Db);

impl ListingWrites<'_> {
    /// Enables listing writes for `merchant` of `tenant`; false if they already were.
    pub async fn enable(&self, tenant: &TenantId, merchant: &str, by: &str) -> Result<bool> {
        let n = self
            .0
            .exec(
                "INSERT INTO listing_accounts (tenant_id, merchant, enabled_by, enabled_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (tenant_id, merchant) DO NOTHING",
                args![tenant.as_str(), merchant, by, now_ms()],
            )
            .await?;
        Ok(n == 1)
    }

    /// Disables listing writes for `merchant`; false if they were not enabled.
    pub async fn disable(&self, tenant: &TenantId, merchant: &str) -> Result<bool> {
        let n = self
            .0
            .exec(
                "DELETE FROM listing_accounts WHERE tenant_id = ?1 AND merchant = ?2",
                args![tenant.as_str(), merchant],
            )
            .await?;
        Ok(n == 1)
    }

    /// Whether listing writes are enabled for `merchant`.
    pub async fn enabled(&self, tenant: &TenantId, merchant: &str) -> Result<bool> {
        Ok(self
            .0
            .one(
                "SELECT 1 FROM listing_accounts WHERE tenant_id = ?1 AND merchant = ?2",
                args![tenant.as_str(), merchant],
            )
            .await?
            .is_some())
    }

    /// The tenant's enabled merchants, by merchant.
    pub async fn accounts(&self, tenant: &TenantId) -> Result<Vec<EnabledAccount>> {
        self.0
            .all(
                "SELECT merchant, enabled_by, enabled_ms FROM listing_accounts WHERE tenant_id = ?1 ORDER BY merchant",
                args![tenant.as_str()],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(EnabledAccount {
                    merchant: r.text(0)?,
                    enabled_by: r.text(1)?,
                    enabled_ms: r.i64(2)?,
                })
            })
            .collect()
    }

    /// Sets the global switch `name` off (with a reason) or on.
    pub async fn set_switch(
        &self,
        name: &str,
        off: bool,
        reason: Option<&str>,
        by: &str,
    ) -> Result<()> {
        if name.is_empty() || name.len() > 64 {
            return Err(Error::invalid_request(
                "a switch name is 1 to 64 characters",
            ));
        }
        self.0
            .exec(
                "INSERT INTO service_switches (name, is_off, reason, changed_by, changed_ms) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (name) DO UPDATE SET is_off = excluded.is_off, reason = excluded.reason,
                     changed_by = excluded.changed_by, changed_ms = excluded.changed_ms",
                args![name, i64::from(off), reason, by, now_ms()],
            )
            .await?;
        Ok(())
    }

    /// The switch `name` as last set, if anyone ever set it.
    pub async fn switch(&self, name: &str) -> Result<Option<SwitchRow>> {
        self.0
            .one(
                "SELECT name, is_off, reason, changed_by, changed_ms FROM service_switches WHERE name = ?1",
                args![name],
            )
            .await?
            .as_ref()
            .map(switch)
            .transpose()
    }

    /// Every switch anyone set, by name.
    pub async fn switches(&self) -> Result<Vec<SwitchRow>> {
        self.0
            .all(
                "SELECT name, is_off, reason, changed_by, changed_ms FROM service_switches ORDER BY name",
                args![],
            )
            .await?
            .iter()
            .map(switch)
            .collect()
    }
}
