//! How answers are shown: a readable table for people (the default), CSV, or the gateway's
//! JSON as it came (`--json`), one document on stdout. Failures go to stderr as one line, or
//! under `--json` as the gateway's envelope on stdout (docs/errors.md).

use serde_json::Value;

use super::http::Failure;

/// How a command prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Table,
    Csv,
    Json,
}

/// A cell's text: strings as they are, null as empty, anything else as JSON.
fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Longest cell shown in a table (the rest is cut with `…`; CSV and JSON keep everything).
const CELL: usize = 60;

fn cut(s: &str) -> String {
    if s.chars().count() <= CELL {
        s.replace(['\n', '\t'], " ")
    } else {
        let head: String = s.chars().take(CELL - 1).collect();
        format!("{}…", head.replace(['\n', '\t'], " "))
    }
}

/// `rows` (objects) under `columns` as an aligned text table.
pub fn table<S: AsRef<str>>(columns: &[S], rows: &[Value]) -> String {
    let head: Vec<String> = columns.iter().map(|c| c.as_ref().to_owned()).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| head.iter().map(|c| cut(&cell(&r[c.as_str()]))).collect())
        .collect();
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            cells
                .iter()
                .map(|r| &r[i])
                .chain([&head[i]])
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |vals: &Vec<String>| {
        vals.iter()
            .zip(&widths)
            .map(|(v, w)| format!("{v:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_owned()
    };
    let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    [head, rule]
        .iter()
        .chain(&cells)
        .map(line)
        .collect::<Vec<_>>()
        .join("\n")
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// `rows` under `columns` as CSV (RFC 4180), with a header line.
pub fn csv<S: AsRef<str>>(columns: &[S], rows: &[Value]) -> String {
    let mut out = vec![
        columns
            .iter()
            .map(|c| csv_field(c.as_ref()))
            .collect::<Vec<_>>()
            .join(","),
    ];
    for r in rows {
        out.push(
            columns
                .iter()
                .map(|c| csv_field(&cell(&r[c.as_ref()])))
                .collect::<Vec<_>>()
                .join(","),
        );
    }
    out.join("\n")
}

/// Prints a JSON document.
pub fn json(v: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
    );
}

/// Reports a failure: the envelope on stdout under `--json`, and a line on stderr unless quiet.
pub fn failure(f: &Failure, as_json: bool, quiet: bool) {
    if as_json && let Some(env) = &f.envelope {
        json(env);
    }
    if !quiet || f.envelope.is_none() || !as_json {
        eprintln!("error: {}", f.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tables_align_and_csv_quotes() {
        let cols = vec!["ID".to_owned(), "Name".to_owned()];
        let rows = vec![
            json!({"ID": 1, "Name": "a, \"b\""}),
            json!({"ID": 22, "Name": null}),
        ];
        assert_eq!(
            table(&cols, &rows),
            "ID  Name\n--  ------\n1   a, \"b\"\n22"
        );
        assert_eq!(csv(&cols, &rows), "ID,Name\n1,\"a, \"\"b\"\"\"\n22,");
    }
}
