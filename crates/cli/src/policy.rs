//! `partner-platform admin policy`: a tenant's write policy — the bounds no advertising write
//! crosses (docs/writes.md, "Tenant policies"). `show` prints the policy in force (the
//! defaults until one is set); `set` replaces it with a JSON document, checked first, whose
//! left-out fields take the defaults.

use std::io::Read;

use clap::Subcommand;
use serde_json::Value;

use crate::admin::{At, print_json};

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

pub async fn run((admin, op): At<'_>, cmd: PolicyCommand) -> pp_core::Result<()> {
    let policies = admin.policies(op);
    match cmd {
        PolicyCommand::Show { tenant } => print_json(&policies.show(&tenant).await?),
        PolicyCommand::Set { tenant, file } => {
            let mut text = String::new();
            let read = if file == "-" {
                std::io::stdin().read_to_string(&mut text).map(|_| ())
            } else {
                std::fs::read_to_string(&file).map(|s| text = s)
            };
            read.map_err(|e| pp_core::Error::invalid_request(format!("cannot read {file}: {e}")))?;
            let doc: Value = serde_json::from_str(&text)
                .map_err(|e| pp_core::Error::invalid_request(format!("{file} is not JSON: {e}")))?;
            print_json(&policies.set(&tenant, &doc).await?)
        }
    }
}
