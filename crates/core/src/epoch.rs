//! An epoch: a shared counter, read from the state store, that moves whenever stored rows a
//! cache depends on change (the auth epoch moves with credentials, tokens, people, applications
//! and tenants). A cache entry made at epoch `e` is trusted only while the epoch still reads
//! `e`; [`Epoch::UNKNOWN`] is set while the store cannot be read, and no entry is made at it.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

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
