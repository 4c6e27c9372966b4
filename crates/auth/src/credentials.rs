//! Service credentials: minted for a tenant with a scope list (or the default bundle), shown
//! once, rotated or revoked at any time.

use pp_core::scope::DEFAULT_SERVICE_SCOPES;
use pp_core::{Error, Kind, Result, ScopeSet, TenantId};
use pp_store::{CredentialRow, NewCredential, Store};

use crate::secret::{SecretKey, hash_secret, random_id, random_token};

/// A freshly created credential with its secret, which is never stored or shown again.
pub struct CreatedCredential {
    /// The stored row.
    pub row: CredentialRow,
    /// The raw secret.
    pub client_secret: String,
}

/// Creates a credential for `tenant`. With no scope list it holds the default bundle
/// (read-only plus `sql:query`).
pub async fn create_credential(
    store: &Store,
    tenant: &TenantId,
    scopes: Option<ScopeSet>,
    label: &str,
) -> Result<CreatedCredential> {
    if store.tenants().get(tenant).await?.is_none() {
        return Err(Error::not_found(format!("no tenant '{tenant}'")));
    }
    let label = label.trim();
    if label.is_empty() || label.chars().count() > 64 {
        return Err(Error::new(
            Kind::BadParams,
            "a label is 1-64 printable characters",
        ));
    }
    pp_core::text::check_one_line("label", label)?;
    let scopes = scopes.unwrap_or_else(|| ScopeSet::from_scopes(DEFAULT_SERVICE_SCOPES));
    scopes.validate_grant()?;
    let client_secret = random_token("pps_")?;
    let id = random_id("cred_", 8)?;
    let client_id = random_id("ppc_", 12)?;
    let secret_hash = hash_secret(&SecretKey::of(store).await?, &client_secret);
    let row = store
        .credentials()
        .insert(&NewCredential {
            id: &id,
            tenant_id: tenant.as_str(),
            client_id: &client_id,
            secret_hash: &secret_hash,
            label,
            scopes: &scopes.to_oauth_string(),
            person_id: None,
        })
        .await?;
    Ok(CreatedCredential { row, client_secret })
}

/// Gives a live credential a new secret; its old secret and every token minted from it stop
/// working at once.
pub async fn rotate_credential(store: &Store, id_or_client_id: &str) -> Result<CreatedCredential> {
    let row = store.credentials().find(id_or_client_id).await?;
    let client_secret = random_token("pps_")?;
    let hash = hash_secret(&SecretKey::of(store).await?, &client_secret);
    store.credentials().rotate(&row.id, &hash).await?;
    let row = store.credentials().find(&row.id).await?;
    Ok(CreatedCredential { row, client_secret })
}

/// The credential `id_or_client_id` of `tenant`; `not_found` when it is another tenant's, so a
/// console never learns another tenant's credentials exist.
pub async fn credential_of(
    store: &Store,
    tenant: &TenantId,
    id_or_client_id: &str,
) -> Result<CredentialRow> {
    let row = store.credentials().find(id_or_client_id).await?;
    if row.tenant_id != tenant.as_str() {
        return Err(Error::not_found(format!(
            "no credential '{id_or_client_id}'"
        )));
    }
    Ok(row)
}

/// Rotates a credential of `tenant` (see [`rotate_credential`]).
pub async fn rotate_credential_of(
    store: &Store,
    tenant: &TenantId,
    id_or_client_id: &str,
) -> Result<CreatedCredential> {
    let row = credential_of(store, tenant, id_or_client_id).await?;
    rotate_credential(store, &row.id).await
}

/// Revokes a credential of `tenant` and its tokens; false if it already was revoked.
pub async fn revoke_credential_of(
    store: &Store,
    tenant: &TenantId,
    id_or_client_id: &str,
) -> Result<bool> {
    let row = credential_of(store, tenant, id_or_client_id).await?;
    store.credentials().revoke(&row.id).await
}
