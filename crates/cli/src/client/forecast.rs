//! `forecast get|list|batch`: a person's forecast state (`corrections:write`) through
//! `/api/app-state/forecasting/*`: one document, documents by key prefix a page at a time, and
//! an atomic batch of writes from a file (or stdin). A stale `expected_version` refuses the
//! whole batch with `conflict` (exit 15), the conflicting keys in the envelope.

use std::io::Read;

use clap::Subcommand;
use serde_json::Value;

use super::{Common, Failure, exit, http::Api};
use super::{args, output};

const BASE: &str = "/api/app-state/forecasting";

#[derive(Subcommand)]
pub enum ForecastCommand {
    /// One document by key (`fb:override:<scopeId>:<YYYY-MM-01>`, `fb:account:…`, `fb:scope_def:…`).
    Get {
        key: String,
        #[command(flatten)]
        common: Common,
    },
    /// Documents in key order under a prefix (`fb:<kind>:src:<database>:<merchant>`).
    List {
        #[arg(long)]
        prefix: String,
        /// Exactly this scope.
        #[arg(long)]
        scope_id: Option<String>,
        /// The next page (`next_after` of the previous one).
        #[arg(long)]
        after: Option<String>,
        /// 1 to 500.
        #[arg(long)]
        limit: Option<u32>,
        #[command(flatten)]
        common: Common,
    },
    /// Write a batch, all or nothing: a file (or `-` for stdin) holding
    /// `{ "writes": [ { "key", "expected_version", "doc" } ], "reason" }`.
    Batch {
        file: String,
        #[command(flatten)]
        common: Common,
    },
}

impl ForecastCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Get { common, .. } | Self::List { common, .. } | Self::Batch { common, .. } => {
                common
            }
        }
    }
}

fn read_batch(file: &str) -> Result<Value, Failure> {
    let text = if file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| Failure::local(exit::OTHER, format!("cannot read stdin: {e}")))?;
        s
    } else {
        std::fs::read_to_string(file)
            .map_err(|e| Failure::local(exit::OTHER, format!("cannot read {file}: {e}")))?
    };
    serde_json::from_str(&text)
        .map_err(|e| Failure::local(exit::USAGE, format!("{file} is not JSON: {e}")))
}

pub async fn run(cmd: ForecastCommand, c: &Common) -> Result<(), Failure> {
    let answer = match cmd {
        ForecastCommand::Get { key, .. } => {
            let path = args::with_query(&format!("{BASE}/doc"), &[("key", &key)]);
            Api::new(&c.profile)?.get(&path).await?
        }
        ForecastCommand::List {
            prefix,
            scope_id,
            after,
            limit,
            ..
        } => {
            let limit = limit.map(|n| n.to_string());
            let given = [
                ("prefix", Some(&prefix)),
                ("scope_id", scope_id.as_ref()),
                ("after", after.as_ref()),
                ("limit", limit.as_ref()),
            ];
            let q: Vec<(&str, &str)> = given
                .iter()
                .filter_map(|(k, v)| v.map(|v| (*k, v.as_str())))
                .collect();
            let path = args::with_query(&format!("{BASE}/docs"), &q);
            Api::new(&c.profile)?.get(&path).await?
        }
        ForecastCommand::Batch { file, .. } => {
            let body = read_batch(&file)?;
            Api::new(&c.profile)?
                .post(&format!("{BASE}/batch"), &body)
                .await?
        }
    };
    output::json(&answer);
    Ok(())
}
