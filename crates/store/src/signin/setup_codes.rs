//! Setup codes: one-time codes a person makes in the console for the command-line plugin,
//! which exchanges one for its own service credential acting for that person. A code is
//! spent by its first exchange (the credential is stored in the same transaction) and
//! expires after minutes.

use pp_core::Result;
use serde::Serialize;

use crate::args;
use crate::credentials::CredentialRow;
use crate::db::Db;
use crate::now_unix;

/// A setup code as the console lists it (never the code itself).
#[derive(Debug, Clone, Serialize)]
pub struct SetupCodeRow {
    pub label: String,
    pub created_at: i64,
    pub expires_at: i64,
    pub used_at: Option<i64>,
    /// The credential its exchange made.
    pub credential_id: Option<String>,
}

/// The setup codes aggregate.
pub struct SetupCodes<'a>(pub(crate) &'a Db);

/// The credential an exchange makes (its secret already hashed).
pub struct SetupCredential<'a> {
    pub id: &'a str,
    pub client_id: &'a str,
    pub secret_hash: &'a str,
    pub scopes: &'a str,
}

impl SetupCodes<'_> {
    /// Stores a code for `person_id` (forgetting that person's codes that ended a day ago).
    pub async fn insert(
        &self,
        code_hash: &[u8],
        person_id: &str,
        label: &str,
        expires_at: i64,
    ) -> Result<()> {
        let now = now_unix();
        self.0
            .exec(
                "DELETE FROM setup_codes WHERE person_id = ?1 AND expires_at < ?2",
                args![person_id, now - 86_400],
            )
            .await?;
        self.0
            .exec(
                "INSERT INTO setup_codes (code_hash, person_id, label, created_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                args![code_hash, person_id, label, now, expires_at],
            )
            .await?;
        Ok(())
    }

    /// A person's codes, newest first.
    pub async fn list(&self, person_id: &str) -> Result<Vec<SetupCodeRow>> {
        self.0
            .all(
                "SELECT label, created_at, expires_at, used_at, credential_id FROM setup_codes
                 WHERE person_id = ?1 ORDER BY created_at DESC",
                args![person_id],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(SetupCodeRow {
                    label: r.text(0)?,
                    created_at: r.i64(1)?,
                    expires_at: r.i64(2)?,
                    used_at: r.opt_i64(3)?,
                    credential_id: r.opt_text(4)?,
                })
            })
            .collect()
    }

    /// Spends the live code `code_hash` (unspent, unexpired, its person enabled) and stores
    /// `cred` for its person, at once; `None` when there is no such code.
    pub async fn redeem(
        &self,
        code_hash: &[u8],
        cred: &SetupCredential<'_>,
    ) -> Result<Option<CredentialRow>> {
        let code_hash = code_hash.to_vec();
        let (id, client_id, secret_hash, scopes) = (
            cred.id.to_owned(),
            cred.client_id.to_owned(),
            cred.secret_hash.to_owned(),
            cred.scopes.to_owned(),
        );
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let now = now_unix();
                    let Some(code) = tx
                        .one(
                            &format!(
                                "SELECT s.person_id, s.label, p.tenant_id FROM setup_codes s
                                 JOIN people p ON p.id = s.person_id
                                 WHERE s.code_hash = ?1 AND s.used_at IS NULL AND s.expires_at > ?2
                                   AND p.disabled_at IS NULL{}",
                                tx.for_update()
                            ),
                            args![&code_hash, now],
                        )
                        .await?
                    else {
                        return Ok(None);
                    };
                    let (person_id, label, tenant_id) =
                        (code.text(0)?, code.text(1)?, code.text(2)?);
                    let spent = tx
                        .exec(
                            "UPDATE setup_codes SET used_at = ?2, credential_id = ?3
                             WHERE code_hash = ?1 AND used_at IS NULL",
                            args![&code_hash, now, &id],
                        )
                        .await?;
                    if spent != 1 {
                        return Ok(None);
                    }
                    let rows = tx
                        .all(
                            format!(
                                "INSERT INTO credentials (id, tenant_id, client_id, secret_hash, label,
                                                          scopes, created_at, person_id)
                                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) RETURNING {}",
                                crate::credentials::COLS
                            ),
                            args![&id, &tenant_id, &client_id, &secret_hash, &label, &scopes, now, &person_id],
                        )
                        .await?;
                    rows.first().map(crate::credentials::row).transpose()
                })
            })
            .await
    }
}
