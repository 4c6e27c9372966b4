//! Integration tests: the real server on an ephemeral port, used over HTTP as a client would.

mod brand;
mod common;
mod forecast;
mod marketplace;
mod mcp;
mod mcp_client;
mod oauth;
mod pricing;
mod reports;
mod surface;
mod v1;
mod warehouse;
