//! People who sign in to the console: created (a password given, or one generated and shown
//! once), listed, disabled (their sessions, grants and tokens end; nobody disables
//! themselves), and given a new password. A console admin reaches their own tenant's only.

use pp_auth::{CreatedPerson, PersonDetails};
use pp_core::{Error, Kind, Result};
use pp_store::{PersonRow, Store};

use pp_store::approvals::Whose;

use crate::{Ended, Operator};

/// The people handle ([`crate::Admin::people`]).
pub struct People<'a> {
    pub(crate) store: &'a Store,
    pub(crate) op: &'a Operator,
}

impl People<'_> {
    /// A new person of `tenant`; with no `password`, one is generated and shown once.
    pub async fn create(
        &self,
        tenant: &str,
        details: &PersonDetails<'_>,
        password: Option<&str>,
    ) -> Result<CreatedPerson> {
        let t = self.op.tenant(self.store, tenant).await?;
        pp_auth::create_person(self.store, &t, details, password).await
    }

    /// The people of `tenant` (or, for the service's operator, of every tenant).
    pub async fn list(&self, tenant: Option<&str>) -> Result<Vec<PersonRow>> {
        let t = self.op.listed(self.store, tenant).await?;
        self.store
            .people()
            .list(t.as_ref().map(|t| t.as_str()))
            .await
    }

    /// Person `id_or_email`, within reach (another tenant's reads as no person).
    async fn reached(&self, id_or_email: &str) -> Result<PersonRow> {
        match pp_auth::find_person(self.store, id_or_email).await {
            Ok(p) if self.op.reaches(&p.tenant_id) => Ok(p),
            Ok(_) => Err(Error::not_found(format!("no person '{id_or_email}'"))),
            Err(e) => Err(e),
        }
    }

    /// Disables person `id_or_email`: their sessions, grants, tokens and setup-code
    /// credentials end, and the commits they asked a person to approve are withdrawn. Nobody
    /// disables themselves. The person, and what ending their access did.
    pub async fn disable(&self, id_or_email: &str) -> Result<(PersonRow, Ended)> {
        let target = self.reached(id_or_email).await?;
        if self.op.person().is_some_and(|me| me.id == target.id) {
            return Err(Error::new(
                Kind::BadParams,
                "You cannot disable yourself; ask another admin.",
            ));
        }
        let changed = self.store.people().disable(&target.id).await?;
        let whose = Whose::Person {
            tenant: &target.tenant_id,
            email: &target.email,
        };
        let why = format!("{} was disabled", target.email);
        let ended = Ended::withdrawing(self.store, self.op, changed, whose, &why).await?;
        Ok((self.store.people().find(&target.id).await?, ended))
    }

    /// Gives person `id_or_email` a new password (generated and shown once without one).
    pub async fn reset_password(
        &self,
        id_or_email: &str,
        password: Option<&str>,
    ) -> Result<CreatedPerson> {
        let target = self.reached(id_or_email).await?;
        pp_auth::reset_password(self.store, &target.id, password).await
    }
}
