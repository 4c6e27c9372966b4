//! Integration tests: the real server on an ephemeral port, used over HTTP as a client would.

mod ads_writes;
mod audiences;
mod bounds;
mod brand;
mod common;
mod connecting;
mod console_browser;
mod engine_guards;
mod engines;
mod exactly_once;
mod fault_matrix;
mod first_use;
mod forecast;
mod forecasting;
mod intelligence;
mod job_kinds;
mod listings;
mod marketplace;
mod mcp;
mod mcp_client;
mod metrics;
mod oauth;
mod pricing;
mod reference_doc;
mod reports;
mod schema_fuzz;
#[path = "../../../store/tests/support/scratch_db.rs"]
mod scratch_db;
mod shape;
mod signin;
mod signin_support;
mod surface;
mod token_cache;
mod twins;
mod v1;
mod warehouse;
