//! The command line as a client of the dev server: signing in with a setup code (once),
//! whoami, queries as a table, CSV and JSON, and the exit codes of real refusals.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::process::{Console, Server, cmd};

pub(crate) fn start_dev(dir: &Path) -> Server {
    Server::start(
        dir,
        &["server", "--dev", "--listen", "127.0.0.1:0"],
        "dev server is up at ",
        "Stop with Ctrl-C",
    )
}

pub(crate) fn dev_file(dir: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(dir.join(".partner-dev/dev-credential.json")).unwrap())
        .unwrap()
}

/// A client command with its own config directory and, when given, the dev credential in
/// the environment.
pub(crate) fn client_cmd(
    dir: &Path,
    env_cred: Option<&Value>,
    args: &[&str],
) -> std::process::Command {
    let mut c = cmd(dir);
    c.env("PARTNER_PLATFORM_CONFIG", dir.join("config"));
    if let Some(cred) = env_cred {
        c.env("PP_BASE_URL", cred["base_url"].as_str().unwrap())
            .env("PP_CLIENT_ID", cred["client_id"].as_str().unwrap())
            .env("PP_CLIENT_SECRET", cred["client_secret"].as_str().unwrap());
    }
    c.args(args);
    c
}

/// A dev server in a directory of its own, and its credential file.
pub(crate) struct Dev {
    pub dir: tempfile::TempDir,
    _server: Server,
    pub cred: Value,
}

impl Dev {
    pub fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let server = start_dev(dir.path());
        let cred = dev_file(dir.path());
        Self {
            dir,
            _server: server,
            cred,
        }
    }
}

/// Runs a client command to its end.
pub(crate) fn client(dir: &Path, env_cred: Option<&Value>, args: &[&str]) -> Output {
    client_cmd(dir, env_cred, args).output().unwrap()
}

/// Signs the command line in as the dev server's admin with a setup code made in the console.
pub(crate) async fn login_as_admin(d: &Path, server: &Server) {
    let console = Console::sign_in(&server.base, &dev_file(d)["console"]).await;
    let code = console.setup_code().await;
    succeeded(&client(
        d,
        None,
        &["login", "--setup-code", &code, "--base-url", &server.base],
    ));
}

/// Asserts the command exited 0 (its stderr is the report otherwise).
pub(crate) fn succeeded(o: &Output) {
    assert_eq!(code_of(o), 0, "{}", String::from_utf8_lossy(&o.stderr));
}

pub(crate) fn code_of(o: &Output) -> i32 {
    o.status.code().unwrap()
}

pub(crate) fn stdout_json(o: &Output) -> Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|_| {
        panic!(
            "not JSON: {}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    })
}

#[tokio::test]
async fn a_setup_code_signs_the_command_line_in_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = start_dev(d);
    // before anything: not signed in
    let none = client(d, None, &["whoami"]);
    assert_eq!(
        code_of(&none),
        3,
        "{}",
        String::from_utf8_lossy(&none.stderr)
    );

    let console = Console::sign_in(&server.base, &dev_file(d)["console"]).await;
    let code = console.setup_code().await;
    let login = client(
        d,
        None,
        &[
            "login",
            "--setup-code",
            &code,
            "--base-url",
            &server.base,
            "--json",
        ],
    );
    succeeded(&login);
    assert!(
        stdout_json(&login)["client_id"]
            .as_str()
            .unwrap()
            .starts_with("ppc_")
    );
    // the profile is the owner's only
    let profile = d.join("config/profiles/default.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&profile).unwrap().permissions().mode() & 0o777,
        0o600
    );

    // a second use of the code is refused, with the OAuth error as the envelope
    let again = client(
        d,
        None,
        &[
            "login",
            "--setup-code",
            &code,
            "--base-url",
            &server.base,
            "--json",
            "--profile",
            "other",
        ],
    );
    assert_eq!(code_of(&again), 10);
    assert_eq!(stdout_json(&again)["error"], "invalid_grant");

    let me = client(d, None, &["whoami", "--json"]);
    assert_eq!(code_of(&me), 0);
    assert_eq!(stdout_json(&me)["person_label"], "admin@demo.example");
    // a sign-in's scopes do not include raw SQL: exit 11 with the envelope
    let sql = client(d, None, &["query", "SELECT 1", "--json"]);
    assert_eq!(code_of(&sql), 11);
    assert_eq!(stdout_json(&sql)["kind"], "insufficient_scope");

    let out = client(d, None, &["logout"]);
    assert_eq!(code_of(&out), 0);
    assert_eq!(code_of(&client(d, None, &["whoami"])), 3);
}

#[tokio::test]
async fn queries_print_as_tables_csv_and_json_and_refusals_exit_by_family() {
    let dev = Dev::start();
    let (d, cred) = (dev.dir.path(), &dev.cred);
    let env = Some(cred);
    let sql = "SELECT ID, Marketplace FROM seller ORDER BY ID";

    let json = client(d, env, &["query", sql, "--json"]);
    succeeded(&json);
    let body = stdout_json(&json);
    assert_eq!(body["rows"][0]["Marketplace"], "US");
    let n = body["rowCount"].as_u64().unwrap() as usize;

    let csv = client(d, env, &["query", sql, "--format", "csv"]);
    let text = String::from_utf8(csv.stdout).unwrap();
    assert!(text.starts_with("ID,Marketplace\n1,US\n"), "{text}");
    assert_eq!(text.lines().count(), n + 1);

    // from stdin, as a table
    let mut c = client_cmd(d, env, &["query"]);
    c.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = c.spawn().unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(sql.as_bytes())
        .unwrap();
    let table = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    assert!(
        table.starts_with("ID  Marketplace\n--  -----------\n1   US"),
        "{table}"
    );

    let tables = client(d, env, &["tables", "--json"]);
    assert!(
        stdout_json(&tables)["tables"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["name"] == "seller")
    );
    let described = client(d, env, &["describe", "seller"]);
    assert!(String::from_utf8_lossy(&described.stdout).contains("MarketplaceSellerID"));

    // refusals: a write (13), an unknown table (14), a bad credential (10), no gateway (19)
    let write = client(d, env, &["query", "DELETE FROM seller", "--json"]);
    assert_eq!(code_of(&write), 13);
    assert_eq!(stdout_json(&write)["ok"], false);
    assert_eq!(code_of(&client(d, env, &["describe", "no_such_table"])), 14);
    let mut bad = cred.clone();
    bad["client_secret"] = "pps_wrong".into();
    assert_eq!(code_of(&client(d, Some(&bad), &["whoami"])), 10);
    let mut gone = cred.clone();
    gone["base_url"] = "http://127.0.0.1:9".into();
    assert_eq!(code_of(&client(d, Some(&gone), &["whoami"])), 19);
}

#[tokio::test]
async fn marketplace_calls_and_a_provider_bad_request_exits_12() {
    let dev = Dev::start();
    let (d, cred) = (dev.dir.path(), &dev.cred);
    let env = Some(cred);

    let merchants = client(d, env, &["marketplace", "merchants", "--json"]);
    succeeded(&merchants);
    let rows = stdout_json(&merchants)["merchants"]
        .as_array()
        .unwrap()
        .clone();
    assert!(rows.iter().any(|r| r["sellerId"] == "A2DEMOSELLER01"));
    let ops = client(d, env, &["marketplace", "operations"]);
    assert!(String::from_utf8_lossy(&ops.stdout).contains("promotions.search_promotions"));

    let call = client(
        d,
        env,
        &[
            "marketplace",
            "call",
            "sellers.get_marketplace_participations",
            "--legacy-seller-id",
            "1",
            "--json",
        ],
    );
    succeeded(&call);
    assert!(String::from_utf8_lossy(&call.stdout).contains("\"isParticipating\": true"));

    // the provider rejects the parameters: 12, and the envelope carries its code and status
    let refused = client(
        d,
        env,
        &[
            "marketplace",
            "call",
            "finances.list_financial_events",
            "--legacy-seller-id",
            "1",
            "--param",
            "PostedAfter=2026-10-10T00:00:00Z",
            "--param",
            "PostedBefore=2026-10-01T00:00:00Z",
            "--json",
        ],
    );
    assert_eq!(
        code_of(&refused),
        12,
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    let env_body = stdout_json(&refused);
    assert_eq!(env_body["kind"], "bad_request");
    assert_eq!(env_body["marketplace_error_code"], "InvalidInput");
    assert_eq!(env_body["status"], 400);

    // nothing sent: an operation not in the catalog (13), a merchant that matches nothing (14)
    let unknown = client(
        d,
        env,
        &[
            "marketplace",
            "call",
            "no.such_operation",
            "--legacy-seller-id",
            "1",
        ],
    );
    assert_eq!(code_of(&unknown), 13);
    let nobody = client(
        d,
        env,
        &[
            "marketplace",
            "call",
            "sellers.get_marketplace_participations",
            "--legacy-seller-id",
            "999",
        ],
    );
    assert_eq!(
        code_of(&nobody),
        14,
        "{}",
        String::from_utf8_lossy(&nobody.stderr)
    );
}

#[tokio::test]
async fn the_timeline_lists_takes_a_stake_and_corroborates_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = start_dev(d);
    // a person's setup code: the sign-in's scopes include timeline:write
    login_as_admin(d, &server).await;

    let page = client(
        d,
        None,
        &[
            "timeline",
            "list",
            "--filter",
            "brand=northwind",
            "--limit",
            "2",
            "--json",
        ],
    );
    succeeded(&page);
    assert_eq!(stdout_json(&page)["events"].as_array().unwrap().len(), 2);

    let added = client(
        d,
        None,
        &[
            "timeline",
            "add",
            "--brand",
            "northwind",
            "--kind",
            "stake",
            "--category",
            "price_test",
            "--starts-on",
            "2026-11-01",
            "--interpretation",
            "a price test on the hero SKU",
            "--tag",
            "cli",
        ],
    );
    succeeded(&added);
    let stake = stdout_json(&added);
    assert_eq!(
        stake["event"]["actor"], "admin@demo.example",
        "appended as the person"
    );
    let id = stake["event"]["id"].to_string();
    let table = client(d, None, &["timeline", "list", "--filter", "tag=cli"]);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains(&id) && text.contains("a price test on the hero SKU"),
        "{text}"
    );

    let corroborated = client(
        d,
        None,
        &[
            "timeline",
            "corroborate",
            &id,
            "--note",
            "seen in the numbers",
        ],
    );
    succeeded(&corroborated);
    // a bad kind is refused (13) and a missing id is not found (14)
    let bad = client(
        d,
        None,
        &[
            "timeline",
            "add",
            "--brand",
            "northwind",
            "--kind",
            "knowledge.fact",
        ],
    );
    assert_eq!(code_of(&bad), 13);
    assert_eq!(
        code_of(&client(d, None, &["timeline", "corroborate", "999999"])),
        14
    );
}

#[tokio::test]
async fn context_documents_sync_from_a_folder_and_brands_retire() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = start_dev(d);
    login_as_admin(d, &server).await;

    let docs = d.join("northwind-docs");
    std::fs::create_dir_all(docs.join("corpus")).unwrap();
    std::fs::write(docs.join("overview.md"), "Northwind sells trail gear.\n").unwrap();
    std::fs::write(docs.join("corpus/faq.md"), "Q: returns? A: 30 days.\n").unwrap();
    let folder = docs.to_str().unwrap();
    let sync = || {
        client(
            d,
            None,
            &["context", "sync", folder, "--brand", "northwind", "--json"],
        )
    };
    let synced = sync();
    succeeded(&synced);
    let written = stdout_json(&synced)["documents"].clone();
    assert_eq!(written.as_array().unwrap().len(), 2, "{written}");
    assert!(
        written
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["changed"] == true),
        "{written}"
    );
    // the same folder again changes nothing
    let again = stdout_json(&sync());
    assert!(
        again["documents"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["changed"] == false),
        "{again}"
    );

    let read = client(
        d,
        None,
        &[
            "context",
            "get",
            "--brand",
            "northwind",
            "--type",
            "corpus",
            "--name",
            "faq",
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&read.stdout).trim(),
        "Q: returns? A: 30 days."
    );
    assert_eq!(
        code_of(&client(
            d,
            None,
            &[
                "context",
                "get",
                "--brand",
                "no-such-brand",
                "--type",
                "overview"
            ]
        )),
        14
    );

    let retired = client(
        d,
        None,
        &[
            "context",
            "lifecycle",
            "--brand",
            "northwind",
            "--action",
            "retire",
            "--reason-code",
            "other",
            "--note",
            "paused",
        ],
    );
    succeeded(&retired);
    assert_eq!(stdout_json(&retired)["state"], "retired");
    let active =
        String::from_utf8(client(d, None, &["context", "list", "--lifecycle", "active"]).stdout)
            .unwrap();
    assert!(!active.contains("northwind"), "{active}");
    succeeded(&client(
        d,
        None,
        &[
            "context",
            "lifecycle",
            "--brand",
            "northwind",
            "--action",
            "restore",
        ],
    ));
}

#[tokio::test]
async fn forecast_state_batches_are_atomic_and_a_stale_one_exits_15() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let server = start_dev(d);
    login_as_admin(d, &server).await;
    let key = "fb:override:src:demo:1:2026-12-01";
    let batch = |expected: u64| {
        serde_json::json!({
            "writes": [{"key": key, "expected_version": expected,
                        "doc": {"sales": {"mode": "replace", "value": 125000}, "note": "holiday lift"}}],
            "reason": "from the command line"
        })
    };
    let file = d.join("batch.json");
    std::fs::write(&file, batch(0).to_string()).unwrap();
    let wrote = client(d, None, &["forecast", "batch", file.to_str().unwrap()]);
    succeeded(&wrote);
    assert_eq!(stdout_json(&wrote)["results"][0]["version"], 1);

    let got = client(d, None, &["forecast", "get", key]);
    succeeded(&got);
    let doc = stdout_json(&got);
    assert_eq!(doc["updated_by"], "admin@demo.example");
    assert_eq!(doc["doc"]["note"], "holiday lift");
    let listed = client(
        d,
        None,
        &["forecast", "list", "--prefix", "fb:override:src:demo:1"],
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains(key));

    // the same batch again is stale: nothing written, exit 15, the conflict in the envelope
    let stale = client(
        d,
        None,
        &["forecast", "batch", file.to_str().unwrap(), "--json"],
    );
    assert_eq!(
        code_of(&stale),
        15,
        "{}",
        String::from_utf8_lossy(&stale.stderr)
    );
    let env = stdout_json(&stale);
    assert_eq!(env["kind"], "conflict");
    assert_eq!(env["conflicts"][0]["actual"], 1);
}

#[tokio::test]
async fn v1_reads_print_rows_and_money() {
    let dev = Dev::start();
    let (d, cred) = (dev.dir.path(), &dev.cred);
    let env = Some(cred);
    let accounts = client(d, env, &["v1", "accounts", "--json"]);
    succeeded(&accounts);
    let first = stdout_json(&accounts)["accounts"][0]["account_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let table = client(
        d,
        env,
        &[
            "v1",
            "ads/campaign-performance",
            "--param",
            &format!("account_id={first}"),
            "--param",
            "limit=3",
        ],
    );
    succeeded(&table);
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.lines().next().unwrap().contains("campaign_id"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 2 + 3, "{text}");
    assert!(
        text.contains(" USD"),
        "money reads as amount and currency: {text}"
    );
    // a /v1 refusal: no account (13); not a /v1 read (2)
    assert_eq!(code_of(&client(d, env, &["v1", "retail/sales"])), 13);
    assert_eq!(code_of(&client(d, env, &["v1", "nope"])), 2);
}

/// The outcome of a change and a pacing plan are catalog requests like any other at the
/// command line (docs/intelligence.md's worked examples, on the demo world).
#[tokio::test]
async fn outcomes_and_pacing_plans_run_from_the_command_line() {
    let dev = Dev::start();
    let (d, cred) = (dev.dir.path(), &dev.cred);
    let env = Some(cred);
    let seller = [
        "--param",
        "sellerId=A2DEMOSELLER01",
        "--param",
        "marketplaceId=ATVPDKIKX0DER",
    ];
    let date = format!(
        "date={}",
        chrono::Utc::now().date_naive() - chrono::Duration::days(60)
    );
    let outcome = client(
        d,
        env,
        &[
            &["intelligence", "run", "INS-CHANGE-OUTCOME-01"][..],
            &seller[..],
            &["--param", &date, "--param", "campaignIds=[310000100101]"][..],
        ]
        .concat(),
    );
    succeeded(&outcome);
    let r = stdout_json(&outcome);
    assert_eq!(r["result"]["entities"][0]["id"], "310000100101", "{r}");
    let pacing = [
        &["intelligence", "run", "PLN-BUDGET-PACING-01"][..],
        &seller[..],
        &["--param", "budget=20000"][..],
    ]
    .concat();
    // the demo credential reads only: a plan's dry runs need ads:write (exit 11)
    assert_eq!(code_of(&client(d, env, &pacing)), 11);
    let made = client(
        d,
        None,
        &[
            "admin",
            "credential",
            "create",
            "--tenant",
            "demo",
            "--label",
            "pacer",
            "--scopes",
            "account:read,ads:read,ads:write,intelligence:read",
            "--json",
        ],
    );
    succeeded(&made);
    let mut pacer = stdout_json(&made);
    pacer["base_url"] = cred["base_url"].clone();
    let plan = client(d, Some(&pacer), &pacing);
    succeeded(&plan);
    let p = stdout_json(&plan);
    assert_eq!(p["service"], "plan", "{p}");
    assert!(p["result"]["plans"].is_array(), "{p}");
}

#[tokio::test]
async fn intelligence_runs_now_or_queued_and_followed() {
    let dev = Dev::start();
    let (d, cred) = (dev.dir.path(), &dev.cred);
    let env = Some(cred);
    let catalog = client(d, env, &["intelligence", "catalog"]);
    succeeded(&catalog);
    assert!(String::from_utf8_lossy(&catalog.stdout).contains("FCT-BASELINE-01"));

    let seller = [
        "--param",
        "sellerId=A2DEMOSELLER01",
        "--param",
        "marketplaceId=ATVPDKIKX0DER",
    ];
    let now = client(
        d,
        env,
        &[&["intelligence", "run", "FCT-BASELINE-01"][..], &seller[..]].concat(),
    );
    succeeded(&now);
    let answer = stdout_json(&now);
    assert_eq!(answer["status"], "succeeded", "{answer}");

    let queued = client(
        d,
        env,
        &[
            &[
                "intelligence",
                "run",
                "FCT-BASELINE-01",
                "--async",
                "--wait",
                "--quiet",
            ][..],
            &seller[..],
        ]
        .concat(),
    );
    succeeded(&queued);
    let done = stdout_json(&queued);
    assert_eq!(done["status"], "succeeded", "{done}");
    let got = client(
        d,
        env,
        &["intelligence", "get", done["runId"].as_str().unwrap()],
    );
    assert_eq!(stdout_json(&got)["status"], "succeeded");

    // queued now, waited for by a second command
    let queued = client(
        d,
        env,
        &[
            &["intelligence", "run", "FCT-READINESS-01", "--async"][..],
            &seller[..],
        ]
        .concat(),
    );
    succeeded(&queued);
    let run_id = stdout_json(&queued)["runId"].as_str().unwrap().to_owned();
    let waited = client(d, env, &["intelligence", "wait", &run_id]);
    succeeded(&waited);
    let waited = stdout_json(&waited);
    assert_eq!(waited["status"], "succeeded", "{waited}");
    assert_eq!(waited["id"], "FCT-READINESS-01");

    // an unknown request id is refused before anything runs (13)
    assert_eq!(
        code_of(&client(d, env, &["intelligence", "run", "NOPE-01"])),
        13
    );
}
