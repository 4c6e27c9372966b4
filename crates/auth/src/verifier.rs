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
//! Entries are found by a token's fingerprint: SipHash-2-4 (128 bits) under a key drawn when
//! the verifier starts and kept nowhere else. It costs a tenth of the SHA-256 the store keys
//! tokens by, and the memory holds neither a token nor the store's form of one; without the
//! key no token can be made to share another's fingerprint.
//!
//! The same read keeps the session epoch (moved whenever an MCP session ends), which the MCP
//! server's memory of live sessions trusts the same way: one watch per instance for both.

use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use pp_core::{Epoch, Principal, Remembered, Result};
use pp_store::{Epochs, Store, now_unix};
use siphasher::sip128::SipHasher24;

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
    /// The fingerprint's key, drawn at start.
    fingerprint: SipHasher24,
    epoch: Epoch,
    /// The session epoch as last read.
    sessions: Epoch,
    /// Verified tokens by their fingerprint.
    entries: Remembered<u128, Entry>,
    /// Tenants' names by id (a renamed or removed tenant moves the epoch too).
    names: Remembered<String, Option<String>>,
}

impl Inner {
    /// `token`'s fingerprint (see the module's doc).
    fn fingerprint(&self, token: &str) -> u128 {
        self.fingerprint.hash(token.as_bytes()).as_u128()
    }

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
            fingerprint: SipHasher24::new_with_key(&pp_store::random_bytes()?),
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
        let key = self.0.fingerprint(token);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SecretKey, authenticate_client, create_credential, mint_token};
    use pp_core::TenantId;

    /// A token minted for a new credential of `tenant` (made first).
    async fn token_of(store: &Store, tenant: &str) -> String {
        let t = TenantId::parse(tenant).unwrap();
        store
            .tenants()
            .create(&t, tenant, "sqlite:/dev/null")
            .await
            .unwrap();
        let c = create_credential(store, &t, None, "etl").await.unwrap();
        let key = SecretKey::of(store).await.unwrap();
        let row = authenticate_client(store, &key, &c.row.client_id, &c.client_secret)
            .await
            .unwrap();
        mint_token(store, &row, None).await.unwrap().access_token
    }

    /// Remembered tokens are found by their own fingerprint only: each answers its own
    /// principal, and a token one character away from a remembered one is unknown.
    #[tokio::test]
    async fn a_remembered_token_answers_for_itself_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let (a, b) = (
            token_of(&store, "acme").await,
            token_of(&store, "bolt").await,
        );
        let v = Verifier::new(store).await.unwrap();
        for _ in 0..2 {
            let tenant = async |t: &str| v.verify(t).await.unwrap().unwrap().tenant.to_string();
            assert_eq!(
                (tenant(&a).await, tenant(&b).await),
                ("acme".into(), "bolt".into())
            );
        }
        let mut near = a.clone();
        let last = near.pop().unwrap();
        near.push(if last == 'A' { 'B' } else { 'A' });
        assert!(v.verify(&near).await.unwrap().is_none());
        assert_ne!(v.0.fingerprint(&a), v.0.fingerprint(&near));
    }
}
