//! `partner-platform admin policy`: a tenant's write policy — the bounds no advertising write
//! crosses (docs/writes.md, "Tenant policies"). `show` prints the policy in force (the
//! defaults until one is set); `set` replaces it with a JSON document, checked first, whose
//! left-out fields take the defaults.

use std::io::Read;

use clap::Subcommand;
use pp_store::Store;
use serde_json::{Value, json};

use crate::admin::{actor, existing_tenant, print_json};

#[derive(Subcommand)]
pub enum PolicyCommand {
    /// The tenant's write policy in force, as JSON.
    Show {
        #[arg(long)]
        tenant: String,
    },
    /// Replace the tenant's write policy with a JSON document (a file, or `-` for stdin).
    Set {
        #[arg(long)]
        tenant: String,
        /// The policy document: `{"bids": {"USD": {"min": 0.1, "max": 5}}, "maxRaise": 2, …}`.
        file: String,
    },
}

fn shown(
    tenant: &str,
    policy: &pp_marketplace::policy::Policy,
    row: Option<&pp_store::PolicyRow>,
) -> Value {
    json!({
        "tenant": tenant,
        "policy": policy,
        "source": if row.is_some() { "set" } else { "default" },
        "updatedAt": row.map(|r| r.updated_at.clone()),
        "updatedBy": row.map(|r| r.updated_by.clone()),
    })
}

pub async fn run(store: &Store, cmd: PolicyCommand) -> pp_core::Result<()> {
    match cmd {
        PolicyCommand::Show { tenant } => {
            let t = existing_tenant(store, &tenant).await?;
            let (p, row) = pp_marketplace::policy::in_force(store, t.as_str()).await?;
            print_json(&shown(t.as_str(), &p, row.as_ref()))
        }
        PolicyCommand::Set { tenant, file } => {
            let t = existing_tenant(store, &tenant).await?;
            let mut text = String::new();
            let read = if file == "-" {
                std::io::stdin().read_to_string(&mut text).map(|_| ())
            } else {
                std::fs::read_to_string(&file).map(|s| text = s)
            };
            read.map_err(|e| pp_core::Error::invalid_request(format!("cannot read {file}: {e}")))?;
            let doc: Value = serde_json::from_str(&text)
                .map_err(|e| pp_core::Error::invalid_request(format!("{file} is not JSON: {e}")))?;
            let (p, row) = pp_marketplace::policy::set(store, t.as_str(), &doc, &actor()).await?;
            print_json(&shown(t.as_str(), &p, Some(&row)))
        }
    }
}
