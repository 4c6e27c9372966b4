//! Session-era MCP sessions, held in memory: a gateway restart forgets them, and a client that
//! comes back with a forgotten id is answered 404 so it starts a new one. Each session is bound
//! to the credential that opened it; another credential's token never reaches it. The table
//! is bounded per credential (a credential's own least recently used session makes room for
//! its new one), per tenant and in all, so no credential can crowd out another tenant.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

/// How a session's answers travel.
#[derive(Clone)]
pub enum Channel {
    /// Streamable HTTP: each POST carries its own answer.
    Streamable,
    /// Legacy HTTP+SSE: answers go down the session's event stream.
    Sse(mpsc::Sender<String>),
}

struct Session {
    credential_id: String,
    tenant: String,
    version: &'static str,
    channel: Channel,
    last_seen: Instant,
}

/// What a request on a live session needs.
pub struct Live {
    pub version: &'static str,
    pub channel: Channel,
}

/// How many sessions the table holds at most.
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
}

/// The table of open sessions.
pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    caps: Caps,
    idle: Duration,
}

impl Sessions {
    /// A table within `caps`; Streamable HTTP sessions unused for `idle` go.
    pub fn new(caps: Caps, idle: Duration) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            caps,
            idle,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a session for `credential_id` of `tenant`. At the credential's cap its own least
    /// recently used session is closed to make room; at the tenant's cap the same, or a
    /// refusal when the credential holds none; a full table first drops idle sessions.
    pub fn open(
        &self,
        credential_id: &str,
        tenant: &str,
        version: &'static str,
        channel: Channel,
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
            let idle = self.idle;
            map.retain(|_, s| matches!(s.channel, Channel::Sse(_)) || s.last_seen.elapsed() < idle);
            if map.len() >= self.caps.total {
                return Err(Refusal::TableFull);
            }
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
        if matches!(s.channel, Channel::Streamable) && s.last_seen.elapsed() >= self.idle {
            map.remove(id);
            return None;
        }
        s.last_seen = Instant::now();
        Some(Live {
            version: s.version,
            channel: s.channel.clone(),
        })
    }

    /// Records the revision an SSE session agreed in `initialize`.
    pub fn set_version(&self, id: &str, version: &'static str) {
        if let Some(s) = self.lock().get_mut(id) {
            s.version = version;
        }
    }

    /// Ends session `id` of `credential_id`; whether there was one.
    pub fn close(&self, id: &str, credential_id: &str) -> bool {
        let mut map = self.lock();
        if map
            .get(id)
            .is_some_and(|s| s.credential_id == credential_id)
        {
            map.remove(id);
            return true;
        }
        false
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
    fn sessions_belong_to_their_credential_and_expire_when_idle() {
        let caps = |total| Caps {
            per_credential: 8,
            per_tenant: 8,
            total,
        };
        let s = Sessions::new(caps(2), Duration::from_millis(0));
        let a = s
            .open("cred-a", "t", "2025-11-25", Channel::Streamable)
            .unwrap();
        assert!(
            s.touch(&a, "cred-b").is_none(),
            "another credential never reaches it"
        );
        assert!(!s.close(&a, "cred-b"));
        // idle 0: the session has expired by the time it is touched
        assert!(s.touch(&a, "cred-a").is_none());
        let s = Sessions::new(caps(1), Duration::from_secs(60));
        let a = s
            .open("cred-a", "t", "2025-11-25", Channel::Streamable)
            .unwrap();
        assert_eq!(
            s.open("cred-b", "u", "2025-11-25", Channel::Streamable),
            Err(Refusal::TableFull)
        );
        assert_eq!(s.touch(&a, "cred-a").unwrap().version, "2025-11-25");
        assert!(s.close(&a, "cred-a"));
        assert!(s.is_empty());
    }

    #[test]
    fn a_credential_at_its_cap_replaces_its_own_oldest_session() {
        let caps = Caps {
            per_credential: 2,
            per_tenant: 3,
            total: 100,
        };
        let s = Sessions::new(caps, Duration::from_secs(60));
        let open = |c: &str, t: &str| s.open(c, t, "2025-11-25", Channel::Streamable);
        let first = open("a", "t").unwrap();
        let second = open("a", "t").unwrap();
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
        // …and another tenant is not affected.
        assert!(open("d", "u").is_ok());
    }
}
