//! `pricing start|follow|results|cancel`: paced pricing runs (`retail:read`). `start` sends
//! up to 20,000 ASINs or SKUs (from `--item`, or a file of one per line) and answers the run;
//! `follow` shows its items answered on a bar until it ends; `results` pages through every
//! answer in input order (a table of each item's status, or all of them as one JSON
//! document); `cancel` stops it.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Value, json};

use super::marketplace::Merchant;
use super::progress::Progress;
use super::{Common, Failure, args, exit, http::Api, output};

/// A pricing family.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Family {
    /// Competitive summary, keyed by ASIN.
    CompetitiveSummary,
    /// Featured offer expected price, keyed by SKU.
    FeaturedOfferExpectedPrice,
}

impl Family {
    fn path(self) -> &'static str {
        match self {
            Family::CompetitiveSummary => "competitive-summary",
            Family::FeaturedOfferExpectedPrice => "featured-offer-expected-price",
        }
    }

    /// What its items are called in a request and an answer.
    fn items(self) -> &'static str {
        match self {
            Family::CompetitiveSummary => "asins",
            Family::FeaturedOfferExpectedPrice => "skus",
        }
    }
}

#[derive(Subcommand)]
pub enum PricingCommand {
    /// Start a run over any number of items (up to 20,000); answers its runId.
    Start(StartArgs),
    /// Follow a run to its end on a progress bar.
    Follow {
        run_id: String,
        #[command(flatten)]
        wait: FollowArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Every answer of a run, in input order (partial while it goes on).
    Results {
        run_id: String,
        #[command(flatten)]
        common: Common,
    },
    /// Cancel an unfinished run (its answers so far stay readable).
    Cancel {
        run_id: String,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Args)]
pub struct StartArgs {
    /// The family.
    #[arg(value_enum)]
    pub family: Family,
    #[command(flatten)]
    pub merchant: Merchant,
    /// An ASIN or SKU (repeatable).
    #[arg(long = "item", value_name = "ASIN|SKU")]
    pub items: Vec<String>,
    /// A file of ASINs or SKUs, one per line (`-` for stdin).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Follow the run to its end, then print its answers.
    #[arg(long)]
    pub follow: bool,
    #[command(flatten)]
    pub wait: FollowArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Args, Clone, Copy)]
pub struct FollowArgs {
    /// Give up following after this many seconds (exit 20; the run goes on).
    #[arg(long, default_value_t = 6 * 3600)]
    pub timeout: u64,
}

impl PricingCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Start(a) => &a.common,
            Self::Follow { common, .. }
            | Self::Results { common, .. }
            | Self::Cancel { common, .. } => common,
        }
    }
}

fn run_path(id: &str) -> String {
    format!("/api/marketplace/pricing/runs/{}", args::segment(id))
}

pub async fn run(cmd: PricingCommand, c: &Common) -> Result<(), Failure> {
    let mut api = Api::new(&c.profile)?;
    match cmd {
        PricingCommand::Start(a) => start(&mut api, a, c).await,
        PricingCommand::Follow { run_id, wait, .. } => {
            let run = follow(&mut api, &run_id, wait, c).await?;
            show_run(&run, c);
            Ok(())
        }
        PricingCommand::Results { run_id, .. } => results(&mut api, &run_id, c).await,
        PricingCommand::Cancel { run_id, .. } => {
            let run = api.delete(&run_path(&run_id)).await?;
            show_run(&run, c);
            Ok(())
        }
    }
}

/// The items from `--item` and `--file`, blank lines and `#` comments left out.
fn items(a: &StartArgs) -> Result<Vec<String>, Failure> {
    let mut all = a.items.clone();
    if let Some(path) = &a.file {
        let text = if path.as_os_str() == "-" {
            std::io::read_to_string(std::io::stdin())
        } else {
            std::fs::read_to_string(path)
        }
        .map_err(|e| Failure::local(exit::OTHER, format!("cannot read {}: {e}", path.display())))?;
        all.extend(
            text.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_owned),
        );
    }
    if all.is_empty() {
        return Err(Failure::local(
            exit::USAGE,
            "name the items with --item or --file",
        ));
    }
    Ok(all)
}

async fn start(api: &mut Api, a: StartArgs, c: &Common) -> Result<(), Failure> {
    let mut body = json!({ a.family.items(): items(&a)? });
    a.merchant.put_into(&mut body);
    let path = format!("/api/marketplace/pricing/{}/start", a.family.path());
    let started = api.post(&path, &body).await?;
    let id = started["runId"].as_str().unwrap_or_default().to_owned();
    if !a.follow {
        if c.json {
            output::json(&started);
        } else {
            super::show_fields(&started, c, &["runId", "status", "total"]);
        }
        return Ok(());
    }
    if !c.quiet && !c.json {
        eprintln!("run {id}");
    }
    follow(api, &id, a.wait, c).await?;
    results(api, &id, c).await
}

/// Polls a run until it ends, its items answered on a bar: the run when it succeeded; its
/// `error` envelope when it failed; a conflict (with the run) when it was cancelled.
async fn follow(api: &mut Api, id: &str, wait: FollowArgs, c: &Common) -> Result<Value, Failure> {
    let progress = Progress::bar(c, &format!("run {id}"), 0);
    let started = Instant::now();
    loop {
        let run = api.get(&run_path(id)).await?;
        let count = |k: &str| run[k].as_u64().unwrap_or(0);
        match run["status"].as_str() {
            Some("succeeded") => return Ok(run),
            Some("failed") => {
                let envelope = run.get("error").cloned().unwrap_or(run);
                let status = envelope["status"].as_u64().unwrap_or(502) as u16;
                return Err(Failure::answered(status, envelope));
            }
            Some("cancelled") => {
                return Err(Failure {
                    code: exit::CONFLICT,
                    message: format!("run {id} was cancelled; its answers so far stay readable"),
                    envelope: Some(run),
                });
            }
            _ => {}
        }
        let note = match (
            run["waiting"].as_str(),
            run["estimatedSecondsLeft"].as_u64(),
        ) {
            (Some(w), _) => w.to_owned(),
            (None, Some(left)) => format!("about {left}s left"),
            _ => String::new(),
        };
        progress.set(count("done"), count("total"), note);
        let pause = Duration::from_secs(2);
        if started.elapsed() + pause > Duration::from_secs(wait.timeout) {
            return Err(Failure::local(
                exit::TIMED_OUT,
                format!(
                    "run {id} has not ended after {}s; it goes on: `pricing follow {id}` again",
                    wait.timeout
                ),
            ));
        }
        tokio::time::sleep(pause).await;
    }
}

/// Every answer of a run: pages of 1,000 until the last.
async fn results(api: &mut Api, id: &str, c: &Common) -> Result<(), Failure> {
    let mut offset = 0;
    let mut items = Vec::new();
    let last = loop {
        let page = api
            .get(&format!(
                "{}/result?offset={offset}&limit=1000",
                run_path(id)
            ))
            .await?;
        items.extend(page["items"].as_array().cloned().unwrap_or_default());
        match page["nextOffset"].as_u64() {
            Some(next) if next > offset => offset = next,
            _ => break page,
        }
    };
    if c.json {
        let mut all = last;
        all["items"] = Value::Array(items);
        if let Some(m) = all.as_object_mut() {
            m.remove("nextOffset");
        }
        output::json(&all);
        return Ok(());
    }
    let key = if items.iter().any(|i| i.get("asin").is_some()) {
        "asin"
    } else {
        "sku"
    };
    println!("{}", output::table(&[key, "status"], &items));
    if !c.quiet {
        eprintln!(
            "{} of {} answered{}",
            last["answered"],
            last["total"],
            if last["complete"] == true {
                ""
            } else {
                " (the run goes on)"
            }
        );
    }
    Ok(())
}

fn show_run(run: &Value, c: &Common) {
    super::show_fields(run, c, &["runId", "family", "status", "done", "total"]);
}
