//! End-to-end tests of the `partner-platform` binary: the README walkthrough run verbatim
//! against `server --dev`, restarts, configuration refusals and the admin commands, each
//! against a real server process on an ephemeral port.

mod admin;
mod crash;
mod dev_server;
mod process;
mod sandbox;
