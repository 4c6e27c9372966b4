//! The embedded engine: one SQLite file per tenant, opened read-only with `query_only`, an
//! authorizer that denies every write, ATTACH/DETACH, state-changing PRAGMAs and
//! `load_extension`. A query runs on tokio's blocking pool once it holds one of the shared
//! query slots; a watchdog interrupts it at its deadline or as soon as its caller goes away,
//! and the caller is answered at the deadline even if the engine is still inside one long
//! step (whose work SQLite's length limits bound: see `run.rs`).

mod guard;
mod introspect;
mod run;
mod tempspace;
mod watch;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pp_core::{Error, Kind, Result};
use rusqlite::{Connection, OpenFlags};
use tokio::sync::Semaphore;

use crate::engine::{BoxFuture, Engine, QueryRequest, QueryResult, TableDescription, TableSummary};
use crate::limits::Limits;

use crate::idle::Idle;
use guard::Denial;

/// A tenant warehouse in one SQLite file.
pub struct SqliteEngine {
    path: Arc<PathBuf>,
    idle: Arc<Idle<Guarded>>,
    slots: Arc<Semaphore>,
}

/// Whether an engine error means the file itself is damaged or not a database.
pub(crate) fn damaged(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}

/// `warehouse_unavailable` for a warehouse file that cannot be opened or read (missing,
/// damaged, not a database); `cause` is logged, not sent.
pub(crate) fn unavailable(cause: impl std::fmt::Display) -> Error {
    Error::new(
        Kind::WarehouseUnavailable,
        "the tenant's warehouse cannot be opened or read; the operator has been told",
    )
    .with_field("_cause", cause.to_string())
}

/// Checks that `path` is a SQLite database a warehouse can be opened on (it exists and its
/// schema reads).
pub fn check_file(path: &std::path::Path) -> Result<()> {
    let refuse = |why: String| {
        Error::new(
            Kind::BadParams,
            format!("{} is not a usable warehouse: {why}", path.display()),
        )
    };
    if !path.is_file() {
        return Err(refuse("no such file".into()));
    }
    let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(|e| refuse(e.to_string()))?;
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
        .map_err(|e| refuse(e.to_string()))
}

/// A read-only connection with its authorizer's denial record.
pub(crate) struct Guarded {
    pub conn: Connection,
    pub denial: Denial,
}

impl SqliteEngine {
    /// An engine over the file at `path` (opened lazily, read-only) whose queries run in
    /// `slots`.
    pub fn new(path: PathBuf, slots: Arc<Semaphore>) -> Self {
        Self {
            path: Arc::new(path),
            idle: Arc::new(Idle::new()),
            slots,
        }
    }

    fn checkout(path: &PathBuf, idle: &Idle<Guarded>) -> Result<Guarded> {
        if let Some(g) = idle.take() {
            return Ok(g);
        }
        tempspace::register().map_err(Error::internal)?;
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let unavailable = |e: rusqlite::Error| unavailable(format!("{}: {e}", path.display()));
        let conn = Connection::open_with_flags_and_vfs(path, flags, tempspace::VFS_NAME)
            .map_err(unavailable)?;
        // A file that is not a database (or is damaged) fails here, on its first read.
        conn.execute_batch("PRAGMA query_only = 1; PRAGMA trusted_schema = 0; PRAGMA threads = 0; PRAGMA mmap_size = 268435456; PRAGMA cache_size = -16384; SELECT count(*) FROM sqlite_schema;")
            .map_err(unavailable)?;
        conn.set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_ATTACHED, 0)
            .map_err(|e| Error::internal(format!("warehouse setup: {e}")))?;
        let denial = guard::install(&conn)?;
        Ok(Guarded { conn, denial })
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
                idle.put(g);
                out
            })
            .await
            .map_err(|e| Error::internal(format!("warehouse task: {e}")))?
        })
    }
}

impl Engine for SqliteEngine {
    fn dialect(&self) -> crate::Dialect {
        crate::Dialect::Sqlite
    }

    fn query<'a>(
        &'a self,
        req: QueryRequest,
        limits: &'a Limits,
    ) -> BoxFuture<'a, Result<QueryResult>> {
        let limits = limits.clone();
        let path = self.path.clone();
        let idle = self.idle.clone();
        let slots = self.slots.clone();
        Box::pin(async move {
            let deadline = tokio::time::Instant::now() + Duration::from_millis(req.timeout_ms);
            let late = crate::slots::timeout_error(req.timeout_ms, limits.max_timeout_ms);
            let slot = crate::slots::slot(&slots, deadline, limits.max_running).await?;
            let watch = watch::Watch::new();
            // Dropped when the caller goes away: the query is interrupted, not left running.
            let _stop = watch.stop_on_drop();
            let armed = watch.clone();
            let task = tokio::task::spawn_blocking(move || {
                let _slot = slot;
                let mut g = Self::checkout(&path, &idle)?;
                armed.arm(g.conn.get_interrupt_handle());
                let out = run::query(&mut g, &req, &limits);
                armed.disarm();
                idle.put(g);
                out
            });
            watch
                .finish(task, deadline, crate::slots::GRACE, || late)
                .await
        })
    }

    fn tables(&self) -> BoxFuture<'_, Result<Vec<TableSummary>>> {
        self.blocking(|g| introspect::tables(&g.conn))
    }

    fn describe<'a>(&'a self, name: &'a str) -> BoxFuture<'a, Result<TableDescription>> {
        let name = name.to_owned();
        self.blocking(move |g| introspect::describe(&g.conn, &name))
    }
}
