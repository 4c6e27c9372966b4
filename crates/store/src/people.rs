//! People: a tenant's users, signed in by email and password. The email is stored lower-cased
//! and is unique across the gateway (one person, one tenant), so a sign-in page needs no
//! tenant picker. Only the password's argon2id hash is kept. A disabled person cannot sign in;
//! the row stays, so what they did keeps a name. Disabling a person or resetting their
//! password ends their browser sessions and revokes their grants in the same transaction;
//! disabling also revokes the credentials their setup codes made.

use pp_core::{Error, Kind, Result};
use serde::Serialize;

use crate::args;
use crate::db::{Db, Row, Tx};
use crate::now_unix;

/// A stored person (the password's hash is never serialized).
#[derive(Debug, Clone, Serialize)]
pub struct PersonRow {
    pub id: String,
    pub tenant_id: String,
    pub email: String,
    pub display_name: String,
    /// `admin` or `member`.
    pub role: String,
    #[serde(skip)]
    pub password_hash: String,
    pub created_at: i64,
    pub password_set_at: i64,
    pub disabled_at: Option<i64>,
}

/// What a new person is made of.
pub struct NewPerson<'a> {
    pub id: &'a str,
    pub tenant_id: &'a str,
    /// Lower-cased by the caller.
    pub email: &'a str,
    pub display_name: &'a str,
    pub role: &'a str,
    pub password_hash: &'a str,
}

const FIELDS: [&str; 9] = [
    "id",
    "tenant_id",
    "email",
    "display_name",
    "role",
    "password_hash",
    "created_at",
    "password_set_at",
    "disabled_at",
];

const COLS: &str = "id, tenant_id, email, display_name, role, password_hash, created_at, \
                    password_set_at, disabled_at";

/// The person columns under table alias `alias`, in [`person_row`]'s order.
pub(crate) fn person_cols(alias: &str) -> String {
    FIELDS
        .iter()
        .map(|f| format!("{alias}.{f}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A person read from the first nine columns of `r`.
pub(crate) fn person_row(r: &Row) -> Result<PersonRow> {
    row(r)
}

/// Ends what a person's sign-ins hold: their browser sessions and grants (with the grants'
/// tokens), and with `credentials` the service credentials made for them.
async fn end_signins(tx: &mut Tx, id: &str, credentials: bool) -> Result<()> {
    let now = now_unix();
    tx.exec(
        "DELETE FROM browser_sessions WHERE person_id = ?1",
        args![id],
    )
    .await?;
    tx.exec(
        "DELETE FROM grant_tokens WHERE grant_id IN (SELECT id FROM oauth_grants WHERE person_id = ?1)",
        args![id],
    )
    .await?;
    tx.exec(
        "UPDATE oauth_grants SET revoked_at = ?2 WHERE person_id = ?1 AND revoked_at IS NULL",
        args![id, now],
    )
    .await?;
    if credentials {
        tx.exec(
            "DELETE FROM access_tokens WHERE credential_id IN
                 (SELECT id FROM credentials WHERE person_id = ?1)",
            args![id],
        )
        .await?;
        tx.exec(
            "UPDATE credentials SET revoked_at = ?2 WHERE person_id = ?1 AND revoked_at IS NULL",
            args![id, now],
        )
        .await?;
        tx.exec(
            "UPDATE setup_codes SET used_at = ?2 WHERE person_id = ?1 AND used_at IS NULL",
            args![id, now],
        )
        .await?;
    }
    Ok(())
}

fn row(r: &Row) -> Result<PersonRow> {
    Ok(PersonRow {
        id: r.text(0)?,
        tenant_id: r.text(1)?,
        email: r.text(2)?,
        display_name: r.text(3)?,
        role: r.text(4)?,
        password_hash: r.text(5)?,
        created_at: r.i64(6)?,
        password_set_at: r.i64(7)?,
        disabled_at: r.opt_i64(8)?,
    })
}

/// The people aggregate.
pub struct People<'a>(pub(crate) &'a Db);

impl People<'_> {
    /// Stores a new person; `bad_params` when the email is taken (by anyone, in any tenant).
    pub async fn insert(&self, n: &NewPerson<'_>) -> Result<PersonRow> {
        let now = now_unix();
        let rows = self
            .0
            .all(
                format!(
                    "INSERT INTO people (id, tenant_id, email, display_name, role, password_hash,
                                         created_at, password_set_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)
                     ON CONFLICT (email) DO NOTHING RETURNING {COLS}"
                ),
                args![
                    n.id,
                    n.tenant_id,
                    n.email,
                    n.display_name,
                    n.role,
                    n.password_hash,
                    now
                ],
            )
            .await?;
        match rows.first() {
            Some(r) => row(r),
            None => Err(Error::new(
                Kind::BadParams,
                format!("a person with the email '{}' already exists", n.email),
            )),
        }
    }

    /// The person with this (lower-cased) email, disabled or not.
    pub async fn by_email(&self, email: &str) -> Result<Option<PersonRow>> {
        self.0
            .one(
                format!("SELECT {COLS} FROM people WHERE email = ?1"),
                args![email],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
    }

    /// The person named by id or (lower-cased) email; `not_found` otherwise.
    pub async fn find(&self, id_or_email: &str) -> Result<PersonRow> {
        self.0
            .one(
                format!("SELECT {COLS} FROM people WHERE id = ?1 OR email = ?1"),
                args![id_or_email],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()?
            .ok_or_else(|| Error::not_found(format!("no person '{id_or_email}'")))
    }

    /// Every person (of `tenant`, when given), by email.
    pub async fn list(&self, tenant: Option<&str>) -> Result<Vec<PersonRow>> {
        self.0
            .all(
                format!(
                    "SELECT {COLS} FROM people WHERE ?1 IS NULL OR tenant_id = ?1
                     ORDER BY tenant_id, email"
                ),
                args![tenant],
            )
            .await?
            .iter()
            .map(row)
            .collect()
    }

    /// Disables a person, ending their sessions, grants and credentials; false if they
    /// already were.
    pub async fn disable(&self, id: &str) -> Result<bool> {
        let id = id.to_owned();
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let n = tx
                        .exec(
                            "UPDATE people SET disabled_at = ?2 WHERE id = ?1 AND disabled_at IS NULL",
                            args![&id, now_unix()],
                        )
                        .await?;
                    end_signins(tx, &id, true).await?;
                    Ok(n == 1)
                })
            })
            .await
    }

    /// Replaces a person's password hash, ending their sessions and grants (a reset also
    /// enables a disabled person only when `enable` says so); `not_found` for an unknown id.
    pub async fn set_password(&self, id: &str, hash: &str, enable: bool) -> Result<()> {
        let (id, hash) = (id.to_owned(), hash.to_owned());
        self.0
            .tx(move |tx| {
                Box::pin(async move {
                    let n = tx
                        .exec(
                            "UPDATE people SET password_hash = ?2, password_set_at = ?3,
                                    disabled_at = CASE WHEN ?4 = 1 THEN NULL ELSE disabled_at END
                             WHERE id = ?1",
                            args![&id, &hash, now_unix(), i64::from(enable)],
                        )
                        .await?;
                    if n == 0 {
                        return Err(Error::not_found(format!("no person '{id}'")));
                    }
                    end_signins(tx, &id, false).await
                })
            })
            .await
    }
}
