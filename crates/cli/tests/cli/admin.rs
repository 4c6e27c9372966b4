//! `admin` commands against a data directory that a running (non-dev) server shares.

use std::path::Path;

use serde_json::Value;

use crate::process::{get_status, run, run_ok, start_server, token};

fn json(dir: &Path, args: &[&str]) -> Value {
    serde_json::from_slice(&run_ok(dir, args)).unwrap()
}

fn a<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    [&["admin", "--data-dir", "state"][..], rest].concat()
}

fn fails(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[tokio::test]
async fn tenants_and_credentials_round_trip_against_a_running_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();

    let t = json(
        d,
        &a(&["tenant", "create", "beta", "--name", "Beta Co", "--json"]),
    );
    assert_eq!(t["id"], "beta");
    assert!(fails(d, &a(&["tenant", "create", "beta"])).contains("already exists"));
    assert!(fails(d, &a(&["tenant", "create", "Bad/Id"])).contains("not a valid tenant id"));
    assert_eq!(
        json(d, &a(&["tenant", "list", "--json"]))
            .as_array()
            .unwrap()
            .len(),
        1
    );

    let c = json(
        d,
        &a(&[
            "credential",
            "create",
            "--tenant",
            "beta",
            "--label",
            "etl",
            "--json",
        ]),
    );
    let (id, client_id, secret) = (
        c["id"].as_str().unwrap(),
        c["client_id"].as_str().unwrap(),
        c["client_secret"].as_str().unwrap(),
    );
    assert!(
        c["scopes"].as_str().unwrap().contains("sql:query"),
        "default bundle has sql:query"
    );
    assert!(
        !c["scopes"].as_str().unwrap().contains("write"),
        "default bundle is read-only"
    );
    assert!(fails(d, &a(&["credential", "create", "--tenant", "nope"])).contains("no tenant"));
    assert!(
        fails(
            d,
            &a(&[
                "credential",
                "create",
                "--tenant",
                "beta",
                "--scopes",
                "context:write"
            ])
        )
        .contains("context:read")
    );
    assert!(
        fails(
            d,
            &a(&[
                "credential",
                "create",
                "--tenant",
                "beta",
                "--scopes",
                "sql:write"
            ])
        )
        .contains("unknown scope")
    );
    let listed = run(d, &a(&["credential", "list", "--json"]));
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.contains(client_id) && !listed.contains(secret) && !listed.contains("argon2"),
        "{listed}"
    );

    let server = start_server(d);
    let base = server.base.clone();
    let (status, body) = token(&base, client_id, secret).await;
    assert_eq!(status, 200, "{body}");
    let tok = body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(get_status(&base, "/v1/me", &tok).await, 200);

    // Rotation from another process: the old token fails on the very next request.
    let rotated = json(d, &a(&["credential", "rotate", id, "--json"]));
    assert_eq!(get_status(&base, "/v1/me", &tok).await, 401);
    assert_eq!(token(&base, client_id, secret).await.0, 401);
    let new_secret = rotated["client_secret"].as_str().unwrap();
    let (_, body) = token(&base, client_id, new_secret).await;
    let tok = body["access_token"].as_str().unwrap().to_owned();
    assert_eq!(get_status(&base, "/v1/me", &tok).await, 200);

    // Revocation from another process, likewise at once.
    let out = run(d, &a(&["credential", "revoke", client_id]));
    assert!(out.status.success());
    assert_eq!(get_status(&base, "/v1/me", &tok).await, 401);
    assert_eq!(token(&base, client_id, new_secret).await.0, 401);
    assert!(fails(d, &a(&["credential", "rotate", id])).contains("revoked"));
}

#[test]
fn a_managed_tenants_sync_schedule_is_set_shown_and_cleared_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let beta = json(d, &a(&["tenant", "create", "beta", "--json"]));
    let schedule = |rest: &[&str]| {
        json(
            d,
            &a(&[&["tenant", "sync-schedule", "beta"][..], rest].concat()),
        )
    };
    assert_eq!(schedule(&[])["schedule"], serde_json::json!({}));
    let set = schedule(&["--restate-ads-days", "30"]);
    assert_eq!(
        set["schedule"],
        serde_json::json!({ "restateAdsDays": 30 }),
        "{set}"
    );
    assert!(
        set["updatedBy"].as_str().unwrap().starts_with("admin:"),
        "{set}"
    );
    // a second flag keeps the first
    let set = schedule(&["--daily-hour-utc", "2"]);
    assert_eq!(
        set["schedule"],
        serde_json::json!({ "restateAdsDays": 30, "dailyHourUtc": 2 }),
        "{set}"
    );
    assert_eq!(schedule(&[])["schedule"], set["schedule"]);
    // out of range: refused, nothing changed
    let err = fails(
        d,
        &a(&[
            "tenant",
            "sync-schedule",
            "beta",
            "--restate-retail-days",
            "90",
        ]),
    );
    assert!(err.contains("0 to 60"), "{err}");
    assert_eq!(schedule(&[])["schedule"], set["schedule"]);
    assert_eq!(schedule(&["--clear"])["schedule"], serde_json::json!({}));
    // an external warehouse has no sync to schedule
    let file = beta["warehouse"].as_str().unwrap();
    json(
        d,
        &a(&["tenant", "create", "ext", "--warehouse", file, "--json"]),
    );
    let err = fails(d, &a(&["tenant", "sync-schedule", "ext"]));
    assert!(err.contains("external"), "{err}");
    assert!(fails(d, &a(&["tenant", "sync-schedule", "nobody"])).contains("no tenant"));
}

#[test]
fn a_tenant_is_not_created_on_a_file_that_is_not_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("notes.txt"), "quarterly notes, not a warehouse").unwrap();
    let out = run(
        d,
        &[
            "admin",
            "--data-dir",
            "state",
            "tenant",
            "create",
            "acme",
            "--warehouse",
            "notes.txt",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not a usable warehouse"), "{err}");
    let list = run_ok(
        d,
        &["admin", "--data-dir", "state", "tenant", "list", "--json"],
    );
    assert!(!String::from_utf8_lossy(&list).contains("acme"));
}

#[tokio::test]
async fn a_tenant_warehouse_on_postgres_is_loaded_checked_and_listed_without_its_password() {
    let Some(db) = crate::scratch_db::ScratchDb::create("pp_admin_wh").await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A database without a warehouse is refused, and nothing is created.
    let err = fails(d, &a(&["tenant", "create", "acme", "--warehouse", &db.url]));
    assert!(err.contains("no seller table"), "{err}");
    let load = [
        "world",
        "generate",
        "--scale",
        "tiny",
        "--today",
        "2026-11-22",
        "--out",
    ];
    let truth = d.join("truth.json");
    let mut args = load.to_vec();
    args.extend([db.url.as_str(), "--truth", truth.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&run_ok(d, &args)).into_owned();
    assert!(out.contains("loaded the tiny world"), "{out}");
    assert!(
        std::fs::read_to_string(&truth)
            .unwrap()
            .contains("\"events\"")
    );
    // A second load into the same database is refused: it already holds a warehouse.
    let err = fails(d, &args);
    assert!(err.contains("already holds a warehouse"), "{err}");
    // The URL's password (trust auth ignores it) never shows in a listing.
    let with_password = db.url.replacen("postgres@", "postgres:hunter2@", 1);
    let out = run(
        d,
        &a(&["tenant", "create", "acme", "--warehouse", &with_password]),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("can change the warehouse"), "{stderr}");
    let listed = String::from_utf8_lossy(&run_ok(d, &a(&["tenant", "list"]))).into_owned();
    assert!(listed.contains("postgres:***@"), "{listed}");
    assert!(!listed.contains("hunter2"), "{listed}");
}

/// `admin listings`: a merchant enabled per tenant, and the global switches with their reason,
/// as `status --json` reads them back from the store every instance shares.
#[tokio::test]
async fn listing_writes_are_enabled_and_switched_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(d, &a(&["tenant", "create", "beta", "--json"]));
    run_ok(
        d,
        &a(&[
            "listings",
            "enable",
            "--tenant",
            "beta",
            "--merchant",
            "A1SELLER",
        ]),
    );
    assert!(
        fails(
            d,
            &a(&["listings", "enable", "--tenant", "nope", "--merchant", "A1"])
        )
        .contains("no tenant")
    );
    run_ok(
        d,
        &a(&[
            "listings",
            "switch",
            "media",
            "off",
            "--reason",
            "image incident",
        ]),
    );
    assert!(fails(d, &a(&["listings", "switch", "video", "off"])).contains("text or media"));
    assert!(fails(d, &a(&["listings", "switch", "text", "maybe"])).contains("on or off"));
    let s = json(d, &a(&["listings", "status", "--tenant", "beta", "--json"]));
    assert_eq!(s["accounts"][0]["merchant"], "A1SELLER", "{s}");
    assert_eq!(s["switches"][0]["name"], "listings_media", "{s}");
    assert_eq!(s["switches"][0]["off"], true, "{s}");
    assert_eq!(s["switches"][0]["reason"], "image incident", "{s}");
    run_ok(
        d,
        &a(&[
            "listings",
            "disable",
            "--tenant",
            "beta",
            "--merchant",
            "A1SELLER",
        ]),
    );
    run_ok(d, &a(&["listings", "switch", "media", "on"]));
    let s = json(d, &a(&["listings", "status", "--tenant", "beta", "--json"]));
    assert_eq!(s["accounts"], serde_json::json!([]), "{s}");
    assert_eq!(s["switches"][0]["off"], false, "{s}");
}

/// `admin intelligence`: an account switched off with its reason, read back by `status
/// --json` from the store, and switched on again.
#[tokio::test]
async fn intelligence_is_switched_off_and_on_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(d, &a(&["tenant", "create", "beta", "--json"]));
    let off = [
        "intelligence",
        "off",
        "--tenant",
        "beta",
        "--seller",
        "3",
        "--reason",
        "pilot ended",
    ];
    run_ok(d, &a(&off));
    assert!(
        fails(
            d,
            &a(&["intelligence", "off", "--tenant", "nope", "--seller", "3"])
        )
        .contains("no tenant")
    );
    let s = json(
        d,
        &a(&["intelligence", "status", "--tenant", "beta", "--json"]),
    );
    assert_eq!(s["switchedOff"][0]["sellerId"], 3, "{s}");
    assert_eq!(s["switchedOff"][0]["reason"], "pilot ended", "{s}");
    assert_eq!(s["runs"], serde_json::json!([]), "{s}");
    run_ok(
        d,
        &a(&["intelligence", "on", "--tenant", "beta", "--seller", "3"]),
    );
    let s = json(
        d,
        &a(&["intelligence", "status", "--tenant", "beta", "--json"]),
    );
    assert_eq!(s["switchedOff"], serde_json::json!([]), "{s}");
}

/// Runs the binary with `input` on stdin; returns its JSON output.
fn json_with_stdin(dir: &Path, args: &[&str], input: &str) -> Value {
    use std::io::Write;
    let mut child = crate::process::cmd(dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn people_are_created_listed_disabled_and_reset_without_their_passwords_showing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(d, &a(&["tenant", "create", "beta", "--json"]));

    // a chosen password comes from stdin and is never printed
    let ana = json_with_stdin(
        d,
        &a(&[
            "person",
            "create",
            "--tenant",
            "beta",
            "--email",
            "Ana@Beta.example",
            "--name",
            "Ana Lima",
            "--role",
            "admin",
            "--password-stdin",
            "--json",
        ]),
        "a long passphrase\n",
    );
    assert_eq!(ana["email"], "ana@beta.example");
    assert_eq!(ana["role"], "admin");
    assert!(ana.get("password").is_none() && ana.get("password_hash").is_none());

    // without one, the gateway chooses it and shows it once
    let bo = json(
        d,
        &a(&[
            "person",
            "create",
            "--tenant",
            "beta",
            "--email",
            "bo@beta.example",
            "--name",
            "Bo",
            "--json",
        ]),
    );
    assert_eq!(bo["role"], "member");
    assert!(bo["password"].as_str().unwrap().len() >= 20);

    // refusals: a taken email (any case), a bad role, a short password, an unknown tenant
    let base = ["person", "create", "--tenant", "beta", "--name", "X"];
    let with = |extra: &[&'static str]| [&base[..], extra].concat();
    assert!(fails(d, &a(&with(&["--email", "ANA@beta.example"]))).contains("already exists"));
    assert!(
        fails(
            d,
            &a(&with(&["--email", "cy@beta.example", "--role", "owner"]))
        )
        .contains("role 'owner'")
    );
    assert!(fails(d, &a(&with(&["--email", "not-an-email"]))).contains("not an email"));
    let out = crate::process::cmd(d)
        .args(a(&with(&[
            "--email",
            "cy@beta.example",
            "--password-stdin",
        ])))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("12 to 256 characters"));

    let listed = json(d, &a(&["person", "list", "--tenant", "beta", "--json"]));
    let emails: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["email"].as_str().unwrap())
        .collect();
    assert_eq!(emails, ["ana@beta.example", "bo@beta.example"]);
    assert!(!String::from_utf8_lossy(&run_ok(d, &a(&["person", "list"]))).contains("argon2"));

    let off = json(d, &a(&["person", "disable", "bo@beta.example"]));
    assert_eq!(
        (off["disabled"].as_bool(), off["changed"].as_bool()),
        (Some(true), Some(true))
    );
    let listed = json(d, &a(&["person", "list", "--json"]));
    assert!(listed[1]["disabled_at"].is_i64());

    // a reset chooses a new password and enables the person again
    let reset = json(d, &a(&["person", "reset", "bo@beta.example", "--json"]));
    assert!(reset["disabled_at"].is_null());
    assert_ne!(reset["password"], bo["password"]);
    assert!(fails(d, &a(&["person", "reset", "nobody@beta.example"])).contains("no person"));
}

#[test]
fn partner_applications_are_registered_listed_and_revoked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    json(d, &a(&["tenant", "create", "beta", "--json"]));
    let app = json(
        d,
        &a(&[
            "app",
            "create",
            "--name",
            "Acme Insights",
            "--redirect-uri",
            "https://insights.example/cb",
            "--scopes",
            "account:read intelligence:read",
            "--json",
        ]),
    );
    let id = app["client_id"].as_str().unwrap();
    assert!(
        app["client_secret"].as_str().unwrap().starts_with("ppas_"),
        "{app}"
    );
    assert!(
        app["tenant_id"].is_null(),
        "an operator's application serves every tenant"
    );
    let public = json(
        d,
        &a(&[
            "app",
            "create",
            "--name",
            "Beta CLI",
            "--redirect-uri",
            "http://127.0.0.1:7777/cb",
            "--scopes",
            "account:read",
            "--public",
            "--tenant",
            "beta",
            "--json",
        ]),
    );
    assert!(public["client_secret"].is_null());
    // refused: plain http off loopback, and appstate:write
    assert!(
        fails(
            d,
            &a(&[
                "app",
                "create",
                "--name",
                "X",
                "--redirect-uri",
                "http://x.example/cb",
                "--scopes",
                "account:read"
            ])
        )
        .contains("https")
    );
    assert!(
        fails(
            d,
            &a(&[
                "app",
                "create",
                "--name",
                "X",
                "--redirect-uri",
                "https://x.example/cb",
                "--scopes",
                "appstate:write"
            ])
        )
        .contains("appstate:write")
    );

    let listed = json(d, &a(&["app", "list", "--json"]));
    assert_eq!(listed.as_array().unwrap().len(), 1, "{listed}");
    assert!(!String::from_utf8_lossy(&run_ok(d, &a(&["app", "list"]))).contains("hmac"));
    let beta = json(d, &a(&["app", "list", "--tenant", "beta", "--json"]));
    assert_eq!(beta[0]["name"], "Beta CLI");
    assert!(String::from_utf8_lossy(&run_ok(d, &a(&["app", "revoke", id]))).contains("revoked"));
    assert!(json(d, &a(&["app", "list", "--json"]))[0]["revoked_at"].is_i64());
}

/// Issue 52, finding 7: what the command line creates is its owner's alone. Reproduced on the
/// old main: `admin … --data-dir <new dir>` made the directory 0755 and `state.sqlite` 0644,
/// and the store holds password hashes and the key client secrets are hashed under.
#[test]
fn a_new_data_directory_and_its_files_are_the_owners_alone() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    run_ok(d, &a(&["tenant", "create", "solo"]));
    let mode = |p: &str| std::fs::metadata(d.join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("state"), 0o700, "the data directory");
    assert_eq!(mode("state/state.sqlite"), 0o600, "the state store");
    assert_eq!(mode("state/tenants"), 0o700, "the tenants' folder");
    assert_eq!(mode("state/tenants/solo"), 0o700, "the tenant's folder");
    assert_eq!(
        mode("state/tenants/solo/warehouse.sqlite"),
        0o600,
        "the empty warehouse"
    );
}

/// Issue 52, finding 7: output piped into something that stops reading ends the command
/// quietly. Reproduced on the old main: `partner-platform admin policy set … | head` panicked
/// with a backtrace when the pipe closed.
#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for t in ["one", "two", "three"] {
        run_ok(d, &a(&["tenant", "create", t]));
    }
    let mut child = crate::process::cmd(d)
        .args(a(&["policy", "show", "--tenant", "one"]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the reader goes away before anything is written
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        out.status.success() || out.status.signal() == Some(libc::SIGPIPE),
        "{:?}: {stderr}",
        out.status
    );
}
