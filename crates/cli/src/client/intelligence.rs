//! `intelligence catalog|run|wait|get`: the intelligence catalog (`intelligence:read`), a run
//! by request id with its parameters (synchronous, or queued with `--async` and followed to
//! its end with `--wait`), a queued run followed to its end, and a run as it stands. `--chart FILE` draws a forecast or a bridge
//! as SVG (`chart`).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::progress::Progress;
use super::{Common, Failure, chart, exit, http::Api};
use super::{args, output};

#[derive(Subcommand)]
pub enum IntelligenceCommand {
    /// Every request: id, version, service, purpose.
    Catalog {
        #[command(flatten)]
        common: Common,
    },
    /// Run a request (`FCT-BASELINE-01`, `INS-OPS-BRIDGE-01` …).
    Run(RunArgs),
    /// A run as it stands (its answer once it succeeded).
    Get {
        /// The run's id.
        run_id: String,
        /// Draw the answer as SVG here (forecasts and bridges).
        #[arg(long, value_name = "FILE.svg")]
        chart: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
    /// Follow a queued run to its end (on a spinner), then print its answer.
    Wait {
        /// The run's id.
        run_id: String,
        /// Draw the answer as SVG here (forecasts and bridges).
        #[arg(long, value_name = "FILE.svg")]
        chart: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Args)]
pub struct RunArgs {
    /// The request's id.
    pub id: String,
    /// A parameter as NAME=VALUE (repeatable); a value that reads as JSON is sent as that.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Queue the run (large accounts answer `account_too_large_use_async` otherwise).
    #[arg(long = "async")]
    pub queue: bool,
    /// With --async: follow the run to its end and print its answer.
    #[arg(long, requires = "queue")]
    pub wait: bool,
    /// Draw the answer as SVG here: a forecast with its 95% range, a bridge as a waterfall
    /// (FCT-BASELINE-01, INS-OPS-BRIDGE-01, INS-ADS-BRIDGE-01).
    #[arg(long, value_name = "FILE.svg")]
    pub chart: Option<PathBuf>,
    #[command(flatten)]
    pub common: Common,
}

impl IntelligenceCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Catalog { common } | Self::Get { common, .. } | Self::Wait { common, .. } => {
                common
            }
            Self::Run(a) => &a.common,
        }
    }
}

fn run_path(run_id: &str) -> String {
    format!("/api/intelligence/runs/{}", args::segment(run_id))
}

/// Follows a queued run until it is neither queued nor computing (the gateway holds each
/// poll up to 20 seconds), on a spinner.
async fn follow(api: &mut Api, run_id: &str, c: &Common) -> Result<Value, Failure> {
    let progress = Progress::spinner(c, &format!("run {run_id}"));
    loop {
        let run = api
            .get(&format!("{}?waitSeconds=20", run_path(run_id)))
            .await?;
        match run["status"].as_str() {
            Some(s @ ("queued" | "computing")) => progress.say(s),
            _ => return Ok(run),
        }
    }
}

/// Draws a finished run's answer into `path` (a run that has not succeeded has nothing to
/// draw).
fn draw(run: &Value, path: &Path, c: &Common) -> Result<(), Failure> {
    if run["status"] != "succeeded" {
        return Err(Failure::local(
            exit::OTHER,
            format!(
                "run {} has no answer to draw (status {})",
                run["runId"], run["status"]
            ),
        ));
    }
    chart::draw(run["id"].as_str().unwrap_or_default(), &run["result"], path)?;
    if !c.quiet {
        eprintln!("chart saved in {}", path.display());
    }
    Ok(())
}

pub async fn run(cmd: IntelligenceCommand, c: &Common) -> Result<(), Failure> {
    let mut api = Api::new(&c.profile)?;
    let waits = matches!(cmd, IntelligenceCommand::Wait { .. });
    match cmd {
        IntelligenceCommand::Catalog { .. } => {
            let answer = api.get("/api/intelligence/ids").await?;
            if c.json {
                output::json(&answer);
            } else {
                let rows = answer["requests"].as_array().cloned().unwrap_or_default();
                let cols = ["id", "version", "service", "purpose"];
                println!("{}", output::table(&cols, &rows));
            }
        }
        IntelligenceCommand::Run(a) => {
            if a.chart.is_some() && !chart::CHARTED.contains(&a.id.as_str()) {
                return Err(Failure::local(
                    exit::USAGE,
                    format!(
                        "no chart for {}; charts are drawn for {}",
                        a.id,
                        chart::CHARTED.join(", ")
                    ),
                ));
            }
            if a.queue && !a.wait && a.chart.is_some() {
                return Err(Failure::local(
                    exit::USAGE,
                    "--chart with --async needs --wait",
                ));
            }
            let mut body =
                json!({ "id": a.id, "params": args::json_object("--param", &a.params)? });
            if a.queue {
                body["async"] = json!(true);
            }
            let answer = api.post("/api/intelligence/run", &body).await?;
            let answer = match (a.wait, answer["runId"].as_str()) {
                (true, Some(id)) => follow(&mut api, id, c).await?,
                _ => answer,
            };
            if let Some(path) = &a.chart {
                draw(&answer, path, c)?;
            }
            output::json(&answer);
        }
        IntelligenceCommand::Get { run_id, chart, .. }
        | IntelligenceCommand::Wait { run_id, chart, .. } => {
            let run = if waits {
                follow(&mut api, &run_id, c).await?
            } else {
                api.get(&run_path(&run_id)).await?
            };
            if let Some(path) = &chart {
                draw(&run, path, c)?;
            }
            output::json(&run);
        }
    }
    Ok(())
}
