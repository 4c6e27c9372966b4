//! `partner-platform admin connection`: connect a merchant's provider grant by hand (the
//! refresh token the merchant's authorization produced) and list a tenant's connections. The
//! token is sealed with the secret key before it is stored, and never printed.

use std::path::Path;

use clap::Subcommand;
use pp_core::TenantId;
use pp_marketplace::Sealer;
use pp_marketplace::connections::{self, Grant};
use pp_store::Store;

use crate::admin::print_json;

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

/// Refuses a merchant the tenant's warehouse has no seller row for (a connection to it could
/// never be selected by a call): the tokens it does have are named.
async fn tenant_has_merchant(
    store: &Store,
    tenant: &TenantId,
    merchant: &str,
) -> pp_core::Result<()> {
    let row = store
        .tenants()
        .get(tenant)
        .await?
        .ok_or_else(|| pp_core::Error::not_found(format!("no tenant {}", tenant.as_str())))?;
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(1));
    let engine = pp_warehouse::open(&row.warehouse, &slots)?;
    let sellers = pp_warehouse::directory::sellers(engine.as_ref(), &Default::default()).await?;
    if sellers.iter().any(|s| s.token == merchant) {
        return Ok(());
    }
    let mut known: Vec<&str> = sellers.iter().map(|s| s.token.as_str()).collect();
    known.dedup();
    Err(pp_core::Error::new(
        pp_core::Kind::MerchantNotFound,
        format!(
            "tenant {} has no merchant {merchant} in its warehouse (its seller table's MarketplaceSellerID: {})",
            tenant.as_str(),
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        ),
    ))
}

pub async fn run(store: &Store, data_dir: &Path, cmd: ConnectionCommand) -> pp_core::Result<()> {
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
            let tenant = crate::admin::existing_tenant(store, &tenant).await?;
            pp_marketplace::connections::check_refresh_token(&refresh_token)?;
            tenant_has_merchant(store, &tenant, &merchant).await?;
            let sealer = sealer(secret_key, data_dir)?;
            let grant = Grant {
                kind: &kind,
                merchant: &merchant,
                region: &region,
                refresh_token: &refresh_token,
                status: &status,
                connected_by: "admin",
                reach: &[],
            };
            connections::connect(store, &sealer, &tenant, &grant).await?;
            println!(
                "connected {kind} grant of {merchant} for tenant {} ({status})",
                tenant.as_str()
            );
        }
        ConnectionCommand::List { tenant, json } => {
            let list = connections::list(store, &TenantId::parse(&tenant)?).await?;
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
