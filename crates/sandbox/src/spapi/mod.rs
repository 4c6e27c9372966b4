//! The selling-side API over the world, path for path as the official models have it.

mod catalog;
mod definitions;
mod fees;
mod finances;
mod inbound;
mod inventory;
mod kiosk;
mod ledger;
mod listings;
pub(crate) mod notifications;
mod orders;
mod pricing;
mod promotions;
pub mod q;
mod report_docs;
mod reports;
mod returns;
mod sellers;
mod settlements;
mod sqp;
mod transactions;
mod vendor;

use std::sync::Arc;

use axum::Router;

use crate::sim::Sim;

/// Marketplace facts the world does not hold: name, domain and language.
pub struct MarketplaceInfo {
    pub id: &'static str,
    pub country: &'static str,
    pub name: &'static str,
    pub domain: &'static str,
    pub language: &'static str,
    pub currency: &'static str,
}

pub const MARKETPLACES: &[MarketplaceInfo] = &[
    MarketplaceInfo {
        id: "ATVPDKIKX0DER",
        country: "US",
        name: "Amazon.com",
        domain: "www.amazon.com",
        language: "en_US",
        currency: "USD",
    },
    MarketplaceInfo {
        id: "A2EUQ1WTGCTBG2",
        country: "CA",
        name: "Amazon.ca",
        domain: "www.amazon.ca",
        language: "en_CA",
        currency: "CAD",
    },
    MarketplaceInfo {
        id: "A1AM78C64UM0Y8",
        country: "MX",
        name: "Amazon.com.mx",
        domain: "www.amazon.com.mx",
        language: "es_MX",
        currency: "MXN",
    },
];

/// The facts of marketplace `id`.
pub fn marketplace(id: &str) -> Option<&'static MarketplaceInfo> {
    MARKETPLACES.iter().find(|m| m.id == id)
}

/// Every selling-side route.
pub fn routes(sim: &Arc<Sim>) -> Router<Arc<Sim>> {
    Router::new()
        .merge(sellers::routes(sim))
        .merge(reports::routes(sim))
        .merge(inventory::routes(sim))
        .merge(catalog::routes(sim))
        .merge(promotions::routes(sim))
        .merge(inbound::routes(sim))
        .merge(definitions::routes(sim))
        .merge(listings::routes(sim))
        .merge(pricing::routes(sim))
        .merge(orders::routes(sim))
        .merge(notifications::routes(sim))
        .merge(fees::routes(sim))
        .merge(finances::routes(sim))
        .merge(transactions::routes(sim))
        .merge(kiosk::routes(sim))
}
