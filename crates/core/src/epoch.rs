//! An epoch: a shared counter, read from the state store, that moves whenever stored rows a
//! cache depends on change (the auth epoch moves with credentials, tokens, people, applications
//! and tenants). A cache entry made at epoch `e` is trusted only while the epoch still reads
//! `e`; [`Epoch::UNKNOWN`] is set while the store cannot be read, and no entry is made at it.
//! [`Remembered`] is such a cache.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

/// One epoch, shared by whoever reads it (cloning shares the same counter).
#[derive(Clone, Debug)]
pub struct Epoch(Arc<AtomicI64>);

impl Epoch {
    /// The value while the store cannot be read: nothing remembered is trusted.
    pub const UNKNOWN: i64 = -1;

    /// An epoch at `value`.
    pub fn new(value: i64) -> Self {
        Self(Arc::new(AtomicI64::new(value)))
    }

    /// The epoch as last read.
    pub fn get(&self) -> i64 {
        self.0.load(Ordering::Acquire)
    }

    /// Takes `value` as the epoch, answering the one it replaces.
    pub fn set(&self, value: i64) -> i64 {
        self.0.swap(value, Ordering::AcqRel)
    }

    /// Whether an entry made at `seen` is still trusted.
    pub fn trusts(&self, seen: i64) -> bool {
        seen != Self::UNKNOWN && seen == self.get()
    }
}

/// Values remembered while an epoch stands still: each entry keeps the epoch read before the
/// store was asked for it ([`Remembered::now`]), and is answered only while the epoch still
/// reads that. At most `max` entries; past it the memory starts again empty.
pub struct Remembered<K, V> {
    epoch: Epoch,
    max: usize,
    entries: Mutex<HashMap<K, (i64, V)>>,
}

impl<K: Eq + Hash, V: Clone> Remembered<K, V> {
    /// An empty memory trusting `epoch`, of at most `max` entries.
    pub fn new(epoch: Epoch, max: usize) -> Self {
        Self {
            epoch,
            max,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, (i64, V)>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The epoch to read before asking the store, and to [`keep`](Self::keep) the answer at:
    /// a change after that read makes the entry stale.
    pub fn now(&self) -> i64 {
        self.epoch.get()
    }

    /// The value kept for `key`, if it is still trusted.
    pub fn get<Q>(&self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        let entries = self.lock();
        let (seen, value) = entries.get(key)?;
        self.epoch.trusts(*seen).then(|| value.clone())
    }

    /// Keeps `value` for `key` as read at epoch `seen` (nothing is kept at an unknown epoch).
    pub fn keep(&self, key: K, seen: i64, value: V) {
        if seen == Epoch::UNKNOWN {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.max {
            entries.clear();
        }
        entries.insert(key, (seen, value));
    }

    /// Forgets `key`.
    pub fn forget<Q>(&self, key: &Q)
    where
        K: Borrow<Q>,
        Q: Eq + Hash + ?Sized,
    {
        self.lock().remove(key);
    }

    /// Forgets everything (the epoch moved: nothing kept is trusted any more).
    pub fn clear(&self) {
        self.lock().clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_trusted_only_at_the_epoch_it_was_read_at() {
        let epoch = Epoch::new(3);
        let m: Remembered<String, u32> = Remembered::new(epoch.clone(), 2);
        let seen = m.now();
        m.keep("a".into(), seen, 1);
        assert_eq!(m.get("a"), Some(1));
        epoch.set(4);
        assert_eq!(m.get("a"), None, "the epoch moved");
        m.keep("b".into(), Epoch::UNKNOWN, 2);
        assert_eq!(m.get("b"), None, "nothing is kept at an unknown epoch");
        for (k, v) in [("c", 3), ("d", 4), ("e", 5)] {
            m.keep(k.into(), 4, v);
        }
        assert_eq!(
            (m.get("c"), m.get("e")),
            (None, Some(5)),
            "past max it starts again"
        );
        epoch.set(Epoch::UNKNOWN);
        assert_eq!(m.get("e"), None, "an unknown epoch trusts nothing");
    }
}
