//! The embedded engine: one SQLite file per tenant, opened read-only with `query_only`, an
//! authorizer that denies every write, ATTACH/DETACH, state-changing PRAGMAs and
//! `load_extension`, and a progress handler that stops a query at its deadline. Work runs on
//! tokio's blocking pool so a slow query never stalls the server.

mod guard;
mod introspect;
mod run;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use pp_core::{Error, Kind, Result};
use rusqlite::{Connection, OpenFlags};

use crate::engine::{BoxFuture, Engine, QueryRequest, QueryResult, TableDescription, TableSummary};
use crate::limits::Limits;

use guard::Denial;

const MAX_IDLE: usize = 4;

/// A tenant warehouse in one SQLite file.
pub struct SqliteEngine {
    path: Arc<PathBuf>,
    idle: Arc<Mutex<Vec<Guarded>>>,
}

/// A read-only connection with its authorizer's denial record.
pub(crate) struct Guarded {
    pub conn: Connection,
    pub denial: Denial,
}

impl SqliteEngine {
    /// An engine over the file at `path` (opened lazily, read-only).
    pub fn new(path: PathBuf) -> Self {
        Self {
            path: Arc::new(path),
            idle: Arc::new(Mutex::new(Vec::new())),
        }
    }

    fn checkout(path: &PathBuf, idle: &Mutex<Vec<Guarded>>) -> Result<Guarded> {
        if let Some(g) = idle.lock().map_err(Error::internal)?.pop() {
            return Ok(g);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| {
            Error::new(
                Kind::WarehouseUnavailable,
                "the tenant's warehouse cannot be opened",
            )
            .with_field("_cause", format!("{}: {e}", path.display()))
        })?;
        conn.execute_batch("PRAGMA query_only = 1; PRAGMA trusted_schema = 0; PRAGMA mmap_size = 268435456; PRAGMA cache_size = -16384;")
            .map_err(|e| Error::internal(format!("warehouse setup: {e}")))?;
        conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_ATTACHED, 0)
            .map_err(|e| Error::internal(format!("warehouse setup: {e}")))?;
        conn.set_limit(
            rusqlite::limits::Limit::SQLITE_LIMIT_LENGTH,
            64 * 1024 * 1024,
        )
        .map_err(|e| Error::internal(format!("warehouse setup: {e}")))?;
        let denial = guard::install(&conn)?;
        Ok(Guarded { conn, denial })
    }

    fn checkin(idle: &Mutex<Vec<Guarded>>, g: Guarded) {
        if let Ok(mut v) = idle.lock()
            && v.len() < MAX_IDLE
        {
            v.push(g);
        }
    }

    /// Runs `f` with a guarded connection on the blocking pool.
    fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Guarded) -> Result<T> + Send + 'static,
    ) -> BoxFuture<'_, Result<T>> {
        let path = self.path.clone();
        let idle = self.idle.clone();
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let mut g = Self::checkout(&path, &idle)?;
                let out = f(&mut g);
                Self::checkin(&idle, g);
                out
            })
            .await
            .map_err(|e| Error::internal(format!("warehouse task: {e}")))?
        })
    }
}

impl Engine for SqliteEngine {
    fn query<'a>(
        &'a self,
        req: QueryRequest,
        limits: &'a Limits,
    ) -> BoxFuture<'a, Result<QueryResult>> {
        let limits = limits.clone();
        self.blocking(move |g| run::query(g, &req, &limits))
    }

    fn tables(&self) -> BoxFuture<'_, Result<Vec<TableSummary>>> {
        self.blocking(|g| introspect::tables(&g.conn))
    }

    fn describe<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<TableDescription>> {
        let name = name.to_owned();
        self.blocking(move |g| introspect::describe(&g.conn, &name))
    }
}
