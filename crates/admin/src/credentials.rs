//! Service credentials: created for a tenant with a scope list (or the default bundle), the
//! secret shown once; listed; rotated (a new secret, the old one's tokens end at once);
//! revoked (its tokens end at once, its held commits are withdrawn). A console admin reaches their own tenant's only.

use pp_auth::CreatedCredential;
use pp_core::{Error, Result, ScopeSet};
use pp_store::{CredentialRow, Store};

use pp_store::approvals::Whose;

use crate::{Ended, Operator};

/// The credentials handle ([`crate::Admin::credentials`]).
pub struct Credentials<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

impl Credentials<'_> {
    /// A new credential of `tenant`, labelled, holding `scopes` (default: the read-only bundle
    /// plus `sql:query`).
    pub async fn create(
        &self,
        tenant: &str,
        scopes: Option<ScopeSet>,
        label: &str,
    ) -> Result<CreatedCredential> {
        let t = self.op.tenant(self.store, tenant).await?;
        pp_auth::create_credential(self.store, &t, scopes, label).await
    }

    /// The credentials of `tenant` (or, for the service's operator, of every tenant).
    pub async fn list(&self, tenant: Option<&str>) -> Result<Vec<CredentialRow>> {
        let t = self.op.listed(self.store, tenant).await?;
        self.store
            .credentials()
            .list(t.as_ref().map(|t| t.as_str()))
            .await
    }

    /// The credential `id` (or client id), within reach.
    async fn reached(&self, id: &str) -> Result<CredentialRow> {
        let row = self.store.credentials().find(id).await?;
        if !self.op.reaches(&row.tenant_id) {
            return Err(Error::not_found(format!("no credential '{id}'")));
        }
        Ok(row)
    }

    /// Gives credential `id` a new secret; its old secret and tokens stop at once.
    pub async fn rotate(&self, id: &str) -> Result<CreatedCredential> {
        let row = self.reached(id).await?;
        pp_auth::rotate_credential(self.store, &row.id).await
    }

    /// Revokes credential `id` and its tokens, and withdraws the commits it asked a person to
    /// approve: the row, and what ending it did.
    pub async fn revoke(&self, id: &str) -> Result<(CredentialRow, Ended)> {
        let row = self.reached(id).await?;
        let was_live = self.store.credentials().revoke(&row.id).await?;
        let why = format!("credential {} was revoked", row.id);
        let ended = Ended::withdrawing(
            self.store,
            self.op,
            was_live,
            Whose::Credential(&row.id),
            &why,
        )
        .await?;
        Ok((row, ended))
    }
}
