//! Open sessions (SQLite connections, server sessions) waiting for an engine's next query:
//! at most a few are kept, the rest are closed when their query ends.

use std::sync::Mutex;

/// Most sessions an engine keeps open while idle.
const MAX_IDLE: usize = 4;

/// An engine's idle sessions.
pub(crate) struct Idle<C>(Mutex<Vec<C>>);

impl<C> Default for Idle<C> {
    fn default() -> Self {
        Self(Mutex::new(Vec::new()))
    }
}

impl<C> Idle<C> {
    /// A session to reuse, if one waits.
    pub fn take(&self) -> Option<C> {
        self.0.lock().ok()?.pop()
    }

    /// Keeps only the sessions for which `keep` (which may change them) says so.
    pub fn retain(&self, keep: impl FnMut(&mut C) -> bool) {
        if let Ok(mut v) = self.0.lock() {
            v.retain_mut(keep);
        }
    }

    /// Whether any waiting session is `such`.
    pub fn any(&self, such: impl Fn(&C) -> bool) -> bool {
        self.0.lock().is_ok_and(|v| v.iter().any(such))
    }

    /// Keeps `c` for the next query, unless enough wait already.
    pub fn put(&self, c: C) {
        if let Ok(mut v) = self.0.lock()
            && v.len() < MAX_IDLE
        {
            v.push(c);
        }
    }
}
