//! A small connection pool over one SQLite file: connections are opened on demand, kept for
//! reuse, and each is set up for WAL with a busy timeout so the admin CLI and the server can
//! share the file.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use pp_core::{Error, Result};
use rusqlite::Connection;

const MAX_IDLE: usize = 8;

/// A pool of read-write connections to one database file.
#[derive(Clone)]
pub(crate) struct Pool {
    path: Arc<PathBuf>,
    idle: Arc<Mutex<Vec<Connection>>>,
}

impl Pool {
    /// A pool for `path`; nothing is opened until first use.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path: Arc::new(path),
            idle: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn open(&self) -> Result<Connection> {
        let conn = Connection::open(&*self.path).map_err(|e| {
            Error::internal(format!(
                "cannot open state store {}: {e}",
                self.path.display()
            ))
        })?;
        conn.busy_timeout(Duration::from_secs(5))
            .map_err(crate::db_err)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
        )
        .map_err(crate::db_err)?;
        Ok(conn)
    }

    /// Runs `f` on a pooled connection.
    pub fn with<T>(&self, f: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        let pooled = self.idle.lock().map_err(Error::internal)?.pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => self.open()?,
        };
        let out = f(&mut conn);
        if let Ok(mut idle) = self.idle.lock()
            && idle.len() < MAX_IDLE
        {
            idle.push(conn);
        }
        out
    }
}
