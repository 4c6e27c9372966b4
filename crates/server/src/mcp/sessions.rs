//! Session-era MCP sessions, held in memory: a gateway restart forgets them, and a client that
//! comes back with a forgotten id is answered 404 so it starts a new one. Each session is bound
//! to the credential that opened it; another credential's token never reaches it.

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
    version: &'static str,
    channel: Channel,
    last_seen: Instant,
}

/// What a request on a live session needs.
pub struct Live {
    pub version: &'static str,
    pub channel: Channel,
}

/// The table of open sessions.
pub struct Sessions {
    map: Mutex<HashMap<String, Session>>,
    max: usize,
    idle: Duration,
}

impl Default for Sessions {
    fn default() -> Self {
        Self::new(20_000, Duration::from_secs(3600))
    }
}

impl Sessions {
    /// A table holding at most `max` sessions; Streamable HTTP sessions unused for `idle` go.
    pub fn new(max: usize, idle: Duration) -> Self {
        Self {
            map: Mutex::new(HashMap::new()),
            max,
            idle,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
        self.map.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Opens a session; `None` when the table is full even after idle sessions are dropped.
    pub fn open(
        &self,
        credential_id: &str,
        version: &'static str,
        channel: Channel,
    ) -> Option<String> {
        let mut map = self.lock();
        if map.len() >= self.max {
            let idle = self.idle;
            map.retain(|_, s| matches!(s.channel, Channel::Sse(_)) || s.last_seen.elapsed() < idle);
            if map.len() >= self.max {
                return None;
            }
        }
        let id = hex::encode(pp_store::random_bytes::<16>().ok()?);
        map.insert(
            id.clone(),
            Session {
                credential_id: credential_id.to_owned(),
                version,
                channel,
                last_seen: Instant::now(),
            },
        );
        Some(id)
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
        let s = Sessions::new(2, Duration::from_millis(0));
        let a = s.open("cred-a", "2025-11-25", Channel::Streamable).unwrap();
        assert!(
            s.touch(&a, "cred-b").is_none(),
            "another credential never reaches it"
        );
        assert!(!s.close(&a, "cred-b"));
        // idle 0: the session has expired by the time it is touched
        assert!(s.touch(&a, "cred-a").is_none());
        let s = Sessions::new(1, Duration::from_secs(60));
        let a = s.open("cred-a", "2025-11-25", Channel::Streamable).unwrap();
        assert!(
            s.open("cred-a", "2025-11-25", Channel::Streamable)
                .is_none(),
            "full"
        );
        assert_eq!(s.touch(&a, "cred-a").unwrap().version, "2025-11-25");
        assert!(s.close(&a, "cred-a"));
        assert!(s.is_empty());
    }
}
