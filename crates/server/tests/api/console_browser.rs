//! The admin console in a real browser: headless Chromium (Debian's `chromium` and
//! `chromium-driver`) driven by Selenium, from `tests/browser/console.py`. The interpreter is
//! `PP_BROWSER_PYTHON` (`.ci/run` makes a virtual environment with Selenium and sets it).
//! Without one the test says it was skipped and why, except under CI, where it fails.

use std::process::Command;

use crate::common::{TestApp, external_tool, run_external};
use crate::signin_support::{PASSWORD, person};

#[tokio::test]
async fn a_credential_made_in_the_console_shows_its_secret_once_and_dies_when_revoked() {
    let why = "the console browser test needs a python with selenium and Debian's chromium";
    let Some(python) = external_tool("PP_BROWSER_PYTHON", "browser-venv/bin/python", why) else {
        return;
    };
    let browser = ["/usr/bin/chromium", "/usr/bin/chromedriver"];
    if !browser.iter().all(|p| std::path::Path::new(p).exists()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "Debian's chromium and chromium-driver are missing: .ci/run installs them"
        );
        eprintln!("SKIPPED: {why} (apt-get install chromium chromium-driver)");
        return;
    }
    let app = TestApp::start().await;
    let email = person(&app, "admin@acme.example", pp_auth::Role::Admin).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/console.py");
    let mut cmd = Command::new(python);
    cmd.args([script, &app.base, &email, PASSWORD]);
    let stdout = run_external(cmd, "the browser test failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
    // what the browser did is what the store holds: one credential, revoked
    let made: Vec<_> = app
        .store
        .credentials()
        .list(Some("acme"))
        .await
        .unwrap()
        .into_iter()
        .filter(|c| c.label == "made in a browser")
        .collect();
    assert_eq!(made.len(), 1);
    assert!(made[0].revoked_at.is_some());
}
