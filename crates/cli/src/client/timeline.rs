//! `timeline list|add|corroborate`: the brand timeline through `/v1/timeline` (filters as
//! `--filter NAME=VALUE`, a page at a time with `--cursor`), appending a stake, comment or
//! action outcome, and corroborating a stake. Appends are attributed to the credential.

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::{Common, Failure, http::Api};
use super::{args, output};

#[derive(Subcommand)]
pub enum TimelineCommand {
    /// Events newest first (filters: brand, family, kind, start_date, end_date, category,
    /// source, status, affects, tag, overlaps_start, overlaps_end, future).
    List {
        /// A filter as NAME=VALUE (repeatable).
        #[arg(long = "filter", value_name = "NAME=VALUE")]
        filters: Vec<String>,
        /// Events per page (1 to 500).
        #[arg(long)]
        limit: Option<u32>,
        /// The next page (`next_cursor` of the previous one).
        #[arg(long)]
        cursor: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// Append a stake, comment or action outcome (needs timeline:write).
    Add(Box<AddArgs>),
    /// Corroborate a stake (needs timeline:write).
    Corroborate {
        /// The stake's id.
        id: String,
        #[arg(long)]
        note: Option<String>,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Args)]
pub struct AddArgs {
    #[arg(long)]
    pub brand: String,
    /// stake, comment or action_outcome.
    #[arg(long)]
    pub kind: String,
    /// Comments and action outcomes: the text.
    #[arg(long)]
    pub note: Option<String>,
    /// Stakes: launch, promotional_window, stockout, price_test, media_spike … .
    #[arg(long)]
    pub category: Option<String>,
    #[arg(long)]
    pub starts_on: Option<String>,
    #[arg(long)]
    pub ends_on: Option<String>,
    /// Stakes: how to read the window's numbers.
    #[arg(long)]
    pub interpretation: Option<String>,
    /// Action outcomes: worked, did_not_work, mixed, unknown.
    #[arg(long)]
    pub outcome: Option<String>,
    #[arg(long)]
    pub occurred_on: Option<String>,
    /// A label the stake affects (repeatable).
    #[arg(long = "affects")]
    pub affects: Vec<String>,
    /// A tag (repeatable).
    #[arg(long = "tag")]
    pub tags: Vec<String>,
    #[command(flatten)]
    pub common: Common,
}

impl TimelineCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::List { common, .. } | Self::Corroborate { common, .. } => common,
            Self::Add(a) => &a.common,
        }
    }
}

fn list_path(
    filters: &[String],
    limit: Option<u32>,
    cursor: Option<&str>,
) -> Result<String, Failure> {
    let mut q = args::pairs("--filter", filters)?;
    let limit = limit.map(|n| n.to_string());
    q.extend(limit.as_deref().map(|n| ("limit", n)));
    q.extend(cursor.map(|c| ("cursor", c)));
    Ok(args::with_query("/v1/timeline", &q))
}

/// The body of an append: the fields given, nothing else.
fn event(a: &AddArgs) -> Value {
    let mut body = json!({ "brand": a.brand, "kind": a.kind });
    let optional = [
        ("note", &a.note),
        ("category", &a.category),
        ("starts_on", &a.starts_on),
        ("ends_on", &a.ends_on),
        ("interpretation", &a.interpretation),
        ("outcome", &a.outcome),
        ("occurred_on", &a.occurred_on),
    ];
    for (k, v) in optional {
        if let Some(v) = v {
            body[k] = json!(v);
        }
    }
    if !a.affects.is_empty() {
        body["affects"] = json!(a.affects);
    }
    if !a.tags.is_empty() {
        body["tags"] = json!(a.tags);
    }
    body
}

pub async fn run(cmd: TimelineCommand, c: &Common) -> Result<(), Failure> {
    match cmd {
        TimelineCommand::List {
            filters,
            limit,
            cursor,
            ..
        } => {
            let path = list_path(&filters, limit, cursor.as_deref())?;
            let answer = Api::new(&c.profile)?.get(&path).await?;
            if c.json {
                output::json(&answer);
                return Ok(());
            }
            let rows: Vec<Value> = answer["events"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(|mut e| {
                    let text = e["note"]
                        .as_str()
                        .or(e["interpretation"].as_str())
                        .unwrap_or("")
                        .to_owned();
                    e["text"] = json!(text);
                    e
                })
                .collect();
            let cols = ["id", "occurred_on", "brand", "kind", "status", "text"];
            println!("{}", output::table(&cols, &rows));
            if let Some(next) = answer["next_cursor"].as_str()
                && !c.quiet
            {
                eprintln!("more: --cursor {next}");
            }
        }
        TimelineCommand::Add(a) => {
            let answer = Api::new(&c.profile)?
                .post("/v1/timeline/event", &event(&a))
                .await?;
            output::json(&answer);
        }
        TimelineCommand::Corroborate { id, note, .. } => {
            let body = match note {
                Some(n) => json!({ "note": n }),
                None => json!({}),
            };
            let id = args::segment(&id);
            let answer = Api::new(&c.profile)?
                .post(&format!("/v1/timeline/event/{id}/corroborate"), &body)
                .await?;
            output::json(&answer);
        }
    }
    Ok(())
}
