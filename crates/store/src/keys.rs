//! The gateway's own keys, made at random the first time they are asked for and kept in the
//! store so that every instance on it uses the same one.

use pp_core::Result;
use rusqlite::{OptionalExtension, params};

use crate::{Store, db_err, random_bytes};

impl Store {
    /// The 32-byte key called `name`, created on first use (two instances racing agree: the
    /// first insert wins and both read it back).
    pub fn server_key(&self, name: &str) -> Result<[u8; 32]> {
        let read = |c: &rusqlite::Connection| -> Result<Option<[u8; 32]>> {
            let key: Option<Vec<u8>> = c
                .query_row("SELECT key FROM server_keys WHERE name = ?1", [name], |r| {
                    r.get(0)
                })
                .optional()
                .map_err(db_err)?;
            key.map(|k| {
                <[u8; 32]>::try_from(k.as_slice()).map_err(|_| {
                    pp_core::Error::internal(format!("server key '{name}' is damaged"))
                })
            })
            .transpose()
        };
        if let Some(key) = self.pool.with(|c| read(c))? {
            return Ok(key);
        }
        let fresh: [u8; 32] = random_bytes()?;
        self.pool.with(|c| {
            c.execute(
                "INSERT INTO server_keys (name, key) VALUES (?1, ?2) ON CONFLICT (name) DO NOTHING",
                params![name, fresh.as_slice()],
            )
            .map_err(db_err)?;
            read(c)?
                .ok_or_else(|| pp_core::Error::internal(format!("server key '{name}' is missing")))
        })
    }
}
