//! Listing writes: a merchant enabled (or not) for change sets, recorded as enabled by the
//! operator, and the service-wide text and image switches, which only the service's operator
//! turns (they hold every tenant's writes).

use pp_core::{Error, Result};
use pp_marketplace::service::{MEDIA_SWITCH, TEXT_SWITCH};
use pp_store::Store;
use pp_store::listing_writes::{EnabledAccount, SwitchRow};

use crate::Operator;

/// The listing-writes handle ([`crate::Admin::listings`]).
pub struct Listings<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

/// The enabled merchants of a tenant and the switches.
pub struct ListingStatus {
    pub accounts: Vec<EnabledAccount>,
    pub switches: Vec<SwitchRow>,
}

impl Listings<'_> {
    /// Enables listing writes for `merchant` of `tenant`; whether it was new.
    pub async fn enable(&self, tenant: &str, merchant: &str) -> Result<bool> {
        let t = self.op.tenant(self.store, tenant).await?;
        let by = self.op.actor();
        self.store.listing_writes().enable(&t, merchant, by).await
    }

    /// Stops listing writes for `merchant` of `tenant`; whether they were enabled.
    pub async fn disable(&self, tenant: &str, merchant: &str) -> Result<bool> {
        let t = self.op.tenant(self.store, tenant).await?;
        self.store.listing_writes().disable(&t, merchant).await
    }

    /// Switches listing `surface` writes (`text` or `media`) `off` (or on) for the whole
    /// service, with the reason callers are shown.
    pub async fn switch(&self, surface: &str, off: bool, reason: Option<&str>) -> Result<()> {
        self.op.require_service("a service-wide switch")?;
        let name = match surface {
            "text" => TEXT_SWITCH,
            "media" => MEDIA_SWITCH,
            other => {
                return Err(Error::invalid_request(format!(
                    "surface is text or media, not {other}"
                )));
            }
        };
        let by = self.op.actor();
        self.store
            .listing_writes()
            .set_switch(name, off, reason, by)
            .await
    }

    /// The merchants of `tenant` enabled (none without one) and the switches.
    pub async fn status(&self, tenant: Option<&str>) -> Result<ListingStatus> {
        let l = self.store.listing_writes();
        let accounts = match self.op.listed(self.store, tenant).await? {
            Some(t) => l.accounts(&t).await?,
            None => Vec::new(),
        };
        Ok(ListingStatus {
            accounts,
            switches: l.switches().await?,
        })
    }
}
