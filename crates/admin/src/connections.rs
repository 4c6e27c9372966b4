//! Marketplace connections added by hand (a refresh token a merchant's authorization
//! produced, sealed before it is stored and never shown), and a tenant's connections. A
//! merchant an external warehouse has no seller row for is refused: a call could never select
//! it. A managed warehouse takes any merchant: its sync adds the rows.

use pp_core::{Error, Kind, Result, TenantId};
use pp_marketplace::Sealer;
use pp_marketplace::connections::{self, Connection, Grant};
use pp_store::Store;

use crate::Operator;

/// The connections handle ([`crate::Admin::connections`]).
pub struct Connections<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

/// A grant added by hand.
pub struct NewConnection<'a> {
    /// `seller` or `ads`.
    pub kind: &'a str,
    /// The merchant token.
    pub merchant: &'a str,
    /// `na`, `eu` or `fe`.
    pub region: &'a str,
    pub refresh_token: &'a str,
    /// `active`, `lapsed` or `not_activated`.
    pub status: &'a str,
}

impl Connections<'_> {
    /// Connects `grant` for `tenant`, sealing its refresh token with `sealer`; recorded as
    /// connected by the operator.
    pub async fn add(
        &self,
        tenant: &str,
        grant: &NewConnection<'_>,
        sealer: &Sealer,
    ) -> Result<()> {
        let t = self.op.tenant(self.store, tenant).await?;
        connections::check_refresh_token(grant.refresh_token)?;
        self.has_merchant(&t, grant.merchant).await?;
        let g = Grant {
            kind: grant.kind,
            merchant: grant.merchant,
            region: grant.region,
            refresh_token: grant.refresh_token,
            status: grant.status,
            connected_by: self.op.actor(),
            reach: &[],
        };
        connections::connect(self.store, sealer, &t, &g).await?;
        // a managed warehouse takes the merchant in and starts its sync by itself (the
        // server's workers run the job)
        self.store.sync().request_adopt(&t).await.map(|_| ())
    }

    /// The connections of `tenant` (never their tokens).
    pub async fn list(&self, tenant: &str) -> Result<Vec<Connection>> {
        let t = self.op.tenant(self.store, tenant).await?;
        connections::list(self.store, &t).await
    }

    /// Refuses a merchant the tenant's warehouse has no seller row for, naming the ones it has.
    async fn has_merchant(&self, tenant: &TenantId, merchant: &str) -> Result<()> {
        // a managed warehouse gets the merchant's rows from its sync
        if self.store.sync().loader(tenant).await?.is_some() {
            return Ok(());
        }
        let row = self
            .store
            .tenants()
            .get(tenant)
            .await?
            .ok_or_else(|| Error::not_found(format!("no tenant {}", tenant.as_str())))?;
        let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(1));
        let engine = pp_warehouse::open(&row.warehouse, &slots)?;
        let sellers =
            pp_warehouse::directory::sellers(engine.as_ref(), &Default::default()).await?;
        if sellers.iter().any(|s| s.token == merchant) {
            return Ok(());
        }
        let mut known: Vec<&str> = sellers.iter().map(|s| s.token.as_str()).collect();
        known.dedup();
        Err(Error::new(
            Kind::MerchantNotFound,
            format!(
                "tenant {} has no merchant {merchant} in its warehouse (its seller table's MarketplaceSellerID: {})",
                tenant.as_str(),
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        ))
    }
}
