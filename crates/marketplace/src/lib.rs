//! The live marketplace surface (docs/concepts/identifiers.md, docs/marketplace.md, docs/writes.md, docs/errors.md): connected accounts with their
//! sealed refresh tokens, merchant resolution, the operation catalogs (data files), the
//! upstream client (LWA, pacing, retries, timeouts) and the triage of provider outcomes into
//! the one error type.

pub mod calls;
pub mod catalog;
pub mod checks;
pub mod connections;
pub mod documents;
pub mod ledger;
pub mod merchants;
pub mod policy;
pub mod pricing;
pub mod reports;
pub mod service;
pub mod triage;
pub mod upstream;
pub mod writes;

pub use merchants::{Merchant, Selector};
pub use pp_store::sealing::Sealer;
pub use service::Marketplace;
pub use upstream::{Client, Consent, Policy, Regional, Upstream};
