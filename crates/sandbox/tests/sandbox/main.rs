//! The sandbox over HTTP, as a provider client would use it: LWA, the selling side, the
//! advertising API, documents, usage plans, faults and the control surface.

mod ads_model_cases;
mod ads_models;
mod ads_reports_v3;
mod ads_rules;
mod ads_sb;
mod ads_sd;
mod ads_session;
mod ads_v1;
mod catalog_rows;
mod common;
mod consent;
mod ledger;
mod lwa;
mod models;
mod notifications;
mod settlements;
mod spapi_reads;
mod spapi_reports;
mod spapi_writes;
mod sqp;
mod streams;
mod transactions;
mod vendor_reports;
mod world;
