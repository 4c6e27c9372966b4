//! Browser sessions: a person signed in to the gateway's pages. The cookie holds a random id;
//! the store keeps its hash, the session's CSRF token and when it ends. A session of a
//! disabled person is never live.

use pp_core::Result;

use crate::args;
use crate::db::Db;
use crate::now_unix;
use crate::people::{PersonRow, person_cols, person_row};

/// A live session and its person.
#[derive(Debug, Clone)]
pub struct SessionRow {
    pub person: PersonRow,
    /// The token every form of this session carries.
    pub csrf: String,
    pub expires_at: i64,
}

/// The sessions aggregate.
pub struct Sessions<'a>(pub(crate) &'a Db);

impl Sessions<'_> {
    /// Stores a session (dropping the person's ended ones).
    pub async fn insert(
        &self,
        id_hash: &[u8],
        person_id: &str,
        csrf: &str,
        expires_at: i64,
    ) -> Result<()> {
        let now = now_unix();
        self.0
            .exec(
                "DELETE FROM browser_sessions WHERE person_id = ?1 AND expires_at <= ?2",
                args![person_id, now],
            )
            .await?;
        self.0
            .exec(
                "INSERT INTO browser_sessions (id_hash, person_id, csrf, created_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                args![id_hash, person_id, csrf, now, expires_at],
            )
            .await?;
        Ok(())
    }

    /// The live session with this id hash (unexpired, its person enabled).
    pub async fn live(&self, id_hash: &[u8]) -> Result<Option<SessionRow>> {
        let cols = person_cols("p");
        let Some(r) = self
            .0
            .one(
                format!(
                    "SELECT {cols}, s.csrf, s.expires_at FROM browser_sessions s
                     JOIN people p ON p.id = s.person_id
                     WHERE s.id_hash = ?1 AND s.expires_at > ?2 AND p.disabled_at IS NULL"
                ),
                args![id_hash, now_unix()],
            )
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(SessionRow {
            person: person_row(&r)?,
            csrf: r.text(9)?,
            expires_at: r.i64(10)?,
        }))
    }

    /// Ends one session (signing out).
    pub async fn delete(&self, id_hash: &[u8]) -> Result<()> {
        self.0
            .exec(
                "DELETE FROM browser_sessions WHERE id_hash = ?1",
                args![id_hash],
            )
            .await?;
        Ok(())
    }
}
