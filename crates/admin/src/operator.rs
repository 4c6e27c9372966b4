//! Who administers, and how far their reach goes: the operator at the state store's machine
//! (the admin command line) reaches every tenant; a tenant's admin signed in to the console
//! reaches their own tenant only, and another tenant's rows read as absent. Every change an
//! administrator makes is recorded under the operator's actor.

use pp_core::{Error, Kind, Result, TenantId};
use pp_store::{PersonRow, Store};

/// How far an operator reaches.
#[derive(Debug, Clone)]
enum Reach {
    /// Every tenant, and the service-wide switches: the command line on the state store.
    Service,
    /// One tenant: its admin, in the console.
    Tenant(TenantId, Box<PersonRow>),
}

/// An administrator: who they are (recorded on what they change) and what they reach.
#[derive(Debug, Clone)]
pub struct Operator {
    actor: String,
    reach: Reach,
}

impl Operator {
    /// The operator of the service at the state store's machine (`admin:<user>`).
    pub fn service(actor: impl Into<String>) -> Self {
        Self {
            actor: actor.into(),
            reach: Reach::Service,
        }
    }

    /// A tenant's admin, signed in as `person`; anyone else is refused.
    pub fn tenant_admin(person: &PersonRow) -> Result<Self> {
        if person.role != "admin" {
            return Err(Error::new(
                Kind::InsufficientScope,
                "only an admin of the tenant can do this",
            ));
        }
        Ok(Self {
            actor: person.email.clone(),
            reach: Reach::Tenant(
                TenantId::parse(&person.tenant_id)?,
                Box::new(person.clone()),
            ),
        })
    }

    /// The name changes are recorded under.
    pub fn actor(&self) -> &str {
        &self.actor
    }

    /// The tenant a console admin acts within (`None` for the service's operator).
    pub fn own_tenant(&self) -> Option<&TenantId> {
        match &self.reach {
            Reach::Service => None,
            Reach::Tenant(t, _) => Some(t),
        }
    }

    /// The person acting, when it is a console admin.
    pub fn person(&self) -> Option<&PersonRow> {
        match &self.reach {
            Reach::Service => None,
            Reach::Tenant(_, p) => Some(p),
        }
    }

    /// Whether this operator reaches every tenant.
    pub fn is_service(&self) -> bool {
        matches!(self.reach, Reach::Service)
    }

    /// Refuses what only the service's operator may do (service-wide switches, new tenants).
    pub fn require_service(&self, what: &str) -> Result<()> {
        if self.is_service() {
            return Ok(());
        }
        Err(Error::new(
            Kind::InsufficientScope,
            format!("{what} is for the service's operator (partner-platform admin)"),
        ))
    }

    /// Whether rows of tenant `id` are within reach.
    pub fn reaches(&self, id: &str) -> bool {
        match &self.reach {
            Reach::Service => true,
            Reach::Tenant(t, _) => t.as_str() == id,
        }
    }

    /// Tenant `id`, which must exist and be within reach (another tenant reads as absent).
    pub async fn tenant(&self, store: &Store, id: &str) -> Result<TenantId> {
        let t = TenantId::parse(id)?;
        if !self.reaches(t.as_str()) || store.tenants().get(&t).await?.is_none() {
            return Err(Error::not_found(format!("no tenant {id}")));
        }
        Ok(t)
    }

    /// The tenants a listing covers: the one named (checked), else the own tenant of a console
    /// admin, else every tenant (`None`).
    pub async fn listed(&self, store: &Store, id: Option<&str>) -> Result<Option<TenantId>> {
        match (id, &self.reach) {
            (Some(id), _) => Ok(Some(self.tenant(store, id).await?)),
            (None, Reach::Tenant(t, _)) => Ok(Some(t.clone())),
            (None, Reach::Service) => Ok(None),
        }
    }
}
