//! The read transaction a connection keeps across a burst of statements (its methods are
//! `Guarded`'s, in `mod.rs`), and the pool of idle connections that ends it in time.
//!
//! A statement run in autocommit mode takes the file's shared lock and drops it again: two
//! `fcntl` calls, the checks for a hot journal and a WAL file, and a per-file mutex that two
//! workers answering queries at once then wait on. A connection instead opens one read
//! transaction and keeps it for at most [`HOLD`], so one lock serves every statement of that
//! time. A writer in another process waits about `HOLD` longer at most (it needs a busy
//! timeout, as every writer of a shared SQLite file does). In rollback-journal mode no read
//! can be stale: a writer commits only once no reader holds the lock. In WAL mode a read sees
//! the file as it was at most `HOLD` (plus its own run) ago.
//!
//! The connection that ran a statement ends its transaction when it is `HOLD` old; one an idle
//! connection still holds is ended by the sweeper, one thread for the process that wakes only
//! while some idle connection holds one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, LazyLock, Mutex, Weak};
use std::time::Duration;

use super::Guarded;
use crate::idle::Idle;

/// Longest a connection keeps one read transaction.
pub const HOLD: Duration = Duration::from_millis(5);

/// An engine's idle connections, with the sweep that ends their read transactions.
#[derive(Default)]
pub(crate) struct Pool {
    idle: Idle<Guarded>,
    /// Whether the sweeper has this pool on its list.
    swept: AtomicBool,
}

impl Pool {
    /// A connection to reuse, if one waits.
    pub fn take(&self) -> Option<Guarded> {
        self.idle.take()
    }

    /// Keeps `g` for the next statement, its read transaction ended if it is old (or now, if
    /// no sweeper could be started).
    pub fn put(self: &Arc<Self>, mut g: Guarded) {
        let sweeper = SWEEPER.as_ref();
        if !g.settle(sweeper.is_none()) {
            return;
        }
        let holds = g.holds();
        self.idle.put(g);
        if let Some(sweeper) = sweeper
            && holds
            && !self.swept.swap(true, Ordering::AcqRel)
        {
            sweeper.add(Arc::downgrade(self));
        }
    }

    /// Ends the idle connections' read transactions that came of age; whether the sweeper
    /// should keep this pool on its list.
    fn sweep(&self) -> bool {
        self.idle.retain(|g| g.settle(false));
        if self.idle.any(Guarded::holds) {
            return true;
        }
        self.swept.store(false, Ordering::Release);
        // a connection put back since the check saw the pool listed and left it to us
        self.idle.any(Guarded::holds) && !self.swept.swap(true, Ordering::AcqRel)
    }
}

/// The one thread that ends idle connections' read transactions for every engine of the
/// process, waking every [`HOLD`] while some pool is listed. A thread rather than a task: a
/// writer in this process that waits for the file on a runtime thread must not wait for a
/// task that thread would have run.
struct Sweeper {
    pools: Mutex<Vec<Weak<Pool>>>,
    listed: Condvar,
}

static SWEEPER: LazyLock<Option<Arc<Sweeper>>> = LazyLock::new(|| {
    let sweeper = Arc::new(Sweeper {
        pools: Mutex::new(Vec::new()),
        listed: Condvar::new(),
    });
    let runs = sweeper.clone();
    match std::thread::Builder::new()
        .name("warehouse-sweep".into())
        .spawn(move || runs.run())
    {
        Ok(_) => Some(sweeper),
        Err(e) => {
            tracing::error!(error = %e, "no warehouse sweep thread: read transactions end after each statement");
            None
        }
    }
});

impl Sweeper {
    fn add(&self, pool: Weak<Pool>) {
        if let Ok(mut pools) = self.pools.lock() {
            pools.push(pool);
            self.listed.notify_one();
        }
    }

    fn run(&self) {
        loop {
            let Ok(mut pools) = self.pools.lock() else {
                return;
            };
            while pools.is_empty() {
                pools = match self.listed.wait(pools) {
                    Ok(p) => p,
                    Err(_) => return,
                };
            }
            drop(pools);
            std::thread::sleep(HOLD);
            let Ok(mut pools) = self.pools.lock() else {
                return;
            };
            pools.retain(|p| p.upgrade().is_some_and(|p| p.sweep()));
        }
    }
}
