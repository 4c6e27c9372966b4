//! `sync status` and `sync run [--wait]`: a managed warehouse's sync (`account:read`). `status`
//! prints each merchant's datasets (state, the days the warehouse holds, the last load, the
//! next run, the last error); `run` takes in newly connected merchants and brings every
//! dataset forward to run now, and with `--wait` follows them with a progress bar until each
//! is synced (or cannot be), exiting 20 when the wait runs out (the sync goes on).

use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::progress::Progress;
use super::{Common, Failure, exit, http::Api, output};

#[derive(Subcommand)]
pub enum SyncCommand {
    /// Each merchant's datasets: state, coverage, last load, next run, last error.
    Status {
        #[command(flatten)]
        common: Common,
    },
    /// Sync now: new merchants join, every dataset (or one merchant's) runs at once.
    Run(RunArgs),
}

#[derive(Args)]
pub struct RunArgs {
    /// Only this merchant's datasets (its legacySellerId).
    #[arg(long)]
    pub legacy_seller_id: Option<i64>,
    /// Follow the datasets until each is synced (or cannot be).
    #[arg(long)]
    pub wait: bool,
    /// Give up waiting after this many seconds (exit 20; the sync goes on).
    #[arg(long, default_value_t = 3600)]
    pub timeout: u64,
    #[command(flatten)]
    pub common: Common,
}

impl SyncCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Status { common } => common,
            Self::Run(a) => &a.common,
        }
    }
}

const PATH: &str = "/api/warehouse/sync";

pub async fn run(cmd: SyncCommand, c: &Common) -> Result<(), Failure> {
    let mut api = Api::new(&c.profile)?;
    match cmd {
        SyncCommand::Status { .. } => {
            let status = api.get(PATH).await?;
            show(&status, c);
            Ok(())
        }
        SyncCommand::Run(a) => {
            let mut body = json!({});
            if let Some(id) = a.legacy_seller_id {
                body["legacySellerId"] = id.into();
            }
            let mut status = api.post(PATH, &body).await?;
            if a.wait {
                status = wait(&mut api, a.legacy_seller_id, a.timeout, c).await?;
            }
            show(&status, c);
            Ok(())
        }
    }
}

/// The datasets `status` lists for the merchant asked about (all without one).
fn rows(status: &Value, merchant: Option<i64>) -> Vec<Value> {
    status["datasets"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| merchant.is_none_or(|m| r["merchant"]["legacySellerId"] == m))
        .cloned()
        .collect()
}

/// Whether a dataset has nothing left to do now.
fn settled(r: &Value) -> bool {
    matches!(r["state"].as_str(), Some("synced" | "unavailable"))
}

async fn wait(
    api: &mut Api,
    merchant: Option<i64>,
    timeout: u64,
    c: &Common,
) -> Result<Value, Failure> {
    let started = Instant::now();
    let first = rows(&api.get(PATH).await?, merchant);
    let progress = Progress::bar(c, "syncing", first.len() as u64);
    loop {
        let status = api.get(PATH).await?;
        let all = rows(&status, merchant);
        let done = all.iter().filter(|r| settled(r)).count() as u64;
        let stuck: Vec<&Value> = all
            .iter()
            .filter(|r| matches!(r["state"].as_str(), Some("paused")))
            .collect();
        let busy = all
            .iter()
            .find(|r| !settled(r))
            .map(|r| {
                format!(
                    "{} of {} through {}",
                    r["dataset"].as_str().unwrap_or(""),
                    r["merchant"]["sellerId"].as_str().unwrap_or(""),
                    r["dataThrough"].as_str().unwrap_or("nothing yet")
                )
            })
            .unwrap_or_default();
        progress.set(done, all.len() as u64, busy);
        if !all.is_empty() && done == all.len() as u64 {
            return Ok(status);
        }
        if !stuck.is_empty() && stuck.len() + done as usize == all.len() {
            return Err(Failure::local(
                exit::CONFLICT,
                format!(
                    "{} dataset(s) are paused: their connection must be made again (console Accounts page)",
                    stuck.len()
                ),
            ));
        }
        if started.elapsed() > Duration::from_secs(timeout) {
            return Err(Failure::local(
                exit::TIMED_OUT,
                format!(
                    "the sync has not finished after {timeout}s; it goes on: `sync status` shows where it is"
                ),
            ));
        }
        tokio::time::sleep(Duration::from_millis(1000)).await;
    }
}

fn show(status: &Value, c: &Common) {
    if c.json {
        output::json(status);
        return;
    }
    let rows: Vec<Value> = rows(status, None)
        .into_iter()
        .map(|r| {
            json!({
                "merchant": format!(
                    "{} {} {}",
                    r["merchant"]["legacySellerId"],
                    r["merchant"]["sellerId"].as_str().unwrap_or(""),
                    r["merchant"]["marketplace"].as_str().unwrap_or("")
                ),
                "dataset": r["dataset"],
                "state": r["state"],
                "from": r["coveredFrom"],
                "through": r["dataThrough"],
                "rows": r["rowsLastLoad"],
                "next run": r["nextRun"],
                "last error": r["lastError"]["message"],
            })
        })
        .collect();
    if !c.quiet {
        eprintln!("warehouse: {}", status["warehouse"].as_str().unwrap_or(""));
    }
    print!(
        "{}",
        output::table(
            &[
                "merchant",
                "dataset",
                "state",
                "from",
                "through",
                "rows",
                "next run",
                "last error"
            ],
            &rows
        )
    );
}
