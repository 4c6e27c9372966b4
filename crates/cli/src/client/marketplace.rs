//! `marketplace merchants|operations|call|approval`: the connected accounts, the operation
//! catalogs, one catalogued call (`/api/marketplace/*`), and a commit held for a person's
//! approval, read or followed to its outcome. A call's answer is the gateway's JSON; a
//! provider's refusal of the request's own parameters exits 12 (`bad_request`, docs/errors.md)
//! with the envelope (its code, status and response) on stdout under `--json`.

use clap::{Args, Subcommand, ValueEnum};
use serde_json::{Map, Value, json};

use super::{Common, Failure, exit, http::Api};
use super::{args, output};

/// Which provider API.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Which {
    /// The selling-side API.
    Spapi,
    /// The advertising API.
    Ads,
}

impl Which {
    fn path(self) -> &'static str {
        match self {
            Which::Spapi => "spapi",
            Which::Ads => "ads",
        }
    }
}

#[derive(Subcommand)]
pub enum MarketplaceCommand {
    /// The connected merchants: seller id, legacy seller id, marketplace.
    Merchants {
        #[command(flatten)]
        common: Common,
    },
    /// An operation catalog: each operation's id, method, scope and kind.
    Operations {
        #[arg(long, value_enum, default_value = "spapi")]
        api: Which,
        #[command(flatten)]
        common: Common,
    },
    /// Run one catalogued operation for one merchant (or advertising profile).
    Call(CallArgs),
    /// A commit the account's policy held for a person's approval: how it stands, or (with
    /// --wait) followed until a person decides. Exits 0 once sent, 15 when rejected, expired or
    /// not sent.
    Approval {
        /// The approvalId the commit answered.
        id: String,
        /// Follow it until it is decided and sent (or not).
        #[arg(long)]
        wait: bool,
        /// Seconds --wait follows it (default a day).
        #[arg(long, default_value_t = 86_400)]
        timeout: u64,
        #[command(flatten)]
        common: Common,
    },
}

/// A merchant: by its legacy seller id, or by its seller id (with its marketplace when it
/// sells in several); `marketplace merchants` lists them.
#[derive(Args, Clone)]
pub struct Merchant {
    /// The merchant by its legacy seller id.
    #[arg(long)]
    pub legacy_seller_id: Option<i64>,
    /// The merchant by its seller id (with --marketplace when it sells in several).
    #[arg(long)]
    pub seller_id: Option<String>,
    #[arg(long)]
    pub marketplace: Option<String>,
}

impl Merchant {
    /// Puts the selector's fields that were given into a request body.
    pub fn put_into(&self, body: &mut Value) {
        let fields = [
            ("legacySellerId", self.legacy_seller_id.map(Value::from)),
            ("sellerId", self.seller_id.clone().map(Value::from)),
            ("marketplace", self.marketplace.clone().map(Value::from)),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                body[k] = v;
            }
        }
    }
}

#[derive(Args)]
pub struct CallArgs {
    /// The operation's id (`marketplace operations` lists them).
    pub operation: String,
    #[arg(long, value_enum, default_value = "spapi")]
    pub api: Which,
    #[command(flatten)]
    pub merchant: Merchant,
    /// The advertising profile (profile-scoped advertising operations).
    #[arg(long)]
    pub profile_id: Option<i64>,
    /// A parameter as name=value (repeatable); a value that reads as JSON (a number, true,
    /// an array …) is sent as that, anything else as text.
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Every parameter as one JSON object, or `@file` holding it.
    #[arg(long, value_name = "JSON|@FILE", conflicts_with = "params")]
    pub params_json: Option<String>,
    #[command(flatten)]
    pub common: Common,
}

impl MarketplaceCommand {
    pub fn common(&self) -> &Common {
        match self {
            Self::Merchants { common }
            | Self::Operations { common, .. }
            | Self::Approval { common, .. } => common,
            Self::Call(a) => &a.common,
        }
    }
}

fn usage(msg: impl Into<String>) -> Failure {
    Failure::local(exit::USAGE, msg)
}

/// The parameters of a call, from `--param` pairs or `--params-json`.
fn params(a: &CallArgs) -> Result<Option<Map<String, Value>>, Failure> {
    if let Some(raw) = &a.params_json {
        let text = match raw.strip_prefix('@') {
            Some(path) => std::fs::read_to_string(path)
                .map_err(|e| Failure::local(exit::OTHER, format!("cannot read {path}: {e}")))?,
            None => raw.clone(),
        };
        return match serde_json::from_str(&text) {
            Ok(Value::Object(m)) => Ok(Some(m)),
            _ => Err(usage("--params-json must be one JSON object")),
        };
    }
    if a.params.is_empty() {
        return Ok(None);
    }
    args::json_object("--param", &a.params).map(Some)
}

pub async fn run(cmd: MarketplaceCommand, c: &Common) -> Result<(), Failure> {
    match cmd {
        MarketplaceCommand::Merchants { .. } => {
            let answer = Api::new(&c.profile)?
                .get("/api/marketplace/merchants")
                .await?;
            let rows = answer["merchants"].as_array().cloned().unwrap_or_default();
            show(
                c,
                &answer,
                &["sellerId", "legacySellerId", "marketplace"],
                &rows,
            );
        }
        MarketplaceCommand::Operations { api, .. } => {
            let path = format!("/api/marketplace/{}/operations", api.path());
            let answer = Api::new(&c.profile)?.get(&path).await?;
            let rows = answer["operations"].as_array().cloned().unwrap_or_default();
            show(c, &answer, &["id", "method", "scope", "kind"], &rows);
        }
        MarketplaceCommand::Call(a) => {
            let mut body = json!({ "operation": a.operation });
            a.merchant.put_into(&mut body);
            if let Some(id) = a.profile_id {
                body["profileId"] = id.into();
            }
            if let Some(query) = params(&a)? {
                body["query"] = Value::Object(query);
            }
            let path = format!("/api/marketplace/{}/call", a.api.path());
            output::json(&Api::new(&c.profile)?.post(&path, &body).await?);
        }
        MarketplaceCommand::Approval {
            id, wait, timeout, ..
        } => approval(&id, wait, timeout, c).await?,
    }
    Ok(())
}

/// Reads (and with `wait` follows) a held commit; its outcome decides the exit code.
async fn approval(id: &str, wait: bool, timeout: u64, c: &Common) -> Result<(), Failure> {
    use std::time::{Duration, Instant};
    let mut api = Api::new(&c.profile)?;
    let path = format!("/api/marketplace/approvals/{id}");
    let progress = super::progress::Progress::spinner(c, &format!("approval {id}"));
    let started = Instant::now();
    loop {
        let answer = api.get(&path).await?;
        let status = answer["status"].as_str().unwrap_or_default().to_owned();
        let undecided = status == "pending" || status == "approved";
        if !(wait && undecided) {
            output::json(&answer);
            return match status.as_str() {
                "pending" | "approved" | "sent" => Ok(()),
                _ => Err(Failure {
                    code: exit::CONFLICT,
                    message: format!("approval {id} is {status}: nothing was sent"),
                    envelope: None,
                }),
            };
        }
        progress.say(format!(
            "{status}: {}",
            answer["reason"].as_str().unwrap_or_default()
        ));
        if started.elapsed() > Duration::from_secs(timeout) {
            return Err(Failure::local(
                exit::TIMED_OUT,
                format!(
                    "approval {id} is still {status} after {timeout}s; it goes on: `marketplace approval {id} --wait` again"
                ),
            ));
        }
        tokio::time::sleep(Duration::from_secs(5)).await;
    }
}

/// A list as a table of `columns`, or the gateway's JSON.
fn show(c: &Common, answer: &Value, columns: &[&str], rows: &[Value]) {
    if c.json {
        output::json(answer);
    } else {
        println!("{}", output::table(columns, rows));
    }
}
