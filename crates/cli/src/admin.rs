//! `partner-platform admin`: tenants, service credentials and people in a data directory. A
//! secret is printed once, at creation or rotation, and is stored only as a keyed hash; a
//! person's password only as its argon2id hash.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use pp_core::{ScopeSet, TenantId};
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
    /// Create a tenant with an (empty) embedded warehouse, or point it at an existing SQLite
    /// file or a PostgreSQL or MySQL/MariaDB database.
    Create {
        /// Tenant id: lowercase letters, digits and hyphens.
        id: String,
        /// Display name (defaults to the id).
        #[arg(long)]
        name: Option<String>,
        /// The tenant's warehouse: an existing SQLite file, or a database URL
        /// (postgres://…, mysql://…, mariadb://…) whose login should only be able to SELECT.
        #[arg(long)]
        warehouse: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List tenants.
    List {
        #[arg(long)]
        json: bool,
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
        let before = store.tokens().epochs().await.map_err(|e| describe(&e))?;
        let r = match args.command {
            AdminCommand::Tenant(c) => tenant(&store, c).await,
            AdminCommand::Credential(c) => credential(&store, c).await,
            AdminCommand::Person(c) => crate::people::run(&store, c).await,
            AdminCommand::App(c) => crate::apps::run(&store, c).await,
            AdminCommand::Connection(c) => crate::connection::run(&store, &args.data_dir, c).await,
            AdminCommand::Listings(c) => crate::listings::run(&store, c).await,
            AdminCommand::Intelligence(c) => crate::intelligence::run(&store, c).await,
            AdminCommand::Policy(c) => crate::policy::run(&store, c).await,
        };
        // a change that may end tokens (a revocation, a rotation, a disabled person) or move a
        // connection's grant: wait until every running gateway has read it before saying it
        // is done
        if store.tokens().epochs().await.is_ok_and(|now| now != before) {
            tokio::time::sleep(pp_auth::verifier::SETTLE).await;
        }
        r.map_err(|e| describe(&e))
    })
}

/// Tenant `id`, which must exist.
pub(crate) async fn existing_tenant(store: &Store, id: &str) -> pp_core::Result<TenantId> {
    let t = TenantId::parse(id)?;
    if store.tenants().get(&t).await?.is_none() {
        return Err(pp_core::Error::not_found(format!("no tenant {id}")));
    }
    Ok(t)
}

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

async fn tenant(store: &Store, cmd: TenantCommand) -> pp_core::Result<()> {
    match cmd {
        TenantCommand::Create {
            id,
            name,
            warehouse,
            json,
        } => {
            let tid = TenantId::parse(&id)?;
            if let Some(n) = &name {
                pp_core::text::check_one_line("name", n)?;
            }
            let locator = match warehouse {
                Some(url) if pp_world::is_database_url(&url) => check_server(&url).await?,
                Some(p) => {
                    let path = std::path::absolute(&p).map_err(pp_core::Error::internal)?;
                    pp_warehouse::sqlite::check_file(&path)?;
                    format!("sqlite:{}", path.display())
                }
                None => {
                    let p = std::path::absolute(store.default_warehouse_path(&tid))
                        .map_err(pp_core::Error::internal)?;
                    create_empty_warehouse(&p)?;
                    pp_warehouse::sqlite::check_file(&p)?;
                    format!("sqlite:{}", p.display())
                }
            };
            let mut t = store
                .tenants()
                .create(&tid, name.as_deref().unwrap_or(&id), &locator)
                .await?;
            t.warehouse = shown(&t.warehouse);
            if json {
                print_json(&t)?;
            } else {
                println!("created tenant {} (warehouse {})", t.id, t.warehouse);
            }
        }
        TenantCommand::List { json } => {
            let mut ts = store.tenants().list().await?;
            for t in &mut ts {
                t.warehouse = shown(&t.warehouse);
            }
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

/// A warehouse locator as listings show it: no password, no `sqlite:` prefix.
fn shown(locator: &str) -> String {
    let l = locator.strip_prefix("sqlite:").unwrap_or(locator);
    pp_store::redact_password(l)
}

/// Checks that the database at `url` can be reached and holds a warehouse (a `seller`
/// table), and warns when its login could write; the locator to store.
async fn check_server(url: &str) -> pp_core::Result<String> {
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(1));
    let engine = pp_warehouse::open(url, &slots)?;
    let shown = pp_store::redact_password(url);
    let refuse = |why: String| {
        pp_core::Error::new(
            pp_core::Kind::BadParams,
            format!("{shown} is not a usable warehouse: {why}"),
        )
    };
    let tables = engine
        .tables()
        .await
        .map_err(|e| refuse(e.cause().unwrap_or(e.message()).to_owned()))?;
    if !tables.iter().any(|t| t.name == "seller") {
        return Err(refuse(
            "it has no seller table (load one with `world generate --out <url>`)".into(),
        ));
    }
    if engine.login_can_write().await? {
        eprintln!(
            "warning: the login in {shown} can change the warehouse. The gateway runs every query in a \
             read-only transaction, but a login that can only SELECT is the real guarantee (docs/deployment.md)."
        );
    }
    Ok(url.to_owned())
}

fn create_empty_warehouse(path: &std::path::Path) -> pp_core::Result<()> {
    if path.exists() {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(pp_core::Error::internal)?;
    }
    // An empty file is a valid, empty SQLite database.
    std::fs::File::create(path).map_err(pp_core::Error::internal)?;
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

async fn credential(store: &Store, cmd: CredentialCommand) -> pp_core::Result<()> {
    match cmd {
        CredentialCommand::Create {
            tenant,
            scopes,
            label,
            json,
        } => {
            let scopes = scopes.as_deref().map(ScopeSet::parse).transpose()?;
            let c = pp_auth::create_credential(store, &TenantId::parse(&tenant)?, scopes, &label)
                .await?;
            show(&c.row, Some(&c.client_secret), json)
        }
        CredentialCommand::List { tenant, json } => {
            let rows = store.credentials().list(tenant.as_deref()).await?;
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
            let row = store.credentials().find(&id).await?;
            let was_active = store.credentials().revoke(&row.id).await?;
            println!(
                "{}",
                json!({ "id": row.id, "revoked": true, "changed": was_active })
            );
            Ok(())
        }
        CredentialCommand::Rotate { id, json } => {
            let c = pp_auth::rotate_credential(store, &id).await?;
            show(&c.row, Some(&c.client_secret), json)
        }
    }
}
