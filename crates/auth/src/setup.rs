//! Setup codes (docs/auth.md): a person makes a one-time code in the console; the command-line
//! plugin exchanges it, unattended, for its own service credential, which holds the plugin's
//! scopes and acts under that person's name. A code lasts ten minutes and is spent by its
//! first exchange; disabling the person revokes the credential.

use pp_core::scope::PLUGIN_SCOPES;
use pp_core::{Error, Kind, Result, ScopeSet};
use pp_store::signin::SetupCredential;
use pp_store::{PersonRow, Store, now_unix};

use crate::CreatedCredential;
use crate::secret::{SecretKey, hash_secret, random_id, random_token, token_hash};

/// How long a setup code can be exchanged.
pub const SETUP_CODE_TTL_SECS: i64 = 600;

/// A new setup code, shown once.
pub struct CreatedSetupCode {
    pub code: String,
    pub expires_at: i64,
}

/// Makes a setup code for `person`; `label` names the credential it will make.
pub async fn create_setup_code(
    store: &Store,
    person: &PersonRow,
    label: &str,
) -> Result<CreatedSetupCode> {
    let label = label.trim();
    if label.is_empty() || label.chars().count() > 64 {
        return Err(Error::new(
            Kind::BadParams,
            "a label is 1-64 printable characters",
        ));
    }
    pp_core::text::check_one_line("label", label)?;
    let code = random_token("ppsetup_")?;
    let expires_at = now_unix() + SETUP_CODE_TTL_SECS;
    store
        .setup_codes()
        .insert(&token_hash(&code), &person.id, label, expires_at)
        .await?;
    Ok(CreatedSetupCode { code, expires_at })
}

/// Exchanges a setup code for a service credential; `invalid_token` when the code is unknown,
/// spent or expired (the same answer for each).
pub async fn exchange_setup_code(
    store: &Store,
    key: &SecretKey,
    code: &str,
) -> Result<CreatedCredential> {
    let refused = || {
        Error::new(
            Kind::InvalidToken,
            "the setup code is unknown, already used or expired; make a new one in the console",
        )
    };
    if !code.starts_with("ppsetup_") || code.len() > 128 {
        return Err(refused());
    }
    let client_secret = random_token("pps_")?;
    let row = store
        .setup_codes()
        .redeem(
            &token_hash(code),
            &SetupCredential {
                id: &random_id("cred_", 8)?,
                client_id: &random_id("ppc_", 12)?,
                secret_hash: &hash_secret(key, &client_secret),
                scopes: &ScopeSet::from_scopes(PLUGIN_SCOPES).to_oauth_string(),
            },
        )
        .await?
        .ok_or_else(refused)?;
    Ok(CreatedCredential { row, client_secret })
}
