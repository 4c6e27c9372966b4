//! `partner-platform admin connection`: connect a merchant's provider grant by hand (the
//! refresh token the merchant's authorization produced) and list a tenant's connections. The
//! token is sealed with the secret key before it is stored, and never printed.

use std::path::Path;

use clap::Subcommand;
use pp_admin::NewConnection;
use pp_marketplace::Sealer;

use crate::admin::{At, print_json};

#[derive(Subcommand)]
pub enum ConnectionCommand {
    /// Connect (or re-connect) a merchant's selling-side or advertising grant.
    Add {
        #[arg(long)]
        tenant: String,
        /// The merchant token (A… or ENTITY…).
        #[arg(long)]
        merchant: String,
        /// `seller` (selling-side API) or `ads` (advertising API).
        #[arg(long, default_value = "seller")]
        kind: String,
        /// `na`, `eu` or `fe`.
        #[arg(long, default_value = "na")]
        region: String,
        /// The provider refresh token; prefer the environment variable to keep it out of shell history.
        #[arg(long, env = "PARTNER_REFRESH_TOKEN", hide_env_values = true)]
        refresh_token: String,
        /// `active`, or `not_activated` for an advertising login not switched on in the service.
        #[arg(long, default_value = "active")]
        status: String,
        /// 64 hex characters: the server's secret key (default: the dev server's
        /// `<data-dir>/secret.key`).
        #[arg(long, env = "PARTNER_SECRET_KEY", hide_env_values = true)]
        secret_key: Option<String>,
    },
    /// List a tenant's connections (never their tokens).
    List {
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        json: bool,
    },
}

/// The sealing key: given, or the one the dev server keeps beside its data.
fn sealer(given: Option<String>, data_dir: &Path) -> pp_core::Result<Sealer> {
    let hex = match given {
        Some(h) => h,
        None => std::fs::read_to_string(data_dir.join("secret.key")).map_err(|_| {
            pp_core::Error::new(
                pp_core::Kind::BadParams,
                "no secret key: pass --secret-key (or PARTNER_SECRET_KEY), the server's 64 hex characters",
            )
        })?,
    };
    Sealer::from_hex(hex.trim())
}

pub async fn run(
    (admin, op): At<'_>,
    data_dir: &Path,
    cmd: ConnectionCommand,
) -> pp_core::Result<()> {
    let connections = admin.connections(op);
    match cmd {
        ConnectionCommand::Add {
            tenant,
            merchant,
            kind,
            region,
            refresh_token,
            status,
            secret_key,
        } => {
            let sealer = sealer(secret_key, data_dir)?;
            let grant = NewConnection {
                kind: &kind,
                merchant: &merchant,
                region: &region,
                refresh_token: &refresh_token,
                status: &status,
            };
            connections.add(&tenant, &grant, &sealer).await?;
            println!("connected {kind} grant of {merchant} for tenant {tenant} ({status})");
        }
        ConnectionCommand::List { tenant, json } => {
            let list = connections.list(&tenant).await?;
            if json {
                print_json(&list)?;
            } else {
                for c in list {
                    let by = match (&c.disconnected_by, &c.connected_by) {
                        (Some(d), _) => format!("disconnected by {d}"),
                        (None, Some(b)) => format!("connected by {b}"),
                        (None, None) => String::new(),
                    };
                    println!(
                        "{:<6} {:<22} {:<3} {:<14} {} {by}",
                        c.kind.as_str(),
                        c.merchant,
                        c.region,
                        c.status.as_str(),
                        c.updated_at
                    );
                }
            }
        }
    }
    Ok(())
}
