//! `partner-platform admin intelligence`: switch intelligence off (or back on) for one of a
//! tenant's accounts — on is the default, and an account switched off answers `not_enrolled`
//! — and read a tenant's switched-off accounts and its runs metered by request id.

use clap::Subcommand;
use serde_json::json;

use crate::admin::At;

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

pub async fn run((admin, op): At<'_>, cmd: IntelligenceCommand) -> pp_core::Result<()> {
    let i = admin.enrollment(op);
    match cmd {
        IntelligenceCommand::On { tenant: t, seller } => {
            let changed = i.set(&t, seller, true, None).await?;
            println!(
                "intelligence {} for seller {seller} in {t}",
                if changed {
                    "switched on"
                } else {
                    "was already on"
                },
            );
        }
        IntelligenceCommand::Off {
            tenant: t,
            seller,
            reason,
        } => {
            let changed = i.set(&t, seller, false, reason.as_deref()).await?;
            println!(
                "intelligence {} for seller {seller} in {t}",
                if changed {
                    "switched off"
                } else {
                    "was already off"
                },
            );
        }
        IntelligenceCommand::Status {
            tenant: t,
            days,
            json,
        } => {
            let status = i.status(&t, days).await?;
            let (t, off, meter) = (status.tenant, status.switched_off, status.runs);
            if json {
                let off: Vec<_> = off
                    .iter()
                    .map(|o| json!({ "sellerId": o.seller_id, "reason": o.reason, "changedBy": o.changed_by, "changedAt": pp_store::rfc3339_ms(o.changed_ms) }))
                    .collect();
                println!(
                    "{}",
                    json!({ "tenant": t, "switchedOff": off, "days": days, "runs": meter })
                );
                return Ok(());
            }
            if off.is_empty() {
                println!("intelligence is on for every account of {t}");
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
