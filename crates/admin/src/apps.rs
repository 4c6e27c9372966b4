//! Partner applications (OAuth clients a person signs in to): registered for every tenant by
//! the service's operator or for one tenant by its admin, the secret shown once; listed;
//! revoked (their grants and tokens end, and the commits made through them that wait for a
//! person are withdrawn).

use pp_auth::clients::{CreatedClient, PartnerApp, register_partner_app};
use pp_core::Result;
use pp_store::{ClientRow, Store};

use pp_store::approvals::Whose;

use crate::{Ended, Operator};

/// The applications handle ([`crate::Admin::apps`]).
pub struct Apps<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

impl Apps<'_> {
    /// Registers `app`: for `tenant`, or (the service's operator naming none) for every
    /// tenant; a console admin's is always their own tenant's.
    pub async fn register(
        &self,
        tenant: Option<&str>,
        app: &PartnerApp<'_>,
    ) -> Result<CreatedClient> {
        let t = self.op.listed(self.store, tenant).await?;
        register_partner_app(self.store, t.as_ref(), app, self.op.actor()).await
    }

    /// The applications of `tenant` (or, for the service's operator, every one).
    pub async fn list(&self, tenant: Option<&str>) -> Result<Vec<ClientRow>> {
        let t = self.op.listed(self.store, tenant).await?;
        self.store
            .clients()
            .list(t.as_ref().map(|t| t.as_str()))
            .await
    }

    /// Revokes application `client_id` (a console admin's own tenant's only), and withdraws
    /// the commits people signed in through it asked a person to approve.
    pub async fn revoke(&self, client_id: &str) -> Result<Ended> {
        let own = self.op.own_tenant().map(|t| t.as_str());
        let was_live = self.store.clients().revoke(client_id, own).await?;
        let why = format!("application {client_id} was revoked");
        Ended::withdrawing(
            self.store,
            self.op,
            was_live,
            Whose::Application(client_id),
            &why,
        )
        .await
    }
}
