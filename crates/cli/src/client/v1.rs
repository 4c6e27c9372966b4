//! `v1 <endpoint>`: the `/v1` data plane's reads (`me`, `accounts`, `ads/campaign-performance`
//! …), parameters as `--param NAME=VALUE` (snake_case, as `/v1` takes them). A list prints as
//! a table of its rows (money as `12.34 USD`), with its page's `next_cursor` on stderr;
//! `--json` prints the answer as it came.

use clap::Args;
use serde_json::{Map, Value, json};

use super::{Common, Failure, exit, http::Api};
use super::{args, output};

/// The `/v1` reads.
const ENDPOINTS: &[&str] = &[
    "me",
    "accounts",
    "ads/account-summary",
    "ads/account-pacing",
    "ads/campaign-performance",
    "ads/search-terms",
    "ads/asin-performance",
    "retail/sales",
    "retail/traffic",
    "retail/inventory",
    "retail/inventory-history",
    "brand-analytics/search-query-performance",
];

#[derive(Args)]
pub struct V1Args {
    /// The endpoint: me, accounts, ads/account-summary, ads/account-pacing,
    /// ads/campaign-performance, ads/search-terms, ads/asin-performance, retail/sales,
    /// retail/traffic, retail/inventory, retail/inventory-history,
    /// brand-analytics/search-query-performance.
    pub endpoint: String,
    /// A parameter as NAME=VALUE (repeatable): account_id, start_date, end_date, limit, cursor …
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    #[command(flatten)]
    pub common: Common,
}

/// A cell of a `/v1` row: money as `amount currency`, other objects as JSON.
fn flat(v: &Value) -> Value {
    match v {
        Value::Object(m) if m.contains_key("amount") && m.contains_key("currency") => {
            json!(format!(
                "{} {}",
                m["amount"],
                m["currency"].as_str().unwrap_or("")
            ))
        }
        Value::Object(_) | Value::Array(_) => json!(v.to_string()),
        other => other.clone(),
    }
}

/// The rows of an answer: its first list of objects, or the answer itself as one row.
fn rows(answer: &Value) -> Vec<Map<String, Value>> {
    let list = answer.as_object().and_then(|o| {
        o.values().find(|v| {
            v.as_array()
                .is_some_and(|a| a.first().is_some_and(Value::is_object))
        })
    });
    let items: Vec<Value> = match list {
        Some(Value::Array(a)) => a.clone(),
        _ => vec![answer.clone()],
    };
    items
        .into_iter()
        .filter_map(|r| {
            r.as_object()
                .map(|o| o.iter().map(|(k, v)| (k.clone(), flat(v))).collect())
        })
        .collect()
}

pub async fn run(a: V1Args, c: &Common) -> Result<(), Failure> {
    let endpoint = a
        .endpoint
        .trim_start_matches("/v1/")
        .trim_start_matches('/');
    if !ENDPOINTS.contains(&endpoint) {
        return Err(Failure::local(
            exit::USAGE,
            format!(
                "'{endpoint}' is not a /v1 read; one of: {}",
                ENDPOINTS.join(", ")
            ),
        ));
    }
    let path = args::with_query(
        &format!("/v1/{endpoint}"),
        &args::pairs("--param", &a.params)?,
    );
    let answer = Api::new(&c.profile)?.get(&path).await?;
    if c.json {
        output::json(&answer);
        return Ok(());
    }
    let rows: Vec<Value> = rows(&answer).into_iter().map(Value::Object).collect();
    let columns: Vec<String> = rows
        .first()
        .and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    println!("{}", output::table(&columns, &rows));
    if let Some(next) = answer["next_cursor"].as_str()
        && !c.quiet
    {
        eprintln!("more: --param cursor={next}");
    }
    Ok(())
}
