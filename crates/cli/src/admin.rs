//! `partner-platform admin`: tenants, service credentials and people in a data directory. A
//! secret is printed once, at creation or rotation, and is stored only as a keyed hash; a
//! person's password only as its argon2id hash.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use pp_admin::{Admin, Operator};
use pp_core::ScopeSet;
use pp_store::{CredentialRow, Store};
use serde_json::json;

use crate::config::DEV_DATA_DIR;
use crate::serve::describe;

#[derive(Args)]
pub struct AdminArgs {
    /// Folder holding the state store.
    #[arg(long, env = "PARTNER_DATA_DIR", default_value = DEV_DATA_DIR, global = true)]
    data_dir: PathBuf,
    /// Where the state lives (as the server's `--state-url`; default: the embedded store in
    /// the data directory).
    #[arg(long, env = "PARTNER_STATE_URL", hide_env_values = true, global = true)]
    state_url: Option<String>,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Subcommand)]
enum AdminCommand {
    /// Tenants.
    #[command(subcommand)]
    Tenant(TenantCommand),
    /// Service credentials.
    #[command(subcommand)]
    Credential(CredentialCommand),
    /// People: a tenant's users, signed in by email and password.
    #[command(subcommand)]
    Person(crate::people::PersonCommand),
    /// Partner applications: products people sign in to with the authorization code flow.
    #[command(subcommand)]
    App(crate::apps::AppCommand),
    /// Marketplace connections (merchants' provider grants).
    #[command(subcommand)]
    Connection(crate::connection::ConnectionCommand),
    /// Listing writes: merchants enabled, and the global text and image switches.
    #[command(subcommand)]
    Listings(crate::listings::ListingsCommand),
    /// Intelligence: accounts switched off (not_enrolled), runs by request id.
    #[command(subcommand)]
    Intelligence(crate::intelligence::IntelligenceCommand),
    /// Write policies: the bounds no advertising write crosses.
    #[command(subcommand)]
    Policy(crate::policy::PolicyCommand),
}

#[derive(Subcommand)]
enum TenantCommand {
    /// Create a tenant. Without --warehouse its warehouse is managed: an embedded SQLite file
    /// (or the database --managed names) whose tables the gateway creates and its sync fills
    /// from the tenant's connected accounts. With --warehouse alone it is external: an
    /// existing SQLite file or database someone else fills.
    Create {
        /// Tenant id: lowercase letters, digits and hyphens.
        id: String,
        /// Display name (defaults to the id).
        #[arg(long)]
        name: Option<String>,
        /// The warehouse tenant SQL reads: an existing SQLite file, or a database URL
        /// (postgres://…, mysql://…, mariadb://…) whose login should only be able to SELECT.
        #[arg(long)]
        warehouse: Option<String>,
        /// A managed warehouse on a database server: the URL the sync's loader writes through
        /// (a login that can create tables and write). --warehouse then names the same
        /// database with a login that can only SELECT.
        #[arg(long)]
        managed: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List tenants.
    List {
        #[arg(long)]
        json: bool,
    },
    /// A managed tenant's own sync schedule: with no flag, show it; each flag sets one value
    /// over the service's settings (docs/warehouse-sync.md); --clear goes back to them.
    SyncSchedule {
        id: String,
        /// The UTC hour (0–23) each dataset's daily run starts.
        #[arg(long)]
        daily_hour_utc: Option<u32>,
        /// Recent retail days every run re-reads (0–60).
        #[arg(long)]
        restate_retail_days: Option<i64>,
        /// Recent advertising days every run re-reads (0–60).
        #[arg(long)]
        restate_ads_days: Option<i64>,
        /// How many days back the sync reaches (35–1095; each dataset at most its provider
        /// lookback).
        #[arg(long)]
        history_days: Option<i64>,
        /// Drop the tenant's own values.
        #[arg(long, conflicts_with_all = ["daily_hour_utc", "restate_retail_days", "restate_ads_days", "history_days"])]
        clear: bool,
    },
}

#[derive(Subcommand)]
enum CredentialCommand {
    /// Create a service credential; the secret is printed once.
    Create {
        #[arg(long)]
        tenant: String,
        /// Comma-separated scopes; without it: the read-only default bundle plus sql:query.
        #[arg(long)]
        scopes: Option<String>,
        #[arg(long, default_value = "service")]
        label: String,
        #[arg(long)]
        json: bool,
    },
    /// List credentials (never their secrets).
    List {
        #[arg(long)]
        tenant: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Revoke a credential: its tokens stop working at once.
    Revoke {
        /// Credential id or client id.
        id: String,
    },
    /// Give a credential a new secret: the old secret and its tokens stop working at once.
    Rotate {
        /// Credential id or client id.
        id: String,
        #[arg(long)]
        json: bool,
    },
}

pub fn run(args: AdminArgs) -> Result<(), String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(async move {
        let url = crate::config::state_url_of(args.state_url.as_deref(), &args.data_dir)?;
        let store = Store::connect(&url, &args.data_dir)
            .await
            .map_err(|e| describe(&e))?;
        let admin = Admin::new(store);
        let op = Operator::service(actor());
        let before = admin.epochs().await.map_err(|e| describe(&e))?;
        let at = (&admin, &op);
        let r = match args.command {
            AdminCommand::Tenant(c) => tenant(at, c).await,
            AdminCommand::Credential(c) => credential(at, c).await,
            AdminCommand::Person(c) => crate::people::run(at, c).await,
            AdminCommand::App(c) => crate::apps::run(at, c).await,
            AdminCommand::Connection(c) => crate::connection::run(at, &args.data_dir, c).await,
            AdminCommand::Listings(c) => crate::listings::run(at, c).await,
            AdminCommand::Intelligence(c) => crate::intelligence::run(at, c).await,
            AdminCommand::Policy(c) => crate::policy::run(at, c).await,
        };
        // a change that may end tokens (a revocation, a rotation, a disabled person) or move a
        // connection's grant: wait until every running gateway has read it before saying it
        // is done
        if admin.epochs().await.is_ok_and(|now| now != before) {
            tokio::time::sleep(pp_auth::verifier::SETTLE).await;
        }
        r.map_err(|e| describe(&e))
    })
}

/// The administration service and the operator acting (every admin command gets both).
pub(crate) type At<'a> = (&'a Admin, &'a Operator);

/// Prints `v` as indented JSON (the `--json` output of every admin command).
pub(crate) fn print_json(v: &impl serde::Serialize) -> pp_core::Result<()> {
    println!(
        "{}",
        serde_json::to_string_pretty(v).map_err(pp_core::Error::internal)?
    );
    Ok(())
}

/// The actor an administrator's change is recorded under.
pub(crate) fn actor() -> String {
    format!(
        "admin:{}",
        std::env::var("USER").unwrap_or_else(|_| "cli".into())
    )
}

async fn tenant((admin, op): At<'_>, cmd: TenantCommand) -> pp_core::Result<()> {
    let tenants = admin.tenants(op);
    match cmd {
        TenantCommand::Create {
            id,
            name,
            warehouse,
            managed,
            json,
        } => {
            let made = tenants
                .create(
                    &id,
                    name.as_deref(),
                    warehouse.as_deref(),
                    managed.as_deref(),
                )
                .await?;
            if let Some(w) = &made.warning {
                eprintln!("warning: {w}");
            }
            let t = made.tenant;
            if json {
                print_json(&t)?;
            } else {
                let kind = if made.managed {
                    "managed: its sync fills it from the connected accounts"
                } else {
                    "external"
                };
                println!(
                    "created tenant {} (warehouse {}, {kind})",
                    t.id, t.warehouse
                );
            }
        }
        TenantCommand::SyncSchedule {
            id,
            daily_hour_utc,
            restate_retail_days,
            restate_ads_days,
            history_days,
            clear,
        } => {
            let given = pp_sync::TenantSchedule {
                daily_hour_utc,
                restate_retail_days,
                restate_ads_days,
                history_days,
            };
            let shown = if clear {
                tenants.set_sync_schedule(&id, given).await?
            } else if given.is_empty() {
                tenants.sync_schedule(&id).await?
            } else {
                // the values not given stay as the tenant set them
                let had = tenants.sync_schedule(&id).await?.schedule;
                let merged = pp_sync::TenantSchedule {
                    daily_hour_utc: given.daily_hour_utc.or(had.daily_hour_utc),
                    restate_retail_days: given.restate_retail_days.or(had.restate_retail_days),
                    restate_ads_days: given.restate_ads_days.or(had.restate_ads_days),
                    history_days: given.history_days.or(had.history_days),
                };
                tenants.set_sync_schedule(&id, merged).await?
            };
            print_json(&shown)?;
        }
        TenantCommand::List { json } => {
            let ts = tenants.list().await?;
            if json {
                print_json(&ts)?;
            } else {
                for t in ts {
                    println!("{}\t{}\t{}", t.id, t.name, t.warehouse);
                }
            }
        }
    }
    Ok(())
}

fn show(row: &CredentialRow, secret: Option<&str>, json: bool) -> pp_core::Result<()> {
    if json {
        let mut v = serde_json::to_value(row).map_err(pp_core::Error::internal)?;
        if let Some(s) = secret {
            v["client_secret"] = s.into();
        }
        print_json(&v)?;
    } else {
        println!(
            "credential     {}\ntenant         {}\nlabel          {}\nclient_id      {}",
            row.id, row.tenant_id, row.label, row.client_id
        );
        if let Some(s) = secret {
            println!("client_secret  {s}\n               (shown once: store it now)");
        }
        println!("scopes         {}", row.scopes);
    }
    Ok(())
}

async fn credential((admin, op): At<'_>, cmd: CredentialCommand) -> pp_core::Result<()> {
    let credentials = admin.credentials(op);
    match cmd {
        CredentialCommand::Create {
            tenant,
            scopes,
            label,
            json,
        } => {
            let scopes = scopes.as_deref().map(ScopeSet::parse).transpose()?;
            let c = credentials.create(&tenant, scopes, &label).await?;
            show(&c.row, Some(&c.client_secret), json)
        }
        CredentialCommand::List { tenant, json } => {
            let rows = credentials.list(tenant.as_deref()).await?;
            if json {
                print_json(&rows)?;
            } else {
                for r in rows {
                    let state = if r.revoked_at.is_some() {
                        "revoked"
                    } else {
                        "active"
                    };
                    println!(
                        "{}\t{}\t{}\t{}\t{}\t{}",
                        r.id, r.tenant_id, r.client_id, r.label, state, r.scopes
                    );
                }
            }
            Ok(())
        }
        CredentialCommand::Revoke { id } => {
            let (row, ended) = credentials.revoke(&id).await?;
            println!(
                "{}",
                json!({ "id": row.id, "revoked": true, "changed": ended.changed, "withdrawnApprovals": ended.withdrawn, "disabledWebhooks": ended.disabled_webhooks })
            );
            Ok(())
        }
        CredentialCommand::Rotate { id, json } => {
            let c = credentials.rotate(&id).await?;
            show(&c.row, Some(&c.client_secret), json)
        }
    }
}
