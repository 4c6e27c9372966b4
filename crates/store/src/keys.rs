//! Keys the service makes for itself (cursor signing, the client-secret hash key): 256 bits,
//! made on first use and the same ever after, so cursors and hashes stay valid across restarts
//! and across instances sharing the store.

use pp_core::{Error, Result};

use crate::args;
use crate::db::Db;
use crate::{now_unix, random_bytes};

/// The service keys aggregate.
pub struct Keys<'a>(pub(crate) &'a Db);

impl Keys<'_> {
    /// The key named `name` (made now if this is its first use).
    pub async fn get(&self, name: &str) -> Result<[u8; 32]> {
        let fresh: [u8; 32] = random_bytes()?;
        self.0
            .exec(
                "INSERT INTO service_keys (name, value, created_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (name) DO NOTHING",
                args![name, &fresh[..], now_unix()],
            )
            .await?;
        let row = self
            .0
            .one(
                "SELECT value FROM service_keys WHERE name = ?1",
                args![name],
            )
            .await?
            .ok_or_else(|| Error::internal(format!("service key {name} vanished")))?;
        row.blob(0)?
            .try_into()
            .map_err(|_| Error::internal(format!("service key {name} is not 32 bytes")))
    }
}
