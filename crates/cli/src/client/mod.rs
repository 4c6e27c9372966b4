//! The command line as a client of a running gateway, for people at a terminal, CI jobs and
//! AI agents that prefer a shell: sign in (`login` with a setup code, or a credential from
//! the environment), then call the gateway's surfaces. Each command reads its arguments into
//! the request the gateway takes, calls it over HTTP with a token (`http`), and prints the
//! answer as a table, CSV or the gateway's JSON (`output`). A failure exits with its family's
//! code (`exit`, `docs/cli.md`). Commands live one family to a module.

mod args;
mod chart;
mod context;
mod costs;
mod events;
pub mod exit;
mod forecast;
mod http;
mod intelligence;
mod marketplace;
mod output;
mod pricing;
mod progress;
mod reports;
mod session;
mod sync;
mod timeline;
mod v1;
mod warehouse;

use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::Value;

pub use http::Failure;

/// Flags every client command takes.
#[derive(Args, Clone)]
pub struct Common {
    /// The saved profile to use (`login --profile`); PP_CLIENT_ID/PP_CLIENT_SECRET/PP_BASE_URL
    /// in the environment win over it.
    #[arg(long, default_value = "default", env = "PARTNER_PLATFORM_PROFILE")]
    pub profile: String,
    /// Print the gateway's JSON as it came (and its envelope on failure).
    #[arg(long)]
    pub json: bool,
    /// Print nothing but the answer (no notes, no progress).
    #[arg(long)]
    pub quiet: bool,
}

/// The client commands (each takes the [`Common`] flags).
#[derive(Subcommand)]
pub enum ClientCommand {
    /// Sign the command line in: exchange a one-time setup code from the console for this
    /// machine's own credential, saved as a profile.
    Login {
        #[command(flatten)]
        login: session_cmd::LoginArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Forget a saved profile and its cached token.
    Logout {
        #[command(flatten)]
        common: Common,
    },
    /// Who the credential is: tenant, name, scopes.
    Whoami {
        #[command(flatten)]
        common: Common,
    },
    /// Run one read-only SQL statement (from the argument, `--file`, or stdin).
    Query {
        #[command(flatten)]
        query: warehouse::QueryArgs,
        #[command(flatten)]
        common: Common,
    },
    /// The warehouse's tables and views.
    Tables {
        #[command(flatten)]
        common: Common,
    },
    /// A table's columns and indexes.
    Describe {
        /// The table's name.
        table: String,
        #[command(flatten)]
        common: Common,
    },
    /// Connected accounts, operation catalogs and catalogued calls.
    #[command(subcommand)]
    Marketplace(marketplace::MarketplaceCommand),
    /// Selling-side reports: create (once), status, wait, download.
    #[command(subcommand)]
    Reports(reports::ReportsCommand),
    /// Paced pricing runs: start, follow, results, cancel.
    #[command(subcommand)]
    Pricing(pricing::PricingCommand),
    /// The brand timeline: list, add, corroborate.
    #[command(subcommand)]
    Timeline(timeline::TimelineCommand),
    /// Brand context documents: list, get, sync a folder, lifecycle.
    #[command(subcommand)]
    Context(context::ContextCommand),
    /// Forecast state: a person's corrections, settings and sub-brands (get, list, batch).
    #[command(subcommand)]
    Forecast(forecast::ForecastCommand),
    /// A `/v1` data plane read (me, accounts, ads/…, retail/…, brand-analytics/…).
    V1(v1::V1Args),
    /// The intelligence catalog, runs and their answers.
    #[command(subcommand)]
    Intelligence(intelligence::IntelligenceCommand),
    /// A managed warehouse's sync: status, and run now (`--wait` follows it).
    #[command(subcommand)]
    Sync(sync::SyncCommand),
    /// The event feed (`events list --follow`).
    #[command(subcommand)]
    Events(events::EventsCommand),
    /// Webhook endpoints: add, list, rotate, enable, disable, remove, deliveries, replay.
    #[command(subcommand)]
    Webhooks(events::WebhooksCommand),
    /// Landed costs per SKU: list, import a cost file, missing, changes, reporting currency.
    #[command(subcommand)]
    Costs(costs::CostsCommand),
    /// Euro reference rates: import a published file (the ECB's CSV), list.
    #[command(subcommand)]
    Rates(costs::RatesCommand),
}

impl ClientCommand {
    fn common(&self) -> &Common {
        match self {
            Self::Login { common, .. }
            | Self::Logout { common }
            | Self::Whoami { common }
            | Self::Query { common, .. }
            | Self::Tables { common }
            | Self::Describe { common, .. } => common,
            Self::Marketplace(m) => m.common(),
            Self::Reports(r) => r.common(),
            Self::Pricing(p) => p.common(),
            Self::Timeline(t) => t.common(),
            Self::Context(x) => x.common(),
            Self::Forecast(f) => f.common(),
            Self::V1(a) => &a.common,
            Self::Intelligence(i) => i.common(),
            Self::Sync(x) => x.common(),
            Self::Events(x) => x.common(),
            Self::Webhooks(x) => x.common(),
            Self::Costs(x) => x.common(),
            Self::Rates(x) => x.common(),
        }
    }
}

mod session_cmd {
    use clap::Args;

    #[derive(Args)]
    pub struct LoginArgs {
        /// The one-time setup code made in the console (Plugin setup).
        #[arg(long)]
        pub setup_code: String,
        /// The gateway's address.
        #[arg(long, env = "PP_BASE_URL")]
        pub base_url: String,
    }
}

/// Lets a command piped into `head` stop quietly when its reader goes away, as Unix tools do
/// (Rust starts with SIGPIPE ignored, which turns the next print into a panic). Only the
/// client does this: the server must outlive its peers. Sockets are unaffected (they are
/// written with `MSG_NOSIGNAL`).
fn stop_on_broken_pipe() {
    #[cfg(unix)]
    // SAFETY: sets the default disposition of one signal before any other thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Runs a client command; its exit code.
pub fn run(cmd: ClientCommand) -> ExitCode {
    stop_on_broken_pipe();
    let common = cmd.common().clone();
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::from(exit::OTHER);
        }
    };
    match rt.block_on(dispatch(cmd, &common)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            output::failure(&f, common.json, common.quiet);
            ExitCode::from(f.code)
        }
    }
}

async fn dispatch(cmd: ClientCommand, c: &Common) -> Result<(), Failure> {
    match cmd {
        ClientCommand::Login { login: a, .. } => login(a, c).await,
        ClientCommand::Logout { .. } => {
            session::check_name(&c.profile)?;
            let had = session::forget(&c.profile)?;
            if !c.quiet {
                eprintln!(
                    "{}",
                    if had {
                        "signed out"
                    } else {
                        "no such profile; nothing to do"
                    }
                );
            }
            Ok(())
        }
        ClientCommand::Whoami { .. } => {
            let me = http::Api::new(&c.profile)?.get("/v1/me").await?;
            show_fields(
                &me,
                c,
                &[
                    "tenant_id",
                    "tenant_name",
                    "person_label",
                    "credential_id",
                    "scopes",
                ],
            );
            Ok(())
        }
        ClientCommand::Query { query, .. } => warehouse::query(query, c).await,
        ClientCommand::Tables { .. } => warehouse::tables(c).await,
        ClientCommand::Describe { table, .. } => warehouse::describe(&table, c).await,
        ClientCommand::Marketplace(m) => marketplace::run(m, c).await,
        ClientCommand::Reports(r) => reports::run(r, c).await,
        ClientCommand::Pricing(p) => pricing::run(p, c).await,
        ClientCommand::Timeline(t) => timeline::run(t, c).await,
        ClientCommand::Context(x) => context::run(x, c).await,
        ClientCommand::Forecast(f) => forecast::run(f, c).await,
        ClientCommand::V1(a) => v1::run(a, c).await,
        ClientCommand::Intelligence(i) => intelligence::run(i, c).await,
        ClientCommand::Sync(x) => sync::run(x, c).await,
        ClientCommand::Events(x) => events::list(x, c).await,
        ClientCommand::Webhooks(x) => events::webhooks(x, c).await,
        ClientCommand::Costs(x) => costs::costs(x, c).await,
        ClientCommand::Rates(x) => costs::rates(x, c).await,
    }
}

async fn login(a: session_cmd::LoginArgs, c: &Common) -> Result<(), Failure> {
    session::check_name(&c.profile)?;
    let base = a.base_url.trim_end_matches('/').to_owned();
    let cred = http::exchange_setup_code(&base, a.setup_code.trim()).await?;
    let text = |k: &str| cred[k].as_str().unwrap_or_default().to_owned();
    let profile = session::Profile {
        base_url: base,
        client_id: text("client_id"),
        client_secret: text("client_secret"),
        scope: text("scope"),
    };
    let path = session::save(&c.profile, &profile)?;
    if c.json {
        output::json(
            &serde_json::json!({"profile": c.profile, "base_url": profile.base_url, "client_id": profile.client_id, "scope": profile.scope, "saved_in": path}),
        );
    } else if !c.quiet {
        println!(
            "signed in as {} (profile '{}', saved in {})",
            profile.client_id,
            c.profile,
            path.display()
        );
    }
    Ok(())
}

/// Prints chosen fields of an object as `name  value` lines (or the JSON).
fn show_fields(v: &Value, c: &Common, fields: &[&str]) {
    if c.json {
        return output::json(v);
    }
    let width = fields.iter().map(|f| f.len()).max().unwrap_or(0);
    for f in fields {
        let value = match &v[*f] {
            Value::Array(a) => a
                .iter()
                .map(|x| {
                    x.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| x.to_string())
                })
                .collect::<Vec<_>>()
                .join(" "),
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        println!("{f:<width$}  {value}");
    }
}
