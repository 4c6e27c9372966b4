//! The embedded engine: one SQLite file per tenant, opened read-only with `query_only`, an
//! authorizer that denies every write, ATTACH/DETACH, state-changing PRAGMAs and
//! `load_extension`. A query holds one of the shared query slots while it runs. It is first
//! tried quickly on the async worker that received it (`run::quick`: only on an open
//! connection with a free slot, only while it calls no function that may take long, for at
//! most `run::QUICK_STEPS` engine steps); otherwise it runs on tokio's blocking pool, where a
//! watchdog interrupts it at its deadline or as soon as its caller goes away, and the caller is
//! answered at the deadline even if the engine is still inside one long step (whose work
//! SQLite's length limits bound: see `run.rs`). A connection keeps one read transaction
//! across a burst of statements, for a few milliseconds at most (`reading.rs`).

mod guard;
mod introspect;
mod reading;
mod run;
mod tempspace;
mod watch;

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use pp_core::{Error, Kind, Result};
use rusqlite::{Connection, OpenFlags};
use tokio::sync::Semaphore;

use crate::engine::{BoxFuture, Engine, QueryRequest, QueryResult, TableDescription, TableSummary};
use crate::limits::Limits;

use guard::{Calls, Denial, OwnControl};
use reading::{HOLD, Pool};
use run::Quick;

/// Statements a connection remembers as calling a long function; past it the connection
/// forgets them and its prepared statements.
const MAX_LONG: usize = 1024;

/// A tenant warehouse in one SQLite file.
pub struct SqliteEngine {
    path: Arc<PathBuf>,
    idle: Arc<Pool>,
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
    pub calls: Calls,
    /// The statements in this connection's cache of prepared statements that call a long
    /// function (see `guard::Calls`).
    pub long: RefCell<HashSet<String>>,
    /// Set while a statement runs quickly: the progress handler then stops it at
    /// `run::QUICK_STEPS`.
    pub quick: Arc<AtomicBool>,
    /// When the read transaction the connection keeps was opened (`reading.rs`).
    pub reading_since: Option<Instant>,
    /// Lets the engine's own `BEGIN` and `COMMIT` past the authorizer.
    pub own_control: OwnControl,
}

impl Guarded {
    /// Records that `sql` calls a long function. Past [`MAX_LONG`] the record starts again
    /// empty, and so do the kept prepared statements, so every kept one is in the record.
    pub fn calls_long(&self, sql: &str) {
        let mut long = self.long.borrow_mut();
        if long.len() >= MAX_LONG {
            self.conn.flush_prepared_statement_cache();
            long.clear();
        }
        long.insert(sql.to_owned());
    }

    /// Opens a read transaction unless one under [`HOLD`] old is open (an older one is ended
    /// first, so no statement reads under a transaction past its age, however late the sweep).
    /// It takes the lock at its first read.
    pub fn begin_reading(&mut self) -> Result<()> {
        if !self.settle(false) {
            return Err(Error::internal(
                "a warehouse read transaction could not be ended",
            ));
        }
        if !self.conn.is_autocommit() {
            return Ok(());
        }
        self.own("BEGIN")
            .map_err(|e| Error::internal_with("warehouse read transaction", e))?;
        self.reading_since = Some(Instant::now());
        Ok(())
    }

    /// Ends the read transaction once it is [`HOLD`] old (or at once with `now`); whether the
    /// connection may be kept (it holds no transaction it could not end).
    pub fn settle(&mut self, now: bool) -> bool {
        if self.conn.is_autocommit() {
            // none open, or the engine ended it itself after an error
            self.reading_since = None;
            return true;
        }
        if !now && self.reading_since.is_some_and(|t| t.elapsed() < HOLD) {
            return true;
        }
        if let Err(e) = self.own("COMMIT") {
            tracing::warn!(error = %e, "ending a warehouse read transaction failed");
        }
        self.reading_since = None;
        self.conn.is_autocommit()
    }

    /// Whether the connection holds a read transaction.
    pub fn holds(&self) -> bool {
        self.reading_since.is_some()
    }

    /// Runs the engine's own transaction control, which the authorizer allows only here.
    fn own(&self, sql: &str) -> rusqlite::Result<()> {
        self.own_control.set(true);
        let out = self.conn.execute_batch(sql);
        self.own_control.set(false);
        out
    }
}

impl SqliteEngine {
    /// An engine over the file at `path` (opened lazily, read-only) whose queries run in
    /// `slots`.
    pub fn new(path: PathBuf, slots: Arc<Semaphore>) -> Self {
        Self {
            path: Arc::new(path),
            idle: Arc::new(Pool::default()),
            slots,
        }
    }

    /// `req`'s outcome if it ran quickly on this thread (`run::quick`), on a free slot and an
    /// open connection; `None` to run it on the pool.
    fn quick(&self, req: &QueryRequest, limits: &Limits) -> Option<Result<QueryResult>> {
        let _slot = self.slots.clone().try_acquire_owned().ok()?;
        let mut g = self.idle.take()?;
        let out = run::quick(&mut g, req, limits);
        self.idle.put(g);
        match out {
            Quick::Done(answer) => Some(answer),
            Quick::Elsewhere => None,
        }
    }

    fn checkout(path: &PathBuf, idle: &Pool) -> Result<Guarded> {
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
            .map_err(|e| Error::internal_with("warehouse setup", e))?;
        conn.busy_timeout(run::LOCK_WAIT)
            .map_err(|e| Error::internal_with("warehouse setup", e))?;
        let (denial, calls, own_control) = guard::install(&conn)?;
        let quick = Arc::new(AtomicBool::new(false));
        let stop = quick.clone();
        conn.progress_handler(run::QUICK_STEPS, Some(move || stop.load(Ordering::Acquire)))
            .map_err(|e| Error::internal_with("warehouse setup", e))?;
        Ok(Guarded {
            conn,
            denial,
            calls,
            long: RefCell::default(),
            quick,
            reading_since: None,
            own_control,
        })
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
            .map_err(|e| Error::internal_with("warehouse task", e))?
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
            if let Some(answer) = self.quick(&req, &limits) {
                return answer;
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::Params;

    fn req(sql: &str) -> QueryRequest {
        QueryRequest {
            sql: sql.into(),
            params: Params::None,
            timeout_ms: 5_000,
        }
    }

    #[tokio::test]
    async fn only_short_statements_without_long_functions_run_quickly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.sqlite");
        let conn = Connection::open(&path).unwrap();
        conn.execute_batch(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'one');",
        )
        .unwrap();
        drop(conn);
        let engine = SqliteEngine::new(path, Arc::new(Semaphore::new(2)));
        let limits = Limits::default();
        let lookup = req("SELECT name FROM t WHERE id = 1");
        // no open connection yet: the first query opens one on the pool
        assert!(engine.quick(&lookup, &limits).is_none());
        engine.query(lookup.clone(), &limits).await.unwrap();
        let quick = engine.quick(&lookup, &limits).unwrap().unwrap();
        assert_eq!(quick.rows[0]["name"], "one");
        let counted = req("SELECT count(*) AS n, max(name) AS m FROM t");
        assert!(
            engine.quick(&counted, &limits).is_some(),
            "cheap aggregates run quickly"
        );
        let long = req(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000) SELECT count(*) FROM c",
        );
        let like = req("SELECT name FROM t WHERE name LIKE '%n%'");
        for slow in [long, like] {
            assert!(engine.quick(&slow, &limits).is_none(), "{}", slow.sql);
            let full = engine.query(slow.clone(), &limits).await.unwrap();
            assert_eq!(full.rows.len(), 1, "{}", slow.sql);
        }
        // a prepared statement kept by the connection is known for its functions too
        let instr = req("SELECT instr(name, 'ne') AS at FROM t");
        engine.query(instr.clone(), &limits).await.unwrap();
        assert!(engine.quick(&instr, &limits).is_none());
    }

    fn warehouse(dir: &tempfile::TempDir, wal: bool) -> PathBuf {
        let path = dir.path().join("w.sqlite");
        let conn = Connection::open(&path).unwrap();
        if wal {
            conn.pragma_update(None, "journal_mode", "wal").unwrap();
        }
        conn.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY); INSERT INTO t VALUES (1);")
            .unwrap();
        path
    }

    async fn count(engine: &SqliteEngine) -> i64 {
        let r = engine
            .query(req("SELECT count(*) AS n FROM t"), &Limits::default())
            .await
            .unwrap();
        r.rows[0]["n"].as_i64().unwrap()
    }

    /// A writer in another connection, as an ETL job would be: waits up to `wait` for the lock.
    fn insert(path: &std::path::Path, id: i64, wait: Duration) -> rusqlite::Result<usize> {
        let w = Connection::open(path)?;
        w.busy_timeout(wait)?;
        w.execute("INSERT INTO t VALUES (?1)", [id])
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_writer_gets_in_while_queries_keep_coming_and_later_reads_see_its_row() {
        for wal in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let path = warehouse(&dir, wal);
            let engine = Arc::new(SqliteEngine::new(path.clone(), Arc::new(Semaphore::new(4))));
            let stop = Arc::new(AtomicBool::new(false));
            let readers: Vec<_> = (0..3)
                .map(|_| {
                    let (engine, stop) = (engine.clone(), stop.clone());
                    tokio::spawn(async move {
                        let mut n = 0u64;
                        while !stop.load(Ordering::Relaxed) {
                            count(&engine).await;
                            n += 1;
                            tokio::task::yield_now().await;
                        }
                        n
                    })
                })
                .collect();
            tokio::time::sleep(Duration::from_millis(50)).await;
            let written = tokio::task::spawn_blocking(move || {
                (2..=4)
                    .map(|id| insert(&path, id, Duration::from_secs(5)))
                    .collect::<Vec<_>>()
            })
            .await
            .unwrap();
            stop.store(true, Ordering::Relaxed);
            let mut reads = 0;
            for r in readers {
                reads += r.await.unwrap();
            }
            assert!(written.iter().all(Result::is_ok), "wal {wal}: {written:?}");
            assert!(reads > 0, "wal {wal}: the readers ran");
            // rollback journal: a writer commits only once no read holds the file, so every
            // read after it sees it; WAL: a read is at most reading::HOLD behind
            if wal {
                tokio::time::sleep(reading::HOLD * 2).await;
            }
            assert_eq!(count(&engine).await, 4, "wal {wal}");
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_idle_engine_lets_go_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = warehouse(&dir, false);
        let engine = SqliteEngine::new(path.clone(), Arc::new(Semaphore::new(2)));
        assert_eq!(count(&engine).await, 1);
        assert_eq!(
            count(&engine).await,
            1,
            "a second read, quick, on the kept connection"
        );
        // a writer that will not wait at all gets the file soon after the reads stop
        let mut tries = 0;
        while insert(&path, 2, Duration::ZERO).is_err() {
            tries += 1;
            assert!(
                tries < 200,
                "the idle engine still holds the file after 2 s"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(count(&engine).await, 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_quick_run_never_waits_for_a_writers_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = warehouse(&dir, false);
        let engine = SqliteEngine::new(path.clone(), Arc::new(Semaphore::new(2)));
        let lookup = req("SELECT count(*) AS n FROM t");
        assert_eq!(count(&engine).await, 1, "a connection is open");
        let writer = Connection::open(&path).unwrap();
        writer.busy_timeout(Duration::from_secs(5)).unwrap();
        // it gets the file once the engine's sweep ends the idle connection's read
        writer.execute_batch("BEGIN EXCLUSIVE").unwrap();
        // on an async worker, waiting for the lock would stall every task the worker runs
        let asked = std::time::Instant::now();
        assert!(
            engine.quick(&lookup, &Limits::default()).is_none(),
            "a locked file sends the statement to the pool"
        );
        assert!(
            asked.elapsed() < run::LOCK_WAIT / 2,
            "the quick run waited for the lock"
        );
        writer
            .execute_batch("INSERT INTO t VALUES (2); COMMIT")
            .unwrap();
        assert_eq!(count(&engine).await, 2);
    }

    #[tokio::test]
    async fn a_writer_in_this_process_that_blocks_the_runtime_still_gets_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = warehouse(&dir, false);
        let engine = SqliteEngine::new(path.clone(), Arc::new(Semaphore::new(2)));
        assert_eq!(count(&engine).await, 1);
        // the runtime's one thread waits here, so nothing it would run can end the read
        insert(&path, 2, Duration::from_secs(2)).expect("the writer got the file");
        assert_eq!(count(&engine).await, 2);
    }

    #[test]
    fn a_read_transaction_is_never_used_past_its_age() {
        let dir = tempfile::tempdir().unwrap();
        // WAL: the writer does not wait for the reader, so a kept transaction would read stale
        let path = warehouse(&dir, true);
        let pool = Pool::default();
        // held here, out of the pool: no sweep can end its transaction, only its next statement
        let mut g = SqliteEngine::checkout(&path, &pool).unwrap();
        let lookup = req("SELECT count(*) AS n FROM t");
        let mut n = || {
            let r = run::query(&mut g, &lookup, &Limits::default()).unwrap();
            r.rows[0]["n"].as_i64().unwrap()
        };
        assert_eq!(n(), 1);
        insert(&path, 2, Duration::from_secs(1)).unwrap();
        std::thread::sleep(reading::HOLD);
        assert_eq!(n(), 2, "a statement after HOLD reads the file as it is");
    }
}
