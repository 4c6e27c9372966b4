//! The admin console in a real browser: headless Chromium (Debian's `chromium` and
//! `chromium-driver`) driven by Selenium, from `tests/browser/console.py` (credentials) and
//! `tests/browser/approvals.py` (a held write approved). The interpreter is
//! `PP_BROWSER_PYTHON` (`.ci/run` makes a virtual environment with Selenium and sets it).
//! Without one the test says it was skipped and why, except under CI, where it fails.

use std::process::Command;

use crate::common::{Options, TestApp, external_tool, run_external};
use crate::signin_support::{PASSWORD, person};

/// The Python with Selenium and Debian's browser, or why the test is skipped (never under CI).
pub(crate) fn browser_python() -> Option<std::path::PathBuf> {
    let why = "the console browser test needs a python with selenium and Debian's chromium";
    let python = external_tool("PP_BROWSER_PYTHON", "browser-venv/bin/python", why)?;
    let browser = ["/usr/bin/chromium", "/usr/bin/chromedriver"];
    if !browser.iter().all(|p| std::path::Path::new(p).exists()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "Debian's chromium and chromium-driver are missing: .ci/run installs them"
        );
        eprintln!("SKIPPED: {why} (apt-get install chromium chromium-driver)");
        return None;
    }
    Some(python)
}

#[tokio::test]
async fn a_credential_made_in_the_console_shows_its_secret_once_and_dies_when_revoked() {
    let Some(python) = browser_python() else {
        return;
    };
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

#[tokio::test]
async fn an_approver_approves_an_ai_clients_held_write_in_the_browser_and_exactly_it_is_sent() {
    use crate::ads_writes::{HeldByMcp, held_by_mcp};
    let Some(python) = browser_python() else {
        return;
    };
    let app = TestApp::start_market().await;
    let HeldByMcp {
        t,
        bid,
        preview,
        held,
        ..
    } = held_by_mcp(&app).await;
    assert_eq!(held["approval"]["status"], "pending", "{held}");
    let approval = held["approval"]["approvalId"].as_str().unwrap().to_owned();
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 0);

    let email = person(&app, "val@acme.example", pp_auth::Role::Approver).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/approvals.py");
    let mut cmd = Command::new(python);
    cmd.args([
        script,
        &app.base,
        &email,
        PASSWORD,
        &approval,
        &bid.to_string(),
    ]);
    let stdout = run_external(cmd, "the approvals browser test failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
    // exactly the approved plan reached the provider, once, on the requester's and approver's names
    assert_eq!(app.sandbox_calls("sp.updateKeywords").await, 1);
    let (_, audit) = app
        .get(
            &t,
            "/api/marketplace/audit?operation=sp.update_keywords&limit=1",
        )
        .await;
    let record = &audit["records"][0];
    assert_eq!(record["approvedBy"], "val@acme.example", "{audit}");
    assert_eq!(record["planHash"], preview["plan"]["planHash"], "{audit}");
    assert_eq!(
        record["sent"]["body"]["keywords"][0]["bid"].as_f64(),
        Some(bid)
    );
    assert!(
        record["actor"].as_str().unwrap().starts_with("svc:"),
        "{audit}"
    );
}

/// Issue 67: the Sync page mid-backfill, in a browser. sigma's selling account is connected
/// but not taken in: the page says so, Sync now takes it in, and while its backfill goes on
/// the page groups the datasets by merchant, draws the coverage and tells the backfill's
/// progress and estimated end, inside the page's width on a desktop and a phone. The page
/// as the browser drew it is saved as `sync-page.png` in the test's directory.
#[tokio::test]
async fn the_sync_page_draws_each_merchants_coverage_while_the_backfill_goes_on() {
    let Some(python) = browser_python() else {
        return;
    };
    // reports take the sandbox's usual while, so the backfill lasts long enough to be seen
    // however fast the machine (plans and pacing off: the sync goes at its own speed)
    let app = TestApp::start_market_options(Options {
        pacing: false,
        sim_limits: false,
        ..Options::default()
    })
    .await;
    let email =
        crate::signin_support::person_in(&app, "sigma", "sam@sigma.example", pp_auth::Role::Admin)
            .await;
    let shot = app.dir.path().join("sync-page.png");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/sync_page.py");
    let mut cmd = Command::new(python);
    cmd.args([script, &app.base, &email, PASSWORD, shot.to_str().unwrap()]);
    let stdout = run_external(cmd, "the sync page browser test failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
    assert!(shot.exists(), "the screenshot was saved");
    if let Ok(keep) = std::env::var("PP_KEEP_SCREENSHOTS") {
        std::fs::copy(&shot, std::path::Path::new(&keep).join("sync-page.png")).unwrap();
    }
}

/// Issue 68: the Profit page in a browser, as a tenant member sees it — acme's US seller with
/// the world's costs and rates but one SKU's cost removed: the month's P&L line by line, the
/// levels (CM3 unknown while a cost is missing), the bridge from the month before as a
/// waterfall, and the SKU named. The page as drawn is saved as `profit-page.png`.
#[tokio::test]
async fn the_profit_page_draws_the_months_bridge_as_a_waterfall_and_names_the_sku_without_a_cost() {
    let Some(python) = browser_python() else {
        return;
    };
    let app = TestApp::start().await;
    let acme = pp_core::TenantId::parse("acme").unwrap();
    let dir = app.store.default_warehouse_path(&acme);
    pp_profit::seed::from_world(&app.store, &acme, dir.parent().unwrap())
        .await
        .unwrap();
    // the tiny world's today is 2026-11-22: the last whole month is October
    let periods = app
        .store
        .costs()
        .periods(&acme, Some(("A2DEMOSELLER01", "ATVPDKIKX0DER")), None)
        .await
        .unwrap();
    let sku = periods[0].key.sku.clone();
    let remove: Vec<_> = periods
        .iter()
        .filter(|p| p.key.sku == sku)
        .map(|p| p.key.clone())
        .collect();
    app.store
        .costs()
        .write(&acme, vec![], remove, "test", None)
        .await
        .unwrap();
    let email = person(&app, "mo@acme.example", pp_auth::Role::Member).await;
    let shot = app.dir.path().join("profit-page.png");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/browser/profit_page.py");
    let mut cmd = Command::new(python);
    cmd.args([
        script,
        &app.base,
        &email,
        PASSWORD,
        "2026-10",
        "2026-09",
        &sku,
        shot.to_str().unwrap(),
    ]);
    let stdout = run_external(cmd, "the profit page browser test failed").await;
    assert!(stdout.contains("PASS"), "{stdout}");
    assert!(shot.exists(), "the screenshot was saved");
    if let Ok(keep) = std::env::var("PP_KEEP_SCREENSHOTS") {
        for name in ["profit-page.png", "profit-page-chart.png"] {
            std::fs::copy(
                shot.with_file_name(name),
                std::path::Path::new(&keep).join(name),
            )
            .unwrap();
        }
    }
}
