//! `partner-platform admin intelligence`: switch intelligence off (or back on) for one of a
//! tenant's accounts — on is the default, and an account switched off answers `not_enrolled`
//! — and read a tenant's switched-off accounts and its runs metered by request id.

use clap::Subcommand;
use pp_store::Store;

use crate::admin::{actor, existing_tenant};
use serde_json::json;

#[derive(Subcommand)]
pub enum IntelligenceCommand {
    /// Switch intelligence back on for an account.
    On {
        #[arg(long)]
        tenant: String,
        /// The account's seller row id (`seller.ID`, the legacySellerId).
        #[arg(long)]
        seller: i64,
    },
    /// Switch intelligence off for an account (its requests answer not_enrolled).
    Off {
        #[arg(long)]
        tenant: String,
        #[arg(long)]
        seller: i64,
        /// Why (shown to callers).
        #[arg(long)]
        reason: Option<String>,
    },
    /// The accounts switched off, and the runs of the last `days` by request id.
    Status {
        #[arg(long)]
        tenant: String,
        #[arg(long, default_value_t = 30)]
        days: i64,
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(store: &Store, cmd: IntelligenceCommand) -> pp_core::Result<()> {
    let i = store.intelligence();
    match cmd {
        IntelligenceCommand::On { tenant: t, seller } => {
            let t = existing_tenant(store, &t).await?;
            let changed = i.set_enrolled(&t, seller, true, None, &actor()).await?;
            println!(
                "intelligence {} for seller {seller} in {}",
                if changed {
                    "switched on"
                } else {
                    "was already on"
                },
                t.as_str()
            );
        }
        IntelligenceCommand::Off {
            tenant: t,
            seller,
            reason,
        } => {
            let t = existing_tenant(store, &t).await?;
            let changed = i
                .set_enrolled(&t, seller, false, reason.as_deref(), &actor())
                .await?;
            println!(
                "intelligence {} for seller {seller} in {}",
                if changed {
                    "switched off"
                } else {
                    "was already off"
                },
                t.as_str()
            );
        }
        IntelligenceCommand::Status {
            tenant: t,
            days,
            json,
        } => {
            let t = existing_tenant(store, &t).await?;
            let off = i.opt_outs(&t).await?;
            let since = pp_store::jobs::now_ms() - days.max(0) * 86_400_000;
            let meter = i.meter(&t, since).await?;
            if json {
                let off: Vec<_> = off
                    .iter()
                    .map(|o| json!({ "sellerId": o.seller_id, "reason": o.reason, "changedBy": o.changed_by, "changedAt": pp_store::rfc3339_ms(o.changed_ms) }))
                    .collect();
                println!(
                    "{}",
                    json!({ "tenant": t.as_str(), "switchedOff": off, "days": days, "runs": meter })
                );
                return Ok(());
            }
            if off.is_empty() {
                println!("intelligence is on for every account of {}", t.as_str());
            }
            for o in &off {
                println!(
                    "off  seller {}  by {} at {}{}",
                    o.seller_id,
                    o.changed_by,
                    pp_store::rfc3339_ms(o.changed_ms),
                    o.reason
                        .as_deref()
                        .map(|r| format!("  ({r})"))
                        .unwrap_or_default()
                );
            }
            println!("runs in the last {days} days:");
            for m in &meter {
                println!(
                    "  {:<20} {:>6} runs  {:>6} succeeded  {:>6} failed  {:>9} ms computing",
                    m.request_id, m.runs, m.succeeded, m.failed, m.compute_ms
                );
            }
        }
    }
    Ok(())
}
