//! A signed-in person's own account, whatever their role: their password changed (the current
//! one checked first), their setup codes for the command line listed and made; and the
//! console's overview of what their tenant holds (for its admins).

use pp_auth::setup::CreatedSetupCode;
use pp_core::Result;
use pp_store::signin::SetupCodeRow;
use pp_store::{PersonRow, Store};

use crate::Operator;

/// The own-account handle ([`crate::Admin::account`]).
pub struct Account<'a> {
    pub(crate) store: &'a Store,
}

/// What a tenant holds, counted for the console's home page.
#[derive(Debug, Clone, Copy, Default)]
pub struct Overview {
    /// Live service credentials.
    pub credentials: usize,
    /// Live partner applications.
    pub apps: usize,
    pub connections: usize,
    pub people: usize,
}

impl Account<'_> {
    /// Changes `person`'s password after checking `current`; `false` (nothing changed) when
    /// `current` is wrong.
    pub async fn change_password(
        &self,
        person: &PersonRow,
        current: &str,
        new: &str,
    ) -> Result<bool> {
        pp_auth::change_password(self.store, person, current, new).await
    }

    /// `person`'s setup codes, newest first.
    pub async fn setup_codes(&self, person: &PersonRow) -> Result<Vec<SetupCodeRow>> {
        self.store.setup_codes().list(&person.id).await
    }

    /// A new one-time setup code for `person`, labelled, shown once.
    pub async fn new_setup_code(
        &self,
        person: &PersonRow,
        label: &str,
    ) -> Result<CreatedSetupCode> {
        pp_auth::setup::create_setup_code(self.store, person, label).await
    }

    /// What the operator's tenant holds (a console admin's own tenant).
    pub async fn overview(&self, op: &Operator) -> Result<Overview> {
        let Some(tenant) = op.own_tenant() else {
            return Ok(Overview::default());
        };
        let creds = self.store.credentials().list(Some(tenant.as_str())).await?;
        let apps = self.store.clients().list(Some(tenant.as_str())).await?;
        Ok(Overview {
            credentials: creds.iter().filter(|c| c.revoked_at.is_none()).count(),
            apps: apps.iter().filter(|c| c.revoked_at.is_none()).count(),
            connections: self.store.connections().list(tenant).await?.len(),
            people: self.store.people().list(Some(tenant.as_str())).await?.len(),
        })
    }
}
