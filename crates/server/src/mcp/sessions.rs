//! Session-era MCP sessions. Streamable HTTP sessions live in the state store
//! (`pp_store::mcp_sessions`), so a client whose requests a load balancer spreads over several
//! instances keeps one session. A legacy HTTP+SSE session is its open event stream, which
//! lives in one process: it is held here, in memory, and the balancer must send a session's
//! POSTs to the instance holding its stream (docs/deployment.md). A client that comes back with
//! a forgotten id is answered 404 so it starts a new session. Each session is bound to the
//! credential that opened it, and both tables are bounded per credential (its own least
//! recently used session makes room), per tenant and in all.
//!
//! Each instance remembers the Streamable HTTP sessions it saw live for a few seconds, so a
//! busy session's calls read memory rather than the store. What it remembers is trusted only
//! while the store's session epoch (moved by every session that ends, on any instance) stands
//! still; the bearer check's verifier reads it with the auth epoch every
//! `pp_auth::verifier::WATCH`, and `DELETE /mcp` waits `SETTLE` before it answers when it ended
//! a session, so no instance serves a session once its end is answered.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pp_core::Remembered;
use pp_store::Store;
use pp_store::mcp_sessions::{Opened, SessionCaps};
use tokio::sync::mpsc;

/// How many sessions a table holds at most.
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub per_credential: usize,
    pub per_tenant: usize,
    pub total: usize,
}

/// Why a session was not opened.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The tenant holds its most sessions, none of them this credential's.
    TenantFull,
    /// The whole table is full of sessions in use.
    TableFull,
    /// The state store did not answer.
    Unavailable,
}

/// Streamable HTTP sessions, in the state store.
pub struct Shared {
    store: Store,
    caps: SessionCaps,
    verifier: pp_auth::Verifier,
    /// The sessions this instance saw live, each under the session epoch it was seen at.
    memory: Remembered<String, Seen>,
}

/// How long a session seen live is trusted from memory before the store is asked again (it
/// also keeps the session's last use fresh in the store while it is busy).
const RECHECK: Duration = Duration::from_secs(15);

/// A session seen live.
#[derive(Clone)]
struct Seen {
    credential_id: String,
    version: &'static str,
    at: Instant,
}

impl Shared {
    /// Sessions in `store` within `caps`; sessions unused for `idle` go. `verifier` keeps
    /// the session epoch current.
    pub fn new(store: Store, caps: Caps, idle: Duration, verifier: pp_auth::Verifier) -> Self {
        let caps = SessionCaps {
            per_credential: caps.per_credential as i64,
            per_tenant: caps.per_tenant as i64,
            total: caps.total as i64,
            idle_ms: idle.as_millis() as i64,
        };
        Self {
            store,
            memory: Remembered::new(verifier.session_epoch(), caps.total as usize),
            caps,
            verifier,
        }
    }

    /// Opens a session of `credential_id` (of `tenant`) that agreed `version`; its id.
    pub async fn open(
        &self,
        credential_id: &str,
        tenant: &str,
        version: &'static str,
    ) -> Result<String, Refusal> {
        let opened = self
            .store
            .mcp_sessions()
            .open(credential_id, tenant, version, self.caps)
            .await;
        if matches!(opened, Ok(Opened::Id(_))) {
            // opening may have made room by ending this credential's oldest session
            let _ = self.verifier.refresh().await;
        }
        match opened {
            Ok(Opened::Id(id)) => Ok(id),
            Ok(Opened::TenantFull) => Err(Refusal::TenantFull),
            Ok(Opened::TableFull) => Err(Refusal::TableFull),
            Err(e) => {
                tracing::error!(error = %e, "opening an MCP session failed");
                Err(Refusal::Unavailable)
            }
        }
    }

    /// How many sessions are live, every instance's.
    pub async fn live(&self) -> pp_core::Result<i64> {
        self.store.mcp_sessions().live(self.caps.idle_ms).await
    }

    /// The protocol version of live session `id` of `credential_id`, marked as used: from
    /// memory when it was seen live lately and no session ended since, else from the store.
    pub async fn touch(&self, id: &str, credential_id: &str) -> Option<&'static str> {
        let epoch = self.memory.now();
        if let Some(s) = self.memory.get(id)
            && s.at.elapsed() < RECHECK
            && s.credential_id == credential_id
        {
            return Some(s.version);
        }
        let found = self
            .store
            .mcp_sessions()
            .touch(id, credential_id, self.caps.idle_ms)
            .await;
        let version = match found {
            Ok(v) => v.and_then(|v| super::versions::HANDSHAKE.iter().copied().find(|h| *h == v)),
            Err(e) => {
                tracing::error!(error = %e, "reading an MCP session failed");
                None
            }
        };
        match version {
            Some(version) => {
                let s = Seen {
                    credential_id: credential_id.to_owned(),
                    version,
                    at: Instant::now(),
                };
                self.memory.keep(id.to_owned(), epoch, s);
            }
            None => self.memory.forget(id),
        }
        version
    }

    /// Ends session `id` of `credential_id`; whether there was one. When it ended one, it
    /// answers only once every instance has read the session epoch since.
    pub async fn close(&self, id: &str, credential_id: &str) -> bool {
        let closed = self
            .store
            .mcp_sessions()
            .close(id, credential_id)
            .await
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "closing an MCP session failed");
                false
            });
        self.memory.forget(id);
        if closed {
            let _ = self.verifier.refresh().await;
            tokio::time::sleep(pp_auth::verifier::SETTLE).await;
        }
        closed
    }
}

struct Session {
    credential_id: String,
    tenant: String,
    version: &'static str,
    channel: mpsc::Sender<String>,
    last_seen: Instant,
}

/// What a message on a live SSE session needs.
pub struct Live {
    pub version: &'static str,
    pub channel: mpsc::Sender<String>,
}

/// Legacy HTTP+SSE sessions of this process.
pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    caps: Caps,
}

impl Sessions {
    /// A table within `caps`.
    pub fn new(caps: Caps) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            caps,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a session for `credential_id` of `tenant`. At the credential's cap its own least
    /// recently used session is closed to make room; at the tenant's cap the same, or a
    /// refusal when the credential holds none.
    pub fn open(
        &self,
        credential_id: &str,
        tenant: &str,
        version: &'static str,
        channel: mpsc::Sender<String>,
    ) -> Result<String, Refusal> {
        let mut map = self.lock();
        let count = |map: &HashMap<String, Session>, f: &dyn Fn(&Session) -> bool| {
            map.values().filter(|s| f(s)).count()
        };
        let mine = |s: &Session| s.credential_id == credential_id;
        if count(&map, &mine) >= self.caps.per_credential.max(1) {
            evict_oldest(&mut map, &mine);
        }
        if count(&map, &|s| s.tenant == tenant) >= self.caps.per_tenant.max(1)
            && !evict_oldest(&mut map, &mine)
        {
            return Err(Refusal::TenantFull);
        }
        if map.len() >= self.caps.total {
            return Err(Refusal::TableFull);
        }
        let id = hex::encode(pp_store::random_bytes::<16>().map_err(|_| Refusal::TableFull)?);
        map.insert(
            id.clone(),
            Session {
                credential_id: credential_id.to_owned(),
                tenant: tenant.to_owned(),
                version,
                channel,
                last_seen: Instant::now(),
            },
        );
        Ok(id)
    }

    /// The live session `id` of `credential_id`, marked as just used.
    pub fn touch(&self, id: &str, credential_id: &str) -> Option<Live> {
        let mut map = self.lock();
        let s = map
            .get_mut(id)
            .filter(|s| s.credential_id == credential_id)?;
        s.last_seen = Instant::now();
        Some(Live {
            version: s.version,
            channel: s.channel.clone(),
        })
    }

    /// Records the revision a session agreed in `initialize`.
    pub fn set_version(&self, id: &str, version: &'static str) {
        if let Some(s) = self.lock().get_mut(id) {
            s.version = version;
        }
    }

    /// Drops session `id` whoever owns it (its event stream ended).
    pub fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    /// How many sessions are open.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Closes the least recently used session matching `which`; whether there was one.
fn evict_oldest(map: &mut HashMap<String, Session>, which: &dyn Fn(&Session) -> bool) -> bool {
    let oldest = map
        .iter()
        .filter(|(_, s)| which(s))
        .min_by_key(|(_, s)| s.last_seen)
        .map(|(id, _)| id.clone());
    oldest.is_some_and(|id| map.remove(&id).is_some())
}

/// Removes an SSE session when its stream is dropped (the client went away).
pub struct Forget {
    pub sessions: Arc<Sessions>,
    pub id: String,
}

impl Drop for Forget {
    fn drop(&mut self) {
        self.sessions.forget(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_credential_at_its_cap_replaces_its_own_oldest_session() {
        let caps = Caps {
            per_credential: 2,
            per_tenant: 3,
            total: 5,
        };
        let s = Sessions::new(caps);
        let (tx, _rx) = mpsc::channel(1);
        let open = |c: &str, t: &str| s.open(c, t, "2024-11-05", tx.clone());
        let first = open("a", "t").unwrap();
        let second = open("a", "t").unwrap();
        assert!(
            s.touch(&first, "b").is_none(),
            "another credential never reaches it"
        );
        s.touch(&first, "a").unwrap();
        let third = open("a", "t").unwrap();
        assert!(
            s.touch(&second, "a").is_none(),
            "the least recently used went"
        );
        assert!(s.touch(&first, "a").is_some() && s.touch(&third, "a").is_some());
        // The tenant is at 3 with b's one: a new credential of the tenant is refused…
        open("b", "t").unwrap();
        assert_eq!(open("c", "t"), Err(Refusal::TenantFull));
        // …and another tenant is not affected, until the table is full.
        assert!(open("d", "u").is_ok());
        assert!(open("e", "v").is_ok());
        assert_eq!(open("f", "w"), Err(Refusal::TableFull));
        s.forget(&first);
        assert_eq!(s.len(), 4);
    }
}
