//! The documentation, held to what it shows: every fenced shell example in `README.md` and
//! `docs/` runs as written against a dev server of its own, an answer block (` ```json `) right
//! after an example is checked against the example's last answer, and every link stays inside
//! the repository and points at a file and heading that exist.
//!
//! How a page runs (the rules a writer needs, also in `docs/contributing.md`):
//! - Each page runs in a fresh folder with the dev server already running there (what every
//!   page says: "with the dev server running, from the same folder"), its `.partner-dev`
//!   beside the examples and `partner-platform` on `PATH`. The page's blocks run in order in
//!   one shell (`set -euo pipefail`), so a variable set by its first step is there for the
//!   next (a server block, below, starts a new shell for the blocks after it).
//! - ` ```sh server ` marks a command that serves until stopped: it runs in the background
//!   until it says it is up, and is stopped when the page ends. A page whose first example is
//!   one (the README) starts its own dev server.
//! - ` ```sh ci ` marks the test command itself: it is checked to be what `.ci/run` runs
//!   (this runner is part of that run) rather than run again.
//! - `cargo run -- <args>` runs the built binary with `<args>`.
//! - `PARTNER_LISTEN=127.0.0.1:0` is set, so servers started as written take a free port.

use std::collections::{BTreeSet, HashMap};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use crate::process::BIN;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// `README.md` and every Markdown page under `docs/`, relative to the root, sorted.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let root = root();
    let mut out = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut out);
    out.sort();
    out.into_iter()
        .map(|p| p.strip_prefix(&root).unwrap().to_owned())
        .collect()
}

/// One fenced block of a page.
#[derive(Debug, Clone)]
struct Block {
    /// The line of its opening fence (1-based).
    line: usize,
    /// The info string's first word (`sh`, `json` …), empty when there is none.
    lang: String,
    /// The info string's other words (`server`, `ci`).
    tags: Vec<String>,
    body: String,
    /// Whether only blank lines separate it from the block before it.
    follows_previous: bool,
    /// The opening fence's indentation (inside a list item), taken off the block's lines.
    indent: usize,
}

/// The languages a fenced block may declare; shell examples are the ones that run.
const SHELL: &[&str] = &["sh", "bash"];
const OTHER: &[&str] = &["json", "toml", "sql", "nginx", "text"];

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    let mut blank_since_close = None::<bool>;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            match open.take() {
                Some(block) => {
                    out.push(block);
                    blank_since_close = Some(true);
                }
                None => {
                    let mut words = info.split_whitespace().map(str::to_owned);
                    open = Some(Block {
                        line: i + 1,
                        lang: words.next().unwrap_or_default(),
                        tags: words.collect(),
                        body: String::new(),
                        follows_previous: blank_since_close == Some(true),
                        indent: line.len() - trimmed.len(),
                    });
                }
            }
            continue;
        }
        match open.as_mut() {
            Some(block) => {
                // Indented blocks (inside a list item) lose the list's indentation.
                let strip = block.indent.min(line.len() - trimmed.len());
                block.body.push_str(&line[strip..]);
                block.body.push('\n');
            }
            None => {
                if !line.trim().is_empty() {
                    blank_since_close = Some(false);
                }
            }
        }
    }
    assert!(open.is_none(), "an unclosed fence");
    out
}

#[test]
fn every_fenced_block_says_what_it_is() {
    let root = root();
    let mut wrong = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).unwrap();
        for b in blocks(&text) {
            let known = SHELL.contains(&b.lang.as_str()) || OTHER.contains(&b.lang.as_str());
            let tags_ok = b.tags.iter().all(|t| t == "server" || t == "ci");
            if !known || !tags_ok || (!b.tags.is_empty() && !SHELL.contains(&b.lang.as_str())) {
                wrong.push(format!(
                    "{}:{} ```{} {}",
                    page.display(),
                    b.line,
                    b.lang,
                    b.tags.join(" ")
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "every fenced block declares one of {SHELL:?} (run by CI) or {OTHER:?}, tags only `server` or `ci` on shell blocks:\n{}",
        wrong.join("\n")
    );
}

/// A server an example started, stopped (with its process group) when dropped.
struct Background(Child);

impl Drop for Background {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.wait();
    }
}

const READY: &[&str] = &["is up at ", "listening on "];

/// The shell every example runs in: strict, with `cargo run --` meaning the built binary.
const PRELUDE: &str = r#"set -euo pipefail
cargo() {
  if [ "${1:-}" = run ] && [ "${2:-}" = -- ]; then shift 2; partner-platform "$@"; return; fi
  echo "the docs runner runs 'cargo run -- <args>' only, not 'cargo $*'" >&2; return 1
}
"#;

fn shell(dir: &Path, script: &str) -> Command {
    let mut c = Command::new("bash");
    c.arg("-c").arg(script).current_dir(dir);
    for (k, _) in std::env::vars() {
        if k.starts_with("PARTNER_") || k.starts_with("PP_") {
            c.env_remove(k);
        }
    }
    let bin_dir = Path::new(BIN).parent().unwrap();
    c.env(
        "PATH",
        format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap()),
    )
    .env("HOME", dir)
    .env("XDG_CONFIG_HOME", dir.join(".config"))
    .env("PARTNER_LISTEN", "127.0.0.1:0")
    .env("PARTNER_LOG", "warn");
    c
}

/// Starts a serving command in the background and waits until it says it is up.
fn serve(dir: &Path, body: &str, what: &str) -> Background {
    use std::os::unix::process::CommandExt;
    let mut child = shell(dir, &format!("{PRELUDE}{body}"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
    }
    drop(tx);
    let server = Background(child);
    let mut seen = String::new();
    loop {
        match rx.recv_timeout(Duration::from_secs(180)) {
            Ok(line) => {
                let up = READY.iter().any(|r| line.contains(r));
                seen.push_str(&line);
                seen.push('\n');
                if up {
                    // Keep draining so the server never blocks on a full pipe.
                    std::thread::spawn(move || while rx.recv().is_ok() {});
                    return server;
                }
            }
            Err(_) => panic!("{what} never said it was up:\n{seen}"),
        }
    }
}

/// Every JSON value in `text`, in order, pretty-printed ones included (a line that does not
/// start one is passed over).
fn json_values(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return out;
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => {
                out.push(v);
                rest = &rest[stream.byte_offset()..];
            }
            _ => match rest.find('\n') {
                Some(i) => rest = &rest[i + 1..],
                None => return out,
            },
        }
    }
}

/// Whether `actual` has the shape `shown` shows: every key shown is there with a value of
/// the same shape, a non-empty array shown is non-empty and its first element has the shape
/// of the first shown, and scalars are of the same JSON type (`"…"` stands for any value).
fn shape_matches(shown: &Value, actual: &Value, at: &str, errors: &mut Vec<String>) {
    match (shown, actual) {
        (Value::String(s), _) if s == "…" => {}
        (Value::Object(s), Value::Object(a)) => {
            for (k, v) in s {
                match a.get(k) {
                    Some(av) => shape_matches(v, av, &format!("{at}.{k}"), errors),
                    None => errors.push(format!("{at}.{k}: missing")),
                }
            }
        }
        (Value::Array(s), Value::Array(a)) => {
            if let Some(first) = s.first() {
                match a.first() {
                    Some(af) => shape_matches(first, af, &format!("{at}[0]"), errors),
                    None => errors.push(format!("{at}: empty, the page shows items")),
                }
            }
        }
        (Value::Null, Value::Null)
        | (Value::Bool(_), Value::Bool(_))
        | (Value::Number(_), Value::Number(_))
        | (Value::String(_), Value::String(_)) => {}
        (s, a) => errors.push(format!("{at}: the page shows {s}, the answer is {a}")),
    }
}

/// What one page's run found: how many examples ran, and what failed.
struct PageRun {
    ran: usize,
    failures: Vec<String>,
    /// The blocks (by index) that ran to the end.
    done: BTreeSet<usize>,
}

fn run_page(page: &Path) -> PageRun {
    let text = std::fs::read_to_string(root().join(page)).unwrap();
    let all = blocks(&text);
    let shell_blocks: Vec<usize> = (0..all.len())
        .filter(|&i| SHELL.contains(&all[i].lang.as_str()))
        .collect();
    let mut run = PageRun {
        ran: 0,
        failures: Vec::new(),
        done: BTreeSet::new(),
    };
    if shell_blocks.is_empty() {
        return run;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut servers = Vec::new();
    let starts_own_server = all[shell_blocks[0]].tags.iter().any(|t| t == "server");
    if !starts_own_server {
        servers.push(serve(
            dir.path(),
            "partner-platform server --dev",
            "the page's dev server",
        ));
    }
    let out_dir = dir.path().join(".docs-run");
    std::fs::create_dir_all(&out_dir).unwrap();
    let out_of = |i: usize| out_dir.join(format!("{i}.out"));
    let err_of = |i: usize| out_dir.join(format!("{i}.err"));
    let place = |b: &Block| format!("{}:{}", page.display(), b.line);

    // The foreground blocks between two server blocks run as one script; a server block
    // starts once everything before it has run.
    let mut pending: Vec<usize> = Vec::new();
    let flush = |pending: &mut Vec<usize>, run: &mut PageRun| -> bool {
        if pending.is_empty() {
            return true;
        }
        let mut script = String::from(PRELUDE);
        for &i in pending.iter() {
            script.push_str(&format!(
                "{{\n{}\n}} > {:?} 2> {:?}\necho {i} >> {:?}\n",
                all[i].body,
                out_of(i),
                err_of(i),
                out_dir.join("done")
            ));
        }
        let status = shell(dir.path(), &script).status().unwrap();
        let done: BTreeSet<usize> = std::fs::read_to_string(out_dir.join("done"))
            .unwrap_or_default()
            .lines()
            .map(|l| l.parse().unwrap())
            .collect();
        for &i in pending.iter() {
            if !done.contains(&i) {
                run.failures.push(format!(
                    "{} failed (exit {status}):\n```sh\n{}```\nstdout:\n{}\nstderr:\n{}",
                    place(&all[i]),
                    all[i].body,
                    std::fs::read_to_string(out_of(i)).unwrap_or_default(),
                    std::fs::read_to_string(err_of(i)).unwrap_or_default()
                ));
                pending.clear();
                return false;
            }
            run.ran += 1;
            run.done.insert(i);
        }
        pending.clear();
        true
    };

    for &i in &shell_blocks {
        let b = &all[i];
        if b.tags.iter().any(|t| t == "ci") {
            let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
            let command = b.body.trim();
            if ci.lines().any(|l| l.trim_start().starts_with(command)) {
                run.ran += 1;
            } else {
                run.failures.push(format!(
                    "{}: `{command}` is marked as the test command, but .ci/run does not run it",
                    place(b)
                ));
            }
            continue;
        }
        if b.tags.iter().any(|t| t == "server") {
            if !flush(&mut pending, &mut run) {
                break;
            }
            servers.push(serve(dir.path(), &b.body, &place(b)));
            run.ran += 1;
            continue;
        }
        pending.push(i);
    }
    flush(&mut pending, &mut run);

    // Answer blocks: a json block right after a shell example shows its last answer's shape.
    for i in 1..all.len() {
        let (example, answer) = (&all[i - 1], &all[i]);
        if answer.lang != "json"
            || !answer.follows_previous
            || !SHELL.contains(&example.lang.as_str())
            || !run.done.contains(&(i - 1))
        {
            continue;
        }
        let shown: Value = match serde_json::from_str(&answer.body) {
            Ok(v) => v,
            Err(e) => {
                run.failures.push(format!(
                    "{}: the answer block is not JSON: {e}",
                    place(answer)
                ));
                continue;
            }
        };
        let stdout = std::fs::read_to_string(out_of(i - 1)).unwrap_or_default();
        let Some(actual) = json_values(&stdout).pop() else {
            run.failures.push(format!(
                "{}: the page shows an answer, the example printed no JSON:\n{stdout}",
                place(answer)
            ));
            continue;
        };
        let mut errors = Vec::new();
        shape_matches(&shown, &actual, "answer", &mut errors);
        if !errors.is_empty() {
            run.failures.push(format!(
                "{}: the answer does not have the shape the page shows:\n{}\nanswer: {actual}",
                place(answer),
                errors.join("\n")
            ));
        }
    }
    drop(servers);
    run
}

#[test]
fn every_shell_example_in_the_docs_runs_as_written() {
    let only = std::env::var("PP_DOCS_PAGE").ok();
    let pages: Vec<PathBuf> = pages()
        .into_iter()
        .filter(|p| {
            only.as_deref()
                .is_none_or(|o| p.to_string_lossy().contains(o))
        })
        .collect();
    let total: usize = pages
        .iter()
        .map(|p| {
            blocks(&std::fs::read_to_string(root().join(p)).unwrap())
                .iter()
                .filter(|b| SHELL.contains(&b.lang.as_str()))
                .count()
        })
        .sum();
    // Two pages at a time: each has its own dev server.
    let results: Vec<(PathBuf, PageRun)> = std::thread::scope(|s| {
        let mut results = Vec::new();
        for pair in pages.chunks(2) {
            let handles: Vec<_> = pair
                .iter()
                .map(|p| s.spawn(move || (p.clone(), run_page(p))))
                .collect();
            results.extend(handles.into_iter().map(|h| h.join().unwrap()));
        }
        results
    });
    let ran: usize = results.iter().map(|(_, r)| r.ran).sum();
    let mut by_page = HashMap::new();
    for (p, r) in &results {
        if r.ran > 0 {
            by_page.insert(p.display().to_string(), r.ran);
        }
    }
    println!(
        "docs examples: {total} shell examples found, {ran} ran and passed; by page: {by_page:?}"
    );
    let failures: Vec<&String> = results.iter().flat_map(|(_, r)| &r.failures).collect();
    assert!(
        failures.is_empty(),
        "{} of {total} examples failed:\n\n{}",
        failures.len(),
        failures
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    assert_eq!(ran, total, "every example ran");
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors a page's headings make (a repeated heading gets `-1`, `-2` …).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = BTreeSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence || !line.starts_with('#') {
            continue;
        }
        let heading = line.trim_start_matches('#');
        let base = slug(&heading.replace('`', ""));
        let n = seen.entry(base.clone()).or_insert(0);
        out.insert(if *n == 0 {
            base.clone()
        } else {
            format!("{base}-{n}")
        });
        *n += 1;
    }
    out
}

/// Every inline link target `](target)` outside fenced blocks and code spans.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Code spans are not links.
        let plain: String = line
            .split('`')
            .enumerate()
            .filter(|(k, _)| k % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = plain.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let end = after.find(')').unwrap_or(after.len());
            out.push((i + 1, after[..end].to_owned()));
            rest = &after[end..];
        }
    }
    out
}

#[test]
fn every_link_in_the_docs_stays_inside_the_repository_and_arrives() {
    let root = root();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(root.join(&page)).unwrap();
        for (line, target) in links(&text) {
            checked += 1;
            let at = format!("{}:{line} -> {target}", page.display());
            if target.contains("://") || target.starts_with("mailto:") {
                wrong.push(format!("{at}: points outside the repository"));
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((f, a)) => (f, Some(a)),
                None => (target.as_str(), None),
            };
            let path = if file.is_empty() {
                root.join(&page)
            } else {
                root.join(&page).parent().unwrap().join(file)
            };
            let Ok(path) = path.canonicalize() else {
                wrong.push(format!("{at}: no such file"));
                continue;
            };
            if !path.starts_with(&root) {
                wrong.push(format!("{at}: points outside the repository"));
                continue;
            }
            if let Some(anchor) = anchor {
                let target_text = std::fs::read_to_string(&path).unwrap_or_default();
                if !anchors(&target_text).contains(anchor) {
                    wrong.push(format!("{at}: no such heading"));
                }
            }
        }
    }
    println!("docs links: {checked} checked");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_runner_reads_blocks_answers_and_anchors_as_a_reader_would() {
    let page = "# Run SQL\n\n```sh\necho '{\"ok\": true, \"rows\": [{\"n\": 1}]}'\n```\n\n```json\n{\"ok\": true, \"rows\": [{\"n\": 0}]}\n```\n\nText.\n\n```json\n{}\n```\n";
    let b = blocks(page);
    assert_eq!(b.len(), 3);
    assert_eq!((b[0].lang.as_str(), b[0].line), ("sh", 3));
    assert!(b[1].follows_previous && !b[2].follows_previous);
    let mut errors = Vec::new();
    let shown: Value = serde_json::from_str(r#"{"ok": true, "rows": [{"n": 0}]}"#).unwrap();
    shape_matches(
        &shown,
        &serde_json::json!({"ok": true, "rows": [{"n": 5}], "more": 1}),
        "a",
        &mut errors,
    );
    assert!(errors.is_empty(), "{errors:?}");
    shape_matches(
        &shown,
        &serde_json::json!({"ok": true, "rows": []}),
        "a",
        &mut errors,
    );
    shape_matches(&shown, &serde_json::json!({"ok": "yes"}), "a", &mut errors);
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert!(anchors(page).contains("run-sql"));
    let listed = blocks("- a step:\n\n  ```sh\n  echo one\n    echo two\n  ```\n");
    assert_eq!(
        listed[0].body, "echo one\n  echo two\n",
        "a list's indentation is taken off"
    );
    let printed = json_values("id  name\n{\n  \"a\": 1\n}\n200\n{\"b\": [1]}{\"c\": 2}\n");
    assert_eq!(printed.len(), 4, "{printed:?}");
    assert_eq!(printed[3], serde_json::json!({"c": 2}));
    assert!(anchors("## `/v1` data plane, at a glance\n").contains("v1-data-plane-at-a-glance"));
}
