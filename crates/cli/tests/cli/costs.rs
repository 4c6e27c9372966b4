//! `costs` and `rates` against the dev server: the demo tenant starts with the demo world's
//! costs and rates (every SKU it sold has a cost), `costs list --csv` writes a cost file that
//! `costs import` takes back changing only what was edited, a bad file is refused by its line
//! before anything is sent, and `rates import` reads the ECB's daily form.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::client::{Dev, client, code_of, stdout_json, succeeded};
use crate::process::run_ok;

/// A credential of the demo tenant with `scopes`, in the environment's form.
fn credential(dev: &Dev, scopes: &str) -> Value {
    let made = run_ok(
        dev.dir.path(),
        &[
            "admin",
            "--data-dir",
            ".partner-dev",
            "credential",
            "create",
            "--tenant",
            "demo",
            "--scopes",
            scopes,
            "--json",
        ],
    );
    let made: Value = serde_json::from_slice(&made).unwrap();
    let mut cred = dev.cred.clone();
    cred["client_id"] = made["client_id"].clone();
    cred["client_secret"] = made["client_secret"].clone();
    cred
}

fn lines(text: &str) -> BTreeSet<String> {
    text.lines().skip(1).map(str::to_owned).collect()
}

#[tokio::test]
async fn the_demo_tenants_costs_export_edit_and_import_and_a_bad_file_changes_nothing() {
    let dev = Dev::start();
    let d = dev.dir.path();
    let cred = credential(&dev, "account:read,retail:read,costs:write");
    let env = Some(&cred);

    // the demo tenant starts with the world's costs: the US seller's sales all have one
    let out = client(
        d,
        env,
        &[
            "costs",
            "missing",
            "--seller-id",
            "A2DEMOSELLER01",
            "--marketplace-id",
            "ATVPDKIKX0DER",
            "--json",
        ],
    );
    succeeded(&out);
    let m = stdout_json(&out);
    assert!(m["skusSold"].as_u64().unwrap() > 0, "{m}");
    assert_eq!(m["missing"], serde_json::json!([]), "{m}");

    // the export is the world's cost file, row for row
    let out = client(d, env, &["costs", "list", "--csv"]);
    succeeded(&out);
    let exported = String::from_utf8(out.stdout).unwrap();
    let world_file =
        walk(&d.join(".partner-dev"), "landed-costs.csv").expect("the world's cost file");
    let world = std::fs::read_to_string(world_file).unwrap();
    assert_eq!(lines(&exported), lines(&world));
    assert_eq!(
        exported.lines().next(),
        world.lines().next(),
        "the same header"
    );

    // one row edited: importing the file changes that row only
    let mut rows: Vec<String> = exported.lines().map(str::to_owned).collect();
    let mut cells: Vec<String> = rows[1].split(',').map(str::to_owned).collect();
    cells[5] = "1.23".into();
    rows[1] = cells.join(",");
    let file = d.join("costs.csv");
    std::fs::write(&file, rows.join("\n")).unwrap();
    let out = client(
        d,
        env,
        &[
            "costs",
            "import",
            file.to_str().unwrap(),
            "--reason",
            "edited one",
            "--json",
        ],
    );
    succeeded(&out);
    let s = stdout_json(&out);
    assert_eq!(
        (s["changed"].as_u64(), s["added"].as_u64()),
        (Some(1), Some(0)),
        "{s}"
    );
    assert_eq!(s["unchanged"].as_u64(), Some(rows.len() as u64 - 2), "{s}");
    let out = client(d, env, &["costs", "changes", "--limit", "1", "--json"]);
    let log = stdout_json(&out);
    assert_eq!(log["changes"][0]["reason"], "edited one", "{log}");
    assert_eq!(log["changes"][0]["after"]["unitCents"], 123, "{log}");

    // a bad third line: refused by its line on the machine, nothing sent
    rows[2] = rows[2]
        .replacen(",USD,", ",usd,", 1)
        .replacen(",CAD,", ",cad,", 1)
        .replacen(",MXN,", ",mxn,", 1);
    rows[1] = exported.lines().nth(1).unwrap().to_owned();
    std::fs::write(&file, rows.join("\n")).unwrap();
    let out = client(d, env, &["costs", "import", file.to_str().unwrap()]);
    assert_eq!(
        code_of(&out),
        13,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("line 3"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = client(d, env, &["costs", "changes", "--limit", "1", "--json"]);
    assert_eq!(
        stdout_json(&out)["changes"][0]["reason"],
        "edited one",
        "nothing was sent"
    );

    // a credential without costs:write is refused by the gateway (exit 11)
    let good = d.join("good.csv");
    std::fs::write(&good, &exported).unwrap();
    let out = client(
        d,
        Some(&credential(&dev, "account:read,retail:read")),
        &["costs", "import", good.to_str().unwrap()],
    );
    assert_eq!(
        code_of(&out),
        11,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // the ECB's daily form adds a day; the world's rates are there already
    let out = client(d, env, &["rates", "list", "--currency", "CAD", "--json"]);
    succeeded(&out);
    let held = stdout_json(&out);
    assert!(held["coverage"].as_array().unwrap().len() == 3, "{held}");
    let daily = d.join("eurofxref.csv");
    std::fs::write(
        &daily,
        "Date, USD, JPY, CAD, \n31 December 2030, 1.1000, 160.00, 1.5000, \n",
    )
    .unwrap();
    let out = client(
        d,
        env,
        &[
            "rates",
            "import",
            daily.to_str().unwrap(),
            "--currency",
            "USD,CAD",
            "--json",
        ],
    );
    succeeded(&out);
    assert_eq!(stdout_json(&out)["added"], 2);
}

/// The first file named `name` under `dir`.
fn walk(dir: &std::path::Path, name: &str) -> Option<std::path::PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.file_name().is_some_and(|n| n == name) {
            return Some(p);
        }
        if p.is_dir()
            && let Some(f) = walk(&p, name)
        {
            return Some(f);
        }
    }
    None
}
