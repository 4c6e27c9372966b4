//! Connecting accounts in headless Chromium against the dev server (`server --dev`, the real
//! binary): the demo admin disconnects a merchant and connects its seller account and
//! advertising login again through the sandbox's consent pages, and the gateway's calls for it
//! stop and then work (`crates/server/tests/browser/connect.py`). No refresh token shows on a
//! page, in an API answer or in the server's log. The interpreter is `PP_BROWSER_PYTHON`
//! (`.ci/run` makes a virtual environment with Selenium); without one, and Debian's chromium
//! and chromium-driver, the test says it was skipped, except under CI, where it fails.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use crate::process::{Server, token};

const SELLER: &str = "A2DEMOSELLER01";

/// The Python with Selenium and Debian's browser, or why the test is skipped (never under CI).
fn browser_python() -> Option<PathBuf> {
    let python = std::env::var_os("PP_BROWSER_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            let p = PathBuf::from(std::env::var_os("HOME")?)
                .join(".cache/partner-platform/browser-venv/bin/python");
            p.exists().then_some(p)
        });
    let browser = ["/usr/bin/chromium", "/usr/bin/chromedriver"]
        .iter()
        .all(|p| std::path::Path::new(p).exists());
    if python.is_none() || !browser {
        assert!(
            std::env::var_os("CI").is_none(),
            "PP_BROWSER_PYTHON, chromium or chromium-driver is missing: .ci/run installs them"
        );
        eprintln!(
            "SKIPPED: the connect browser test needs a python with selenium and Debian's chromium"
        );
        return None;
    }
    python
}

#[tokio::test]
async fn a_tenant_admin_connects_accounts_at_the_consent_pages_and_calls_for_the_merchant_work() {
    let Some(python) = browser_python() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(
        dir.path(),
        &["server", "--dev", "--listen", "127.0.0.1:0"],
        "dev server is up at ",
        "Stop with Ctrl-C",
    );
    let cred: Value = serde_json::from_slice(
        &std::fs::read(dir.path().join(".partner-dev/dev-credential.json")).unwrap(),
    )
    .unwrap();
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    let (status, t) = token(
        &server.base,
        &text(&cred["client_id"]),
        &text(&cred["client_secret"]),
    )
    .await;
    assert_eq!(status, 200, "{t}");
    let profile = cred["sandbox"]["advertising"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["account"] == SELLER)
        .unwrap()["profiles"][0]
        .to_string();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../server/tests/browser/connect.py"
    );
    let out = tokio::task::spawn_blocking({
        let args = [
            script.to_owned(),
            server.base.clone(),
            text(&cred["console"]["email"]),
            text(&cred["console"]["password"]),
            text(&t["access_token"]),
            SELLER.to_owned(),
            profile,
        ];
        move || Command::new(python).args(args).output().unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("PASS"),
        "the connect browser test failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = std::fs::read_to_string(&server.log).unwrap();
    server.stop();
    assert!(
        log.contains("/console/connections/callback"),
        "the log is the one that saw the callbacks"
    );
    assert!(!log.contains("Atzr|"), "a refresh token reached the log");
}
