//! `query`, `tables`, `describe`: the tenant's warehouse through `/api/query`, `/api/tables`
//! and `/api/table/<name>`.

use std::io::Read;

use clap::Args;
use serde_json::{Value, json};

use super::args;
use super::output::{self, Format};
use super::{Common, Failure, exit, http::Api};

#[derive(Args)]
pub struct QueryArgs {
    /// The statement; `-` or nothing reads it from stdin.
    pub sql: Option<String>,
    /// Read the statement from this file.
    #[arg(long, conflicts_with = "sql")]
    pub file: Option<std::path::PathBuf>,
    /// How to print the rows.
    #[arg(long, value_enum, default_value = "table")]
    pub format: Format,
    /// At most this many rows (1 to 10,000).
    #[arg(long)]
    pub max_rows: Option<u32>,
}

fn statement(a: &QueryArgs) -> Result<String, Failure> {
    let read_err = |what: String, e: std::io::Error| {
        Failure::local(exit::OTHER, format!("cannot read {what}: {e}"))
    };
    let sql = match (&a.file, a.sql.as_deref()) {
        (Some(path), _) => {
            std::fs::read_to_string(path).map_err(|e| read_err(path.display().to_string(), e))?
        }
        (None, Some(s)) if s != "-" => s.to_owned(),
        _ => {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| read_err("stdin".into(), e))?;
            s
        }
    };
    if sql.trim().is_empty() {
        return Err(Failure::local(
            exit::USAGE,
            "no SQL given: pass it as an argument, with --file, or on stdin",
        ));
    }
    Ok(sql)
}

fn column_names(v: &Value) -> Vec<String> {
    v["columns"]
        .as_array()
        .map(|cols| {
            cols.iter()
                .filter_map(|c| c["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

pub async fn query(a: QueryArgs, c: &Common) -> Result<(), Failure> {
    let mut body = json!({ "sql": statement(&a)? });
    if let Some(n) = a.max_rows {
        body["maxRows"] = json!(n);
    }
    let answer = Api::new(&c.profile)?.post("/api/query", &body).await?;
    let format = if c.json { Format::Json } else { a.format };
    let rows = answer["rows"].as_array().cloned().unwrap_or_default();
    match format {
        Format::Json => output::json(&answer),
        Format::Csv => println!("{}", output::csv(&column_names(&answer), &rows)),
        Format::Table => println!("{}", output::table(&column_names(&answer), &rows)),
    }
    if answer["truncated"] == json!(true) && !c.quiet && format != Format::Json {
        eprintln!(
            "note: the result was cut at {} rows; {}",
            rows.len(),
            answer["next"]
                .as_str()
                .unwrap_or("page with LIMIT and OFFSET")
        );
    }
    Ok(())
}

pub async fn tables(c: &Common) -> Result<(), Failure> {
    let answer = Api::new(&c.profile)?.get("/api/tables").await?;
    if c.json {
        output::json(&answer);
    } else {
        let rows = answer["tables"].as_array().cloned().unwrap_or_default();
        println!("{}", output::table(&["name", "type"], &rows));
    }
    Ok(())
}

pub async fn describe(table: &str, c: &Common) -> Result<(), Failure> {
    let answer = Api::new(&c.profile)?
        .get(&format!("/api/table/{}", args::segment(table)))
        .await?;
    if c.json {
        output::json(&answer);
        return Ok(());
    }
    let t = &answer["table"];
    let cols = t["columns"].as_array().cloned().unwrap_or_default();
    let heads = ["name", "type", "nullable", "primaryKey"];
    println!(
        "{} ({})\n\n{}",
        t["name"].as_str().unwrap_or(table),
        t["type"].as_str().unwrap_or(""),
        output::table(&heads, &cols)
    );
    if let Some(idx) = t["indexes"].as_array().filter(|i| !i.is_empty()) {
        let rows: Vec<Value> = idx
            .iter()
            .map(|i| json!({"index": i["name"], "unique": i["unique"], "columns": i["columns"].as_array().map(|c| c.iter().filter_map(|x| x.as_str()).collect::<Vec<_>>().join(", "))}))
            .collect();
        println!(
            "\n{}",
            output::table(&["index", "unique", "columns"], &rows)
        );
    }
    Ok(())
}
