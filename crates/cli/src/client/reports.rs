//! `reports create|status|wait|download`: selling-side reports (`retail:read`). A create goes
//! through the gateway's ledger, so running the same command again (or with the same
//! `--idempotency-key`) never makes a second report; `wait` follows a report to its end with a
//! spinner; `download` fetches its document from the provider's short-lived URL and
//! decompresses it. `create --wait --out FILE` does all three.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use super::marketplace::Merchant;
use super::progress::Progress;
use super::{Common, Failure, args, exit, http::Api, output};

#[derive(Subcommand)]
pub enum ReportsCommand {
    /// Create a report once (the same request again gets the same report).
    Create(CreateArgs),
    /// A report's status in the gateway's words.
    Status {
        report_id: String,
        #[command(flatten)]
        common: Common,
    },
    /// Wait until a report ends: exits 0 when it is done.
    Wait {
        report_id: String,
        #[command(flatten)]
        wait: WaitArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Fetch a done report's document (to --out, or stdout), decompressed.
    Download {
        report_id: String,
        /// Where to write the document (stdout without it).
        #[arg(long)]
        out: Option<PathBuf>,
        #[command(flatten)]
        common: Common,
    },
}

#[derive(Args)]
pub struct CreateArgs {
    #[command(flatten)]
    pub merchant: Merchant,
    /// The report type (`GET_SALES_AND_TRAFFIC_REPORT` …).
    #[arg(long = "type", value_name = "REPORT_TYPE")]
    pub report_type: String,
    /// The data window's start (ISO 8601 with an offset).
    #[arg(long)]
    pub start: Option<String>,
    /// The data window's end (ISO 8601 with an offset).
    #[arg(long)]
    pub end: Option<String>,
    /// A report option as NAME=VALUE (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Names this attempt: the same key again gets the same answer (also after an uncertain
    /// outcome, which it reconciles).
    #[arg(long)]
    pub idempotency_key: Option<String>,
    /// Send the create even though an earlier one's outcome is unknown (the provider may then
    /// hold two reports).
    #[arg(long)]
    pub accept_duplicate_risk: bool,
    /// Wait until the report ends.
    #[arg(long)]
    pub wait: bool,
    /// Wait, then write the document here.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub wait_args: WaitArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Args, Clone, Copy)]
pub struct WaitArgs {
    /// Give up waiting after this many seconds (exit 20; the report goes on).
    #[arg(long, default_value_t = 3600)]
    pub timeout: u64,
}

impl ReportsCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Create(a) => &a.common,
            Self::Status { common, .. }
            | Self::Wait { common, .. }
            | Self::Download { common, .. } => common,
        }
    }
}

fn report_path(id: &str) -> String {
    format!("/api/marketplace/reports/{}", args::segment(id))
}

pub async fn run(cmd: ReportsCommand, c: &Common) -> Result<(), Failure> {
    let mut api = Api::new(&c.profile)?;
    match cmd {
        ReportsCommand::Create(a) => create(&mut api, a, c).await,
        ReportsCommand::Status { report_id, .. } => {
            let status = api.get(&report_path(&report_id)).await?;
            show_status(&status, c);
            Ok(())
        }
        ReportsCommand::Wait {
            report_id, wait, ..
        } => {
            let status = wait_for(&mut api, &report_id, wait, c).await?;
            show_status(&status, c);
            Ok(())
        }
        ReportsCommand::Download { report_id, out, .. } => {
            download(&mut api, &report_id, out.as_deref(), c).await
        }
    }
}

async fn create(api: &mut Api, a: CreateArgs, c: &Common) -> Result<(), Failure> {
    let mut body = json!({ "reportType": a.report_type });
    a.merchant.put_into(&mut body);
    if let Some(s) = &a.start {
        body["dataStartTime"] = s.as_str().into();
    }
    if let Some(e) = &a.end {
        body["dataEndTime"] = e.as_str().into();
    }
    let options = args::pairs("--option", &a.options)?;
    if !options.is_empty() {
        body["reportOptions"] = options
            .into_iter()
            .map(|(k, v)| (k.to_owned(), Value::from(v)))
            .collect::<serde_json::Map<_, _>>()
            .into();
    }
    if a.accept_duplicate_risk {
        body["acceptDuplicateRisk"] = true.into();
    }
    let key = a.idempotency_key.as_deref().map(|k| ("Idempotency-Key", k));
    let created = api
        .call(
            reqwest::Method::POST,
            "/api/marketplace/reports",
            Some(&body),
            key.as_slice(),
        )
        .await?;
    let id = created["reportId"].as_str().unwrap_or_default().to_owned();
    if !(a.wait || a.out.is_some()) {
        if c.json {
            output::json(&created);
        } else {
            super::show_fields(&created, c, &["reportId", "reused", "recovered"]);
        }
        return Ok(());
    }
    if !c.quiet && !c.json {
        let reused = if created["reused"] == true {
            " (an identical request's)"
        } else {
            ""
        };
        eprintln!("report {id}{reused}");
    }
    let status = wait_for(api, &id, a.wait_args, c).await?;
    match &a.out {
        Some(out) => download(api, &id, Some(out), c).await,
        None => {
            show_status(&status, c);
            Ok(())
        }
    }
}

/// Polls a report until it ends: its last status when done; its `report_fatal` envelope
/// when it failed; a conflict (with the status) when it was cancelled.
async fn wait_for(api: &mut Api, id: &str, wait: WaitArgs, c: &Common) -> Result<Value, Failure> {
    let progress = Progress::spinner(c, &format!("report {id}"));
    let started = Instant::now();
    let mut pause = Duration::from_secs(1);
    loop {
        let status = api.get(&report_path(id)).await?;
        match status["status"].as_str() {
            Some("done") => return Ok(status),
            Some("failed") => {
                let envelope = status.get("error").cloned().unwrap_or(status);
                return Err(Failure::answered(502, envelope));
            }
            Some("cancelled") => {
                return Err(Failure {
                    code: exit::CONFLICT,
                    message: format!("report {id} was cancelled; create it again"),
                    envelope: Some(status),
                });
            }
            _ => {}
        }
        let mut note = status["processingStatus"]
            .as_str()
            .unwrap_or("waiting")
            .to_lowercase();
        if let Some(reason) = status["reason"].as_str() {
            note = format!("{note}, {reason}");
        }
        progress.say(note);
        if started.elapsed() + pause > Duration::from_secs(wait.timeout) {
            return Err(Failure::local(
                exit::TIMED_OUT,
                format!(
                    "report {id} has not ended after {}s; it goes on: `reports wait {id}` again",
                    wait.timeout
                ),
            ));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_secs(15));
    }
}

/// Writes a done report's document to `out` (or stdout), gunzipped when the provider
/// compressed it.
async fn download(api: &mut Api, id: &str, out: Option<&Path>, c: &Common) -> Result<(), Failure> {
    let doc = api.get(&format!("{}/document", report_path(id))).await?;
    let url = doc["url"]
        .as_str()
        .ok_or_else(|| Failure::local(exit::OTHER, "the gateway answered no document url"))?;
    let raw = api.download(url).await?;
    let bytes = match doc["compressionAlgorithm"].as_str() {
        Some("GZIP") => gunzip(&raw)?,
        _ => raw,
    };
    let written = match out {
        Some(path) => std::fs::write(path, &bytes).map_err(|e| {
            Failure::local(exit::OTHER, format!("cannot write {}: {e}", path.display()))
        }),
        None => std::io::stdout()
            .write_all(&bytes)
            .map_err(|e| Failure::local(exit::OTHER, format!("cannot write the document: {e}"))),
    };
    written?;
    if let Some(path) = out {
        if c.json {
            output::json(&json!({ "reportId": id, "saved": path, "bytes": bytes.len() }));
        } else if !c.quiet {
            eprintln!("saved {} bytes in {}", bytes.len(), path.display());
        }
    }
    Ok(())
}

fn gunzip(raw: &[u8]) -> Result<Vec<u8>, Failure> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(raw)
        .read_to_end(&mut out)
        .map_err(|e| {
            Failure::local(
                exit::UPSTREAM,
                format!("the document is not valid gzip: {e}"),
            )
        })?;
    Ok(out)
}

fn show_status(status: &Value, c: &Common) {
    super::show_fields(
        status,
        c,
        &[
            "reportId",
            "status",
            "processingStatus",
            "documentReady",
            "reason",
        ],
    );
}
