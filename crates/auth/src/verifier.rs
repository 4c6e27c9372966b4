//! Verified bearer tokens, remembered, so the bearer check on the hot path reads memory, not
//! the store. An entry is trusted only while the store's auth epoch has not moved since it
//! was made: the epoch moves, in the same transaction, with every change that may end a
//! token (a revocation, a rotation, a disabled person or application, a deleted token —
//! migration 16's triggers). The epoch is read again every [`WATCH`] in the background, which
//! is how another instance's revocation arrives, and at once by [`Verifier::settle`], which the
//! server calls after every request that may have changed credentials: it reads the epoch, and
//! when it moved waits [`SETTLE`] before the answer leaves, so the change holds on this
//! instance and every other one before the caller hears back. An entry
//! never outlives its token, nor [`MAX_AGE`]. Unknown tokens are not remembered.
//!
//! The same read keeps the session epoch (moved whenever an MCP session ends), which the MCP
//! server's memory of live sessions trusts the same way: one watch per instance for both.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use pp_core::{Epoch, Principal, Remembered, Result};
use pp_store::{Epochs, Store, now_unix};

use crate::secret::token_hash;
use crate::tokens::live_grant;

/// How often every instance reads the epoch (another instance's change arrives within it).
pub const WATCH: Duration = Duration::from_millis(100);
/// How long a change made here waits before its caller hears back: every instance watching
/// at [`WATCH`] has read the epoch since.
pub const SETTLE: Duration = Duration::from_millis(150);
/// The longest an entry is trusted without the store being asked again.
pub const MAX_AGE: Duration = Duration::from_secs(60);
/// Entries kept at most; past it the table starts again empty.
const MAX_ENTRIES: usize = 100_000;

#[derive(Clone)]
struct Entry {
    principal: Principal,
    until: Instant,
}

struct Inner {
    store: Store,
    epoch: Epoch,
    /// The session epoch as last read.
    sessions: Epoch,
    /// Verified tokens by their hash.
    entries: Remembered<[u8; 32], Entry>,
    /// Tenants' names by id (a renamed or removed tenant moves the epoch too).
    names: Remembered<String, Option<String>>,
}

impl Inner {
    /// Takes `e` as the store's epochs; a moved auth epoch forgets every entry.
    fn saw(&self, e: Epochs) {
        self.sessions.set(e.sessions);
        if self.epoch.set(e.auth) != e.auth {
            self.forget();
        }
    }

    /// Forgets every token and name.
    fn forget(&self) {
        self.entries.clear();
        self.names.clear();
    }

    /// The store could not be read: nothing remembered is trusted (an unknown epoch matches
    /// no memory).
    fn distrust(&self) {
        self.epoch.set(Epoch::UNKNOWN);
        self.forget();
        self.sessions.set(Epoch::UNKNOWN);
    }
}

/// The bearer check with its memory.
#[derive(Clone)]
pub struct Verifier(Arc<Inner>);

impl Verifier {
    /// A verifier over `store`, at the store's current epoch.
    pub async fn new(store: Store) -> Result<Self> {
        let e = store.tokens().epochs().await?;
        let epoch = Epoch::new(e.auth);
        Ok(Self(Arc::new(Inner {
            store,
            entries: Remembered::new(epoch.clone(), MAX_ENTRIES),
            names: Remembered::new(epoch.clone(), MAX_ENTRIES),
            epoch,
            sessions: Epoch::new(e.sessions),
        })))
    }

    /// The auth epoch as this instance last read it.
    pub fn epoch(&self) -> i64 {
        self.0.epoch.get()
    }

    /// The auth epoch itself, for other memories that must forget what a change to
    /// credentials, people, applications or tenants may have ended (the warehouses' memory
    /// of which engine serves a tenant).
    pub fn auth_epoch(&self) -> Epoch {
        self.0.epoch.clone()
    }

    /// The session epoch, for the MCP server's memory of live sessions.
    pub fn session_epoch(&self) -> Epoch {
        self.0.sessions.clone()
    }

    /// Reads the epoch every `every` while the verifier lives (other instances' changes).
    pub fn watch(&self, every: Duration) {
        let weak: Weak<Inner> = Arc::downgrade(&self.0);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let Some(inner) = weak.upgrade() else { return };
                match inner.store.tokens().epochs().await {
                    Ok(e) => inner.saw(e),
                    Err(e) => {
                        // nothing can be trusted that the store cannot confirm
                        tracing::warn!(error = %e, "reading the auth epoch failed");
                        inner.distrust();
                    }
                }
            }
        });
    }

    /// Reads the epoch now: what this instance just changed holds from here on.
    pub async fn refresh(&self) -> Result<()> {
        let read = self.0.store.tokens().epochs().await;
        match &read {
            Ok(e) => self.0.saw(*e),
            Err(_) => self.0.distrust(),
        }
        read.map(|_| ())
    }

    /// Reads the epoch now; when it moved since `before`, waits [`SETTLE`], so what this
    /// instance just changed holds on every instance before the caller hears back.
    pub async fn settle(&self, before: i64) -> Result<()> {
        self.refresh().await?;
        if self.epoch() != before {
            tokio::time::sleep(SETTLE).await;
        }
        Ok(())
    }

    /// The display name of tenant `id` (none when it has no row), remembered like tokens.
    pub async fn tenant_name(&self, id: &pp_core::TenantId) -> Result<Option<String>> {
        let names = &self.0.names;
        let seen = names.now();
        if let Some(name) = names.get(id.as_str()) {
            return Ok(name);
        }
        let name = self.0.store.tenants().get(id).await?.map(|t| t.name);
        names.keep(id.as_str().to_owned(), seen, name.clone());
        Ok(name)
    }

    /// The principal of a live bearer token; `None` when it is unknown, expired or revoked.
    pub async fn verify(&self, token: &str) -> Result<Option<Principal>> {
        let key = token_hash(token);
        let entries = &self.0.entries;
        let seen = entries.now();
        let now = Instant::now();
        if let Some(e) = entries.get(&key)
            && now < e.until
        {
            return Ok(Some(e.principal));
        }
        let Some((principal, expires_at)) = live_grant(&self.0.store, token).await? else {
            return Ok(None);
        };
        let left = Duration::from_secs((expires_at - now_unix()).max(0) as u64);
        let until = now + left.min(MAX_AGE);
        entries.keep(
            key,
            seen,
            Entry {
                principal: principal.clone(),
                until,
            },
        );
        Ok(Some(principal))
    }
}
