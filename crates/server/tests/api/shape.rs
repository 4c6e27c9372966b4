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
