//! `partner-platform admin app`: partner applications (products other tenants' people sign in
//! to with the authorization code flow), registered by the operator: create (for every tenant,
//! or with `--tenant` for one), list, revoke (every sign-in to it ends). A confidential
//! application's secret is printed once.

use clap::Subcommand;
use pp_auth::clients::PartnerApp;
use serde_json::json;

use crate::admin::{At, print_json};

#[derive(Subcommand)]
pub enum AppCommand {
    /// Register a partner application; a confidential one's secret is printed once.
    Create {
        /// The name people see on the consent page.
        #[arg(long)]
        name: String,
        /// A redirect URI (https, or http on a loopback address); repeat for several.
        #[arg(long = "redirect-uri", required = true)]
        redirect_uris: Vec<String>,
        /// The scopes it may ask for, space or comma separated.
        #[arg(long)]
        scopes: String,
        /// A public client (no secret; a native or browser app using PKCE alone).
        #[arg(long)]
        public: bool,
        /// Only this tenant's people may sign in to it (default: every tenant's).
        #[arg(long)]
        tenant: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List applications: the operator's (every tenant), or with --tenant that tenant's own and
    /// the AI clients its people connected.
    List {
        #[arg(long)]
        tenant: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Revoke an application: every token of every sign-in to it stops.
    Revoke {
        /// Its client id.
        client_id: String,
    },
}

pub async fn run((admin, op): At<'_>, cmd: AppCommand) -> pp_core::Result<()> {
    let apps = admin.apps(op);
    match cmd {
        AppCommand::Create {
            name,
            redirect_uris,
            scopes,
            public,
            tenant,
            json,
        } => {
            let spec = PartnerApp {
                name: &name,
                redirect_uris: &redirect_uris,
                scopes: &scopes,
                confidential: !public,
            };
            let c = apps.register(tenant.as_deref(), &spec).await?;
            if json {
                let mut v = serde_json::to_value(&c.row).map_err(pp_core::Error::internal)?;
                v["client_secret"] = json!(c.client_secret);
                print_json(&v)?;
            } else {
                println!(
                    "client_id      {}\nname           {}\nscopes         {}",
                    c.row.client_id, c.row.name, c.row.scopes
                );
                if let Some(s) = &c.client_secret {
                    println!("client_secret  {s}\n               (shown once: store it now)");
                }
            }
            Ok(())
        }
        AppCommand::List { tenant, json } => {
            let rows = apps.list(tenant.as_deref()).await?;
            if json {
                return print_json(&rows);
            }
            for r in rows {
                let state = if r.revoked_at.is_some() {
                    "revoked"
                } else {
                    "live"
                };
                println!(
                    "{}\t{}\t{}\t{}\t{}",
                    r.client_id, r.kind, r.name, r.scopes, state
                );
            }
            Ok(())
        }
        AppCommand::Revoke { client_id } => {
            let ended = apps.revoke(&client_id).await?;
            println!(
                "{client_id} {}",
                if ended.changed {
                    "revoked"
                } else {
                    "was already revoked"
                }
            );
            if !ended.withdrawn.is_empty() {
                println!("withdrawn approval requests: {}", ended.withdrawn.join(" "));
            }
            if !ended.disabled_webhooks.is_empty() {
                println!(
                    "disabled webhook endpoints: {}",
                    ended.disabled_webhooks.join(" ")
                );
            }
            Ok(())
        }
    }
}
