//! `events list [--follow]`, the event feed (any read scope: each credential sees the events of
//! the surfaces it reads), and `webhooks …`, a tenant admin's endpoints (`webhooks:write`):
//! `add` (the signing secret is printed once), `list`, `rotate` (a new secret, printed once),
//! `enable`, `disable`, `remove`, `deliveries` (the log, with each attempt) and `replay`.
//! `--follow` keeps reading from the last event's cursor, one line (or JSON document) per event,
//! until interrupted.

use std::time::Duration;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::{Common, Failure, http::Api, output};

#[derive(Subcommand)]
pub enum EventsCommand {
    /// The feed, oldest first (`--follow` waits for more).
    List(ListArgs),
}

#[derive(Args)]
pub struct ListArgs {
    /// Only events after this one (an event id, or a previous cursor).
    #[arg(long)]
    pub after: Option<String>,
    /// Type patterns, comma-separated: `report.done`, `monitor.*`, `*`.
    #[arg(long = "type")]
    pub types: Option<String>,
    /// Only events at or after this time (RFC 3339 or YYYY-MM-DD).
    #[arg(long)]
    pub since: Option<String>,
    /// At most this many per page (1–500).
    #[arg(long, default_value_t = 100)]
    pub limit: u32,
    /// Keep reading: print new events as they come, until interrupted.
    #[arg(long)]
    pub follow: bool,
    /// How often `--follow` asks, in seconds.
    #[arg(long, default_value_t = 2)]
    pub every: u64,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Subcommand)]
pub enum WebhooksCommand {
    /// Register an endpoint; prints its signing secret (shown once).
    Add {
        /// Where deliveries are POSTed.
        url: String,
        /// Type patterns it wants, comma-separated (`*` for every event).
        #[arg(long = "type", value_delimiter = ',', required = true)]
        types: Vec<String>,
        #[arg(long)]
        description: Option<String>,
        #[command(flatten)]
        common: Common,
    },
    /// The account's endpoints.
    List {
        #[command(flatten)]
        common: Common,
    },
    /// A new signing secret (printed once); the old one signs on through the grace period.
    Rotate(IdArgs),
    /// Send to the endpoint again (its failure record cleared).
    Enable(IdArgs),
    /// Stop sending to the endpoint.
    Disable(IdArgs),
    /// Remove the endpoint.
    Remove(IdArgs),
    /// The endpoint's deliveries, newest first, with each attempt.
    Deliveries(IdArgs),
    /// Send a delivery's event again (its id: dlv_…).
    Replay(IdArgs),
}

#[derive(Args)]
pub struct IdArgs {
    /// The endpoint's id (we_…), or for `replay` the delivery's (dlv_…).
    pub id: String,
    #[command(flatten)]
    pub common: Common,
}

impl EventsCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::List(a) => &a.common,
        }
    }
}

impl WebhooksCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Add { common, .. } | Self::List { common } => common,
            Self::Rotate(a)
            | Self::Enable(a)
            | Self::Disable(a)
            | Self::Remove(a)
            | Self::Deliveries(a)
            | Self::Replay(a) => &a.common,
        }
    }
}

/// `?k=v&…` of the pairs that are set.
fn query(pairs: &[(&str, Option<String>)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            q.append_pair(k, v);
        }
    }
    match q.finish() {
        s if s.is_empty() => String::new(),
        s => format!("?{s}"),
    }
}

pub async fn list(cmd: EventsCommand, c: &Common) -> Result<(), Failure> {
    let EventsCommand::List(a) = cmd;
    let mut api = Api::new(&c.profile)?;
    let mut after = a.after.clone();
    loop {
        let path = format!(
            "/api/events{}",
            query(&[
                ("after", after.clone()),
                ("type", a.types.clone()),
                ("since", a.since.clone()),
                ("limit", Some(a.limit.to_string())),
            ])
        );
        let page = api.get(&path).await?;
        let events = page["events"].as_array().cloned().unwrap_or_default();
        if c.json && !a.follow {
            output::json(&page);
        } else {
            print_events(&events, c.json);
        }
        after = page["cursor"].as_str().map(str::to_owned).or(after);
        let more = page["more"].as_bool().unwrap_or(false);
        if !a.follow && !more {
            return Ok(());
        }
        if !a.follow && c.json {
            return Ok(());
        }
        if !more {
            tokio::time::sleep(Duration::from_secs(a.every.max(1))).await;
        }
    }
}

/// One line per event (a JSON document per line under `--json`).
fn print_events(events: &[Value], as_json: bool) {
    for e in events {
        if as_json {
            println!("{e}");
        } else {
            println!(
                "{}  {}  {}  {}",
                e["timestamp"].as_str().unwrap_or(""),
                e["id"].as_str().unwrap_or(""),
                e["type"].as_str().unwrap_or(""),
                e["subject"]
            );
        }
    }
}

pub async fn webhooks(cmd: WebhooksCommand, c: &Common) -> Result<(), Failure> {
    let mut api = Api::new(&c.profile)?;
    let answer = match &cmd {
        WebhooksCommand::Add {
            url,
            types,
            description,
            ..
        } => {
            let body = json!({ "url": url, "types": types, "description": description });
            api.post("/api/webhooks", &body).await?
        }
        WebhooksCommand::List { .. } => api.get("/api/webhooks").await?,
        WebhooksCommand::Rotate(a) => {
            api.post(&format!("/api/webhooks/{}/rotate", a.id), &json!({}))
                .await?
        }
        WebhooksCommand::Enable(a) => {
            api.post(&format!("/api/webhooks/{}/enable", a.id), &json!({}))
                .await?
        }
        WebhooksCommand::Disable(a) => {
            api.post(&format!("/api/webhooks/{}/disable", a.id), &json!({}))
                .await?
        }
        WebhooksCommand::Remove(a) => api.delete(&format!("/api/webhooks/{}", a.id)).await?,
        WebhooksCommand::Deliveries(a) => {
            api.get(&format!("/api/webhooks/{}/deliveries", a.id))
                .await?
        }
        WebhooksCommand::Replay(a) => {
            api.post(
                &format!("/api/webhooks/deliveries/{}/replay", a.id),
                &json!({}),
            )
            .await?
        }
    };
    if c.json {
        output::json(&answer);
        return Ok(());
    }
    show(&cmd, &answer, c);
    Ok(())
}

fn endpoint_row(e: &Value) -> Value {
    json!({
        "id": e["id"], "url": e["url"], "types": e["types"].as_array().map(|t| t.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(",")),
        "enabled": e["enabled"], "failing since": e["failingSince"], "disabled because": e["disabledReason"],
    })
}

const ENDPOINT_COLUMNS: &[&str] = &[
    "id",
    "url",
    "types",
    "enabled",
    "failing since",
    "disabled because",
];

fn show(cmd: &WebhooksCommand, answer: &Value, c: &Common) {
    match cmd {
        WebhooksCommand::Add { .. } | WebhooksCommand::Rotate(_) => {
            print!(
                "{}",
                output::table(ENDPOINT_COLUMNS, &[endpoint_row(&answer["endpoint"])])
            );
            if !c.quiet {
                eprintln!(
                    "The signing secret (shown once; verify deliveries with any Standard Webhooks library):"
                );
            }
            println!("{}", answer["secret"].as_str().unwrap_or(""));
        }
        WebhooksCommand::List { .. } => {
            let rows: Vec<Value> = answer["endpoints"]
                .as_array()
                .into_iter()
                .flatten()
                .map(endpoint_row)
                .collect();
            print!("{}", output::table(ENDPOINT_COLUMNS, &rows));
        }
        WebhooksCommand::Enable(_) | WebhooksCommand::Disable(_) => {
            print!(
                "{}",
                output::table(ENDPOINT_COLUMNS, &[endpoint_row(answer)])
            );
        }
        WebhooksCommand::Remove(a) => println!("removed {}", a.id),
        WebhooksCommand::Deliveries(_) | WebhooksCommand::Replay(_) => {
            let list = match answer["deliveries"].as_array() {
                Some(list) => list.clone(),
                None => vec![answer.clone()],
            };
            let rows: Vec<Value> = list
                .iter()
                .map(|d| {
                    let attempts = d["attempts"].as_array().cloned().unwrap_or_default();
                    let last = attempts.last().cloned().unwrap_or(Value::Null);
                    json!({
                        "delivery": d["id"], "event": d["eventId"], "type": d["eventType"], "status": d["status"],
                        "attempts": attempts.len(), "last answer": last["status"], "last error": last["error"],
                    })
                })
                .collect();
            print!(
                "{}",
                output::table(
                    &[
                        "delivery",
                        "event",
                        "type",
                        "status",
                        "attempts",
                        "last answer",
                        "last error"
                    ],
                    &rows
                )
            );
        }
    }
}
