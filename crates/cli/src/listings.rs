//! `partner-platform admin listings`: which merchants may write listing content (per tenant)
//! and the service's global switches for listing text and image writes. The switches live in
//! the state store, so every instance sharing it reads an `off` on its next write; the
//! configuration (`listings_text_writes`, `listings_media_writes`) can hold a surface off
//! regardless.

use clap::Subcommand;
use serde_json::json;

use crate::admin::At;

#[derive(Subcommand)]
pub enum ListingsCommand {
    /// Let a merchant's listings be edited through change sets.
    Enable {
        #[arg(long)]
        tenant: String,
        /// The merchant token (sellerId).
        #[arg(long)]
        merchant: String,
    },
    /// Stop a merchant's listing writes (previews and commits answer listings_write_not_enabled).
    Disable {
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        merchant: String,
    },
    /// Switch listing text or image writes off (or on again) for the whole service.
    Switch {
        /// `text` or `media`.
        surface: String,
        /// `on` or `off`.
        state: String,
        /// Why (shown to callers while it is off).
        #[arg(long)]
        reason: Option<String>,
    },
    /// The enabled merchants of a tenant and the global switches.
    Status {
        #[arg(long)]
        tenant: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

pub async fn run((admin, op): At<'_>, cmd: ListingsCommand) -> pp_core::Result<()> {
    let l = admin.listings(op);
    match cmd {
        ListingsCommand::Enable {
            tenant: t,
            merchant,
        } => {
            let new = l.enable(&t, &merchant).await?;
            println!(
                "listing writes {} for {merchant} in {t}",
                if new {
                    "enabled"
                } else {
                    "were already enabled"
                },
            );
        }
        ListingsCommand::Disable {
            tenant: t,
            merchant,
        } => {
            let was = l.disable(&t, &merchant).await?;
            println!(
                "listing writes {} for {merchant} in {t}",
                if was { "disabled" } else { "were not enabled" },
            );
        }
        ListingsCommand::Switch {
            surface,
            state,
            reason,
        } => {
            let off = match state.as_str() {
                "off" => true,
                "on" => false,
                other => {
                    return Err(pp_core::Error::invalid_request(format!(
                        "state is on or off, not {other}"
                    )));
                }
            };
            l.switch(&surface, off, reason.as_deref()).await?;
            println!("listing {surface} writes switched {state} for the whole service");
        }
        ListingsCommand::Status { tenant: t, json } => {
            let status = l.status(t.as_deref()).await?;
            let (accounts, switches) = (status.accounts, status.switches);
            if json {
                let v = json!({
                    "accounts": accounts.iter().map(|a| json!({ "merchant": a.merchant, "enabledBy": a.enabled_by, "enabledAt": pp_store::rfc3339_ms(a.enabled_ms) })).collect::<Vec<_>>(),
                    "switches": switches.iter().map(|s| json!({ "name": s.name, "off": s.off, "reason": s.reason, "changedBy": s.changed_by, "changedAt": pp_store::rfc3339_ms(s.changed_ms) })).collect::<Vec<_>>(),
                });
                println!("{v}");
            } else {
                for a in &accounts {
                    println!("enabled  {}  (by {})", a.merchant, a.enabled_by);
                }
                for s in &switches {
                    println!(
                        "switch   {}  {}{}",
                        s.name,
                        if s.off { "off" } else { "on" },
                        s.reason
                            .as_deref()
                            .map(|r| format!(" ({r})"))
                            .unwrap_or_default()
                    );
                }
            }
        }
    }
    Ok(())
}
