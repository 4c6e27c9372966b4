//! The state store's contract, run against both implementations: the embedded SQLite store
//! and PostgreSQL (a database made for each test on the machine's server and dropped after).
//! Every test takes a [`Fixture`] and runs once per engine through [`each_engine`].

mod ads_writes;
mod approvals;
mod auth;
mod brand;
mod connections;
mod costs;
mod events;
mod fixture;
mod forecast;
mod intelligence;
mod jobs;
mod ledger;
mod listing_writes;
mod mcp_sessions;
mod migrations;
mod outage;
mod pacing;
mod people;
mod policies;
#[path = "../support/scratch_db.rs"]
mod scratch_db;
mod signin;
mod streams;
mod sync;

pub use fixture::{Fixture, each_engine};
