//! The shape of the code, checked: front doors (`routes`, `mcp`, `operations`) only translate
//! and call services, so none of their modules holds SQL text, imports a database driver or
//! reaches the provider's client; and every crate uses each dependency it declares.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// What a front-door line must not hold: SQL statements, the database driver, the upstream
/// client. `None` when the line is clean.
fn forbidden(line: &str) -> Option<&'static str> {
    let l = line.to_ascii_lowercase();
    let words: Vec<&str> = l
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .collect();
    let has = |a: &str, b: &str| {
        words
            .iter()
            .position(|w| *w == a)
            .is_some_and(|i| words[i + 1..].contains(&b))
    };
    let pair = |a: &str, b: &str| words.windows(2).any(|w| w[0] == a && w[1] == b);
    if has("select", "from")
        || pair("insert", "into")
        || pair("delete", "from")
        || pair("create", "table")
    {
        return Some("SQL text");
    }
    if words.windows(3).any(|w| w[0] == "update" && w[2] == "set") {
        return Some("SQL text");
    }
    if l.contains("rusqlite") || l.contains("sqlx") {
        return Some("a database driver");
    }
    if l.contains("upstream::")
        || l.contains(".client.send")
        || l.contains("access_token(")
        || l.contains("reqwest")
    {
        return Some("the provider's client");
    }
    None
}

#[test]
fn the_checker_catches_what_it_looks_for() {
    assert_eq!(
        forbidden(
            r#"format!("SELECT MarketplaceSellerID FROM ads_profile WHERE ProfileID = {p}")"#
        ),
        Some("SQL text")
    );
    assert_eq!(
        forbidden("c.execute(\"UPDATE jobs SET status = ?1\")"),
        Some("SQL text")
    );
    assert_eq!(
        forbidden("use rusqlite::params;"),
        Some("a database driver")
    );
    assert_eq!(
        forbidden("m.client.send(&store, &sealer, &req)"),
        Some("the provider's client")
    );
    assert_eq!(
        forbidden("only SELECT/WITH run (writes, ATTACH and PRAGMA changes are refused)"),
        None
    );
    assert_eq!(
        forbidden("let tables = app.warehouses.tables(&p).await?;"),
        None
    );
}

#[test]
fn front_doors_hold_no_sql_no_driver_and_no_upstream_client() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in ["routes", "mcp", "operations"] {
        rust_files(&src.join(dir), &mut files);
    }
    assert!(files.len() > 20, "{} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        for (n, line) in std::fs::read_to_string(f).unwrap().lines().enumerate() {
            if let Some(what) = forbidden(line) {
                found.push(format!(
                    "{}:{}: {what}: {}",
                    f.display(),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "front doors must call services instead:\n{}",
        found.join("\n")
    );
}

/// Each `[dependencies]` entry of every crate is used by its sources (an unused crate costs
/// compile time on every build).
#[test]
fn every_declared_dependency_is_used() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut unused = Vec::new();
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(manifest) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let mut files = Vec::new();
        rust_files(&dir.join("src"), &mut files);
        let code: String = files
            .iter()
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect();
        let deps = manifest
            .split("[dependencies]")
            .nth(1)
            .unwrap_or("")
            .split("\n[")
            .next()
            .unwrap_or("");
        for line in deps.lines() {
            let Some(name) = line
                .split(['=', '.'])
                .next()
                .map(str::trim)
                .filter(|n| !n.is_empty() && !n.starts_with('#'))
            else {
                continue;
            };
            let ident = name.replace('-', "_");
            if !code.contains(&format!("{ident}::"))
                && !code.contains(&format!("use {ident}"))
                && !code.contains(&format!("{ident}!"))
            {
                unused.push(format!("{}: {name}", dir.display()));
            }
        }
    }
    assert!(
        unused.is_empty(),
        "declared but unused:\n{}",
        unused.join("\n")
    );
}

/// Every source file below `dir` whose name ends in one of `exts`.
fn sources(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            sources(&p, exts, out);
        } else if p.extension().is_some_and(|e| exts.iter().any(|x| e == *x)) {
            out.push(p);
        }
    }
}

/// The section sign (U+00A7), written by its code so this file holds none.
const SECTION: char = '\u{a7}';

/// A section number in a page's `text` (the sign, then digits) that is not an RFC's: a
/// pointer into a contract that is not in the repository. (Code names no section at all: its
/// comments point to the page that states the rule.)
fn outside_section(text: &str) -> bool {
    text.match_indices(SECTION).any(|(at, _)| {
        let before = text[..at].trim_end();
        let word = before
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next();
        let rfc = before
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .trim_end()
            .ends_with("RFC");
        !(rfc && word.is_some_and(|w| w.chars().all(|c| c.is_ascii_digit())))
    })
}

/// The repository stands alone: code and pages point to the project's own docs (each named
/// page exists), never to a section of a document the repository does not hold — code cites
/// no section sign at all, not even an RFC's; a user page may cite an RFC's. The decisions
/// record keeps its old section numbers, with a table mapping each to its page.
#[test]
fn code_and_docs_point_into_the_repository() {
    assert!(outside_section(&format!(
        "the merchant selector ({SECTION}2.1)"
    )));
    assert!(!outside_section(&format!(
        "client authentication (RFC 6749 {SECTION}2.3.1)"
    )));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    let code = ["rs", "py", "sh", "mjs"];
    sources(&root.join("crates"), &code, &mut files);
    sources(&root.join("bench"), &code, &mut files);
    files.push(root.join(".ci/run"));
    let mut pages: Vec<PathBuf> = vec![root.join("README.md"), root.join("bench/README.md")];
    let mut stack = vec![root.join("docs")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "md") && !p.ends_with("decisions.md") {
                pages.push(p);
            }
        }
    }
    let mut found = Vec::new();
    for f in files.iter().chain(&pages) {
        let text = std::fs::read_to_string(f).unwrap();
        let is_page = f.extension().is_some_and(|e| e == "md");
        for (n, line) in text.lines().enumerate() {
            if (is_page && outside_section(line)) || (!is_page && line.contains(SECTION)) {
                found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
        // every docs page a Rust comment names is there
        if f.extension().is_some_and(|e| e == "rs") {
            for (at, _) in text.match_indices("docs/") {
                let name: String = text[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "/-_.".contains(*c))
                    .collect();
                let name = name.trim_end_matches('.');
                if name.ends_with(".md") && !root.join(name).exists() {
                    found.push(format!("{}: names {name}, which is not there", f.display()));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "point to the project's docs instead:\n{}",
        found.join("\n")
    );
}

/// What an administration door must not do: reach the state store (its aggregates, or a
/// function handed the store) instead of calling a service.
fn store_reach(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    code.contains("store.")
        || code.contains(".store")
        || code.contains("(store")
        || code.contains("&store")
        || code.contains("pp_store::Store")
}

/// The admin command line and the console's pages are doors like routes and tools: they call
/// the administration service (`pp_admin`) or another capability service, never the store,
/// so an administrator's change is checked and recorded the same whichever door it came by.
#[test]
fn admin_doors_go_through_services() {
    assert!(store_reach("let rows = store.people().list(None).await?;"));
    assert!(store_reach(
        "pp_auth::create_credential(&app.store, &t, s, l).await"
    ));
    assert!(!store_reach(
        "let rows = admin.people(op).list(None).await?; // not the store."
    ));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    rust_files(&root.join("crates/server/src/pages/console"), &mut files);
    let cli = root.join("crates/cli/src");
    for name in [
        "apps.rs",
        "connection.rs",
        "intelligence.rs",
        "listings.rs",
        "people.rs",
        "policy.rs",
    ] {
        files.push(cli.join(name));
    }
    assert!(files.len() > 15, "{} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        for (n, line) in std::fs::read_to_string(f).unwrap().lines().enumerate() {
            if store_reach(line) {
                found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    // admin.rs opens the store the service is built over, and nothing else of it
    let admin = std::fs::read_to_string(cli.join("admin.rs")).unwrap();
    for (n, line) in admin.lines().enumerate() {
        let opens = line.contains("Store::connect(") || line.contains("Admin::new(store)");
        if store_reach(line) && !opens {
            found.push(format!(
                "crates/cli/src/admin.rs:{}: {}",
                n + 1,
                line.trim()
            ));
        }
    }
    assert!(
        found.is_empty(),
        "administration goes through pp_admin (or another service):\n{}",
        found.join("\n")
    );
}

/// What a line says that has one place only: it writes a job row (an insert into the jobs
/// table, any spacing or case), or it opens an `impl` block of the sync service. The words are put
/// together here so this file holds neither.
fn one_place(line: &str) -> Option<&'static str> {
    let words: Vec<String> = line
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    // backwards, so this line is not one
    let writes_jobs = ["jobs", "into", "insert"];
    if words
        .windows(3)
        .any(|w| w.iter().rev().eq(writes_jobs.iter()))
    {
        return Some("a job row written");
    }
    let service = ["Warehouse", "Sync"].concat();
    let code = line.split("//").next().unwrap_or("").trim_start();
    if code.starts_with("impl") && code.split_whitespace().any(|w| w == service) {
        return Some("a method of the sync service");
    }
    None
}

/// Every job row is written by one function (`crates/store/src/jobs/kind.rs`, which every
/// kind's enqueue goes through), and every method of the sync service is in one file
/// (`crates/sync/src/service.rs`; the job step is its own type).
#[test]
fn job_rows_and_the_sync_service_each_have_one_place() {
    let insert = ["INS", "ERT INTO jo", "bs (id)"].concat();
    assert_eq!(one_place(&insert), Some("a job row written"));
    assert_eq!(
        one_place(&format!("tx.exec(\"{}\")", insert.to_lowercase())),
        Some("a job row written")
    );
    let service = ["Warehouse", "Sync"].concat();
    assert_eq!(
        one_place(&format!("impl {service} {{")),
        Some("a method of the sync service")
    );
    assert_eq!(one_place(&format!("pub struct {service} {{")), None);
    assert_eq!(one_place("INSERT INTO job_items (job_id)"), None);

    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    rust_files(&crates, &mut files);
    let mut found: Vec<(String, &'static str)> = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for what in text.lines().filter_map(one_place) {
            let at = f.strip_prefix(&crates).unwrap().display().to_string();
            found.push((at, what));
        }
    }
    found.sort();
    found.dedup();
    assert_eq!(
        found,
        [
            ("store/src/jobs/kind.rs".to_owned(), "a job row written"),
            (
                "sync/src/service.rs".to_owned(),
                "a method of the sync service"
            ),
        ],
        "a job is queued through pp_store::jobs::BackgroundJob; the sync service's methods \
         live in crates/sync/src/service.rs"
    );
}
