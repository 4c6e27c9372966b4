//! Administration as a service. The admin command line and the console's admin pages are two
//! doors onto the same methods: tenants, service credentials, people, partner applications,
//! marketplace connections added by hand, the tenant's write policy, listing-write
//! enablement and the service-wide switches, intelligence enrollment, and a person's own
//! account (password, setup codes). Each method takes the [`Operator`] acting — the service's
//! operator at the command line, or a tenant's admin in the console — checks their reach
//! (another tenant's rows read as absent), and records the change under the operator's actor,
//! so a change leaves the same trail whichever door it came through. Neither door touches the
//! state store itself (a test reads both for it).

mod account;
mod apps;
mod connections;
mod credentials;
mod ended;
mod enrollment;
mod listings;
mod operator;
mod people;
mod policies;
mod tenants;

use pp_core::Result;
use pp_store::Store;

pub use account::{Account, Overview};
pub use apps::Apps;
pub use connections::{Connections, NewConnection};
pub use credentials::Credentials;
pub use ended::Ended;
pub use enrollment::{Enrollment, EnrollmentStatus};
pub use listings::{ListingStatus, Listings};
pub use operator::Operator;
pub use people::People;
pub use policies::{Policies, PolicyShown};
pub use tenants::Tenants;

/// The administration service.
#[derive(Clone)]
pub struct Admin {
    store: Store,
}

impl Admin {
    /// Administration over `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }

    /// Tenants: created with their warehouse, listed.
    pub fn tenants<'a>(&'a self, op: &'a Operator) -> Tenants<'a> {
        Tenants {
            store: &self.store,
            op,
        }
    }

    /// Service credentials: created, listed, rotated, revoked.
    pub fn credentials<'a>(&'a self, op: &'a Operator) -> Credentials<'a> {
        Credentials {
            store: &self.store,
            op,
        }
    }

    /// People who sign in: created, listed, disabled, given a new password.
    pub fn people<'a>(&'a self, op: &'a Operator) -> People<'a> {
        People {
            store: &self.store,
            op,
        }
    }

    /// Partner applications: registered, listed, revoked.
    pub fn apps<'a>(&'a self, op: &'a Operator) -> Apps<'a> {
        Apps {
            store: &self.store,
            op,
        }
    }

    /// Marketplace connections added by hand, and a tenant's connections.
    pub fn connections<'a>(&'a self, op: &'a Operator) -> Connections<'a> {
        Connections {
            store: &self.store,
            op,
        }
    }

    /// A tenant's write policy: shown, replaced.
    pub fn policies<'a>(&'a self, op: &'a Operator) -> Policies<'a> {
        Policies {
            store: &self.store,
            op,
        }
    }

    /// Listing writes: merchants enabled, the service-wide switches.
    pub fn listings<'a>(&'a self, op: &'a Operator) -> Listings<'a> {
        Listings {
            store: &self.store,
            op,
        }
    }

    /// Intelligence enrollment per account, and the runs metered.
    pub fn enrollment<'a>(&'a self, op: &'a Operator) -> Enrollment<'a> {
        Enrollment {
            store: &self.store,
            op,
        }
    }

    /// A signed-in person's own account: password, setup codes, the console's overview.
    pub fn account(&self) -> Account<'_> {
        Account { store: &self.store }
    }

    /// Where the auth epoch stands: a change that ends tokens or moves a connection moves it.
    pub async fn epochs(&self) -> Result<pp_store::Epochs> {
        self.store.tokens().epochs().await
    }
}
