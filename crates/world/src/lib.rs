//! The demo world: a deterministic, seeded picture of one tenant's business and the warehouse
//! it fills. This first cut is the starter warehouse the dev server needs — three seller rows
//! (one token in two marketplaces), items, 90 days of sales and traffic, sponsored-products
//! campaign days and settlement lines — laid out with the spec's conventions (§2.2). The full
//! generator (vendors, brands, years of facts, injected events) grows here.

mod rng;
mod schema;
mod starter;

pub use rng::Rng;
pub use starter::{StarterSummary, build_starter_warehouse};
