//! Open sessions (SQLite connections, server sessions) waiting for an engine's next query:
//! at most a few are kept per engine, and at most [`MAX_IDLE_ALL`] in the whole process, the
//! rest are closed when their query ends. A gateway serving hundreds of tenants would
//! otherwise keep a few sessions open to each of their warehouses (seen at 100 tenants on
//! PostgreSQL warehouses: the server's 100 connections spent in a minute).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Most sessions an engine keeps open while idle.
const MAX_IDLE: usize = 4;

/// Most sessions every engine of the process keeps open while idle, together.
pub const MAX_IDLE_ALL: usize = 16;

/// The idle sessions the process keeps now, over every engine.
static KEPT: AtomicUsize = AtomicUsize::new(0);

/// An engine's idle sessions, counted in `kept` (the process's count, but in tests).
pub(crate) struct Idle<C> {
    sessions: Mutex<Vec<C>>,
    kept: &'static AtomicUsize,
}

impl<C> Default for Idle<C> {
    fn default() -> Self {
        Self {
            sessions: Mutex::new(Vec::new()),
            kept: &KEPT,
        }
    }
}

impl<C> Idle<C> {
    /// A session to reuse, if one waits.
    pub fn take(&self) -> Option<C> {
        let c = self.sessions.lock().ok()?.pop()?;
        self.kept.fetch_sub(1, Ordering::Relaxed);
        Some(c)
    }

    /// Keeps only the sessions for which `keep` (which may change them) says so.
    pub fn retain(&self, mut keep: impl FnMut(&mut C) -> bool) {
        if let Ok(mut v) = self.sessions.lock() {
            let before = v.len();
            v.retain_mut(|c| keep(c));
            self.kept.fetch_sub(before - v.len(), Ordering::Relaxed);
        }
    }

    /// Whether any waiting session is `such`.
    pub fn any(&self, such: impl Fn(&C) -> bool) -> bool {
        self.sessions.lock().is_ok_and(|v| v.iter().any(such))
    }

    /// Keeps `c` for the next query, unless enough wait already (here, or in the process);
    /// else it is dropped, which closes it.
    pub fn put(&self, c: C) {
        if let Ok(mut v) = self.sessions.lock()
            && v.len() < MAX_IDLE
            && self
                .kept
                .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                    (n < MAX_IDLE_ALL).then_some(n + 1)
                })
                .is_ok()
        {
            v.push(c);
        }
    }
}

impl<C> Drop for Idle<C> {
    fn drop(&mut self) {
        if let Ok(v) = self.sessions.get_mut() {
            self.kept.fetch_sub(v.len(), Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_keeps_at_most_its_share_of_idle_sessions() {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let idle = || Idle {
            sessions: Mutex::new(Vec::new()),
            kept: &COUNT,
        };
        let len = |e: &Idle<u32>| e.sessions.lock().unwrap().len();
        let engines: Vec<Idle<u32>> = (0..MAX_IDLE_ALL).map(|_| idle()).collect();
        // each engine keeps two, until the process holds its most: half the engines
        for e in &engines {
            e.put(1);
            e.put(2);
        }
        let kept: usize = engines.iter().map(len).sum();
        assert_eq!(kept, MAX_IDLE_ALL);
        assert_eq!(len(&engines[MAX_IDLE_ALL - 1]), 0);
        // a session taken makes room for another, anywhere; one dropped with its engine too
        let other = idle();
        other.put(3);
        assert_eq!(len(&other), 0);
        engines[0].take().unwrap();
        other.put(3);
        assert_eq!(len(&other), 1);
        drop(engines);
        assert_eq!(COUNT.load(Ordering::Relaxed), 1);
    }
}
