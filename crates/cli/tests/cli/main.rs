//! End-to-end tests of the `partner-platform` binary: the README walkthrough run verbatim
//! against `server --dev`, restarts, configuration refusals and the admin commands, each
//! against a real server process on an ephemeral port.

mod abuse;
mod admin;
mod client;
mod client_work;
mod connect_browser;
mod connection;
mod costs;
mod crash;
mod dev_server;
mod docs_examples;
mod instances;
mod mcp_conformance;
mod process;
mod provider;
mod reports;
mod sandbox;
#[path = "../../../store/tests/support/scratch_db.rs"]
mod scratch_db;
mod sync;
mod webhooks;

/// An HTTP client for the tests. The workspace builds reqwest with rustls but without a
/// default crypto provider, so the process installs ring's before its first client. A request
/// the server never answers fails its test after three minutes, naming the request, instead
/// of holding the whole run until CI gives up on it.
pub fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(180))
        .build()
        .unwrap()
}
