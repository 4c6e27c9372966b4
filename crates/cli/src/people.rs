//! `partner-platform admin person`: a tenant's people (users who sign in by email and
//! password): create, list, disable, reset. A password is read from stdin with
//! `--password-stdin` (never from an argument, which the process list shows); without it the
//! gateway chooses one and prints it once.

use std::io::BufRead;

use clap::Subcommand;
use pp_auth::{CreatedPerson, PersonDetails, Role};
use pp_store::PersonRow;
use serde_json::json;

use crate::admin::{At, print_json};

#[derive(Subcommand)]
pub enum PersonCommand {
    /// Create a person; without --password-stdin a password is chosen and printed once.
    Create {
        #[arg(long)]
        tenant: String,
        /// Their email, the name on everything their sign-ins do (unique across the gateway).
        #[arg(long)]
        email: String,
        /// Display name.
        #[arg(long)]
        name: String,
        /// admin (manages credentials, people and connections) or member.
        #[arg(long, default_value = "member")]
        role: String,
        /// Read the password from the first line of stdin.
        #[arg(long)]
        password_stdin: bool,
        #[arg(long)]
        json: bool,
    },
    /// List people (never their passwords).
    List {
        #[arg(long)]
        tenant: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Disable a person: they can no longer sign in.
    Disable {
        /// Person id or email.
        person: String,
    },
    /// Set a new password (and enable a disabled person); without --password-stdin one is
    /// chosen and printed once.
    Reset {
        /// Person id or email.
        person: String,
        #[arg(long)]
        password_stdin: bool,
        #[arg(long)]
        json: bool,
    },
}

fn password_from_stdin(wanted: bool) -> pp_core::Result<Option<String>> {
    if !wanted {
        return Ok(None);
    }
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(pp_core::Error::internal)?;
    Ok(Some(line.trim_end_matches(['\n', '\r']).to_owned()))
}

fn show(p: &CreatedPerson, json: bool) -> pp_core::Result<()> {
    if json {
        let mut v = serde_json::to_value(&p.row).map_err(pp_core::Error::internal)?;
        if let Some(pw) = &p.generated_password {
            v["password"] = pw.as_str().into();
        }
        print_json(&v)?;
    } else {
        let r = &p.row;
        println!(
            "person    {}\ntenant    {}\nemail     {}\nname      {}\nrole      {}",
            r.id, r.tenant_id, r.email, r.display_name, r.role
        );
        if let Some(pw) = &p.generated_password {
            println!("password  {pw}\n          (shown once: hand it over now)");
        }
    }
    Ok(())
}

fn state(r: &PersonRow) -> &'static str {
    if r.disabled_at.is_some() {
        "disabled"
    } else {
        "active"
    }
}

pub async fn run((admin, op): At<'_>, cmd: PersonCommand) -> pp_core::Result<()> {
    let people = admin.people(op);
    match cmd {
        PersonCommand::Create {
            tenant,
            email,
            name,
            role,
            password_stdin,
            json,
        } => {
            let details = PersonDetails {
                email: &email,
                display_name: &name,
                role: Role::parse(&role)?,
            };
            let password = password_from_stdin(password_stdin)?;
            let p = people
                .create(&tenant, &details, password.as_deref())
                .await?;
            show(&p, json)
        }
        PersonCommand::List { tenant, json } => {
            let rows = people.list(tenant.as_deref()).await?;
            if json {
                print_json(&rows)?;
            } else {
                for r in rows {
                    println!(
                        "{}\t{}\t{}\t{}\t{}\t{}",
                        r.id,
                        r.tenant_id,
                        r.email,
                        r.display_name,
                        r.role,
                        state(&r)
                    );
                }
            }
            Ok(())
        }
        PersonCommand::Disable { person } => {
            let (row, ended) = people.disable(&person).await?;
            println!(
                "{}",
                json!({ "id": row.id, "email": row.email, "disabled": true, "changed": ended.changed, "withdrawnApprovals": ended.withdrawn, "disabledWebhooks": ended.disabled_webhooks })
            );
            Ok(())
        }
        PersonCommand::Reset {
            person,
            password_stdin,
            json,
        } => {
            let password = password_from_stdin(password_stdin)?;
            let p = people.reset_password(&person, password.as_deref()).await?;
            show(&p, json)
        }
    }
}
